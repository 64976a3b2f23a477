'use strict';
// retry(fn, backoff, {gate}): runs fn until it succeeds or the core's retry
// decision (respite_retry_decide) gives up, asking the gate before every
// attempt; this loop only waits between decisions, with timers (the event
// loop is never blocked).
const { setTimeout: sleep } = require('node:timers/promises');
const native = require('./native');
const { Backoff } = require('./backoff');
const { OUTCOMES, SUCCESS, classifyValue, classifyError, httpStatusOf, hintOf } = require('./outcome');

// fn(attempt) may be sync or async. A resolved value is a success unless it
// carries an HTTP status that is not; a thrown error is classified as in
// Gate#run. When the back-off stops (attempts used up, or an outcome
// retry_on does not retry) retry() rejects with the core's TransportError
// (B14: "the call failed after 3 attempts: last outcome server_error (status
// 503)"), carrying `attempts`, `lastOutcome`, and the last error as `cause`
// (or the last resolved value as `response`). options: {gate, signal,
// onRetry(info)}.
async function retry(fn, backoff = {}, options = {}) {
  const owned = !(backoff instanceof Backoff);
  const schedule = owned ? new Backoff(backoff) : backoff;
  const { gate, signal, onRetry } = options;
  try {
    const sequence = schedule.start();
    for (let attempt = 1; ; attempt++) {
      const permit = gate ? gate.acquire() : 0; // refused: TemporarilyUnavailableError
      let outcome;
      let carrier;
      let failed = false;
      try {
        carrier = await fn(attempt);
        outcome = classifyValue(carrier);
      } catch (error) {
        carrier = error;
        failed = true;
        outcome = classifyError(error);
      }
      const hint = outcome === SUCCESS ? 0 : hintOf(carrier);
      if (gate && !gate.closed) gate.report(permit, { outcome: outcomeName(outcome) }, { retryAfter: hint });
      if (outcome === SUCCESS) return carrier;
      let delay;
      try {
        delay = native.respite_retry_decide(schedule._handle, sequence, attempt, outcome, httpStatusOf(carrier), hint);
      } catch (error) {
        error.attempts = attempt;
        error.lastOutcome = outcomeName(outcome);
        if (failed) error.cause = carrier;
        else error.response = carrier;
        throw error;
      }
      if (onRetry) onRetry({ attempt, delay, outcome: outcomeName(outcome), error: failed ? carrier : undefined });
      await sleep(delay * 1000, undefined, signal ? { signal } : undefined);
    }
  } finally {
    if (owned) schedule.close();
  }
}

function outcomeName(outcome) {
  return OUTCOMES[outcome];
}

module.exports = { retry };
