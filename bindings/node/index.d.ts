// Type declarations for respite (bindings/node). Settings, enumerations and
// errors come from the core's tables (generated/*.d.ts).
import { EventEmitter } from 'node:events';
import type {
  OutcomeName, GateStateName, DispositionName, ActionName, StrategyName, ProfileName, SettingInfo,
  GateSettings, BackoffSettings, QueueSettings, SenderSettings, ClientSettings,
} from './generated/tables';
import type { TransportError } from './generated/errors';
import type { Decision, GateEvent, GateStats, QueueStats, EngineStats, SenderStats } from './generated/structs';

export * from './generated/errors';
export type { OutcomeName, SettingInfo, Decision, GateEvent, GateStats, QueueStats, EngineStats, SenderStats };
export { OUTCOMES, STATUS_NAMES, DISPOSITIONS, ACTIONS } from './generated/tables';
/** An outcome name, an HTTP status, or a description of the answer. */
export type OutcomeSpec =
  | OutcomeName
  | number
  | { status?: number; statusCode?: number; bodyUsable?: boolean; transport?: boolean; outcome?: OutcomeName; retryAfter?: number };
export type GateState = GateStateName;

export interface Logger {
  warn?(message: string, event: GateEvent): void;
  info?(message: string, event: GateEvent): void;
  log?(message: string, event: GateEvent): void;
}

/** Gate settings (spec section 2) in camelCase, a profile, and a logger. */
export interface GateOptions extends GateSettings {
  profile?: ProfileName | 'cloudRequest' | 'usageSharing';
  /** Receives every event's line: warn when sending pauses or a pause grows, info otherwise. */
  logger?: Logger;
}

export type BackoffOptions = BackoffSettings;

/** The recovery gate. Emits 'event' and each event's type. */
export class Gate extends EventEmitter {
  constructor(options?: GateOptions);
  readonly closed: boolean;
  /** The `name` setting ('' when unset), which starts the gate's log lines; null once closed. */
  readonly name: string | null;
  close(): void;
  check(now?: number): Decision;
  /** A permit, or throws TemporarilyUnavailableError. */
  acquire(now?: number): number;
  report(permit: number, outcome: OutcomeSpec, options?: { retryAfter?: number; now?: number }): void;
  record(outcome: OutcomeSpec, options?: { retryAfter?: number; now?: number }): void;
  retryAfter(now?: number): number;
  state(now?: number): GateState;
  reset(now?: number): void;
  stats(): GateStats;
  /** Runs fn through the gate; refused → rejects with TemporarilyUnavailableError, fn not called. */
  run<T>(fn: () => T | PromiseLike<T>): Promise<T>;
  on(event: 'event' | GateEvent['type'], listener: (event: GateEvent) => void): this;
  /** Emits the events waiting for this handle now: on a shared gate, transitions other handles or processes made. */
  pollEvents(): void;
}

export class Backoff {
  constructor(options?: BackoffOptions);
  readonly closed: boolean;
  readonly maxAttempts: number;
  close(): void;
  start(): number;
  delay(sequence: number, retry: number, retryAfter?: number): number;
  retriesOn(outcome: OutcomeSpec): boolean;
  /** Seconds before the next attempt, or null: stop. */
  next(sequence: number, attempt: number, outcome: OutcomeSpec, retryAfter?: number): number | null;
  /** The core's give-up error (B14) for a retry loop of one's own: returned, not thrown. */
  gaveUp(attempts: number, outcome: OutcomeSpec): TransportError;
}

export interface PolicyProblem {
  pointer: string;
  message: string;
  line?: number;
  column?: number;
}

export interface PolicySpec {
  name: string;
  maximumCapacity: number;
  handlers: Array<{ on: 'client_error' | 'server_error' | 'any_error' | number[] | string; strategy: StrategyName }>;
  retryTimes?: number;
  eventTtl?: number;
  prefetchCount?: number;
}

export class Policy {
  static fromJSON(document: string | ArrayBufferView | object): Policy;
  static build(spec: PolicySpec): Policy;
  static default(): Policy;
  readonly closed: boolean;
  readonly name: string;
  readonly maximumCapacity: number;
  readonly retryTimes: number;
  readonly eventTtl: number;
  readonly prefetchCount: number;
  readonly handlers: Array<{ on: string; strategy: StrategyName }>;
  strategyFor(failure: number | { transport: true } | { status: number }): StrategyName;
  toJSON(): object;
  close(): void;
}

