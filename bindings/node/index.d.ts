// Type declarations for respite (bindings/node).
import { EventEmitter } from 'node:events';

export type OutcomeName = 'success' | 'request_error' | 'throttled' | 'server_error' | 'unusable' | 'transport';
/** An outcome name, an HTTP status, or a description of the answer. */
export type OutcomeSpec =
  | OutcomeName
  | number
  | { status?: number; statusCode?: number; bodyUsable?: boolean; transport?: boolean; outcome?: OutcomeName; retryAfter?: number };
export type GateState = 'closed' | 'open' | 'probing';

export interface Logger {
  warn?(message: string, event: GateEvent): void;
  info?(message: string, event: GateEvent): void;
  log?(message: string, event: GateEvent): void;
}

/** Gate settings (spec section 2) in camelCase; snake_case keys are accepted too. */
export interface GateOptions {
  profile?: 'cloud_request' | 'usage_sharing' | 'cloudRequest' | 'usageSharing';
  failuresToEnterRecovery?: number;
  failuresWindowSeconds?: number;
  recoverySeconds?: number;
  recoveryMultiplier?: number;
  maxRecoverySeconds?: number;
  probes?: number;
  probeTimeoutSeconds?: number;
  recoverNever?: boolean;
  countAllFailures?: boolean;
  honourRetryAfter?: boolean;
  jitter?: number;
  seed?: number | bigint | string;
  /** Receives every event: warn when sending pauses or a pause grows, info otherwise. */
  logger?: Logger;
  [setting: string]: unknown;
}

export interface BackoffOptions {
  maxAttempts?: number;
  initialDelaySeconds?: number;
  multiplier?: number;
  maxDelaySeconds?: number;
  jitter?: 'none' | 'full' | 'equal' | 'decorrelated';
  retryOn?: Array<OutcomeName | number> | string;
  seed?: number | bigint | string;
  [setting: string]: unknown;
}

export interface Decision {
  allowed: boolean;
  probe: boolean;
  /** Report the call's outcome with it (0 when refused). */
  permit: number;
  /** Refused: seconds until a call may be admitted (Infinity under recoverNever). */
  retryAfter: number;
}

export interface GateStats {
  admitted: number;
  refused: number;
  reported: number;
  countedFailures: number;
  late: number;
  trips: number;
  probes: number;
  probeTimeouts: number;
  eventsDropped: number;
  generation: number;
  windowFailures: number;
  state: GateState;
  delay: number;
  until: number;
}

export interface GateEvent {
  type: 'recovery_started' | 'recovery_extended' | 'probing' | 'recovered' | 'reset' | 'send_failed' | 'unsent_at_close';
  at: number;
  warning: boolean;
  failures?: number;
  window?: number;
  pause?: number;
  httpStatus?: number;
  detail?: string;
  count?: number;
}

/** The recovery gate. Emits 'event' and each event's type. */
export class Gate extends EventEmitter {
  constructor(options?: GateOptions);
  readonly closed: boolean;
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
  handlers: Array<{ on: 'client_error' | 'server_error' | 'any_error' | number[] | string; strategy: 'discard' | 'retry' }>;
  retryTimes?: number;
  eventTtl?: number;
  prefetchCount?: number;
}

export class Policy {
  static fromJSON(document: string | object): Policy;
  static build(spec: PolicySpec): Policy;
  static default(): Policy;
  readonly closed: boolean;
  readonly name: string;
  readonly maximumCapacity: number;
  readonly retryTimes: number;
  readonly eventTtl: number;
  readonly prefetchCount: number;
  readonly handlers: Array<{ on: string; strategy: 'discard' | 'retry' }>;
  strategyFor(failure: number | { transport: true } | { status: number }): 'discard' | 'retry';
  toJSON(): object;
  close(): void;
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

/** Runs fn(attempt) until it succeeds or the back-off says stop, waiting with timers. */
export function retry<T>(fn: (attempt: number) => T | PromiseLike<T>, backoff?: Backoff | BackoffOptions, options?: RetryOptions): Promise<T>;
export function now(): number;
export function classify(httpStatus: number, options?: { transport?: boolean; bodyUsable?: boolean }): OutcomeName;
export function outcome(spec: OutcomeSpec): OutcomeName;
export function outcomeCounts(spec: OutcomeSpec, options?: { countAllFailures?: boolean }): boolean;
export function refusalMessage(retryAfter: number | null): string;
export function settingsTable(): Array<{
  component: string; name: string; type: string; defaultNumber: number; defaultText: string | null;
  min: number; max: number; choices: string | null; accepted: string; doc: string;
}>;
export const OUTCOMES: OutcomeName[];
export const STATUS_NAMES: string[];

/** Root of every error raised by respite; `code` is the core's status name. */
export class RespiteError extends Error {
  code: string;
}
export class InvalidArgumentError extends RespiteError {}
export class InvalidSettingError extends RespiteError {
  /** The setting's name (snake_case, as in the spec). */
  setting: string;
}
export class InvalidTimeError extends RespiteError {}
export class TemporarilyUnavailableError extends RespiteError {
  /** Seconds until a call may be admitted; Infinity under recoverNever. */
  retryAfter: number;
}
export class InvalidPolicyError extends RespiteError {
  problems: PolicyProblem[];
}
export class QueueFullError extends RespiteError {}
export class TooLargeError extends RespiteError {}
export class ClosedError extends RespiteError {}
export class NoMemoryError extends RespiteError {}
export class TransportError extends RespiteError {}
export class InternalError extends RespiteError {}
