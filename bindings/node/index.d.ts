// Type declarations for respite (bindings/node). Settings, enumerations and
// errors come from the core's tables (generated/*.d.ts).
import { EventEmitter } from 'node:events';
import type {
  OutcomeName, GateStateName, DispositionName, ActionName, StrategyName, ProfileName, SettingInfo,
  GateSettings, BackoffSettings, QueueSettings, SenderSettings, ClientSettings, FleetSettings,
} from './generated/tables';
import type { TransportError } from './generated/errors';
import type { Decision, GateEvent, GateStats, QueueStats, EngineStats, SenderStats, FleetView } from './generated/structs';

export * from './generated/errors';
export type { OutcomeName, SettingInfo, Decision, GateEvent, GateStats, QueueStats, EngineStats, SenderStats, FleetView };
export { OUTCOMES, STATUS_NAMES, DISPOSITIONS, ACTIONS } from './generated/tables';
/** An outcome name, an HTTP status, or a description of the answer. */
export type OutcomeSpec =
  | OutcomeName
  | number
  | { status?: number; statusCode?: number; bodyUsable?: boolean; transport?: boolean; outcome?: OutcomeName; retryAfter?: number };
export type GateState = GateStateName;

/**
 * Options of type O that are a Shape and have no other key: an unknown key (a typo) is a type
 * error also when the options are a variable, not only an object literal.
 */
export type Exact<O, Shape> = O & Shape & { [K in Exclude<keyof O, keyof Shape>]: never };

/** What a protected function is called with (Gate#run, Retry, wrap). */
export interface CallContext {
  /** Always an AbortSignal (one that never aborts when the caller gave none): pass it on, e.g. fetch(url, { signal }). */
  readonly signal: AbortSignal;
  /** 1 for the first attempt; counts up under a Retry. */
  readonly attempt: number;
}

/** Options of a protected call. */
export interface RunOptions {
  /** Aborted: the call rejects with its reason (before the gate is asked, or between retries). */
  signal?: AbortSignal;
}

/**
 * A classifier's answer: true counts against the service, false does not (an error is the
 * caller's own: told to the gate as request_error and re-raised), an outcome name, status or
 * description says which outcome, undefined (or null) keeps the default.
 */
export type Verdict = boolean | OutcomeSpec | null | undefined;
/** A class of errors. */
export type ErrorClass = abstract new (...args: any[]) => unknown;

/** Which results and errors of a protected function count (default: see Classifier). */
export interface ClassifySpec {
  /** An error fn threw; or the error classes that count (other errors: the default). */
  error?: ((error: unknown) => Verdict) | ReadonlyArray<ErrorClass>;
  /** A value fn returned (default: its HTTP status, `status` or `statusCode`, else success). */
  result?: (value: unknown) => Verdict;
}

/**
 * By default an error counts only when it is the transport's or the service's: an `outcome`
 * name, an HTTP status (its own or its `response`'s), a Node/undici network code (also as its
 * `cause`), a TimeoutError; any other error is the caller's own.
 */
export class Classifier {
  constructor(spec?: ClassifySpec);
  /** The core's outcome number, or -1: the caller's own error. */
  error(error: unknown): number;
  value(value: unknown): number;
}

/** Something wrap() composes: runs fn(context) inside itself. */
export interface Layer {
  run(fn: (context: CallContext) => unknown, context?: RunOptions | CallContext): Promise<unknown>;
}

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
  /** Which results and errors of run() count (also for a Retry wrapping this gate). */
  classify?: ClassifySpec | Classifier;
  /** Makes it a fleet gate (spec section 11): the hosts' gates of one `name` share their openings through Redis. */
  fleet?: FleetSettings;
}

export type BackoffOptions = BackoffSettings;

/** The events a gate emits (G18); 'event' carries every one. */
export type GateEventType = 'recovery_started' | 'recovery_extended' | 'probing' | 'recovered' | 'reset'
  | 'fleet_paused' | 'fleet_store_lost' | 'fleet_rejoined' | 'fleet_probing';
