'use strict';
// The recovery gate (spec section 2) as an EventEmitter.
const { EventEmitter } = require('node:events');
const native = require('./native');
const { decisionOf, fleetViewOf, gateStatsOf } = require('../generated/structs');
const { buildSettings } = require('./settings');
const { SUCCESS, parseOutcome, hintOf } = require('./outcome');
const { DEFAULT_CLASSIFIER, classifierOf, reported } = require('./classify');
const { contextOf, DEFAULT_CONTEXT, NEVER } = require('./context');
const { forwardEvents } = require('./events');
const { own, release } = require('./handle');
const { FastPath } = require('./fast-path');

const { GATE_STATES: STATES } = require('../generated/tables');

// `now`: seconds on the caller's monotonic clock; absent: the core's clock.
// SWIG refuses a non-number, the core a bad number (negative, NaN ...).
function timeOf(now) {
  return now === undefined ? native.respite_now() : now;
}

// Spec K2: a time the core would accept (anything else goes to it, and it refuses).
function validTime(now) {
  return typeof now === 'number' && now >= 0 && now <= Number.MAX_VALUE;
}

// A fleet gate made from the gate's settings and `fleet`'s, owned through
// its local gate (every call goes there); freeing it stops its thread and
// drops the local gate. The fleet is named as its gate unless told otherwise.
function ownFleetGate(gate, settings, fleet) {
  const name = native.respite_settings_get_text(settings, 'name');
  const fleetSettings = buildSettings('fleet', { name, ...fleet, profile: undefined });
  let handle;
  try {
    handle = native.respite_fleet_gate_new(settings, fleetSettings);
  } finally {
    native.respite_settings_free(fleetSettings);
  }
  own(gate, native.respite_fleet_gate_gate(handle), () => native.respite_fleet_gate_free(handle));
  gate._fleet = handle;
}

class Gate extends EventEmitter {
  // options: the gate's settings in camelCase ({failuresToEnterRecovery: 5}),
  // `profile` ('cloud_request' | 'usage_sharing'), and `logger` (an object
  // with warn/info, e.g. console) that receives every event, and `classify`
  // ({error, result}: which results and errors of run() count, classify.js).
  // `fleet` (the fleet settings: {fleetUrl, fleetQuorum, ...}) makes it a
  // fleet gate (spec section 11): the hosts' gates of one name share their
  // openings through Redis, and no call waits on it.
  constructor(options = {}) {
    super();
    this._fleet = null; // a fleet gate's handle (ownFleetGate), dropped by close()
    const settings = buildSettings('gate', options, ['logger', 'classify', 'fleet']);
    this.classifier = classifierOf(options.classify) || DEFAULT_CLASSIFIER;
    try {
      if (options.fleet === undefined) {
        own(this, native.respite_gate_new(settings), native.respite_gate_free);
      } else {
        ownFleetGate(this, settings, options.fleet);
      }
    } finally {
      native.respite_settings_free(settings);
    }
    // The same gate for the addon's hot entry points (src/respite_node_gate.h).
    this._token = native.respite_node_gate_token(this._handle);
    // The closed path without a crossing, exact whoever else uses the gate
    // (an engine, a client, another thread or process): read while open.
    this._fast = new FastPath(this._token);
    this._logger = options.logger || null;
    this._decision = new native.respite_decision();
    this._rawEvent = new native.respite_event();
    this._handlersPermit = NaN; // none yet; a double, as permits are (fast-path.js)
    this._onValue = null;
    this._onError = null;
  }

  get closed() {
    return this._handle === null;
  }

  // The `name` setting, as the core starts this gate's log lines with it
  // ('' when unset; null once closed).
  get name() {
    return native.respite_gate_name(this._handle);
  }

  // Drops this object's hold on the native gate (engines and clients using
  // it keep theirs); later calls raise ClosedError. Idempotent.
  close() {
    if (!release(this)) return;
    this._token = null;
    this._fast = null; // its views are of the gate's memory
    this._fleet = null;
  }

