'use strict';
// AbortSignal (spec C10, G19): an abort stops the core's transfer or sleep
// within 100 ms, rejects as fetch does, and counts nothing at the gate.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { useFaultServer } = require('./fault_server');

let server;
useFaultServer(test, (started) => (server = started));

// Aborts `controller` once the server has received `requests` requests (or
// after `wait` ms), and answers the ms from the abort until `call` settled.
async function abortWhenReceived(call, controller, requests, wait = 0, reason = undefined) {
  const until = Date.now() + 5000;
  while ((await server.requests()) < requests && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, wait));
  const aborted = performance.now();
  controller.abort(reason);
  await call.catch(() => {});
  return performance.now() - aborted;
}

test('request({signal}): a hanging transfer ends within 100 ms with an AbortError; the gate counts nothing', async () => {
  await server.script('hang for=5');
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  const client = new respite.Client({ gate, timeoutSeconds: 10 });
  try {
    const controller = new AbortController();
    const call = client.get(server.url, { signal: controller.signal });
    const took = await abortWhenReceived(call, controller, 1, 50);
    await assert.rejects(call, (error) => error instanceof DOMException && error.name === 'AbortError');
    assert.ok(took < 100, `settled ${took.toFixed(0)} ms after the abort`);
    const stats = gate.stats();
    assert.equal(stats.countedFailures, 0);
    assert.equal(stats.reported, 0);
    assert.equal(gate.state(), 'closed', 'one counted failure would have opened it (N = 1)');
    // The signal's own reason is passed through.
    const reasoned = new AbortController();
    const reason = new Error('user navigated away');
    const second = client.get(server.url, { signal: reasoned.signal });
    await abortWhenReceived(second, reasoned, 2, 20, reason);
    await assert.rejects(second, (error) => error === reason);
  } finally {
    client.close();
    gate.close();
  }
});

test('request({signal}): an aborted probe frees the probe, so the next call probes and closes the gate', async () => {
  await server.script('503; hang for=5; healthy');
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 0.1, probeTimeoutSeconds: 30, jitter: 0 });
  const client = new respite.Client({ gate, timeoutSeconds: 10 });
  try {
    (await client.get(server.url)).close();
    assert.equal(gate.state(), 'open');
    await new Promise((r) => setTimeout(r, 150));
    const controller = new AbortController();
    const probe = client.get(server.url, { signal: controller.signal });
    await abortWhenReceived(probe, controller, 2, 20);
    await assert.rejects(probe, { name: 'AbortError' });
    const next = await client.get(server.url);
    assert.equal(next.status, 200);
    next.close();
    const stats = gate.stats();
    assert.equal(gate.state(), 'closed');
    assert.equal(stats.probes, 2);
    assert.equal(stats.probeTimeouts, 0);
    assert.equal(stats.countedFailures, 1);
  } finally {
    client.close();
    gate.close();
  }
});

test("request({signal}): the client's sleep between retries stops at the abort", async () => {
  await server.script('down');
  const backoff = new respite.Backoff({ initialDelaySeconds: 5, maxAttempts: 3, jitter: 'none' });
  const client = new respite.Client({ backoff, timeoutSeconds: 2 });
  try {
    const controller = new AbortController();
    const call = client.get(server.url, { signal: controller.signal });
    const took = await abortWhenReceived(call, controller, 1, 100);
    await assert.rejects(call, { name: 'AbortError' });
    assert.ok(took < 100, `settled ${took.toFixed(0)} ms after the abort`);
    assert.equal(await server.requests(), 1);
  } finally {
    client.close();
    backoff.close();
  }
});

test('gate.run(fn, {signal}): fn gets the signal; failing after the abort releases the permit uncounted', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  try {
    const controller = new AbortController();
    const run = gate.run(
      ({ signal }) =>
        new Promise((resolve, reject) => {
          assert.equal(signal, controller.signal);
          const error = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }); // would count
          signal.addEventListener('abort', () => reject(error));
        }),
      { signal: controller.signal },
    );
    controller.abort();
    await assert.rejects(run, { code: 'ECONNRESET' });
    assert.equal(gate.state(), 'closed');
    assert.equal(gate.stats().countedFailures, 0);
    // Without an abort the same error counts.
    await assert.rejects(gate.run(() => Promise.reject(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))));
    assert.equal(gate.state(), 'open');
    // A synchronous throw still rejects (never throws), and a bad signal rejects before admission.
    gate.reset();
    await assert.rejects(gate.run(() => { throw new Error('mine'); }, { signal: new AbortController().signal }), /mine/);
    const admitted = gate.stats().admitted;
    await assert.rejects(gate.run(() => 1, { signal: 'stop' }), TypeError);
    assert.equal(gate.stats().admitted, admitted);
  } finally {
    gate.close();
  }
});

test('gate.release(permit): a probe released lets the next check probe; bad permits are the core error', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 10, probeTimeoutSeconds: 5, jitter: 0 });
  try {
    gate.report(gate.acquire(0), 'server_error', { now: 0 });
    const probe = gate.check(10);
    assert.ok(probe.probe);
    assert.equal(gate.check(11).allowed, false);
    gate.release(probe.permit, 11);
    assert.ok(gate.check(11.5).probe);
    assert.throws(() => gate.release(0, 12), (error) => error instanceof respite.InvalidArgumentError &&
      error.message === 'permit must be a permit this gate handed out (got 0)');
  } finally {
    gate.close();
  }
});

test('retry(fn, {signal}) passes the signal and stops sleeping at the abort', async () => {
  const controller = new AbortController();
  let seen;
  const started = performance.now();
  const call = respite.retry(
    (attempt, { signal }) => {
      seen = signal;
      throw Object.assign(new Error('unavailable'), { status: 503 });
    },
    { initialDelaySeconds: 5, maxAttempts: 3, jitter: 'none' },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(call, { name: 'AbortError' });
  assert.equal(seen, controller.signal);
  assert.ok(performance.now() - started < 1000);
});
