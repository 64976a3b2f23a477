'use strict';
// AbortSignal reaches the protected function (gate.run, retry, Retry, wrap),
// and wrap() composes retry, gate and fallback.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { networkError } = require('./helpers');

const quick = { maxAttempts: 3, initialDelaySeconds: 0.001, maxDelaySeconds: 0.001 };

test('gate.run passes {signal} to fn; an aborted signal rejects before the gate is asked', async () => {
  const gate = new respite.Gate();
  try {
    const seen = [];
    await gate.run((context) => seen.push(context.signal instanceof AbortSignal, context.signal.aborted));
    assert.deepEqual(seen, [true, false], 'without a signal fn still gets one, never aborted');
    const controller = new AbortController();
    assert.equal(await gate.run(({ signal }) => signal, { signal: controller.signal }), controller.signal);
    controller.abort(new Error('stop'));
    let called = false;
    await assert.rejects(gate.run(() => (called = true), { signal: controller.signal }), { message: 'stop' });
    assert.equal(called, false);
    assert.equal(gate.stats().admitted, 2, 'the aborted call was never admitted');
  } finally {
    gate.close();
  }
});

test("gate.run: an abort of the caller's signal is the caller's own, not counted", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1 });
  try {
    const controller = new AbortController();
    const call = gate.run(({ signal }) => new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason))), { signal: controller.signal });
    controller.abort();
    await assert.rejects(call, { name: 'AbortError' });
    assert.equal(gate.stats().countedFailures, 0);
    assert.equal(gate.state(), 'closed');
  } finally {
    gate.close();
  }
});

test('retry gives fn (attempt, {signal, attempt}); an abort while fn runs stops at once', async () => {
  const controller = new AbortController();
  const contexts = [];
  const running = respite.retry(
    (attempt, context) => {
      contexts.push([attempt, context.attempt, context.signal === controller.signal]);
      if (attempt === 1) throw networkError();
      return new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)));
    },
    { ...quick, maxAttempts: 5 },
    { signal: controller.signal },
  );
  setTimeout(() => controller.abort(), 30);
  await assert.rejects(running, { name: 'AbortError' });
  assert.deepEqual(contexts, [[1, 1, true], [2, 2, true]]);
  await assert.rejects(respite.retry(() => 1, quick, { signal: AbortSignal.abort() }), { name: 'AbortError' });
});

test('new Retry(backoff).run(fn, {signal}) retries transport failures and gives up with the core error', async () => {
  const policy = new respite.Retry(quick);
  try {
    let attempts = 0;
    assert.equal(await policy.run(({ attempt }) => { attempts = attempt; if (attempt < 3) throw networkError(); return 'ok'; }), 'ok');
    assert.equal(attempts, 3);
    const last = networkError('last');
    await assert.rejects(policy.run(() => { throw last; }), (error) => {
      assert.ok(error instanceof respite.TransportError);
      assert.equal(error.message, 'the call failed after 3 attempts: last outcome transport');
      assert.equal(error.cause, last);
      return true;
    });
  } finally {
    policy.close();
  }
});

test('wrap(retry, gate): every attempt goes through the gate; a refusal stops the retries', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 2, recoverySeconds: 30 });
  const retries = new respite.Retry({ ...quick, maxAttempts: 5 });
  try {
    const policy = respite.wrap(retries, gate);
    let calls = 0;
    await assert.rejects(policy.run(() => { calls++; throw networkError(); }), respite.TemporarilyUnavailableError);
    assert.equal(calls, 2, 'the gate opened after two failures; the third attempt was refused');
    const stats = gate.stats();
    assert.equal(stats.countedFailures, 2);
    assert.equal(stats.refused, 1);
  } finally {
    retries.close();
    gate.close();
  }
});

test('wrap(fallback, backoff, gate): the fallback answers for a refusal; the signal reaches fn', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });
  const backoff = new respite.Backoff(quick);
  try {
    const fallback = new respite.Fallback((error) => `cached (${error.name})`, { on: [respite.TemporarilyUnavailableError] });
    const policy = respite.wrap(fallback, backoff, gate);
    const controller = new AbortController();
    assert.equal(await policy.run(({ signal, attempt }) => `${signal === controller.signal} ${attempt}`, { signal: controller.signal }), 'true 1');
    assert.equal(await policy.run(() => { throw networkError(); }), 'cached (TemporarilyUnavailableError)');
    const own = new RangeError('mine');
    await assert.rejects(respite.wrap(fallback).run(() => { throw own; }), (error) => error === own, 'other errors pass');
    assert.equal(await respite.wrap(new respite.Fallback('plain')).run(() => Promise.reject(own)), 'plain');
    assert.throws(() => respite.wrap({}), TypeError);
  } finally {
    backoff.close();
    gate.close();
  }
});

test("wrap: a Retry without a classifier judges as the gate inside it; the caller's own error is not retried", async () => {
  class ServiceDown extends Error {}
  const gate = new respite.Gate({ failuresToEnterRecovery: 10, classify: { error: [ServiceDown] } });
  try {
    const policy = respite.wrap(new respite.Backoff(quick), gate);
    let calls = 0;
    await assert.rejects(policy.run(() => { calls++; throw new ServiceDown('down'); }), respite.TransportError);
    assert.equal(calls, 3, 'ServiceDown counts (the gate says so) and is retried');
    calls = 0;
    const bug = new TypeError('undefined is not a function');
    await assert.rejects(policy.run(() => { calls++; throw bug; }), (error) => error === bug);
    assert.equal(calls, 1);
    assert.equal(gate.stats().countedFailures, 3);
  } finally {
    gate.close();
  }
});
