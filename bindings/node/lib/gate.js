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
const { fastPathOf, CLOSED_FAST_PATH } = require('./fast-path');

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
    this._fast = fastPathOf(this._token);
    this._logger = options.logger || null;
    this._decision = new native.respite_decision();
    this._rawEvent = new native.respite_event();
    this._tellersPermit = NaN; // none yet; a double, as permits are (fast-path.js)
    this._tellValue = null;
    this._tellError = null;
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
    this._fast = CLOSED_FAST_PATH; // not views of the gate's memory
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
  // otherwise a promise that settles as fn did, fn's own promise when it
  // returned one. Its result or error is classified (this.classifier) and
  // reported before code awaiting run() resumes; a failure while telling
  // the gate (a classifier or listener that throws) is a process warning
  // and never changes the call's outcome. context: {signal, attempt}
  // (classify.js, context.js); an aborted signal rejects with its reason
  // before admission, and fn failing after its signal aborted is released
  // uncounted (G19).
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

  // run() with its context: the hot path is this function alone. The
  // permit's tellers are taken before fn runs: a call fn makes may admit a
  // new generation. The tellers observe fn's promise beside its caller
  // (registered first, so they run first) instead of in a chain: a chained
  // promise would cost a second promise and a second turn on every call.
  _run(fn, own) {
    const permit = this._admit(undefined);
    if (typeof permit !== 'number') return Promise.reject(permit); // the refusal, with retryAfter
    if (this._tellersPermit !== permit) this._newTellers(permit);
    const tellValue = this._tellValue;
    const tellError = own.signal === NEVER ? this._tellError : this._abortable(permit, this._tellError, own.signal);
    let result;
    try {
      result = fn(own);
    } catch (error) {
      tellError(error);
      return Promise.reject(error);
    }
    // A native promise by its constructor, which V8 answers from the map it
    // knows (instanceof walks the prototype chain on every call).
    if (result?.constructor !== Promise) return this._answered(result, tellValue, tellError);
    result.then(tellValue, tellError);
    return result;
  }

  // run() when fn returned something other than a native Promise (a
  // subclass, another realm's, any thenable: told when it settles, as the
  // native promise run() answers) or any other value (told now).
  _answered(result, tellValue, tellError) {
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      const promise = Promise.resolve(result);
      promise.then(tellValue, tellError);
      return promise;
    }
    tellValue(result);
    return Promise.resolve(result);
  }

  // The two tellers of one permit, kept for the last permit admitted: a
  // closed generation's calls share one permit, so they allocate no
  // closures. Made out of line: every gate makes its first pair on its
  // first call, and the callers' optimized code stays as small as if none
  // had been made.
  _newTellers(permit) {
    this._tellersPermit = permit;
    this._tellValue = (value) => this._tell(permit, value, false);
    this._tellError = (error) => this._tell(permit, error, true);
  }

  // Tells the gate how a run() call ended; never throws (a teller's throw
  // would reject a promise nobody awaits). What the classifier makes of
  // the answer is reported (the caller's own error as request_error); a
  // classifier that throws leaves the permit released uncounted (G19).
  _tell(permit, carrier, failed) {
    let outcome;
    let hint;
    try {
      outcome = reported(failed ? this.classifier.error(carrier) : this.classifier.value(carrier));
      hint = outcome === SUCCESS ? 0 : hintOf(carrier);
    } catch (error) {
      this._warn(error);
      this._release(permit);
      return;
    }
    try {
      if (this._fastSuccess(permit, outcome, hint, undefined) || this._handle === null) return;
      // Answers whether events wait: drained here, by the one rule.
      if (native.respite_node_gate_report(this._token, permit, outcome, hint) > 0) this._drainEvents();
    } catch (error) {
      this._warn(error); // a listener that threw
    }
  }

  // G19 for a call that ended without an outcome to tell (a gate closed
  // meanwhile has nothing to release); a listener that throws is a warning.
  _release(permit) {
    if (this._handle === null) return;
    try {
      this.release(permit);
    } catch (error) {
      this._warn(error);
    }
  }

  // A failure while telling the gate, which has no caller to reach: a
  // process warning (process.on('warning'); Node prints it by default).
  _warn(error) {
    process.emitWarning(error);
  }

  // K3: a success (no hint) settled without the core while closed and
  // confirmed; false: the core decides.
  _fastSuccess(permit, outcome, hint, now) {
    if (outcome !== SUCCESS || hint !== 0 || this._handle === null || (now !== undefined && !validTime(now))
      || typeof permit !== 'number' || !this._fast.success(permit)) return false;
    if (this._fast.eventsWaiting()) this._drainEvents();
    return true;
  }

  // The error teller for a call with a signal: an error after the abort
  // releases the permit instead of reporting it.
  _abortable(permit, tellError, signal) {
    return (error) => {
      if (signal.aborted) this._release(permit);
      else tellError(error);
    };
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
