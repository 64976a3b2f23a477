// A small app using every public name of respite: must type-check
// (test/types.test.js runs tsc --noEmit --strict on it).
import {
  Gate, Backoff, Retry, Fallback, wrap, Classifier, Policy, Queue, Batch, DeliveryEngine, Client, Response, Sender,
  Settings, retry, testing, gateFetch, now, classify, outcome, outcomeCounts, refusalMessage, settingsTable,
  OUTCOMES, STATUS_NAMES, DISPOSITIONS, ACTIONS, metrics,
  RespiteError, InvalidArgumentError, InvalidSettingError, InvalidTimeError, TemporarilyUnavailableError,
  InvalidPolicyError, QueueFullError, TooLargeError, ClosedError, NoMemoryError, TransportError, InternalError, StorageError,
  CancelledError,
} from '../../index.js';
import type { CallContext, FleetView, GateEvent, GateOptions, Layer, OutcomeName, RetryInfo, Wrapped } from '../../index.js';

class QuotaError extends Error {}

const options = { failuresToEnterRecovery: 5, recoverySeconds: 30, logger: console };
const gate = new Gate({
  ...options,
  classify: { error: [QuotaError], result: (value) => (value as { status?: number }).status === 503 || undefined },
});
const fromVariable = new Gate(options);
const typed: GateOptions = { probes: 2, classify: new Classifier({ error: () => true }) };
new Gate(typed).close();
// A fleet gate: typed only here (test/fleet.test.js runs one against Redis).
const fleetOptions: GateOptions = { name: 'billing', fleet: { fleetUrl: 'redis://127.0.0.1:6379', fleetQuorum: 2 } };
const fleetView: FleetView | null = new Gate(fleetOptions).fleetView();
void fleetView?.connected;
gate.on('recovery_started', (event) => console.log(event.pause, event.failures, event.message));
gate.on('event', (event: GateEvent) => console.log(event.type));

const backoff = new Backoff({ maxAttempts: 4, jitter: 'full', retryOn: ['transport', 429, 503], maxElapsedSeconds: 10 });
const onRetry = (info: RetryInfo): void => console.log(info.attempt, info.delay, info.outcome, info.status, info.error, info.result);
const wasImmediate: boolean = testing.immediateRetries(true);
testing.immediateRetries(wasImmediate);
const retrying = new Retry(backoff, { onRetry });
const layers: Layer[] = [new Fallback('cached', { on: [TemporarilyUnavailableError] }), retrying, gate];
const policy: Wrapped = wrap(...layers);

async function main(signal: AbortSignal): Promise<void> {
  const status: number = await gate.run(({ signal: inner }: CallContext) => fetch('http://localhost/', { signal: inner }).then((r) => r.status), { signal });
  const text: string = await policy.run(async ({ attempt }) => `attempt ${attempt}`, { signal });
  const value: number = await retry(async (attempt, { signal: inner }) => attempt + Number(inner.aborted), { maxAttempts: 2 }, { gate, signal, onRetry });
  const guarded = gateFetch(gate, { retry: { maxAttempts: 3 } });
  const fetched: globalThis.Response = await guarded('http://localhost/', { signal });
  gate.release(gate.acquire());
  const client = new Client({ gate, backoff, timeoutSeconds: 2, userAgent: 'app' });
  const response: Response = await client.request({ url: 'http://localhost/', method: 'POST', body: 'x', headers: { a: 'b' }, signal });
  const answer = await client.get('http://localhost/', { signal });
  console.log(status, text, value, fetched.status, response.outcome, answer.headers.get('content-type'));
  client.close();

  const queue = new Queue({ policy: Policy.default(), overflow: 'drop_oldest', maxBytes: 1 << 20 });
  queue.enqueue('{"a":1}');
  const engine = new DeliveryEngine({ queue, gate, minEntriesPerMessage: 1, logger: console });
  engine.on('unsent_at_close', (event) => console.log(event.count));
  if (engine.next() === 'send') {
    const batch: Batch | null = engine.take();
    if (batch) engine.settle(batch, { status: 200 });
  }
  const sender = new Sender({ url: 'http://localhost/', gate: { recoverySeconds: 2 }, gzip: true, policy: { name: 'p', maximum_capacity: 10 } });
  sender.on('send_failed', (event) => console.log(event.httpStatus, event.detail));
  sender.on('recovered', (event) => console.log(event.source));
  await sender.flush(1);
  const scraped: metrics.Sample[] = metrics.samples([sender], { prefix: 'app' });
  const registered: metrics.PromMetric[] = metrics.register({ registerMetric() {} }, [sender]);
  console.log(scraped[0]?.labels, registered.length, metrics.render([sender]), metrics.CONTENT_TYPE);
  console.log(await sender.close(), sender.stats().queue);
  const settings = new Settings('gate', { probes: 2 });
  const outcomes: ReadonlyArray<OutcomeName> = OUTCOMES;
  console.log(settings.get('probes'), outcomes, STATUS_NAMES, DISPOSITIONS, ACTIONS, now(), classify(503), outcome(429));
  console.log(outcomeCounts('transport'), refusalMessage(3), settingsTable().length, fromVariable.stats());
  const errors = [RespiteError, InvalidArgumentError, InvalidSettingError, InvalidTimeError, TemporarilyUnavailableError,
    InvalidPolicyError, QueueFullError, TooLargeError, ClosedError, NoMemoryError, TransportError, InternalError, StorageError, CancelledError];
  console.log(errors.map((type) => type.name));
}

main(new AbortController().signal).catch((error: unknown) => {
  if (error instanceof TemporarilyUnavailableError) console.log(error.retryAfter);
  else if (error instanceof InvalidSettingError) console.log(error.setting);
});
