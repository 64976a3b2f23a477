'use strict';
// Which results and errors of user code count against the service, in the
// core's outcome kinds (spec section 1), for Gate#run, Retry and retry().
//
// Default: a value is a success unless it carries an outcome name (a
// respite Response) or an HTTP status that says otherwise (a fetch Response
// with 503); an error counts only when this
// binding can tell it is the service's or the transport's: an `outcome`
// name, an HTTP status (its own or its `response`'s, as axios and got
// throw), or a Node/undici network error code (also as its `cause`, as
// fetch throws). Any other error is the caller's own (OWN): the gate is told
// `request_error` (the one outcome that does not count, O9; a probe that
// ends so closes the gate, G8: the service was not shown failing) and the
// error is re-raised unchanged. A classifier given by the caller decides
// first; `undefined` from it leaves the call to the default.
const native = require('./native');
const { OUTCOMES, parseOutcome, httpStatusOf } = require('./outcome');

const SUCCESS = native.RESPITE_OUTCOME_SUCCESS;
const REQUEST_ERROR = native.RESPITE_OUTCOME_REQUEST_ERROR;
const UNUSABLE = native.RESPITE_OUTCOME_UNUSABLE;
const TRANSPORT = native.RESPITE_OUTCOME_TRANSPORT;
// Not an outcome of the core: the caller's own error, told to the gate as
// REQUEST_ERROR and re-raised as it is (a retry gives up with it, too).
const OWN = -1;

// Error codes of calls that did not complete: Node's system errors
// (connect, DNS, reset, timeouts), undici's (fetch) and TLS failures.
const TRANSPORT_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'ESOCKETTIMEDOUT', 'EPIPE', 'EHOSTUNREACH',
  'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'ENOTFOUND', 'EAI_AGAIN', 'EPROTO', 'ERR_NETWORK',
  'ERR_STREAM_PREMATURE_CLOSE', 'ERR_HTTP2_STREAM_ERROR', 'ERR_HTTP2_SESSION_ERROR', 'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED',
  'transport', // respite's own TransportError
]);

// Whether an error (or its cause chain) is a call that did not complete:
// a network error code, or a timeout's TimeoutError (AbortSignal.timeout).
function isTransportError(error) {
  for (let cause = error, depth = 0; cause !== null && typeof cause === 'object' && depth < 4; cause = cause.cause, depth++) {
    if (TRANSPORT_CODES.has(cause.code) || cause.name === 'TimeoutError') return true;
  }
  return false;
}

// The outcome of an HTTP status (body usable).
function classifyStatus(status) {
  return native.respite_classify(0, status, 1);
}

// The default for a value user code returned: its `outcome` name (a
// respite Response has one), else its HTTP status, else a success. A
// primitive carries neither: answered without a property lookup.
function defaultValue(value) {
  if (typeof value !== 'function' && (typeof value !== 'object' || value === null)) return SUCCESS;
  const outcome = value.outcome;
  const named = typeof outcome === 'string' ? OUTCOMES.indexOf(outcome) : -1;
  if (named >= 0) return named;
  const status = httpStatusOf(value);
  return status === 0 ? SUCCESS : classifyStatus(status);
}

// The default for an error user code threw: an outcome or OWN.
function defaultError(error) {
  const named = OUTCOMES.indexOf(error?.outcome);
  if (named >= 0) return named;
  const status = httpStatusOf(error) || httpStatusOf(error?.response);
  if (status !== 0) return classifyStatus(status);
  return isTransportError(error) ? TRANSPORT : OWN;
}

function counts(outcome) {
  return outcome >= 0 && native.respite_outcome_counts(outcome, 0) === 1;
}

// A caller's verdict as an outcome: undefined/null → the default; true →
// the default if it counts, else `counted`; false → `notCounted`; an
// outcome name, HTTP status or {status, outcome, ...} → that outcome.
function verdictOf(verdict, fallback, counted, notCounted) {
  if (verdict === undefined || verdict === null) return fallback;
  if (verdict === true) return counts(fallback) ? fallback : counted;
  if (verdict === false) return notCounted;
  return parseOutcome(verdict)[0];
}

// Whether an option is an array of error classes (else a function is wanted).
function isErrorClasses(option) {
  return Array.isArray(option) && option.every((type) => typeof type === 'function');
}

// An `error` option as a predicate: an array of error classes counts their
// instances (other errors: the default), a function is called as it is.
function errorPredicate(option) {
  if (option === undefined || typeof option === 'function') return option;
  if (isErrorClasses(option)) {
    return (error) => (option.some((type) => error instanceof type) ? true : undefined);
  }
  throw new TypeError('respite: classify.error must be a function or an array of error classes');
}

class Classifier {
  // spec: {error, result}: error(error) and result(value) answer true
  // (counts), false (does not: an error is the caller's own), an outcome
  // (a name, status or {status, outcome}) or undefined (the default);
  // error may also be an array of error classes that count.
  constructor(spec = {}) {
    if (spec === null || typeof spec !== 'object') throw new TypeError('respite: classify must be an object {error, result}');
    if (spec.result !== undefined && typeof spec.result !== 'function') {
      throw new TypeError('respite: classify.result must be a function');
    }
    this._error = errorPredicate(spec.error);
    this._result = spec.result;
  }

  // The outcome of an error fn threw (OWN: the caller's own).
  error(error) {
    const fallback = defaultError(error);
    return this._error === undefined ? fallback : verdictOf(this._error(error), fallback, TRANSPORT, OWN);
  }

  // The outcome of a value fn returned.
  value(value) {
    const fallback = defaultValue(value);
    return this._result === undefined ? fallback : verdictOf(this._result(value), fallback, UNUSABLE, SUCCESS);
  }
}

const DEFAULT_CLASSIFIER = new Classifier();

// The classifier for an options.classify: a Classifier, a spec, or none.
function classifierOf(spec) {
  if (spec === undefined || spec === null) return null;
  return spec instanceof Classifier ? spec : new Classifier(spec);
}

// The outcome the gate is told for a classified call.
function reported(outcome) {
  return outcome === OWN ? REQUEST_ERROR : outcome;
}

module.exports = { Classifier, isErrorClasses, DEFAULT_CLASSIFIER, classifierOf, reported, isTransportError, OWN, SUCCESS, TRANSPORT };
