'use strict';
// What happened to one call, as the core's outcome names, from what callers
// pass (names, statuses, {status, ...}); user code's results and errors are
// classified in classify.js.
const native = require('./native');

const { OUTCOMES } = require('../generated/tables');
const SUCCESS = native.RESPITE_OUTCOME_SUCCESS;
const TRANSPORT = native.RESPITE_OUTCOME_TRANSPORT;

// The outcome of an HTTP answer (its body usable unless said otherwise).
function classifyStatus(httpStatus, bodyUsable = true) {
  return native.respite_classify(0, httpStatus, bodyUsable ? 1 : 0);
}

// The HTTP status a value or error carries (`status` or `statusCode`); 0 if none.
function httpStatusOf(value) {
  const status = typeof value?.status === 'number' ? value.status : value?.statusCode;
  return Number.isInteger(status) && status >= 100 && status <= 599 ? status : 0;
}

// Its Retry-After hint in seconds; 0 if none: its `retryAfter`, else the
// header of an answer with headers.get (a fetch Response), read by the core
// as the client reads it (C6: a 429's or 503's only).
function hintOf(value) {
  const hint = value?.retryAfter;
  if (typeof hint === 'number') return hint > 0 && Number.isFinite(hint) ? hint : 0;
  if (typeof value?.headers?.get !== 'function') return 0;
  const status = httpStatusOf(value);
  return status === 0 ? 0 : native.respite_retry_after_seconds(status, String(value.headers.get('retry-after') ?? ''));
}

// An outcome given by a caller: a name ('server_error'), an HTTP status
// (503), or {status, bodyUsable, transport, outcome (a name or the core's
// number), retryAfter}. Returns
// [outcome, httpStatus, retryAfterHint].
function parseOutcome(spec) {
  if (typeof spec === 'number') return [classifyStatus(spec), spec, 0];
  if (spec && typeof spec === 'object') {
    const hint = hintOf(spec);
    if (typeof spec.outcome === 'string' || typeof spec.outcome === 'number') {
      // The status goes to the core as given, which checks its range; so
      // does a respite_outcome number (O1).
      const status = Number.isInteger(spec.status) ? spec.status : httpStatusOf(spec);
      const outcome = typeof spec.outcome === 'number'
        ? native.respite_outcome_check(spec.outcome)
        : native.respite_outcome_from_name(spec.outcome);
      return [outcome, status, hint];
    }
    if (spec.transport) return [TRANSPORT, 0, hint];
    const status = typeof spec.status === 'number' ? spec.status : spec.statusCode;
    if (typeof status === 'number') return [classifyStatus(status, spec.bodyUsable !== false), status, hint];
  }
  return [outcomeNamed(String(spec)), 0, 0];
}

// The core's code for an outcome name, asked once per name (an unknown
// name is asked again, and the core raises its error each time).
const byName = new Map();
function outcomeNamed(name) {
  let code = byName.get(name);
  if (code === undefined) {
    code = native.respite_outcome_from_name(name);
    byName.set(name, code);
  }
  return code;
}

module.exports = { OUTCOMES, SUCCESS, parseOutcome, httpStatusOf, hintOf };
