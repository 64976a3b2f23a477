'use strict';
// The background sender against respite-fault-server.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { FaultServer, once, sleep } = require('./fault_server');

let server;
test.before(async () => {
  server = await FaultServer.start();
});
test.after(() => server.stop());
test.beforeEach(() => server.reset());

// Retries server errors and transport failures many times: nothing is lost
// while the service is down.
const RETRYING = { name: 'test', maximum_capacity: 100000, error_handlers: [{ on: 'server_error', strategy: 'retry' }], retry_times: 100 };

// Every event the server answered with 2xx, from the recorded bodies.
async function deliveredEvents() {
  const stats = await server.stats(true);
  const events = [];
  for (const request of stats.received) {
    if (request.status >= 200 && request.status < 300) events.push(...request.body.split('\n'));
  }
  return events;
}

function d9(stats) {
  return stats.delivered + stats.droppedCapacity + stats.expired + stats.retriesExhausted + stats.discarded + stats.pending + stats.inFlight;
}

test('a healthy sender delivers every event once, with its headers, and close returns 0', async () => {
  const infos = [];
  const sender = new respite.Sender({
    url: server.url,
    minEntriesPerMessage: 10,
    headers: { 'X-Api-Key': 'secret' },
    logger: { info: (m) => infos.push(m), warn: (m) => assert.fail(`unexpected warning ${m}`) },
  });
  for (let i = 0; i < 200; i++) sender.enqueue(`{"n":${i}}`);
  sender.enqueue(Buffer.from('{"n":"buffer"}'));
  assert.equal(await sender.close(), 0, 'close while healthy delivers everything');
  assert.equal(await sender.close(), 0, 'a second close gives the same count');
  const events = await deliveredEvents();
  assert.equal(events.length, 201);
  assert.equal(new Set(events).size, 201);
  const stats = sender.stats();
  assert.equal(stats.accepted, 201);
  assert.equal(stats.delivered, 201);
  assert.ok(stats.closed);
  assert.ok(stats.requests >= 11, 'batches of at most twice the minimum');
  const received = (await server.stats(true)).received[0];
  assert.equal(received.headers['X-Api-Key'], 'secret');
  assert.equal(received.headers['Content-Type'], 'application/json');
  assert.throws(() => sender.enqueue('late'), { name: 'ClosedError', message: 'sender is closed' });
  await assert.rejects(sender.flush(1), { name: 'ClosedError', message: 'sender is closed' });
});

test('flush sends below the minimum and resolves when nothing is pending', async () => {
  const sender = new respite.Sender({ url: server.url, minEntriesPerMessage: 1000 });
  try {
    for (let i = 0; i < 5; i++) sender.enqueue(`e${i}`);
    await sender.flush(2);
    assert.deepEqual((await deliveredEvents()).sort(), ['e0', 'e1', 'e2', 'e3', 'e4']);
    assert.equal(sender.stats().pending, 0);
  } finally {
    await sender.close();
  }
});