  // {allowed, probe, permit, retryAfter}: whether a call may be made now.
  check(now) {
    const decision = this._decision;
    native.respite_gate_check(this._handle, timeOf(now), decision);
    this._drainEvents();
    return decisionOf(decision);
  }

  // The permit for a call, or throws TemporarilyUnavailableError.
  acquire(now) {
    const permit = this._admit(now);
    if (typeof permit !== 'number') throw permit;
    return permit;
  }

  // The permit, or the core's error (the refusal with retryAfter) to throw
  // or reject with; events drained by the one rule either way.
  _admit(now) {
    if (this._handle !== null && (now === undefined || validTime(now))) {
      const permit = this._fast.admit();
      if (permit !== 0) {
        if (this._fast.eventsWaiting()) this._drainEvents();
        return permit;
      }
    }
    const answer = native.respite_node_gate_admit(this._token, now);
    const admitted = typeof answer === 'number';
    if (admitted && answer > 0) return answer;
    this._drainEvents(); // an error, or a permit negated: events wait
    return admitted ? -answer : answer;
  }

  // Reports the outcome of a call: an outcome name ('server_error'), an HTTP
  // status (503) or {status, bodyUsable, transport, outcome, retryAfter}.
  // permit: from acquire/check, or 0 (none). options: {retryAfter, now}.
  report(permit, outcome, options = {}) {
    const [number, , hint] = parseOutcome(outcome);
    const retryAfter = options.retryAfter !== undefined ? options.retryAfter : hint;
    if (this._fastSuccess(permit || 0, number, retryAfter, options.now)) return;
    native.respite_node_gate_report(this._token, permit || 0, number, retryAfter, options.now);
    this._drainEvents();
  }

  // Ends an admitted call's permit without an outcome (G19): the caller gave
  // up on it (aborted it), which says nothing about the service; a probe's
  // slot is freed for the next call. The permit is not reported afterwards.
  release(permit, now) {
    native.respite_gate_release(this._handle, permit, timeOf(now));
    this._drainEvents();
  }

  // report() without a permit.
  record(outcome, options = {}) {
    this.report(0, outcome, options);
  }

  retryAfter(now) {
    return native.respite_gate_retry_after(this._handle, timeOf(now));
  }

  // 'closed', 'open' or 'probing' at `now`.
  state(now) {
    return STATES[native.respite_gate_get_state(this._handle, timeOf(now))];
  }

  reset(now) {
    native.respite_gate_reset(this._handle, timeOf(now));
    this._drainEvents();
  }

  stats() {
    const raw = new native.respite_gate_stats();
    native.respite_gate_stats_get(this._handle, raw);
    return gateStatsOf(raw);
  }

  // A fleet gate's fleet as its thread last read it (F12): {connected,
  // paused, pauseLeft, hostsOpened, ...}; null for a gate made without
  // `fleet`; the core's ClosedError once closed.
  fleetView() {
    if (this._fleet === null && this._handle !== null) return null;
    const raw = new native.respite_fleet_view();
    native.respite_fleet_gate_view(this._fleet, raw);
    return fleetViewOf(raw);
  }

  // Runs `fn(context)` (sync or async) through the gate: refused → a
  // rejected promise with TemporarilyUnavailableError and fn is not called;
  // otherwise fn's result or error is classified (this.classifier),
  // reported and passed through. context: {signal, attempt} (classify.js,
  // context.js); an aborted signal rejects with its reason before admission,
  // and fn failing after its signal aborted is released uncounted (G19).
  run(fn, context) {
    return context === undefined ? this._run(fn, DEFAULT_CONTEXT) : this._runWith(fn, context);
  }

  // run() given a context: an aborted signal or a bad context rejects before admission.
  _runWith(fn, context) {
    if (context.signal?.aborted) return Promise.reject(context.signal.reason);
    let own;
    try {
      own = contextOf(context);
    } catch (error) {
      return Promise.reject(error);
    }
    return this._run(fn, own);
  }