export type Payload = string | Buffer | Uint8Array;
export type Disposition = DispositionName;
export type EngineAction = ActionName;

/** Queue settings (spec section 8.3) in camelCase, and the policy (absent: @default). */
export interface QueueOptions extends QueueSettings {
  policy?: Policy | null;
}

/** The bounded delivery queue (spec section 4). close() frees it (closing engines that use it first). */
export class Queue {
  constructor(options?: QueueOptions);
  readonly policy: Policy | null;
  readonly closed: boolean;
  close(): void;
  /** Throws QueueFullError, TooLargeError, ClosedError (after shutdown), InvalidArgumentError (empty). */
  enqueue(payload: Payload, now?: number): void;
  /** Refuses every later enqueue; taking and settling go on (Q1). */
  shutdown(): void;
  readonly isShutDown: boolean;
  readonly pending: number;
  /** Drops events whose age reached event_ttl (D6); returns how many. */
  expire(now?: number): number;
  /** Up to maxEvents events as an in-flight batch, or null when none is pending. */
  take(maxEvents?: number, now?: number): Batch | null;
  stats(): QueueStats;
  /** Throws InternalError with every figure when D9 does not hold. */
  checkAccounting(): void;
}

/** Events taken together, read by index (0 is the oldest). */
export class Batch {
  readonly closed: boolean;
  readonly length: number;
  readonly unsettled: number;
  /** Frees a queue's batch: retried and unsettled events go back to the head (D4, Q5). */
  close(): void;
  /** The payload as text: read as a C string, so it stops at the first NUL byte; use bytes() for binary payloads. */
  text(index: number): string;
  /** The payload's exact bytes. */
  bytes(index: number): Buffer;
  /** text() of every event. */
  texts(): string[];
  /** bytes() of every event. */
  buffers(): Buffer[];
  attempts(index: number): number;
  age(index: number, now?: number): number;
  /** null while not settled. */
  disposition(index: number): Disposition | null;
  /** The disposition applied ('retry' may become 'retries_exhausted', D3). */
  settle(index: number, disposition: Disposition): Disposition;
  settleAll(disposition: Disposition): number;
}

/** How a send ended: an HTTP status, or the request did not complete. */
export type SendAnswer = number | { status: number; retryAfter?: number } | { statusCode: number; retryAfter?: number } | { transport: true; retryAfter?: number };

/** The engine settles by its queue's policy. */
export interface DeliveryEngineOptions extends Pick<SenderSettings, 'name' | 'minEntriesPerMessage' | 'maxEntriesPerMessage' | 'closeTimeoutSeconds'> {
  queue: Queue;
  gate: Gate;
  /** Receives unsent_at_close (a warning). */
  logger?: Logger;
}

/** The sender's decisions (spec section 5) over a queue, its policy and a gate; no I/O. Emits 'unsent_at_close' and 'event'. */
export class DeliveryEngine extends EventEmitter {
  constructor(options: DeliveryEngineOptions);
  readonly closed: boolean;
  readonly queue: Queue;
  readonly gate: Gate;
  /** Frees the engine; a batch in flight goes back to the head of the queue. */
  close(): void;
  next(now?: number): EngineAction;
  /** After 'wait': seconds until the gate admits (Infinity under recoverNever). */
  readonly waitSeconds: number;
  /** The next batch, admitted through the gate, or null; throws TemporarilyUnavailableError while the gate refuses. */
  take(now?: number): Batch | null;
  /** Reports how the send of `batch` ended; settles and frees it (S3). */
  settle(batch: Batch, answer: SendAnswer, options?: { retryAfter?: number; now?: number }): void;
  /** S5: the queue refuses new events; next() drains it, then answers 'done'. */
  shutdown(now?: number): void;
  readonly closing: boolean;
  /** Events left unsent at 'done'; null before. */
  readonly unsent: number | null;
  readonly minEntries: number;
  readonly maxEntries: number;
  stats(): EngineStats;
  on(event: 'event' | 'unsent_at_close', listener: (event: GateEvent) => void): this;
}

