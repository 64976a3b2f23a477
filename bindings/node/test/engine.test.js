'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');
const respite = require('..');
const { raises } = require('./helpers');

function setup({ gate = {}, engine = {}, policy } = {}) {
  const p = policy || respite.Policy.build({ name: 'p', maximumCapacity: 100, handlers: [{ on: 'server_error', strategy: 'retry' }], retryTimes: 3 });
  const queue = new respite.Queue({ policy: p });
  const g = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 10, ...gate });
  const e = new respite.DeliveryEngine({ queue, gate: g, minEntriesPerMessage: 2, ...engine });
  return { policy: p, queue, gate: g, engine: e, close: () => [e, queue, g, p].forEach((o) => o.close()) };
}

test('send, wait, probe, drain: the engine decides, the caller sends (S2-S4)', () => {
  const s = setup();
  const gateEvents = [];
  s.gate.on('event', (event) => gateEvents.push(event.type));
  try {
    assert.deepEqual([s.engine.minEntries, s.engine.maxEntries], [2, 4]);
    s.queue.enqueue('e1', 0);
    assert.equal(s.engine.next(0), 'idle');
    for (const e of ['e2', 'e3', 'e4', 'e5']) s.queue.enqueue(e, 0);
    assert.equal(s.engine.next(0), 'send');
    const batch = s.engine.take(0);
    assert.deepEqual(batch.texts(), ['e1', 'e2', 'e3', 'e4']);
    s.engine.settle(batch, { status: 503, retryAfter: 0 }, { now: 1 });
    raises(() => batch.text(0), { name: 'ClosedError' }); // settled batches are freed
    assert.deepEqual(gateEvents, ['recovery_started'], "the engine's report reaches the Gate's listeners");
    assert.equal(s.engine.next(2), 'wait');
    assert.equal(s.engine.waitSeconds, 9);
    const refused = raises(() => s.engine.take(2), respite.TemporarilyUnavailableError);
    assert.equal(refused.retryAfter, 9);
    assert.equal(refused.message, respite.refusalMessage(9));
    assert.equal(s.engine.next(11), 'send', 'the pause is over: a probe');
    const probe = s.engine.take(11);
    assert.deepEqual([probe.texts(), probe.attempts(0)], [['e1', 'e2', 'e3', 'e4'], 2]);
    s.engine.settle(probe, 200, { now: 11 });
    assert.equal(s.engine.next(11), 'idle', 'one event is left, below the minimum');
    s.engine.shutdown(12);
    assert.equal(s.engine.next(12), 'send', 'closing sends the final batch below the minimum');
    s.engine.settle(s.engine.take(12), 200, { now: 12 });
    assert.equal(s.engine.next(12), 'done');
    assert.equal(s.engine.unsent, 0);
    const stats = s.engine.stats();
    assert.deepEqual([stats.sends, stats.probes, stats.sendsFailed, stats.refusals, stats.eventsSent, stats.closing], [3, 1, 1, 1, 9, true]);
    assert.equal(s.queue.stats().delivered, 5);
    raises(() => s.queue.enqueue('late', 13), { name: 'ClosedError', message: 'queue is closed' });
  } finally {
    s.close();
  }
});

test('closing while paused leaves events unsent, with an unsent_at_close warning (S5)', () => {
  const warnings = [];
  const s = setup({ engine: { name: 'shipper', logger: { warn: (message) => warnings.push(message), info() {} } } });
  try {
    for (const e of ['a', 'b']) s.queue.enqueue(e, 0);
    s.engine.settle(s.engine.take(0), { transport: true }, { now: 0 });
    assert.equal(s.engine.unsent, null, 'not done yet');
    s.engine.shutdown(1);
    const events = [];
    s.engine.on('unsent_at_close', (event) => events.push(event));
    assert.equal(s.engine.next(1), 'done');
    assert.equal(s.engine.unsent, 2);
    assert.deepEqual(events.map((e) => [e.count, e.warning, e.source]), [[2, true, 'shipper']]);
    // The core's line, with the engine's name, passed through unchanged.
    assert.equal(warnings[0], 'shipper: closed with 2 events not sent');
    assert.equal(s.engine.stats().closedWhilePaused, true);
    raises(() => s.engine.take(2), { name: 'ClosedError', message: 'engine is closed' });
  } finally {
    s.close();
  }
});