  // run() with its context: the hot path is this function alone. The pair
  // is taken before fn runs: a call fn makes may admit a new generation.
  _run(fn, own) {
    const permit = this._admit(undefined);
    if (typeof permit !== 'number') return Promise.reject(permit); // the refusal, with retryAfter
    if (this._handlersPermit !== permit) this._newHandlers(permit);
    const onValue = this._onValue;
    const onError = own.signal === NEVER ? this._onError : this._abortable(permit, this._onError, own.signal);
    let result;
    try {
      result = fn(own);
    } catch (error) {
      return this._thrown(onError, error);
    }
    if (result instanceof Promise) return result.then(onValue, onError);
    return this._returned(permit, onValue, onError, result);
  }

  // run() when fn threw: the error settled (or released) and rejected with.
  _thrown(onError, error) {
    try {
      onError(error); // throws it back, settled or released
    } catch (thrown) {
      if (thrown !== error) throw thrown; // a classifier's own mistake
    }
    return Promise.reject(error);
  }

  // run() when fn returned something other than a Promise: a thenable is
  // awaited, any other value settled now.
  _returned(permit, onValue, onError, result) {
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return Promise.resolve(result).then(onValue, onError);
    }
    this._settle(permit, this.classifier.value(result), result);
    return Promise.resolve(result);
  }

  // The settle-and-pass-through pair for one permit, kept for the last
  // permit admitted: a closed generation's calls share one permit, so they
  // allocate no closures. Made out of line: every gate makes its first pair
  // on its first call, and the callers' optimized code stays as small as
  // if none had been made.
  _newHandlers(permit) {
    this._handlersPermit = permit;
    this._onValue = (value) => {
      this._settle(permit, this.classifier.value(value), value);
      return value;
    };
    this._onError = (error) => {
      this._settle(permit, this.classifier.error(error), error);
      throw error;
    };
  }

  // K3: a success (no hint) settled without the core while closed and
  // confirmed; false: the core decides.
  _fastSuccess(permit, outcome, hint, now) {
    if (outcome !== SUCCESS || hint !== 0 || this._handle === null || (now !== undefined && !validTime(now))
      || typeof permit !== 'number' || !this._fast.success(permit)) return false;
    if (this._fast.eventsWaiting()) this._drainEvents();
    return true;
  }

  // The error handler for a call with a signal: an error after the abort
  // releases the permit instead of reporting it.
  _abortable(permit, onError, signal) {
    return (error) => {
      if (!signal.aborted) return onError(error);
      if (this._handle !== null) this.release(permit);
      throw error;
    };
  }

  // Reports a finished call (the caller's own error as request_error); a
  // gate closed meanwhile is no longer told.
  _settle(permit, classified, carrier) {
    const outcome = reported(classified);
    if (this._handle === null) return;
    const hint = outcome === SUCCESS ? 0 : hintOf(carrier);
    if (this._fastSuccess(permit, outcome, hint, undefined)) return;
    // Answers whether events wait: drained here, by the one rule.
    if (native.respite_node_gate_report(this._token, permit, outcome, hint) > 0) {
      this._drainEvents();
    }
  }

  // Emits every event waiting for this handle now, such as transitions
  // another handle or process made on a shared gate (H9), without a call.
  pollEvents() {
    if (this._handle === null) return;
    this._drainEvents();
  }

  // The one rule: after a call into the gate, take every waiting event and
  // emit it ('event' and its type's name).
  _drainEvents() {
    if (native.respite_gate_events_pending(this._handle) !== 0) {
      forwardEvents(this, this._logger, native.respite_gate_next_event, this._handle, this._rawEvent);
    }
    if (this._handle !== null) this._fast.tookEvents(); // a listener may have closed the gate
  }
}

module.exports = { Gate, timeOf };