test('the sender pauses after N failures, probes once per pause, grows the pause to the maximum, then drains without new events', async () => {
  await server.script('down');
  const events = [];
  const warnings = [];
  const sender = new respite.Sender({
    name: 'metrics',
    url: server.url,
    minEntriesPerMessage: 1,
    maxEntriesPerMessage: 1,
    timeoutSeconds: 0.5,
    failuresToEnterRecovery: 3,
    recoverySeconds: 0.2,
    recoveryMultiplier: 2,
    maxRecoverySeconds: 0.4,
    jitter: 0,
    policy: RETRYING,
    eventIntervalMs: 5,
    logger: { warn: (m) => warnings.push(m), info: () => {} },
  });
  sender.on('event', (event) => events.push(event));
  try {
    for (let i = 0; i < 20; i++) sender.enqueue(`e${i}`);
    const started = await once(sender, 'recovery_started');
    assert.equal(started.failures, 3);
    assert.equal(started.pause, 0.2);
    assert.equal(sender.stats().paused, true);
    const atPause = await server.requests();
    assert.equal(atPause, 3);
    const first = await once(sender, 'recovery_extended');
    assert.equal(first.pause, 0.4);
    assert.equal(await server.requests(), atPause + 1, 'one probe when the pause ended');
    const second = await once(sender, 'recovery_extended');
    assert.equal(second.pause, 0.4, 'the pause stops growing at maxRecoverySeconds');
    assert.equal(await server.requests(), atPause + 2);
    await server.script('healthy');
    await once(sender, 'recovered', 2000);
    // No new event arrives: the queue drains by itself.
    for (let i = 0; i < 100 && sender.stats().delivered < 20; i++) await sleep(10);
    assert.equal(sender.stats().delivered, 20);
    assert.deepEqual((await deliveredEvents()).sort(), Array.from({ length: 20 }, (_, i) => `e${i}`).sort());
    const failed = events.filter((event) => event.type === 'send_failed');
    assert.ok(failed.length >= 5);
    assert.equal(failed[0].httpStatus, 503);
    assert.equal(failed[0].detail, '503\n');
    // The core's lines, with the sender's name, passed through unchanged.
    assert.ok(warnings.includes('metrics: recovery started: 3 failures within 100s; requests paused for 0.2s'), warnings.join('\n'));
    assert.ok(warnings.includes('metrics: recovery extended: the probe failed; requests paused for 0.4s'), warnings.join('\n'));
    assert.ok(warnings.includes('metrics: send failed: HTTP 503: 503'), 'a failed send is logged with its status');
    assert.ok(events.every((event) => event.source === 'metrics'));
    const order = events.map((event) => event.type).filter((type) => type !== 'send_failed');
    assert.deepEqual(order.slice(0, 5), ['recovery_started', 'probing', 'recovery_extended', 'probing', 'recovery_extended']);
  } finally {
    await sender.close();
  }
});

test('producers never block: enqueue stays fast while the server hangs', async () => {
  await server.script('hang');
  const sender = new respite.Sender({ url: server.url, minEntriesPerMessage: 1, timeoutSeconds: 0.3, closeTimeoutSeconds: 0.2, policy: RETRYING });
  try {
    await sleep(50); // a send is now waiting on the hung server
    let slowest = 0;
    const start = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) {
      const one = process.hrtime.bigint();
      sender.enqueue(`{"n":${i}}`);
      slowest = Math.max(slowest, Number(process.hrtime.bigint() - one) / 1e6);
    }
    const total = Number(process.hrtime.bigint() - start) / 1e6;
    assert.ok(total < 200, `2000 enqueues took ${total.toFixed(1)} ms`);
    assert.ok(slowest < 20, `the slowest enqueue took ${slowest.toFixed(2)} ms`);
    assert.equal(sender.stats().accepted, 2000);
  } finally {
    await sender.close();
  }
});

test('close while paused returns within 100 ms and reports the unsent count', async () => {
  await server.script('down');
  const warnings = [];
  const sender = new respite.Sender({
    url: server.url,
    minEntriesPerMessage: 1,
    failuresToEnterRecovery: 2,
    recoverySeconds: 30,
    policy: RETRYING,
    eventIntervalMs: 5,
    logger: { warn: (m) => warnings.push(m), info: () => {} },
  });
  for (let i = 0; i < 50; i++) sender.enqueue(`e${i}`);
  await once(sender, 'recovery_started');
  await assert.rejects(sender.flush(1), (error) => error instanceof respite.TemporarilyUnavailableError && error.retryAfter > 29);
  const unsentEvent = once(sender, 'unsent_at_close', 1000);
  const start = process.hrtime.bigint();
  const unsent = await sender.close();
  const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
  assert.ok(elapsed < 100, `close took ${elapsed.toFixed(1)} ms`);
  assert.equal(unsent, 50);
  assert.equal((await unsentEvent).count, 50);
  assert.ok(warnings.includes('closed with 50 events not sent'), warnings.join('\n'));
  assert.equal(await sender.close(), 50);
  assert.equal(sender.stats().pending, 50);
});