test('misuse is reported by the core: a second take, a foreign batch, bad statuses', () => {
  const s = setup({ engine: { minEntriesPerMessage: 1 } });
  try {
    for (const e of ['a', 'b', 'c']) s.queue.enqueue(e, 0);
    const batch = s.engine.take(0);
    assert.equal(batch.length, 2);
    raises(() => s.engine.take(0), { name: 'InvalidArgumentError', message: 'a batch is already in flight: settle it first' });
    raises(() => s.engine.next(0), { name: 'InvalidArgumentError', message: /^a batch is in flight/ });
    raises(() => s.engine.settle(batch, 99), { name: 'InvalidArgumentError', message: /^http_status must be an integer from 100 to 599/ });
    const foreign = s.queue.take(1, 0);
    raises(() => s.engine.settle(foreign, 200), { name: 'InvalidArgumentError', message: /^batch must be the one respite_engine_take returned/ });
    foreign.close();
    raises(() => s.engine.settle(batch, 'ok'), TypeError);
    s.engine.settle(batch, 200); // still in flight after the rejected settles
    raises(() => new respite.DeliveryEngine({ queue: s.queue, gate: s.gate, minEntriesPerMessage: 0 }), { name: 'InvalidSettingError', setting: 'min_entries_per_message' });
    raises(() => new respite.DeliveryEngine({ queue: s.queue }), TypeError);
  } finally {
    s.close();
  }
});

test('closing what an engine uses leaves the engine working: the core holds its queue, gate and policy', () => {
  for (const closeFirst of ['queue', 'gate', 'policy']) {
    const s = setup({ engine: { minEntriesPerMessage: 1 } });
    s.queue.enqueue('a', 0);
    const batch = s.engine.take(0);
    s[closeFirst].close();
    assert.equal(s.engine.closed, false, closeFirst);
    s.engine.settle(batch, 200);
    assert.equal(s.engine.stats().eventsSent, 1, closeFirst);
    assert.equal(s.engine.next(0), 'idle', closeFirst);
    s.close(); // everything else, twice for the closed one: idempotent
    raises(() => s.engine.next(0), { name: 'ClosedError', message: 'engine is closed' });
  }
  const gate = new respite.Gate();
  const queue = new respite.Queue();
  gate.close();
  raises(() => new respite.DeliveryEngine({ queue, gate }), { name: 'ClosedError', message: 'gate is closed' });
  queue.close();
});

// global.gc without --expose-gc.
function collector() {
  if (typeof global.gc === 'function') return global.gc;
  require('node:v8').setFlagsFromString('--expose-gc');
  return require('node:vm').runInNewContext('gc');
}

test('two engines share a queue and gate; each close drops only its own hold', () => {
  const s = setup();
  const second = new respite.DeliveryEngine({ queue: s.queue, gate: s.gate, minEntriesPerMessage: 1 });
  try {
    s.engine.close();
    s.queue.enqueue('e1', 0);
    s.queue.close();
    s.gate.close();
    s.policy.close();
    assert.equal(second.next(0), 'send');
    second.settle(second.take(0), 200);
    assert.equal(second.stats().eventsSent, 1);
  } finally {
    second.close();
    s.close();
  }
});

test('engines, queues and gates left to the garbage collector are freed in any order', async () => {
  const gc = collector();
  let collected = 0;
  const watch = new FinalizationRegistry(() => collected++);
  (() => {
    for (let round = 0; round < 50; round++) {
      const s = setup({ engine: { minEntriesPerMessage: 1 } });
      s.queue.enqueue('x', 0);
      s.engine.take(0); // left in flight
      watch.register(s.engine, round);
    }
  })();
  for (let i = 0; i < 10 && collected < 50; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  assert.ok(collected > 0, 'the engines were collected (and their finalizers ran without crashing)');
});

test('a worker thread runs its own queue, gate and engine', async () => {
  const script = `
    const { parentPort, workerData } = require('node:worker_threads');
    const respite = require(workerData.root);
    const queue = new respite.Queue({ overflow: 'drop_oldest' });
    const gate = new respite.Gate({ failuresToEnterRecovery: 2 });
    const engine = new respite.DeliveryEngine({ queue, gate, minEntriesPerMessage: 10, maxEntriesPerMessage: 50 });
    for (let i = 0; i < 1000; i++) queue.enqueue(Buffer.from('event ' + i));
    let sent = 0;
    while (engine.next() === 'send') {
      const batch = engine.take();
      sent += batch.length;
      engine.settle(batch, 204);
    }
    const stats = queue.stats();
    engine.close();
    queue.close();
    parentPort.postMessage({ sent, delivered: stats.delivered, balanced: stats.balanced, engineClosed: engine.closed });
  `;
  const results = await Promise.all(
    [1, 2].map(
      () =>
        new Promise((resolve, reject) => {
          const worker = new Worker(script, { eval: true, workerData: { root: path.join(__dirname, '..') } });
          worker.once('message', resolve);
          worker.once('error', reject);
        }),
    ),
  );
  for (const result of results) assert.deepEqual(result, { sent: 1000, delivered: 1000, balanced: true, engineClosed: true });
});
