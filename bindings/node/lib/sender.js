'use strict';
// The background HTTP sender (spec section 5, S6-S13) as an EventEmitter.
// The core's sender owns a thread that sends; enqueue only copies into its
// queue (S1) and returns. flush and close can wait, so they run on the
// addon's own threads and return promises: the event loop never waits.
const { EventEmitter } = require('node:events');
const native = require('./native');
const { buildSettings } = require('./settings');
const { finalizer, PoolHandle } = require('./handle');
const { Policy } = require('./policy');
const { queueStatsOf } = require('./queue');
const { engineStatsOf } = require('./engine');
const { gateStatsOf } = require('./gate');
const { forwardEvents } = require('./events');
const { plainStruct, flag } = require('./struct');

// Options of the Sender itself; every other key is a setting.
const OWN = ['gate', 'queue', 'policy', 'headers', 'logger', 'eventIntervalMs'];

function isSetting(component, key) {
  const name = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return native.respite_setting_find(component, name) != null;
}

// Splits flat options into the sender's, the gate's and the queue's
// settings (no name is shared by two of them); `gate` and `queue` may also
// be objects of their own (with a `profile`). Unknown names go to the
// sender's, whose check names them.
function splitOptions(options) {
  const parts = { sender: {}, gate: null, queue: null };
  for (const key of Object.keys(options)) {
    if (OWN.includes(key)) continue;
    const target = isSetting('sender', key) ? 'sender' : isSetting('gate', key) ? 'gate' : isSetting('queue', key) ? 'queue' : 'sender';
    if (target !== 'sender' && parts[target] === null) parts[target] = {};
    parts[target][key] = options[key];
  }
  for (const component of ['gate', 'queue']) {
    const nested = options[component];
    if (nested === undefined || nested === null) continue;
    if (typeof nested !== 'object') throw new TypeError(`respite: ${component} must be an object of ${component} settings`);
    parts[component] = { ...(parts[component] || {}), ...nested };
  }
  // A sender without gate settings uses the usage_sharing profile (S6).
  if (parts.gate !== null && parts.gate.profile === undefined) parts.gate.profile = 'usage_sharing';
  return parts;
}

function freeAll(...settings) {
  for (const s of settings) if (s) native.respite_settings_free(s);
}

// Stops the event poll of a sender that was collected.
function pollOnce(weak, timer) {
  const sender = weak.deref();
  if (sender === undefined) clearInterval(timer);
  else sender._drainEvents();
}

class Sender extends EventEmitter {
  // options: the "sender" settings in camelCase (url required, timeoutSeconds,
  // contentType, prefix, separator, suffix, gzip, minEntriesPerMessage,
  // maxEntriesPerMessage, closeTimeoutSeconds), the gate's (failuresToEnterRecovery,
  // recoverySeconds, ...; the usage_sharing profile under them) and the
  // queue's (overflow, maxBytes) flat or as `gate: {...}` / `queue: {...}`;
  // policy (a Policy, its JSON text or object; default @default); headers (added to
  // every request); logger (warn/info, e.g. console); eventIntervalMs (how
  // often the sender's events are looked for, default 50).
  constructor(options = {}) {
    super();
    if (options === null || typeof options !== 'object') throw new TypeError('respite: options must be an object');
    const parts = splitOptions(options);
    let senderSettings = null;
    let gateSettings = null;
    let queueSettings = null;
    let policy = options.policy === undefined || options.policy === null ? null : options.policy;
    let ownPolicy = false;
    try {
      senderSettings = buildSettings('sender', parts.sender);
      if (parts.gate) gateSettings = buildSettings('gate', parts.gate);
      if (parts.queue) queueSettings = buildSettings('queue', parts.queue);
      if (policy !== null && !(policy instanceof Policy)) {
        policy = Policy.fromJSON(policy); // its JSON text or object
        ownPolicy = true;
      }
      // The core holds the policy: ours may be closed at once.
      this._handle = native.respite_sender_new(senderSettings, gateSettings, queueSettings, policy ? policy._live() : null);
    } finally {
      freeAll(senderSettings, gateSettings, queueSettings);
      if (ownPolicy) policy.close();
    }
    this._logger = options.logger || null;
    this._rawEvent = new native.respite_event();
    this._closing = null; // the promise of close()
    this._finalStats = null;
    // Freed when closed (or collected) AND no flush/close is in flight.
    // A sender never closed is freed on the pool: freeing closes, which
    // may wait close_timeout_seconds.
    // (The closure must not hold `this`, or it would never be collected.)
    const state = { closed: false };
    this._state = state;
    this._native = new PoolHandle(this._handle, (raw) => {
      if (state.closed) native.respite_sender_free(raw);
      else native.respite_node_sender_free_later(raw);
    });
    finalizer.register(this, [PoolHandle.release, this._native], this);
    try {
      const headers = options.headers;
      if (headers !== undefined && headers !== null) {
        const pairs = headers instanceof Map || Array.isArray(headers) ? [...headers] : Object.entries(headers);
        for (const [name, value] of pairs) this.addHeader(name, value);
      }
    } catch (error) {
      this._abandon();
      throw error;
    }
    // The sender's thread makes events at any time: look every few ms. The
    // timer neither keeps the process alive nor this object.
    const weak = new WeakRef(this);
    const interval = options.eventIntervalMs === undefined ? 50 : Number(options.eventIntervalMs);
    if (!(interval > 0)) {
      this._abandon();
      throw new TypeError(`respite: eventIntervalMs must be a number greater than 0 (got ${options.eventIntervalMs})`);
    }
    const poll = { timer: null };
    poll.timer = setInterval(() => pollOnce(weak, poll.timer), interval);
    poll.timer.unref();
    this._timer = poll.timer;
  }

