'use strict';
// Retry schedules (spec section 3).
const native = require('./native');
const { translate } = require('./errors');
const { buildSettings } = require('./settings');
const { parseOutcome } = require('./outcome');
const { NativeResource, Borrowers, finalizer } = require('./resource');

class Backoff {
  // options: maxAttempts, initialDelaySeconds, multiplier, maxDelaySeconds,
  // jitter ('none' | 'full' | 'equal' | 'decorrelated'), retryOn (array of
  // outcome names and status codes, or 'transport,503'), seed.
  constructor(options = {}) {
    const settings = buildSettings('backoff', options);
    try {
      this._handle = native.respite_backoff_new(settings);
    } catch (error) {
      throw translate(error);
    } finally {
      native.respite_settings_free(settings);
    }
    // A Client borrows the native back-off: freed only when both let go.
    this._resource = new NativeResource(this._handle, native.respite_backoff_free);
    this._clients = new Borrowers(this._resource);
    finalizer.register(this, this._resource, this);
  }

  get closed() {
    return this._handle === null;
  }

  // Frees the back-off; Clients using it are closed first.
  close() {
    if (this._handle === null) return;
    this._clients.closeAll();
    this._handle = null;
    finalizer.unregister(this);
    this._resource.release();
  }

  // A Client starts or stops using this back-off (lib/client.js).
  _attachClient(client) {
    this._clients.add(client);
  }

  _detachClient(client) {
    this._clients.forget(client);
  }

  get maxAttempts() {
    if (this._handle === null) this.start(); // raises ClosedError
    return native.respite_backoff_max_attempts(this._handle);
  }

  // A new sequence number for one retrying call.
  start() {
    try {
      return Number(native.respite_backoff_start(this._handle));
    } catch (error) {
      throw translate(error);
    }
  }

  // Seconds before retry `retry` (1 = first) of `sequence`.
  delay(sequence, retry, retryAfter = 0) {
    try {
      return native.respite_backoff_delay(this._handle, sequence, retry, retryAfter);
    } catch (error) {
      throw translate(error);
    }
  }

  // Whether retry_on lists this outcome (a name, a status or {status}).
  retriesOn(outcome) {
    const [number, status] = parseOutcome(outcome);
    try {
      return native.respite_backoff_retries_on(this._handle, number, status) === 1;
    } catch (error) {
      throw translate(error);
    }
  }

  // After attempt `attempt` of `sequence` ended with `outcome`: seconds to
  // wait before the next attempt, or null when no further attempt is made.
  next(sequence, attempt, outcome, retryAfter) {
    const [number, status, hint] = parseOutcome(outcome);
    let delay;
    try {
      delay = native.respite_backoff_next(this._handle, sequence, attempt, number, status, retryAfter ?? hint);
    } catch (error) {
      throw translate(error);
    }
    return delay === native.RESPITE_RETRY_STOP ? null : delay;
  }

  // The error a retry loop ends with when this back-off stops it (B14):
  // after `attempts` attempts whose last ended with `outcome` (a name, a
  // status or {status}), a TransportError with the core's message ("the
  // call failed after 3 attempts: last outcome server_error (status 503)").
  // Returned, not thrown; a success is not a failure (InvalidArgumentError).
  gaveUp(attempts, outcome) {
    const [number, status] = parseOutcome(outcome);
    const error = this._gaveUp(attempts, number, status);
    if (error.code !== 'transport') throw error;
    return error;
  }

  // The core's give-up error (B14) after `attempts` attempts whose last
  // ended with `outcome` (a number) and httpStatus (0: none): a
  // TransportError with the core's message, to throw.
  _gaveUp(attempts, outcome, httpStatus) {
    try {
      native.respite_retry_gave_up(this._handle, attempts, outcome, httpStatus);
    } catch (error) {
      return translate(error);
    }
    return new Error('respite: respite_retry_gave_up did not fail');
  }

  // next() with the outcome given as numbers (the retry loop's hot path).
  _next(sequence, attempt, outcome, status, hint) {
    const delay = native.respite_backoff_next(this._handle, sequence, attempt, outcome, status, hint);
    return delay === native.RESPITE_RETRY_STOP ? null : delay;
  }
}

module.exports = { Backoff };
