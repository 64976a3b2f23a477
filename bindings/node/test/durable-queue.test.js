'use strict';
// The durable queue (spec section 10): queuePath keeps the events in an
// SQLite file that outlives the handle.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const respite = require('..');
const { useFaultServer } = require('./fault_server');


let server;
useFaultServer(test, (started) => (server = started));

let dir;
test.beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-durable-'));
});
test.afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

// The batch's event ids (L3).
function ids(batch) {
  return Array.from({ length: batch.length }, (_, i) => batch.id(i));
}

test('events and figures outlive the handle', () => {
  const file = path.join(dir, 'usage.db');
  const first = new respite.Queue({ queuePath: file, durability: 'full' });
  for (const text of ['one', 'two', 'three']) first.enqueue(text);
  assert.equal(first.stats().durable, 1);
  first.close(); // the events stay in the file (L7)

  const second = new respite.Queue({ queuePath: file });
  assert.equal(second.pending, 3);
  const stats = second.stats();
  assert.deepEqual([stats.accepted, stats.pending, stats.inFlight, stats.delivered], [3, 3, 0, 0]);
  assert.ok(stats.balanced);
  assert.equal(stats.corruptSetAside, 0);
  const batch = second.take(10);
  assert.deepEqual(batch.texts(), ['one', 'two', 'three']);
  assert.deepEqual(ids(batch), [1, 2, 3]);
  assert.equal(second.stats().inFlight, 3);
  batch.close(); // unsettled: pending again, in order, with the same ids (D4, Q5)

  const again = second.take(10);
  assert.deepEqual(again.texts(), ['one', 'two', 'three']);
  assert.deepEqual(ids(again), [1, 2, 3]);
  assert.equal(again.settleAll('delivered'), 3);
  again.close();
  second.enqueue('four');
  const later = second.take(10);
  assert.deepEqual(ids(later), [4], 'ids are never reused, even after the events are gone (L3)');
  later.close();
  second.close();

  const third = new respite.Queue({ queuePath: file });
  const figures = third.stats();
  assert.deepEqual([figures.accepted, figures.delivered, figures.pending], [4, 3, 1]);
  assert.ok(figures.balanced);
  third.close();
});

test('a file in a missing directory is a StorageError', () => {
  const file = path.join(dir, 'missing', 'usage.db');
  assert.throws(() => new respite.Queue({ queuePath: file }), (error) => {
    assert.ok(error instanceof respite.StorageError, error.name);
    assert.ok(error.message.startsWith(`queue file '${file}': `), error.message);
    return true;
  });
  assert.equal(fs.existsSync(path.dirname(file)), false);
});

test('a file of a newer layout is refused and left as it was', () => {
  const file = path.join(dir, 'newer.db');
  const queue = new respite.Queue({ queuePath: file });
  queue.enqueue('kept');
  queue.close();
  // SQLite's user_version (bytes 60-63 of the header, big-endian) is the layout version (L4).
  const fd = fs.openSync(file, 'r+');
  const version = Buffer.alloc(4);
  version.writeUInt32BE(3);
  fs.writeSync(fd, version, 0, 4, 60);
  fs.closeSync(fd);
  assert.throws(() => new respite.Queue({ queuePath: file }), {
    name: 'StorageError',
    message: `queue file '${file}' has layout version 3; this respite reads version 2 (update respite)`,
  });
  assert.equal(fs.readFileSync(file).readUInt32BE(60), 3);
});

test('a sender sends what the file holds, with ids that stay the same when sent again', async () => {
  const file = path.join(dir, 'outbox.db');
  const producer = new respite.Queue({ queuePath: file }); // e.g. a request that only enqueues
  for (let i = 0; i < 3; i++) producer.enqueue(`e${i}`);
  producer.close();

  await server.script('503; healthy'); // the first send fails: its events go again, with the same ids
  const sender = new respite.Sender({
    url: server.url,
    policy: { name: 'retry', maximum_capacity: 100, retry_times: 5, error_handlers: [{ on: 'server_error', strategy: 'retry' }] },
    queuePath: file,
    idsHeader: 'X-Respite-Ids',
    minEntriesPerMessage: 1,
    maxEntriesPerMessage: 10,
    failuresToEnterRecovery: 10,
    logger: { info() {}, warn() {} },
  });
  sender.enqueue('e3');
  await sender.flush(5);
  const stats = sender.stats();
  assert.equal(await sender.close(), 0);
  assert.equal(stats.queue.durable, 1);
  assert.deepEqual([stats.accepted, stats.delivered], [4, 4]);
  assert.ok(stats.queue.balanced);

  const received = (await server.stats(true)).received;
  assert.equal(received[0].status, 503);
  assert.ok(received.length >= 2, 'the failed send was sent again');
  const byId = {};
  const failedIds = [];
  const deliveredIds = [];
  for (const request of received) {
    const requestIds = request.headers['X-Respite-Ids'].split(',');
    const events = request.body.split('\n');
    assert.equal(requestIds.length, events.length, 'one id per event, in body order');
    requestIds.forEach((id, i) => {
      byId[id] ??= events[i];
      assert.equal(byId[id], events[i], `id ${id} names one event`);
      (request.status === 503 ? failedIds : deliveredIds).push(id);
    });
  }
  assert.deepEqual(byId, { 1: 'e0', 2: 'e1', 3: 'e2', 4: 'e3' });
  assert.ok(failedIds.length > 0 && failedIds.every((id) => deliveredIds.includes(id)), 'resent with the same ids');

  const after = new respite.Queue({ queuePath: file });
  const figures = after.stats();
  assert.deepEqual([figures.accepted, figures.delivered, figures.pending], [4, 4, 0]);
  assert.ok(figures.balanced);
  after.close();
});