  _abandon() {
    finalizer.unregister(this);
    const handle = this._handle;
    this._handle = null;
    this._native.handle = null;
    native.respite_sender_free(handle); // never started sending: quick
  }

  get closed() {
    return this._handle === null || this._closing !== null;
  }

  // Adds a header to every later request (S7).
  addHeader(name, value) {
    native.respite_sender_add_header(this._handle, String(name), String(value));
  }

  // Queues one event (a string, UTF-8, or a Buffer) and returns at once,
  // whatever the network does (S1, S10). QueueFullError (drop_newest),
  // TooLargeError, ClosedError.
  enqueue(payload) {
    native.respite_sender_enqueue(this._closing ? null : this._handle, payload);
  }

  // Sends what is queued and resolves once nothing is pending or in flight
  // (S11). Rejects at once with TemporarilyUnavailableError (retryAfter)
  // while sending is paused, with TransportError when timeoutSeconds ran
  // out, ClosedError after close.
  flush(timeoutSeconds = 5) {
    if (typeof timeoutSeconds !== 'number') {
      return Promise.reject(new TypeError(`respite: timeoutSeconds must be a number (got ${typeof timeoutSeconds})`));
    }
    return this._job((handle, done) => native.respite_node_sender_flush_start(handle, timeoutSeconds, done)).then(() => undefined);
  }

  // Closes (S5, S12): while paused at once, sending nothing; otherwise
  // drains within closeTimeoutSeconds. Resolves with the number of events
  // not sent; a second close resolves with the same number. Frees the
  // native sender; stats() then gives the figures at close.
  close() {
    if (this._closing) return this._closing;
    if (this._handle === null) return this._job(null);
    const handle = this._handle;
    this._closing = this._job((raw, done) => native.respite_node_sender_close_start(raw, done)).then(
      (unsent) => {
        this._finish(handle);
        return unsent;
      },
      (error) => {
        this._finish(handle);
        throw error;
      },
    );
    return this._closing;
  }

  _finish(handle) {
    this._drainEvents();
    clearInterval(this._timer);
    try {
      this._finalStats = this._statsOf(handle);
    } catch {
      this._finalStats = null;
    }
    this._handle = null;
    this._state.closed = true; // the core's close has returned: free is quick
    finalizer.unregister(this);
    this._native.release();
  }

  // Runs a pool job on the native sender; it stays alive meanwhile.
  _job(start) {
    const handle = this._closing ? null : this._handle;
    // The core words a NULL sender: "sender is closed".
    const begin = (done) => (handle === null ? native.respite_node_sender_flush_start(null, 0, done) : start(handle, done));
    return this._native.job(begin, () => this._drainEvents());
  }

  // {queue: D9 figures, engine, gate, requests, bytesSent, paused, closed,
  // accepted, delivered, ... (the queue's figures at the top too)}.
  stats() {
    if (this._handle === null && this._finalStats) return this._finalStats;
    return this._statsOf(this._handle);
  }

  _statsOf(handle) {
    const raw = new native.respite_sender_stats();
    native.respite_sender_stats_get(handle, raw);
    const stats = plainStruct(raw, { queue: queueStatsOf, engine: engineStatsOf, gate: gateStatsOf, paused: flag, closed: flag });
    return { ...stats.queue, ...stats };
  }

  // Emits every waiting event under its type and as 'event'; warnings
  // (a pause began or grew, a send failed, events unsent at close) go to
  // logger.warn, the rest to logger.info.
  _drainEvents() {
    if (this._handle === null) return;
    forwardEvents(this, this._logger, native.respite_sender_next_event, this._handle, this._rawEvent);
  }
}

module.exports = { Sender };
