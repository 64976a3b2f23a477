'use strict';
// Retry: runs fn until it succeeds or the core's retry decision
// (respite_retry_decide) gives up, each attempt through the gate if there is
// one; this loop only waits between decisions, with timers (the event loop
// is never blocked), and stops when the caller's AbortSignal aborts.
const { setTimeout: sleep } = require('node:timers/promises');
const native = require('./native');
const { Backoff } = require('./backoff');
const { TemporarilyUnavailableError } = require('./errors');
const { OUTCOMES, httpStatusOf, hintOf } = require('./outcome');
const { DEFAULT_CLASSIFIER, classifierOf, OWN, SUCCESS } = require('./classify');
const { contextOf } = require('./context');

class Retry {
  // backoff: a Backoff, or its options (this Retry then owns one: close()).
  // options: {classify ({error, result}; default: the gate's inside it),
  // onRetry(info) (called before each wait with {attempt, delay, outcome,
  // status, error?, result?}; what it throws rejects the call, B19)}.
  constructor(backoff = {}, { classify, onRetry } = {}) {
    this._owned = !(backoff instanceof Backoff);
    this.backoff = this._owned ? new Backoff(backoff) : backoff;
    this.classifier = classifierOf(classify);
    if (onRetry !== undefined && typeof onRetry !== 'function') throw new TypeError('respite: onRetry must be a function');
    this._onRetry = onRetry;
  }

  // Frees a back-off made from options (a Backoff given is the caller's).
  close() {
    if (this._owned) this.backoff.close();
  }

  // fn(context) with context {signal, attempt} (attempt 1 first). A refusal
  // by a gate rejects at once with TemporarilyUnavailableError; an abort
  // rejects with the signal's reason; when the back-off stops it rejects
  // with the core's TransportError (B14: "the call failed after 3 attempts:
  // last outcome server_error (status 503)") carrying `attempts`,
  // `lastOutcome`, and the last error as `cause` (or the last resolved value
  // as `result`, B20) — except that the caller's own error (classify.js) is
  // re-raised unchanged, never retried (B18). backoff's maxElapsedSeconds
  // limits the whole call (B16); testing.immediateRetries() makes every
  // wait 0 (B17).
  run(fn, context) {
    return this._run(fn, contextOf(context), null, DEFAULT_CLASSIFIER);
  }

  // gate: each attempt runs through it (or null); fallback: the classifier
  // when this Retry has none (the gate's it wraps).
  async _run(fn, context, gate, fallback) {
    const { signal } = context;
    const classifier = this.classifier || (gate && gate.classifier) || fallback;
    const call = new native.respite_retry_call();
    native.respite_retry_begin(this.backoff._handle, call);
    for (let attempt = 1; ; attempt++) {
      signal.throwIfAborted();
      const attemptContext = { ...context, attempt };
      let carrier;
      let failed = false;
      try {
        carrier = await (gate ? gate.run(fn, attemptContext) : fn(attemptContext));
      } catch (error) {
        if (error instanceof TemporarilyUnavailableError) throw error; // refused: no attempt was made
        carrier = error;
        failed = true;
      }
      const outcome = failed ? classifier.error(carrier) : classifier.value(carrier);
      if (outcome === SUCCESS || outcome === OWN) { // the caller's own error: never retried (B18)
        if (failed) throw carrier;
        return carrier;
      }
      if (signal.aborted) throw failed ? carrier : signal.reason;
      const hint = hintOf(carrier);
      const status = httpStatusOf(carrier);
      let delay;
      try {
        delay = native.respite_retry_decide(this.backoff._handle, call, attempt, outcome, status, hint);
      } catch (error) {
        error.attempts = attempt;
        error.lastOutcome = OUTCOMES[outcome];
        if (failed) error.cause = carrier;
        else error.result = carrier;
        throw error;
      }
      if (this._onRetry) {
        this._onRetry({ attempt, delay, outcome: OUTCOMES[outcome], status, error: failed ? carrier : undefined, result: failed ? undefined : carrier });
      }
      try {
        await sleep(call.wait * 1000, undefined, { signal }); // 0 under the testing switch (B17)
      } catch (error) {
        throw signal.aborted ? signal.reason : error;
      }
    }
  }
}

// retry(fn, backoff, {gate, signal, classify, onRetry}): fn(attempt,
// context) as Retry#run, each attempt through `gate` when given.
async function retry(fn, backoff = {}, options = {}) {
  const { gate, signal } = options;
  const policy = new Retry(backoff, options);
  try {
    return await policy._run((context) => fn(context.attempt, context), contextOf({ signal }), gate || null, DEFAULT_CLASSIFIER);
  } finally {
    policy.close();
  }
}

module.exports = { Retry, retry };
