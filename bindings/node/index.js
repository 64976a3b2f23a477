'use strict';
// respite for Node: the idiomatic layer over the SWIG module (lib/native.js).
const native = require('./lib/native');
const { Gate } = require('./lib/gate');
const { Backoff } = require('./lib/backoff');
const { Retry, retry } = require('./lib/retry');
const { Fallback, wrap } = require('./lib/compose');
const { Classifier } = require('./lib/classify');
const { Policy } = require('./lib/policy');
const { Queue, Batch, DISPOSITIONS } = require('./lib/queue');
const { DeliveryEngine, ACTIONS } = require('./lib/engine');
const { Client, Response } = require('./lib/client');
const { Sender } = require('./lib/sender');
const { gateFetch } = require('./lib/fetch');
const { settingsTable, Settings } = require('./lib/settings');
const { OUTCOMES, parseOutcome } = require('./lib/outcome');
const testing = require('./lib/testing');
const metrics = require('./lib/metrics');

// Seconds on the core's monotonic clock (the `now` every method accepts).
function now() {
  return native.respite_now();
}

// The outcome name for (transportFailed, httpStatus, bodyUsable).
function classify(httpStatus, { transport = false, bodyUsable = true } = {}) {
  return OUTCOMES[parseOutcome(transport ? { transport: true } : { status: httpStatus, bodyUsable })[0]];
}

// The outcome an outcome name, HTTP status or {status, bodyUsable,
// transport, outcome} stands for, as its name; InvalidArgumentError if none.
function outcome(spec) {
  return OUTCOMES[parseOutcome(spec)[0]];
}

// Whether an outcome counts against the service (spec section 1).
function outcomeCounts(spec, { countAllFailures = false } = {}) {
  return native.respite_outcome_counts(parseOutcome(spec)[0], countAllFailures ? 1 : 0) === 1;
}

// The refusal message for retry_after seconds (Infinity: recover_never).
function refusalMessage(retryAfter) {
  return native.respite_refusal_message(retryAfter === null || retryAfter === undefined ? Infinity : retryAfter);
}

const { STATUS_NAMES } = require('./generated/tables');

module.exports = {
  Gate,
  Backoff,
  Policy,
  Queue,
  Batch,
  DeliveryEngine,
  Client,
  Response,
  Sender,
  DISPOSITIONS,
  ACTIONS,
  retry,
  Retry,
  gateFetch,
  Fallback,
  wrap,
  Classifier,
  testing,
  now,
  classify,
  outcome,
  outcomeCounts,
  refusalMessage,
  Settings,
  settingsTable,
  OUTCOMES,
  STATUS_NAMES,
  metrics,
  native,
  // every error class of the core's status table, ERRORS_BY_STATUS,
  // ERRORS_BY_CODE and errorFromFields; a spread of require() is what
  // Node's ESM loader follows to the names (test/esm.test.js)
  ...require('./lib/errors'),
};
