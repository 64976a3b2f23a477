'use strict';
// Retry schedules (spec section 3).
const native = require('./native');
const { buildSettings } = require('./settings');
const { parseOutcome } = require('./outcome');
const { own, Owned } = require('./handle');

class Backoff extends Owned {
  // options: maxAttempts, initialDelaySeconds, multiplier, maxDelaySeconds,
  // jitter ('none' | 'full' | 'equal' | 'decorrelated'), retryOn (array of
  // outcome names and status codes, or 'transport,503'), seed.
  constructor(options = {}) {
    super();
    const settings = buildSettings('backoff', options);
    try {
      own(this, native.respite_backoff_new(settings), native.respite_backoff_free);
    } finally {
      native.respite_settings_free(settings);
    }
  }

  get maxAttempts() {
    if (this._handle === null) native.respite_closed(native.RESPITE_HANDLE_BACKOFF);
    return native.respite_backoff_max_attempts(this._handle);
  }

  // A new sequence number for one retrying call.
  start() {
    return Number(native.respite_backoff_start(this._handle));
  }

  // Seconds before retry `retry` (1 = first) of `sequence`.
  delay(sequence, retry, retryAfter = 0) {
    return native.respite_backoff_delay(this._handle, sequence, retry, retryAfter);
  }

  // Whether retry_on lists this outcome (a name, a status or {status}).
  retriesOn(outcome) {
    const [number, status] = parseOutcome(outcome);
    return native.respite_backoff_retries_on(this._handle, number, status) === 1;
  }

  // After attempt `attempt` of `sequence` ended with `outcome`: seconds to
  // wait before the next attempt, or null when no further attempt is made.
  next(sequence, attempt, outcome, retryAfter) {
    const [number, status, hint] = parseOutcome(outcome);
    const delay = native.respite_backoff_next(this._handle, sequence, attempt, number, status, retryAfter ?? hint);
    return delay === native.RESPITE_RETRY_STOP ? null : delay;
  }

  // The error a retry loop ends with when this back-off stops it (B14):
  // after `attempts` attempts whose last ended with `outcome` (a name, a
  // status or {status}), a TransportError with the core's message ("the
  // call failed after 3 attempts: last outcome server_error (status 503)").
  // Returned, not thrown; a success is not a failure (InvalidArgumentError).
  gaveUp(attempts, outcome) {
    const [number, status] = parseOutcome(outcome);
    try {
      native.respite_retry_gave_up(this._handle, attempts, number, status);
    } catch (error) {
      if (error.code === 'transport') return error;
      throw error;
    }
    throw new Error('respite: respite_retry_gave_up did not fail');
  }
}

module.exports = { Backoff };