/** The events a sender or engine emits besides its gate's. */
export type SenderEventType = GateEventType | 'send_failed' | 'unsent_at_close';
/** The event object for a listener of `K` ('event': any of Names). */
export type EventFor<K, Names extends string> = GateEvent & { type: K extends 'event' ? Names : K };

/** An EventEmitter whose listeners are typed by event name. Not a runtime class. */
declare class TypedEmitter<Names extends string> extends EventEmitter {
  on<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  once<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  off<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  addListener<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  removeListener<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  prependListener<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
  prependOnceListener<K extends Names | 'event'>(event: K, listener: (event: EventFor<K, Names>) => void): this;
}

/** The recovery gate. Emits 'event' and each event's type. */
export interface Gate extends TypedEmitter<GateEventType>, Layer {
  /** Judges run()'s results and errors. */
  readonly classifier: Classifier;
  readonly closed: boolean;
  /** The `name` setting ('' when unset), which starts the gate's log lines; null once closed. */
  readonly name: string | null;
  close(): void;
  check(now?: number): Decision;
  /** A permit, or throws TemporarilyUnavailableError. */
  acquire(now?: number): number;
  report(permit: number, outcome: OutcomeSpec, options?: { retryAfter?: number; now?: number }): void;
  record(outcome: OutcomeSpec, options?: { retryAfter?: number; now?: number }): void;
  /** Ends a permit without an outcome (the caller gave up on the call): nothing counts; a probe's slot is freed. */
  release(permit: number, now?: number): void;
  retryAfter(now?: number): number;
  state(now?: number): GateState;
  reset(now?: number): void;
  stats(): GateStats;
  /** A fleet gate's fleet as its thread last read it (F12); null for a gate made without `fleet`. */
  fleetView(): FleetView | null;
  /**
   * Runs fn(context) through the gate; refused → rejects with TemporarilyUnavailableError, fn
   * not called; otherwise fn's own promise (or one settling as fn did): the result or error is
   * classified (classifier) and reported before code awaiting it resumes. A classifier or listener
   * that throws meanwhile is a process warning, never the call's outcome (a classifier's throw
   * releases the permit). An error after the context's signal aborted is released uncounted.
   */
  run<T>(fn: (context: CallContext) => T | PromiseLike<T>, options?: RunOptions | CallContext): Promise<T>;
  /** Emits the events waiting for this handle now: on a shared gate, transitions other handles or processes made; on a fleet gate, its thread's. */
  pollEvents(): void;
}
export const Gate: { new <O extends GateOptions = {}>(options?: Exact<O, GateOptions>): Gate; readonly prototype: Gate };

