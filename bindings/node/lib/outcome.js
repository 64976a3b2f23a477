'use strict';
// What happened to one call, as the core's outcome names. Results and errors
// of user code are classified here for Gate#run and retry().
const native = require('./native');

const { OUTCOMES } = require('../generated/tables');
const SUCCESS = native.RESPITE_OUTCOME_SUCCESS;
const TRANSPORT = native.RESPITE_OUTCOME_TRANSPORT;

function outcomeNumber(name) {
  return native.respite_outcome_from_name(String(name));
}

function classifyStatus(transportFailed, httpStatus, bodyUsable = true) {
  return native.respite_classify(transportFailed ? 1 : 0, httpStatus, bodyUsable ? 1 : 0);
}

function httpStatusOf(value) {
  if (value === null || typeof value !== 'object') return 0;
  const status = typeof value.status === 'number' ? value.status : value.statusCode;
  return Number.isInteger(status) && status >= 100 && status <= 599 ? status : 0;
}

function hintOf(value) {
  const hint = value && value.retryAfter;
  return typeof hint === 'number' && hint > 0 && Number.isFinite(hint) ? hint : 0;
}

// An outcome given by a caller: a name ('server_error'), an HTTP status
// (503), or {status, bodyUsable, transport, retryAfter}. Returns
// [outcome, httpStatus, retryAfterHint].
function parseOutcome(spec) {
  if (typeof spec === 'string') return [outcomeNumber(spec), 0, 0];
  if (typeof spec === 'number') return [classifyStatus(false, spec), spec, 0];
  if (spec && typeof spec === 'object') {
    const hint = hintOf(spec);
    if (typeof spec.outcome === 'string') {
      // The status goes to the core as given, which checks its range.
      const status = Number.isInteger(spec.status) ? spec.status : httpStatusOf(spec);
      return [outcomeNumber(spec.outcome), status, hint];
    }
    if (spec.transport) return [TRANSPORT, 0, hint];
    const status = typeof spec.status === 'number' ? spec.status : spec.statusCode;
    if (typeof status === 'number') return [classifyStatus(false, status, spec.bodyUsable !== false), status, hint];
  }
  return [outcomeNumber(String(spec)), 0, 0];
}

// A value user code resolved with: a success, unless it carries an HTTP
// status (a fetch Response, {status: 503}) that says otherwise.
function classifyValue(value) {
  const status = httpStatusOf(value);
  if (status === 0) return SUCCESS;
  return native.respite_classify(0, status, 1);
}

// An error user code threw: its `outcome` name, else its HTTP status
// (`status` or `statusCode`), else transport (the call did not complete).
function classifyError(error) {
  if (error !== null && typeof error === 'object') {
    if (typeof error.outcome === 'string') {
      const outcome = OUTCOMES.indexOf(error.outcome);
      if (outcome >= 0) return outcome;
    }
    const status = httpStatusOf(error);
    if (status !== 0) return native.respite_classify(0, status, 1);
  }
  return TRANSPORT;
}

module.exports = { OUTCOMES, SUCCESS, TRANSPORT, parseOutcome, classifyValue, classifyError, httpStatusOf, hintOf, outcomeNumber };
