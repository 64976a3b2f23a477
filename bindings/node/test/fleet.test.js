'use strict';
// The fleet gate (spec section 11) against a real redis-server: hosts are
// separate processes (test/fleet-host.js) with distinct host ids; this
// process is a third host that never fails.
const test = require('node:test');
const assert = require('node:assert/strict');
const { fork } = require('node:child_process');
const path = require('node:path');
const respite = require('..');
const { raises } = require('./helpers');
const { startRedis } = require('./redis');

const REFRESH = 0.1;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(condition, ms = 5000) {
  const until = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < until, 'timed out');
    await sleep(10);
  }
}

let redis;
test.beforeEach(async () => (redis = await startRedis()));
test.afterEach(() => redis.kill());

function fleetGate(fleetHostId, extra = {}) {
  return new respite.Gate({
    name: 'billing', failuresToEnterRecovery: 3, failuresWindowSeconds: 10, recoverySeconds: 5, ...extra,
    fleet: { fleetUrl: redis.url, fleetHostId, fleetQuorum: 2, fleetRefreshSeconds: REFRESH },
  });
}

// A host process whose gate has opened: resolves with {opened, stop()}.
function startHost(fleetHostId) {
  const child = fork(path.join(__dirname, 'fleet-host.js'), [redis.url, 'billing', fleetHostId]);
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`host ${fleetHostId} exited with ${code}`)));
    child.once('message', ({ opened }) => resolve({
      opened,
      stop: () => new Promise((done) => {
        child.removeAllListeners('exit');
        child.once('exit', done);
        child.disconnect();
      }),
    }));
  });
}

test('quorum 2: one host failing alone pauses no other; two pause a host that never failed', async () => {
  const warnings = [];
  const gate = fleetGate('host-c', { logger: { warn: (line) => warnings.push(line), info() {} } });
  const paused = [];
  gate.on('fleet_paused', (event) => paused.push(event));
  let calls = 0;
  const call = () => gate.run(() => ++calls);
  await waitFor(() => gate.fleetView().connected);
  const one = await startHost('host-a');
  try {
    await sleep(5 * REFRESH * 1000);
    for (let i = 0; i < 5; i++) await call();
    assert.equal(calls, 5);
    assert.equal(gate.state(), 'closed');
    gate.pollEvents();
    assert.deepEqual(paused, []);
    const view = gate.fleetView();
    assert.deepEqual([view.paused, view.hostsOpened, view.hostId], [false, 1, 'host-c']);

    const two = await startHost('host-b');
    try {
      let refusal = null;
      while (Date.now() < two.opened + 2000) {
        try {
          await call();
        } catch (error) {
          refusal = error;
          break;
        }
        await sleep(2);
      }
      const refused = Date.now();
      assert.ok(refusal instanceof respite.TemporarilyUnavailableError, `never refused: ${refusal}`);
      console.log(`refused ${refused - two.opened} ms after the second host's gate opened`);
      assert.ok(refused - two.opened <= (REFRESH + 0.1) * 1000);
      assert.ok(refusal.retryAfter > 4 && refusal.retryAfter <= 5 + 4 * REFRESH + 0.1, `${refusal.retryAfter}`);
      assert.equal(paused.length, 1);
      assert.equal(paused[0].count, 2);
      assert.ok(warnings.some((line) => line.includes("billing: fleet paused: 2 hosts' gates opened within 10s")),
        warnings.join('\n'));
      const pausedView = gate.fleetView();
      assert.deepEqual([pausedView.paused, pausedView.hostsOpened, pausedView.epoch], [true, 2, 1]);
      assert.ok(pausedView.pauseLeft > 4 && pausedView.pauseLeft <= 5, `${pausedView.pauseLeft}`);
      const count = calls; // a refused call never runs: no network call
      await assert.rejects(call(), respite.TemporarilyUnavailableError);
      assert.equal(calls, count);
    } finally {
      await two.stop();
    }
  } finally {
    await one.stop();
    gate.close();
  }
});

test('Redis killed: calls go on on the local gate, fleet_store_lost says so; back: fleet_rejoined', async () => {
  const warnings = [];
  const infos = [];
  const gate = fleetGate('host-c', { logger: { warn: (line) => warnings.push(line), info: (line) => infos.push(line) } });
  const lost = [];
  gate.on('fleet_store_lost', (event) => lost.push(event));
  const rejoined = [];
  gate.on('fleet_rejoined', (event) => rejoined.push(event));
  try {
    await waitFor(() => gate.fleetView().connected);
    await redis.kill();
    const until = Date.now() + 3000;
    let slowest = 0;
    while (lost.length === 0) {
      assert.ok(Date.now() < until, 'no fleet_store_lost event');
      const started = process.hrtime.bigint();
      gate.report(gate.acquire(), 'success'); // admitted by the local gate
      slowest = Math.max(slowest, Number(process.hrtime.bigint() - started) / 1e9);
      await sleep(10);
    }
    assert.ok(slowest < REFRESH, `a call waited ${slowest} s`); // a wait on Redis lasts fleet_refresh_seconds
    const view = gate.fleetView();
    assert.ok(!view.connected && view.failedExchanges >= 1, JSON.stringify(view));
    assert.ok(warnings.includes('billing: fleet store unreachable or slow: this host decides on its own gate'),
      warnings.join('\n'));
    // Alone, the local gate keeps its own rules: three failures open it.
    for (let i = 0; i < 3; i++) gate.report(gate.acquire(), 'server_error');
    raises(() => gate.acquire(), respite.TemporarilyUnavailableError);

    const again = await startRedis(redis.port); // Redis answers again (empty): the host rejoins the fleet
    try {
      await waitFor(() => {
        gate.pollEvents();
        return rejoined.length === 1;
      });
      assert.ok(infos.includes('billing: fleet store answers again: this host rejoined the fleet'), infos.join('\n'));
      assert.equal(gate.fleetView().connected, true);
    } finally {
      await again.kill();
    }
  } finally {
    gate.close();
  }
});

test('a closed fleet gate raises the core\'s ClosedError; bad fleet settings the core\'s errors', () => {
  const gate = fleetGate('host-c');
  gate.report(gate.acquire(), 'success');
  gate.close();
  assert.equal(gate.closed, true);
  raises(() => gate.acquire(), { name: 'ClosedError', message: 'gate is closed' });
  raises(() => gate.fleetView(), { name: 'ClosedError', message: 'fleet gate is closed' });
  gate.close(); // twice is no error
  const local = new respite.Gate();
  assert.equal(local.fleetView(), null); // not a fleet gate
  local.close();

  const badUrl = raises(() => new respite.Gate({ name: 'billing', fleet: { fleetUrl: 'http://127.0.0.1:6379' } }),
    respite.InvalidSettingError);
  assert.equal(badUrl.setting, 'fleet_url');
  assert.match(badUrl.message, /^fleet_url must be redis:\/\/host:port or redis:\/\/host:port\/db/);
  const unnamed = raises(() => new respite.Gate({ fleet: { fleetUrl: redis.url } }), respite.InvalidSettingError);
  assert.equal(unnamed.setting, 'name');
  assert.match(unnamed.message, /^name must not be empty for a fleet gate/);
});
