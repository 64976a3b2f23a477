'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises } = require('./helpers');

test('a closed gate raises ClosedError on every method, never crashes', async () => {
  const gate = new respite.Gate();
  gate.close();
  gate.close(); // idempotent
  assert.equal(gate.closed, true);
  for (const call of [
    () => gate.check(1),
    () => gate.acquire(1),
    () => gate.report(0, 'success', { now: 1 }),
    () => gate.record('transport'),
    () => gate.retryAfter(1),
    () => gate.state(1),
    () => gate.reset(1),
    () => gate.stats(),
  ]) {
    const error = raises(call, respite.ClosedError);
    assert.equal(error.message, 'gate is closed');
    assert.equal(error.code, 'closed');
  }
  let called = false;
  await assert.rejects(
    gate.run(async () => {
      called = true;
    }),
    { name: 'ClosedError', message: 'gate is closed' },
  );
  assert.equal(called, false);
});

test('closing a gate while a call is in flight: the call finishes, nothing is reported', async () => {
  const gate = new respite.Gate();
  let release;
  const running = gate.run(() => new Promise((resolve) => (release = resolve)));
  gate.close();
  release('done');
  assert.equal(await running, 'done');
});

test('a closed back-off raises ClosedError', () => {
  const backoff = new respite.Backoff();
  backoff.close();
  assert.throws(() => backoff.start(), { name: 'ClosedError', message: 'backoff is closed' });
  assert.throws(() => backoff.delay(0, 1), respite.ClosedError);
  assert.throws(() => backoff.next(0, 1, 'transport'), respite.ClosedError);
  assert.throws(() => backoff.maxAttempts, { name: 'ClosedError', message: 'backoff is closed' });
  assert.throws(() => new respite.Client({ backoff }), { name: 'ClosedError', message: 'backoff is closed' });
});