test('random faults: accepted equals the D9 sum and every delivered event arrived exactly once', async () => {
  await server.script('random p=0.4 seed=7 faults=500,503,429,reset,close');
  const sender = new respite.Sender({
    url: server.url,
    minEntriesPerMessage: 1,
    maxEntriesPerMessage: 20,
    timeoutSeconds: 1,
    closeTimeoutSeconds: 3,
    failuresToEnterRecovery: 5,
    recoverySeconds: 0.02,
    maxRecoverySeconds: 0.05,
    jitter: 0,
    policy: { ...RETRYING, retry_times: 3 },
  });
  const total = 1500;
  for (let i = 0; i < total; i++) {
    sender.enqueue(`${i}`);
    if (i % 300 === 0) await sleep(5);
  }
  // Flush until drained: a pause answers at once with its retryAfter.
  const deadline = Date.now() + 8000;
  for (;;) {
    try {
      await sender.flush(1);
      break;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      if (error instanceof respite.TemporarilyUnavailableError) await sleep(Math.min(error.retryAfter, 0.1) * 1000);
      else if (!(error instanceof respite.TransportError)) throw error;
    }
  }
  const unsent = await sender.close();
  const stats = sender.stats();
  assert.equal(stats.accepted, total);
  assert.equal(d9(stats), stats.accepted, JSON.stringify(stats));
  assert.ok(stats.balanced);
  assert.equal(unsent, stats.pending);
  const delivered = await deliveredEvents();
  assert.equal(delivered.length, stats.delivered);
  assert.equal(new Set(delivered).size, delivered.length, 'no event arrived twice');
  assert.ok(stats.delivered > total / 2, `delivered ${stats.delivered}`);
  assert.ok(stats.engine.sendsFailed > 0, 'the server did fail');
});

test('settings by spec names; errors are the core\'s', async () => {
  assert.throws(() => new respite.Sender({}), { name: 'InvalidSettingError', setting: 'url', message: "url must be an http:// or https:// URL (got '')" });
  assert.throws(() => new respite.Sender({ url: server.url, minEntriesPerMessage: 0 }), { name: 'InvalidSettingError', setting: 'min_entries_per_message' });
  assert.throws(() => new respite.Sender({ url: server.url, failuresToEnterRecovery: 0 }), { name: 'InvalidSettingError', setting: 'failures_to_enter_recovery' });
  assert.throws(() => new respite.Sender({ url: server.url, overflow: 'sideways' }), { name: 'InvalidSettingError', setting: 'overflow' });
  assert.throws(() => new respite.Sender({ url: server.url, noSuchSetting: 1 }), respite.InvalidSettingError);
  assert.throws(() => new respite.Sender({ url: server.url, headers: { 'Bad Name': 'x' } }), respite.InvalidArgumentError);
  const sender = new respite.Sender({ url: server.url, queue: { overflow: 'drop_newest' }, gate: { profile: 'cloud_request' } });
  assert.throws(() => sender.enqueue(42), { message: 'payload must be a string or a Buffer' });
  await assert.rejects(sender.flush('soon'), TypeError);
  await assert.rejects(sender.flush(-1), respite.InvalidArgumentError);
  assert.equal(await sender.close(), 0);
});

test('an unclosed sender is freed by the garbage collector (on the pool: freeing may wait)', async () => {
  require('node:v8').setFlagsFromString('--expose-gc');
  const gc = require('node:vm').runInNewContext('gc');
  await server.script('hang');
  let weak;
  (() => {
    const sender = new respite.Sender({ url: server.url, minEntriesPerMessage: 1, closeTimeoutSeconds: 0.3 });
    sender.enqueue('x');
    weak = new WeakRef(sender);
  })();
  for (let i = 0; i < 10 && weak.deref() !== undefined; i++) {
    await sleep(10);
    gc();
  }
  assert.equal(weak.deref(), undefined, 'the sender was collected');
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  await sleep(100); // its free (close, up to 0.3 s on the hung send) runs on the pool
  clearInterval(timer);
  assert.ok(ticks >= 5, `the loop ran ${ticks} timers`);
});
