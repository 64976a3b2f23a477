'use strict';
// The delivery engine (spec section 5, S1-S5): the sender's decisions over a
// queue, its policy and a gate, on the caller's clock, with no I/O, sleeping
// or threads. A sender loop:
//
//   for (;;) switch (engine.next()) {
//     case 'send': { const batch = engine.take(); const r = await post(batch.texts());
//                    engine.settle(batch, r.status, { retryAfter }); break; }
//     case 'wait': await sleep(engine.waitSeconds); break;
//     case 'idle': await moreEvents(); break;
//     case 'done': return;
//   }
const { EventEmitter } = require('node:events');
const native = require('./native');
const { engineStatsOf } = require('../generated/structs');
const { buildSettings } = require('./settings');
const { own, release } = require('./handle');
const { Gate, timeOf } = require('./gate');
const { Queue, Batch } = require('./queue');
const { forwardEvents } = require('./events');

const { ACTIONS } = require('../generated/tables');

// How a send ended: an HTTP status (503), {status, retryAfter}, or
// {transport: true, retryAfter} (the request did not complete).
// Returns [transportFailed, httpStatus, retryAfterHint].
function answerOf(answer) {
  if (typeof answer === 'number') return [0, answer, 0];
  if (answer?.transport === true) return [1, 0, answer.retryAfter ?? 0];
  const status = answer?.status ?? answer?.statusCode;
  if (typeof status === 'number') return [0, status, answer.retryAfter ?? 0];
  throw new TypeError('respite: a send ends with an HTTP status, {status, retryAfter?} or {transport: true}');
}

class DeliveryEngine extends EventEmitter {
  // options: queue (a Queue) and gate (a Gate), both required; logger; and
  // the "sender" settings the engine uses in camelCase: name,
  // minEntriesPerMessage, maxEntriesPerMessage, closeTimeoutSeconds. The
  // engine settles by the queue's policy; the core keeps the queue and gate
  // alive while the engine uses them, whoever closes them first.
  constructor(options = {}) {
    super();
    const { queue, gate } = options;
    if (!(queue instanceof Queue)) throw new TypeError('respite: a DeliveryEngine needs a Queue (options.queue)');
    if (!(gate instanceof Gate)) throw new TypeError('respite: a DeliveryEngine needs a Gate (options.gate)');
    const settings = buildSettings('sender', options, ['queue', 'gate', 'logger']);
    try {
      // A closed queue or gate is passed as null: the core answers "closed".
      own(this, native.respite_engine_new(queue._handle, gate._handle, settings), native.respite_engine_free);
    } finally {
      native.respite_settings_free(settings);
    }
    // The queue and gate it was made with (the core holds them too).
    this.queue = queue;
    this.gate = gate;
    this._logger = options.logger || null;
    this._batch = null; // the in-flight Batch, until settled
    this._rawEvent = new native.respite_event();
  }

  get closed() {
    return this._handle === null;
  }

  // Frees the engine: a batch still in flight goes back to the head of the
  // queue, its attempt not counted. Later calls raise ClosedError.
  close() {
    if (!release(this)) return;
    this._dropBatch();
  }

  // 'send' | 'wait' | 'idle' | 'done' at `now` (S2, S4, S5).
  next(now) {
    const action = native.respite_engine_next(this._handle, timeOf(now));
    this._drainEvents();
    return ACTIONS[action];
  }

  // After 'wait': seconds until the gate admits again (Infinity under
  // recoverNever); 0 after any other action.
  get waitSeconds() {
    return native.respite_engine_wait_seconds(this._live());
  }

  // Takes the next batch and admits it through the gate: a Batch, or null
  // when nothing is pending. A refusing gate throws
  // TemporarilyUnavailableError (retryAfter) and the events stay queued.
  take(now) {
    const at = timeOf(now);
    let handle;
    try {
      handle = native.respite_engine_take(this._handle, at);
    } finally {
      this._drainEvents();
    }
    if (!handle) return null;
    this._batch = new Batch(handle, this);
    return this._batch;
  }

  // S3: how the send of `batch` ended — an HTTP status, {status,
  // retryAfter?} or {transport: true}; options.retryAfter (seconds) and
  // options.now. The gate is told, each event is settled by the policy, and
  // the batch is freed (it can no longer be read).
  settle(batch, answer, options = {}) {
    if (!(batch instanceof Batch) || batch._engine !== this || batch !== this._batch) {
      // The core words misuse: a batch it did not hand out.
      native.respite_engine_settle(this._handle, null, 0, 200, 0, timeOf(options.now));
      throw new TypeError('respite: settle takes the batch this engine\'s take() returned');
    }
    const [transport, status, answerHint] = answerOf(answer);
    const hint = options.retryAfter !== undefined ? options.retryAfter : answerHint;
    const at = timeOf(options.now);
    try {
      // Rejected before anything was reported: the batch stays in flight.
      native.respite_engine_settle(this._handle, batch._handle, transport, status, hint, at);
    } finally {
      this._drainEvents();
    }
    this._dropBatch();
  }

  // S5: starts closing at `now`: the queue refuses new events and next()
  // drains it (or answers 'done' at once while the gate refuses).
  shutdown(now) {
    native.respite_engine_close(this._handle, timeOf(now));
    this._drainEvents();
  }

  get closing() {
    return native.respite_engine_is_closing(this._live()) === 1;
  }

  // Events left unsent when 'done' was reached; null before.
  get unsent() {
    const unsent = Number(native.respite_engine_unsent(this._handle));
    return unsent < 0 ? null : unsent;
  }

  get minEntries() {
    return native.respite_engine_min_entries(this._live());
  }

  get maxEntries() {
    return native.respite_engine_max_entries(this._live());
  }

  stats() {
    const raw = new native.respite_engine_stats();
    native.respite_engine_stats_get(this._handle, raw);
    return engineStatsOf(raw);
  }

  _live() {
    if (this._handle === null) this.stats(); // raises ClosedError
    return this._handle;
  }

  _dropBatch() {
    if (this._batch) this._batch._handle = null;
    this._batch = null;
  }

  // The engine's events (unsent_at_close) here, the gate's on the gate.
  _drainEvents() {
    this.gate._drainEvents();
    if (this._handle === null) return;
    forwardEvents(this, this._logger, native.respite_engine_next_event, this._handle, this._rawEvent);
  }
}

module.exports = { DeliveryEngine, ACTIONS };
