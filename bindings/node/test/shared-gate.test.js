'use strict';
// One shared gate (spec section 9) across a node:cluster of four workers
// (test/shared-gate-worker.js), each with its own handle on one file. The
// fault server answers every request 503 a second late; the primary hands
// connections round-robin, so requests sent together reach different workers.
const test = require('node:test');
const assert = require('node:assert/strict');
const cluster = require('node:cluster');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const respite = require('..');
const { sleep, useFaultServer } = require('./fault_server');

const WORKERS = 4;
const RECOVERY = 3; // the worker's recoverySeconds

let server;
useFaultServer(test, (started) => (server = started));

// Forks the workers; resolves with the URL they share once all listen.
async function startCluster(sharedPath) {
  cluster.setupPrimary({ exec: path.join(__dirname, 'shared-gate-worker.js'), silent: false });
  const env = { RESPITE_TEST_URL: server.url, RESPITE_TEST_SHARED_PATH: sharedPath };
  const listening = [];
  for (let i = 0; i < WORKERS; i++) {
    const worker = cluster.fork(env);
    listening.push(new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('a cluster worker did not listen within 20 s')), 20000);
      worker.once('listening', (address) => {
        clearTimeout(timer);
        resolve(address.port);
      });
      worker.once('exit', (code) => reject(new Error(`a cluster worker exited with ${code}`)));
    }));
  }
  const ports = await Promise.all(listening);
  assert.equal(new Set(ports).size, 1, `the workers listen on one port: ${ports}`);
  return `http://127.0.0.1:${ports[0]}/`;
}

async function stopCluster() {
  const exits = Object.values(cluster.workers).map((worker) => new Promise((resolve) => {
    worker.once('exit', resolve);
    worker.process.kill('SIGTERM'); // not worker.kill(): its disconnect waits for keep-alive connections
  }));
  let timer;
  await Promise.race([Promise.all(exits), new Promise((resolve) => (timer = setTimeout(resolve, 10000)))]);
  clearTimeout(timer);
  for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGKILL');
}

test('failures in several cluster workers open the shared gate for all, with one probe', { timeout: 60000 }, async () => {
  await server.script('503 delay=1');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-cluster-'));
  try {
    const url = await startCluster(path.join(dir, 'gates'));
    const send = (n) => Promise.all(Array.from({ length: n }, async () => {
      const answer = await fetch(url, { signal: AbortSignal.timeout(30000) });
      return answer.json();
    }));
    const show = (answers) => JSON.stringify(answers);

    // 1. Four failures, spread over the workers, open the gate for all of them.
    const first = await send(WORKERS);
    for (const a of first) assert.deepEqual([a.result, a.status], ['sent', 503], show(first));
    assert.ok(new Set(first.map((a) => a.pid)).size >= 2, show(first));
    assert.ok(first.some((a) => a.state === 'open'), show(first));
    assert.equal(await server.requests(), WORKERS);

    // 2. Every worker now refuses without a network call.
    const refused = await send(WORKERS);
    for (const a of refused) {
      assert.deepEqual([a.result, a.state], ['refused', 'open'], show(refused));
      assert.ok(a.retryAfter > 0 && a.retryAfter <= RECOVERY, show(refused));
    }
    assert.ok(new Set(refused.map((a) => a.pid)).size >= 2, show(refused));
    assert.equal(await server.requests(), WORKERS, 'a refused call reached the server');

    // 3. After the pause, of four calls at once exactly one is the probe.
    await sleep((Math.max(...refused.map((a) => a.retryAfter)) + 0.2) * 1000);
    const after = await send(WORKERS);
    assert.deepEqual(after.map((a) => a.result).sort(), [...Array(WORKERS - 1).fill('refused'), 'sent'], show(after));
    assert.equal(await server.requests(), WORKERS + 1, 'more than one probe reached the server');
  } finally {
    await stopCluster();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('run() on a shared gate sees an opening made through another handle', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-shared-'));
  const settings = { name: 'cloud', sharedPath: path.join(dir, 'gates'), failuresToEnterRecovery: 2, recoverySeconds: 60 };
  const mine = new respite.Gate(settings);
  const other = new respite.Gate(settings); // as another process's handle would
  try {
    assert.equal(await mine.run(() => 'ok'), 'ok'); // a closed-state permit: a cache would keep it
    other.record('server_error');
    other.record('server_error');
    await assert.rejects(mine.run(() => 'sent'), respite.TemporarilyUnavailableError);
    assert.equal(mine.state(), 'open');
  } finally {
    mine.close();
    other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('pollEvents() emits the transitions another handle made, once', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-shared-'));
  const settings = { name: 'cloud', sharedPath: path.join(dir, 'gates'), failuresToEnterRecovery: 1, recoverySeconds: 60 };
  const mine = new respite.Gate(settings);
  const other = new respite.Gate(settings);
  const seen = [];
  mine.on('event', (event) => seen.push(event.type));
  try {
    other.record('server_error');
    assert.deepEqual(seen, []); // nothing arrives by itself
    mine.pollEvents();
    assert.deepEqual(seen, ['recovery_started']);
    mine.pollEvents();
    assert.deepEqual(seen, ['recovery_started']);
  } finally {
    mine.close();
    other.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test("a Sender's shared gate is the one every handle on its file sees", async () => {
  await server.script('down');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-shared-'));
  const gate = { name: 'collector', sharedPath: path.join(dir, 'gates'), failuresToEnterRecovery: 1 };
  const watcher = new respite.Gate({ profile: 'usage_sharing', ...gate }); // as another process's handle would
  const sender = new respite.Sender({ url: server.url, minEntriesPerMessage: 1, gate });
  try {
    sender.enqueue('one');
    const deadline = Date.now() + 10000;
    while (watcher.state() !== 'open') {
      assert.ok(Date.now() < deadline, "the sender's failed send did not open the shared gate");
      await sleep(20);
    }
    assert.ok((await server.requests()) >= 1);
  } finally {
    await sender.close();
    watcher.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