export interface Backoff {
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
export const Backoff: { new <O extends BackoffOptions = {}>(options?: Exact<O, BackoffOptions>): Backoff; readonly prototype: Backoff };

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
export interface Queue {
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
export const Queue: { new <O extends QueueOptions = {}>(options?: Exact<O, QueueOptions>): Queue; readonly prototype: Queue };

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
  /** The event's id: increasing, never reused in its queue (L3). */
  id(index: number): number;
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
export interface DeliveryEngine extends TypedEmitter<'unsent_at_close'> {
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
}
export const DeliveryEngine: { new <O extends DeliveryEngineOptions>(options: Exact<O, DeliveryEngineOptions>): DeliveryEngine; readonly prototype: DeliveryEngine };

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
  /** Aborted: rejects at once with its reason (no request when already aborted; a transfer under way runs to its end on the addon's thread, unseen). */
  signal?: AbortSignal;
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
export interface Client {
  readonly closed: boolean;
  readonly gate: Gate | null;
  /** Rejects with TemporarilyUnavailableError (no I/O) when the gate refuses. */
  request<O extends RequestOptions>(options: Exact<O, RequestOptions>): Promise<Response>;
  get(url: string, options?: { headers?: HeadersInit; signal?: AbortSignal }): Promise<Response>;
  post(url: string, body?: Payload, options?: { headers?: HeadersInit; signal?: AbortSignal }): Promise<Response>;
  /** C4: the caller could not use a 2xx/3xx answer. */
  reportUnusable(response: Response): void;
  close(): void;
}
export const Client: { new <O extends ClientOptions = {}>(options?: Exact<O, ClientOptions>): Client; readonly prototype: Client };

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
export interface Sender extends TypedEmitter<SenderEventType> {
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
export const Sender: { new <O extends SenderOptions>(options: Exact<O, SenderOptions>): Sender; readonly prototype: Sender };

export class Settings {
  constructor(target: 'gate' | 'cloud_request' | 'usage_sharing' | 'cloudRequest' | 'usageSharing', options?: GateSettings);
  constructor(target: 'backoff', options?: BackoffSettings);
  constructor(target: 'queue', options?: QueueSettings);
  constructor(target: 'sender', options?: SenderSettings);
  constructor(target: 'client', options?: ClientSettings);
  readonly component: string;
  get(name: string): number | boolean | string;
  close(): void;
}

/** What onRetry is told before each wait (B19). */
export interface RetryInfo {
  /** The attempt that failed, 1 for the first. */
  attempt: number;
  /** Seconds until the next attempt (the schedule's, also under testing.immediateRetries). */
  delay: number;
  outcome: OutcomeName;
  /** The failure's HTTP status; 0 when none. */
  status: number;
  /** The error the attempt threw, if it threw. */
  error?: unknown;
  /** The value the attempt resolved with, when that value is the failure (a 503 response). */
  result?: unknown;
}

/** Options of a Retry. */
export interface RetryPolicyOptions {
  /** Which results and errors count, and so are retried (default: the gate's inside it). */
  classify?: ClassifySpec | Classifier;
  /** Called before each wait; what it throws rejects the call (no wait, no further attempt). */
  onRetry?(info: RetryInfo): void;
}

export interface RetryOptions extends RetryPolicyOptions {
  /** Every attempt runs through it (a refusal rejects at once). */
  gate?: Gate;
  signal?: AbortSignal;
}

/**
 * Retries as a layer: run(fn) calls fn({signal, attempt}) until it succeeds or the back-off
 * says stop; gives up with a TransportError (the core's message, B14) carrying `attempts`,
 * `lastOutcome`, and the last error as `cause` or the last resolved value as `result` (B20); the
 * caller's own error is re-raised unchanged; a gate's refusal rejects at once.
 */
export interface Retry extends Layer {
  readonly backoff: Backoff;
  /** Its own classifier, or null: the gate's inside it. */
  readonly classifier: Classifier | null;
  /** Frees a back-off made from options. */
  close(): void;
  run<T>(fn: (context: CallContext) => T | PromiseLike<T>, options?: RunOptions | CallContext): Promise<T>;
}
export const Retry: { new <O extends BackoffOptions = {}>(backoff?: Backoff | Exact<O, BackoffOptions>, options?: RetryPolicyOptions): Retry; readonly prototype: Retry };

/** Answers for failures of what it wraps with a value, or with what a function makes of the error. */
export class Fallback<F = unknown> implements Layer {
  constructor(
    fallback: F | ((error: unknown, context: CallContext) => F | PromiseLike<F>),
    options?: { on?: ReadonlyArray<ErrorClass> | ((error: unknown) => boolean) },
  );
  run<T>(fn: (context: CallContext) => T | PromiseLike<T>, options?: RunOptions | CallContext): Promise<T | F>;
}

/** Layers composed, the first the outermost. */
export interface Wrapped extends Layer {
  run<T>(fn: (context: CallContext) => T | PromiseLike<T>, options?: RunOptions | CallContext): Promise<T>;
}

/** wrap(fallback, retry, gate).run(fn, { signal }): fn inside every layer; a Backoff stands for new Retry(backoff). */
export function wrap(...layers: Array<Layer | Backoff>): Wrapped;

/** Retry#run with fn(attempt, context), each attempt through options.gate. */
export function retry<T, B extends BackoffOptions = {}, R extends RetryOptions = {}>(
  fn: (attempt: number, context: CallContext) => T | PromiseLike<T>,
  backoff?: Backoff | Exact<B, BackoffOptions>,
  options?: Exact<R, RetryOptions>,
): Promise<T>;
/** A function shaped like the global fetch (undici's, node-fetch's, a test double). */
export type FetchFunction = (input: string | URL | globalThis.Request, init?: RequestInit) => Promise<globalThis.Response>;
export interface GateFetchOptions {
  /** The fetch to wrap; default globalThis.fetch. */
  fetch?: FetchFunction;
  /** Retries through the core's back-off, each attempt through the gate; default one attempt. */
  retry?: Retry | Backoff | BackoffOptions;
}
/**
 * fetch through the gate: refused while paused with no network call (TemporarilyUnavailableError
 * with retryAfter); transport errors, 5xx and 429 count, other 4xx never; a 429/503's
 * Retry-After is the gate's hint; init.signal (or the Request's) is passed on, and an aborted
 * call counts nothing. Resolves with the last Response, as fetch does.
 */
export function gateFetch<O extends GateFetchOptions = {}>(gate: Gate, options?: Exact<O, GateFetchOptions>): FetchFunction;
/** Helpers for test suites. */
export const testing: {
  /** The core's testing switch (B17), process-wide: every retry immediate, same decisions; returns the previous setting. */
  immediateRetries(on?: boolean): boolean;
};
export function now(): number;
export function classify(httpStatus: number, options?: { transport?: boolean; bodyUsable?: boolean }): OutcomeName;
export function outcome(spec: OutcomeSpec): OutcomeName;
export function outcomeCounts(spec: OutcomeSpec, options?: { countAllFailures?: boolean }): boolean;
export function refusalMessage(retryAfter: number | null): string;
/** The core's settings table (generated from respite_setting_at). */
export function settingsTable(): ReadonlyArray<SettingInfo>;

/**
 * Metrics (spec section 12): a snapshot of gates, queues and senders taken by the core.
 * Every metric's name, type, help and labels come from the core.
 */
export namespace metrics {
  /** One sample of a snapshot (respite_metric_sample). */
  interface Sample {
    readonly family: string;
    /** The family's name, "_total" added for a counter. */
    readonly name: string;
    readonly type: 'counter' | 'gauge' | 'stateset';
    /** "", "seconds" or "bytes". */
    readonly unit: string;
    readonly help: string;
    /** The handle's label first ({gate: name}), then a reason or a state. */
    readonly labels: Readonly<Record<string, string>>;
    readonly value: number;
  }
  type Handle = Gate | Queue | Sender;
  interface Options {
    /** What metric names start with instead of "respite". */
    prefix?: string;
  }
  /** A prom-client metric (registered by register). */
  interface PromMetric {
    readonly name: string;
    readonly help: string;
    readonly type: 'counter' | 'gauge';
    readonly aggregator: 'sum';
    get(): { name: string; help: string; type: 'counter' | 'gauge'; aggregator: 'sum'; values: Array<{ labels: Record<string, string>; value: number }> };
  }
  /** The Content-Type of render's text. */
  const CONTENT_TYPE: string;
  function samples(handles: ReadonlyArray<Handle>, options?: Options): Sample[];
  /** OpenMetrics text, ending "# EOF\n". */
  function render(handles: ReadonlyArray<Handle>, options?: Options): string;
  /** One prom-client metric per family, registered on `registry` (a prom-client Registry); every scrape reads the core anew. */
  function register(registry: { registerMetric(metric: PromMetric): void }, handles: ReadonlyArray<Handle>, options?: Options): PromMetric[];
}
