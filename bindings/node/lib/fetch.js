'use strict';
// gateFetch(gate, {fetch, retry}): the global fetch (undici), or any function
// shaped like it, through a gate — for an SDK that keeps its HTTP stack
// (issue 21). While the gate is paused a call is refused with no network
// call (TemporarilyUnavailableError with retryAfter). What counts is what
// the spec counts, decided by the core: a transport error, a 5xx or a 429
// (respite_classify, through the gate's classifier), never another 4xx; the
// Retry-After of a 429 or 503 is the gate's hint (respite_retry_after_seconds).
// The caller's AbortSignal (init.signal, or the Request's) reaches fetch, and
// a call aborted meanwhile is released from the gate uncounted (G19). With
// `retry` (a Retry, a Backoff or back-off options) each attempt goes through
// the gate and the core's back-off decides. It resolves as fetch does, with
// the last Response, an error status included.
const { Gate } = require('./gate');
const { Backoff } = require('./backoff');
const { Retry } = require('./retry');
const { contextOf } = require('./context');

// The Retry for a `retry` option, or null for one attempt.
function retryOf(retry) {
  if (retry === undefined || retry === null) return null;
  if (retry instanceof Retry) return retry;
  if (retry instanceof Backoff || typeof retry === 'object') return new Retry(retry);
  throw new TypeError('respite: gateFetch option retry must be a Retry, a Backoff or back-off options');
}

function gateFetch(gate, options = {}) {
  if (!(gate instanceof Gate)) throw new TypeError('respite: gateFetch takes a Gate');
  const { fetch: base = globalThis.fetch, retry, ...unknown } = options;
  const extra = Object.keys(unknown);
  if (extra.length > 0) throw new TypeError(`respite: gateFetch has no option ${JSON.stringify(extra[0])} (fetch, retry)`);
  if (typeof base !== 'function') throw new TypeError('respite: gateFetch option fetch must be a function');
  const policy = retryOf(retry);

  return function fetchThroughGate(input, init = {}) {
    const isRequest = typeof Request === 'function' && input instanceof Request;
    const signal = init?.signal ?? (isRequest ? input.signal : null);
    let last = null;
    const attempt = ({ signal: attemptSignal }) => {
      // An answer retried is not read: its body is cancelled, freeing the connection.
      if (last !== null) last.body?.cancel().catch(() => {});
      // A Request's body can be read once: each attempt sends a copy.
      const request = isRequest ? input.clone() : input;
      return base(request, { ...init, signal: attemptSignal }).then((response) => (last = response));
    };
    let context;
    try {
      context = contextOf(signal === null || signal === undefined ? undefined : { signal });
    } catch (error) {
      return Promise.reject(error);
    }
    if (policy === null) return gate.run(attempt, context);
    return policy._run(attempt, context, gate, gate.classifier).catch((error) => {
      // The back-off gave up on an answer (a 503 after the last attempt):
      // fetch resolves with it, as an HTTP client answers (B20).
      if (last !== null && error.result === last) return last;
      throw error;
    });
  };
}

module.exports = { gateFetch };
