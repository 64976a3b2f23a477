'use strict';
// The bounded delivery queue (spec section 4, D3-D6, D9, Q1-Q9) and the
// batches of events taken from it.
const native = require('./native');
const { queueStatsOf } = require('../generated/structs');
const { buildSettings } = require('./settings');
const { own, release, Owned } = require('./handle');
const { timeOf } = require('./gate');
const { Policy } = require('./policy');

const { DISPOSITIONS } = require('../generated/tables');

// An unknown name becomes -1, which the core rejects with its own message.
function dispositionNumber(name) {
  if (typeof name === 'number') return name;
  return DISPOSITIONS.indexOf(String(name));
}

class Queue extends Owned {
  // options: policy (a Policy; absent: @default, D8), and the "queue"
  // settings in camelCase: overflow ('drop_oldest' | 'drop_newest'),
  // maxBytes (0: no byte limit).
  constructor(options = {}) {
    super();
    const policy = options?.policy ?? null;
    if (policy !== null && !(policy instanceof Policy)) {
      throw new TypeError('respite: policy must be a Policy (Policy.fromJSON, Policy.build, Policy.default) or absent');
    }
    const settings = buildSettings('queue', options || {}, ['policy']);
    try {
      own(this, native.respite_queue_new(policy?._live() ?? null, settings), native.respite_queue_free);
    } finally {
      native.respite_settings_free(settings);
    }
    // The policy the queue was made from (the core holds it too).
    this.policy = policy;
  }

  // Queues one event: a string (as UTF-8) or a Buffer/Uint8Array, copied in.
  // Throws QueueFullError (drop_newest at capacity), TooLargeError (larger
  // than maxBytes), ClosedError (after shutdown() or close()),
  // InvalidArgumentError (an empty event).
  enqueue(payload, now) {
    native.respite_queue_enqueue(this._handle, payload, timeOf(now));
  }

  // Refuses every later enqueue (ClosedError, "queue is closed"); taking and
  // settling go on, so the queue can drain (Q1). Idempotent.
  shutdown() {
    native.respite_queue_close(this._handle);
  }

  // Whether shutdown() was called (or an engine's shutdown).
  get isShutDown() {
    return native.respite_queue_is_closed(this._handle) === 1;
  }

  // Events queued and not taken.
  get pending() {
    return Number(native.respite_queue_pending(this._handle));
  }

  // Drops pending events whose age reached the policy's event_ttl (D6);
  // returns how many.
  expire(now) {
    return Number(native.respite_queue_expire(this._handle, timeOf(now)));
  }

  // Takes up to maxEvents events from the head as an in-flight Batch, or
  // null when nothing is pending.
  take(maxEvents = 1, now) {
    const handle = native.respite_queue_take(this._handle, maxEvents, timeOf(now));
    return handle ? new Batch(handle, null) : null;
  }

  // The D9 figures: accepted = delivered + droppedCapacity + expired +
  // retriesExhausted + discarded + pending + inFlight (`balanced`).
  stats() {
    const raw = new native.respite_queue_stats();
    native.respite_queue_stats_get(this._handle, raw);
    return queueStatsOf(raw);
  }

  // D9 on a fresh snapshot: throws InternalError with every figure when the
  // figures do not add up.
  checkAccounting() {
    native.respite_queue_check_accounting(this._handle);
  }
}

// Events taken together (Queue#take or DeliveryEngine#take), read by index
// (0 is the oldest). A queue's batch is settled event by event and freed
// with close(), which puts retried and unsettled events back at the head
// (D4, Q5); an engine's batch is settled with DeliveryEngine#settle.
class Batch extends Owned {
  constructor(handle, engine) {
    super();
    this._engine = engine;
    // An engine's batch is the engine's to free.
    if (engine === null) own(this, handle, native.respite_batch_free);
    else this._handle = handle;
  }

  // Frees a queue's batch (retried and unsettled events go back to the head).
  // An engine's batch is only dropped here: settle it with the engine.
  close() {
    if (this._engine === null) release(this);
    else this._handle = null;
  }

  // The core words "batch is closed" for a NULL batch.
  _live() {
    if (this._handle === null) native.respite_batch_event_size(null, 0);
    return this._handle;
  }

  get length() {
    return native.respite_batch_count(this._live());
  }

  // Events not yet settled.
  get unsettled() {
    return native.respite_batch_unsettled(this._live());
  }

  // Payload `index` as text (UTF-8).
  text(index) {
    return native.respite_batch_event_text(this._live(), index);
  }

  // Payload `index` as its exact bytes.
  bytes(index) {
    return native.respite_node_batch_event_bytes(this._live(), index);
  }

  texts() {
    return Array.from({ length: this.length }, (_, i) => this.text(i));
  }

  buffers() {
    return Array.from({ length: this.length }, (_, i) => this.bytes(i));
  }

  // The event's id: increasing, never reused in its queue (L3).
  id(index) {
    return Number(native.respite_batch_event_id(this._live(), index));
  }

  // Attempts including this one (1 on the first take).
  attempts(index) {
    return native.respite_batch_event_attempts(this._live(), index);
  }

  // Seconds since the event was first queued.
  age(index, now) {
    return native.respite_batch_event_age(this._live(), index, timeOf(now));
  }

  // 'delivered', 'retry', 'discarded', 'retries_exhausted', or null when
  // not settled yet.
  disposition(index) {
    const code = native.respite_batch_event_disposition(this._live(), index);
    return code < 0 ? null : DISPOSITIONS[code];
  }

  // Settles one event; returns the disposition applied ('retry' becomes
  // 'retries_exhausted' once retry_times resends were made, D3).
  settle(index, disposition) {
    return DISPOSITIONS[native.respite_batch_settle(this._live(), index, dispositionNumber(disposition))];
  }

  // Settles every unsettled event the same way; returns how many.
  settleAll(disposition) {
    return native.respite_batch_settle_all(this._live(), dispositionNumber(disposition));
  }
}

module.exports = { Queue, Batch, DISPOSITIONS };
