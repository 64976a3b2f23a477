'use strict';
// The recovery gate (spec section 2) as an EventEmitter.
const { EventEmitter } = require('node:events');
const native = require('./native');
const { decisionOf, fleetViewOf, gateStatsOf } = require('../generated/structs');
const { buildSettings } = require('./settings');
const { SUCCESS, parseOutcome, hintOf } = require('./outcome');
const { DEFAULT_CLASSIFIER, classifierOf, reported } = require('./classify');
const { contextOf } = require('./context');
const { forwardEvents } = require('./events');
const { own, release } = require('./handle');

const { GATE_STATES: STATES } = require('../generated/tables');
// The core's permit layout (generation * slots + slot, slot 0 = admitted
// while closed): the lean path below caches only closed-state permits.
const PERMIT_SLOTS = native.RESPITE_GATE_PERMIT_SLOTS;

// `now`: seconds on the caller's monotonic clock; absent: the core's clock.
// SWIG refuses a non-number, the core a bad number (negative, NaN ...).
function timeOf(now) {
  return now === undefined ? native.respite_now() : now;
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
    let probes;
    let shared;
    try {
      if (options.fleet === undefined) {
        own(this, native.respite_gate_new(settings), native.respite_gate_free);
      } else {
        ownFleetGate(this, settings, options.fleet);
      }
      // The values the core uses, whatever profile or key spelled them (read
      // once the core has taken the settings as a gate's).
      probes = native.respite_settings_get_number(settings, 'probes');
      shared = native.respite_settings_get_text(settings, 'shared_path') !== '' || options.fleet !== undefined;
    } finally {
      native.respite_settings_free(settings);
    }
    // The same gate for the addon's hot entry points (src/respite_node_gate.h).
    this._token = native.respite_node_gate_token(this._handle);
    this._logger = options.logger || null;
    this._decision = new native.respite_decision();
    // The lean path of run(): the core's closed-state admit and success
    // report change nothing but two counters and do not read the clock, so
    // while this gate is known to be closed (its permit is cached here) run()
    // does them in JavaScript and keeps the counts; every other report, a
    // reset, an event or close drops the cache and the next call asks the
    // core again. Only calls into the core make events, so this is exact
    // while this object is the core gate's one user: the lean path is off
    // while an engine or client shares the gate (their reports may open
    // it), with probes = 0 (G11: after a pause a success must reach the
    // core to reset the delay), and on a shared gate (spec section 9: other
    // processes open it; on a fleet gate, its thread).
    this._leanBlocks = probes === 0 || shared ? 1 : 0; // sharers, probes = 0, shared
    this._leanPermit = 0;
    this._leanHandlers = null;
    this._leanAdmitted = 0;
    this._leanReported = 0;
    this._rawEvent = new native.respite_event();
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
    this._fleet = null;
    this._leanPermit = 0;
  }

  // An engine or client starts (+1) or stops (-1) sharing the core gate.
  _share(delta) {
    this._leanBlocks += delta;
    this._leanPermit = 0;
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
    this._leanPermit = 0;
    native.respite_node_gate_report(this._token, permit || 0, number, retryAfter, options.now);
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
    this._leanPermit = 0;
    native.respite_gate_reset(this._handle, timeOf(now));
    this._drainEvents();
  }

  stats() {
    const raw = new native.respite_gate_stats();
    native.respite_gate_stats_get(this._handle, raw);
    const stats = gateStatsOf(raw);
    stats.admitted += this._leanAdmitted;
    stats.reported += this._leanReported;
    return stats;
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
  // context.js); an aborted signal rejects with its reason before admission.
  run(fn, context) {
    if (context !== undefined && context.signal?.aborted) return Promise.reject(context.signal.reason);
    let permit = this._leanPermit;
    let handlers = this._leanHandlers;
    if (permit !== 0) {
      this._leanAdmitted++;
    } else {
      permit = this._admit(undefined);
      if (typeof permit !== 'number') return Promise.reject(permit); // the refusal, with retryAfter
      handlers = this._handlersFor(permit);
      if (this._leanBlocks === 0 && permit % PERMIT_SLOTS === 0) {
        this._leanPermit = permit;
        this._leanHandlers = handlers;
      }
    }
    const classifier = this.classifier;
    let result;
    try {
      result = fn(contextOf(context));
    } catch (error) {
      this._settle(permit, classifier.error(error), error);
      return Promise.reject(error);
    }
    if (result instanceof Promise) return result.then(handlers.value, handlers.error);
    if (result !== null && typeof result === 'object' && typeof result.then === 'function') {
      return Promise.resolve(result).then(handlers.value, handlers.error);
    }
    this._settle(permit, classifier.value(result), result);
    return Promise.resolve(result);
  }

  // The settle-and-pass-through pair for one permit: made once per
  // generation on the lean path, so a call allocates no closures there.
  _handlersFor(permit) {
    return {
      value: (value) => {
        this._settle(permit, this.classifier.value(value), value);
        return value;
      },
      error: (error) => {
        this._settle(permit, this.classifier.error(error), error);
        throw error;
      },
    };
  }

  // Reports a finished call (the caller's own error as request_error); a
  // gate closed meanwhile is no longer told.
  _settle(permit, classified, carrier) {
    const outcome = reported(classified);
    if (outcome === SUCCESS && permit === this._leanPermit) {
      this._leanReported++;
      return;
    }
    if (this._handle === null) return;
    this._leanPermit = 0;
    // Answers whether events wait: drained here, by the one rule.
    if (native.respite_node_gate_report(this._token, permit, outcome, outcome === SUCCESS ? 0 : hintOf(carrier)) > 0) {
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
    if (native.respite_gate_events_pending(this._handle) === 0) return;
    this._leanPermit = 0; // something happened: ask the core again
    forwardEvents(this, this._logger, native.respite_gate_next_event, this._handle, this._rawEvent);
  }
}

module.exports = { Gate, timeOf };