/** Request headers: an object, a Map, [name, value] pairs, or "Name: value" lines. */
export type HeadersInit = Record<string, string | number> | Map<string, string | number> | Array<[string, string | number]> | string;

export interface ClientOptions extends ClientSettings {
  /** Asked before every attempt (the core keeps it alive while the client uses it). */
  gate?: Gate | null;
  /** The retries (default: one attempt). */
  backoff?: Backoff | null;
}

export interface RequestOptions {
  method?: string;
  url: string;
  headers?: HeadersInit;
  body?: Payload;
}

/** One call's result (spec C8). */
export class Response {
  /** 0 when the transport failed. */
  readonly status: number;
  readonly outcome: OutcomeName;
  readonly ok: boolean;
  readonly body: Buffer;
  /** The transport error's text; '' otherwise. */
  readonly error: string;
  /** Retry-After of a 429/503 in seconds; 0 when none. */
  readonly retryAfter: number;
  readonly attempts: number;
  /** Seconds, sleeps between attempts included. */
  readonly elapsed: number;
  readonly headers: { get(name: string): string | null; has(name: string): boolean };
  readonly closed: boolean;
  text(): string;
  json(): unknown;
  close(): void;
}

/** HTTP calls through a gate (spec section 6); the blocking call runs off the event loop. */
export class Client {
  constructor(options?: ClientOptions);
  readonly closed: boolean;
  readonly gate: Gate | null;
  /** Rejects with TemporarilyUnavailableError (no I/O) when the gate refuses. */
  request(options: RequestOptions): Promise<Response>;
  get(url: string, options?: { headers?: HeadersInit }): Promise<Response>;
  post(url: string, body?: Payload, options?: { headers?: HeadersInit }): Promise<Response>;
  /** C4: the caller could not use a 2xx/3xx answer. */
  reportUnusable(response: Response): void;
  close(): void;
}

export interface SenderOptions extends GateSettings, QueueSettings, SenderSettings {
  url: string;
  gate?: GateOptions;
  queue?: QueueSettings;
  /** A Policy, its JSON text or object (default @default). */
  policy?: Policy | string | PolicySpec | Record<string, unknown>;
  /** Added to every request. */
  headers?: Record<string, string> | Map<string, string> | Array<[string, string]>;
  logger?: Logger;
  /** How often the sender's events are looked for (default 50). */
  eventIntervalMs?: number;
}

/** The background sender (spec section 5). Emits 'event' and each event's type (GateEvent). */
export class Sender extends EventEmitter {
  constructor(options: SenderOptions);
  readonly closed: boolean;
  addHeader(name: string, value: string): void;
  /** Never waits for the network. */
  enqueue(payload: Payload): void;
  /** Resolves when nothing is pending; TemporarilyUnavailableError at once while paused; TransportError on time out. */
  flush(timeoutSeconds?: number): Promise<void>;
  /** Resolves with the number of events not sent; frees the native sender. */
  close(): Promise<number>;
  /** After close: the figures at close. */
  stats(): SenderStats;
}

export class Settings {
  constructor(target: string, options?: Record<string, unknown>);
  readonly component: string;
  get(name: string): number | boolean | string;
  close(): void;
}

export interface RetryOptions {
  gate?: Gate;
  signal?: AbortSignal;
  onRetry?(info: { attempt: number; delay: number; outcome: OutcomeName; error?: unknown }): void;
}

/**
 * Runs fn(attempt) until it succeeds or the back-off says stop, waiting with timers.
 * Gives up with a TransportError (the core's message, B14) carrying `attempts`,
 * `lastOutcome`, and the last error as `cause` or the last resolved value as `response`.
 */
export function retry<T>(fn: (attempt: number) => T | PromiseLike<T>, backoff?: Backoff | BackoffOptions, options?: RetryOptions): Promise<T>;
export function now(): number;
export function classify(httpStatus: number, options?: { transport?: boolean; bodyUsable?: boolean }): OutcomeName;
export function outcome(spec: OutcomeSpec): OutcomeName;
export function outcomeCounts(spec: OutcomeSpec, options?: { countAllFailures?: boolean }): boolean;
export function refusalMessage(retryAfter: number | null): string;
/** The core's settings table (generated from respite_setting_at). */
export function settingsTable(): ReadonlyArray<SettingInfo>;
