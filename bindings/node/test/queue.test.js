'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises } = require('./helpers');

const retryPolicy = () =>
  respite.Policy.build({ name: 'p', maximumCapacity: 3, handlers: [{ on: 'any_error', strategy: 'retry' }], retryTimes: 1 });

test('strings and Buffers go in, and come out as text or exact bytes', () => {
  const queue = new respite.Queue();
  try {
    queue.enqueue('héllo', 0);
    queue.enqueue(Buffer.from([0, 1, 0, 255]), 0);
    queue.enqueue(new Uint8Array([65, 66]), 0);
    assert.equal(queue.pending, 3);
    const batch = queue.take(10, 1);
    assert.equal(batch.length, 3);
    assert.equal(batch.text(0), 'héllo');
    assert.deepEqual(batch.bytes(0), Buffer.from('héllo'));
    assert.deepEqual(batch.bytes(1), Buffer.from([0, 1, 0, 255]), 'NUL bytes are kept (Q6)');
    assert.deepEqual(batch.texts().slice(2), ['AB']);
    assert.deepEqual([batch.attempts(0), batch.age(0, 3), batch.disposition(0)], [1, 3, null]);
    assert.equal(batch.settleAll('delivered'), 3);
    batch.close();
    assert.equal(queue.stats().delivered, 3);
  } finally {
    queue.close();
  }
});

test('refusals are the core errors: queue_full, too_large, invalid_argument, closed', () => {
  const queue = new respite.Queue({ policy: retryPolicy(), overflow: 'drop_newest', maxBytes: 8 });
  try {
    for (const event of ['a', 'b', 'c']) queue.enqueue(event, 0);
    const full = raises(() => queue.enqueue('d', 0), respite.QueueFullError);
    assert.equal(full.message, 'the queue is full (3 events, maximum_capacity 3); overflow drop_newest refuses new events');
    assert.equal(full.code, 'queue_full');
    const large = raises(() => queue.enqueue('123456789', 0), respite.TooLargeError);
    assert.equal(large.message, 'an event of 9 bytes is larger than max_bytes (8 bytes)');
    raises(() => queue.enqueue('', 0), { name: 'InvalidArgumentError', message: 'an event must have at least 1 byte (got 0 bytes)' });
    raises(() => queue.enqueue(42, 0), TypeError);
    raises(() => queue.enqueue('x', -1), respite.InvalidTimeError);
    queue.shutdown();
    assert.equal(queue.isShutDown, true);
    raises(() => queue.enqueue('e', 0), { name: 'ClosedError', message: 'queue is closed' });
    const stats = queue.stats();
    assert.deepEqual(
      [stats.accepted, stats.refusedFull, stats.refusedTooLarge, stats.refusedClosed, stats.overflow, stats.maxBytes, stats.closed, stats.balanced],
      [3, 1, 1, 1, 'drop_newest', 8, true, true],
    );
    // Shut down, it still drains.
    const batch = queue.take(3, 1);
    assert.deepEqual(batch.texts(), ['a', 'b', 'c']);
    batch.close();
  } finally {
    queue.close();
  }
  raises(() => new respite.Queue({ overflow: 'drop_middle' }), { name: 'InvalidSettingError', setting: 'overflow' });
});

test('retried events go back to the head, in order, until retry_times (D3, D4); D9 holds', () => {
  const queue = new respite.Queue({ policy: retryPolicy() });
  try {
    queue.enqueue('a', 0);
    queue.enqueue('b', 0);
    let batch = queue.take(2, 1);
    assert.equal(batch.settle(0, 'retry'), 'retry');
    assert.equal(batch.settle(1, 'retry'), 'retry');
    raises(() => batch.settle(1, 'delivered'), { name: 'InvalidArgumentError', message: 'event 1 of the batch is already settled (retry)' });
    batch.close();
    queue.enqueue('c', 2);
    batch = queue.take(3, 3);
    assert.deepEqual([batch.texts(), batch.attempts(0)], [['a', 'b', 'c'], 2]);
    assert.equal(batch.settle(0, 'retry'), 'retries_exhausted', 'a second resend would exceed retry_times 1');
    assert.equal(batch.settle(1, 'discarded'), 'discarded');
    batch.close(); // c was never settled: back to the head, attempt undone
    const stats = queue.stats();
    assert.deepEqual([stats.retriesExhausted, stats.discarded, stats.pending, stats.retried, stats.balanced], [1, 1, 1, 2, true]);
    queue.checkAccounting();
    const again = queue.take(1, 4);
    assert.equal(again.attempts(0), 1);
    again.close();
  } finally {
    queue.close();
  }
});

test('event_ttl drops old events (D6)', () => {
  const policy = respite.Policy.build({ name: 'ttl', maximumCapacity: 10, handlers: [{ on: 'any_error', strategy: 'discard' }], eventTtl: 5 });
  const queue = new respite.Queue({ policy });
  try {
    queue.enqueue('old', 0);
    queue.enqueue('new', 3);
    assert.equal(queue.expire(5), 1);
    assert.equal(queue.take(5, 5).text(0), 'new');
  } finally {
    queue.close();
    policy.close();
  }
});

test('a closed queue and its batches raise ClosedError; a batch outlives its queue', () => {
  const queue = new respite.Queue();
  queue.enqueue('a', 0);
  const batch = queue.take(1, 0);
  queue.close();
  queue.close(); // idempotent
  assert.equal(queue.closed, true);
  for (const call of [() => queue.enqueue('x', 0), () => queue.take(1, 0), () => queue.stats(), () => queue.pending, () => queue.expire(0), () => queue.shutdown()]) {
    raises(call, { name: 'ClosedError', message: 'queue is closed' });
  }
  assert.equal(batch.text(0), 'a', 'still readable');
  raises(() => batch.settle(0, 'delivered'), { name: 'ClosedError', message: 'queue is closed' });
  batch.close();
  batch.close();
  for (const call of [() => batch.text(0), () => batch.length, () => batch.settleAll('delivered')]) {
    raises(call, { name: 'ClosedError', message: 'batch is closed' });
  }
});
