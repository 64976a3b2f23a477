'use strict';
// gate.run() settles as fn did, and tells the gate beside its caller: the
// gate knows the outcome before code awaiting run() resumes, and a failure
// while telling it (a classifier or listener that throws) is a process
// warning that never changes the call's outcome.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { networkError } = require('./helpers');

// The warnings process.emitWarning gives while `body` runs (emitted on the next tick).
async function warningsOf(body) {
  const warnings = [];
  const collect = (warning) => warnings.push(warning);
  process.on('warning', collect);
  try {
    await body();
    await new Promise(setImmediate);
  } finally {
    process.off('warning', collect);
  }
  return warnings;
}

test("run() answers fn's own promise, told before the caller resumes", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1 });
  try {
    const answer = Promise.resolve('v');
    const run = gate.run(() => answer);
    assert.equal(run, answer);
    assert.equal(await run, 'v');
    assert.equal(gate.stats().successes, 1);
    await assert.rejects(gate.run(async () => { throw networkError(); }), /ECONNRESET/);
    assert.equal(gate.state(), 'open', 'the failure was counted before the await resumed');
  } finally {
    gate.close();
  }
});

test('a classifier that throws is a warning: run() settles as fn did, the permit released uncounted', async () => {
  const bug = new TypeError("Cannot read properties of undefined (reading 'status')");
  const gate = new respite.Gate({
    failuresToEnterRecovery: 1,
    classify: { error: () => 'timeout', result: () => { throw bug; } },
  });
  try {
    const warnings = await warningsOf(async () => {
      await assert.rejects(gate.run(() => { throw new Error('sync'); }), /sync/);
      await assert.rejects(gate.run(async () => { throw new Error('async'); }), /async/);
      assert.equal(await gate.run(async () => 'value'), 'value');
      assert.equal(await gate.run(() => 'plain'), 'plain');
    });
    assert.deepEqual(warnings.map((w) => w.constructor), [respite.InvalidArgumentError, respite.InvalidArgumentError, TypeError, TypeError]);
    assert.equal(warnings[2], bug);
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.reported, stats.countedFailures, stats.state], [4, 0, 0, 'closed']);
  } finally {
    gate.close();
  }
});

test('a listener that throws while run() tells the gate is a warning; the call settles as fn did', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1 });
  const mistake = new Error('a listener bug');
  gate.on('recovery_started', () => { throw mistake; });
  try {
    const failure = networkError();
    const warnings = await warningsOf(() => assert.rejects(gate.run(async () => { throw failure; }), (error) => error === failure));
    assert.deepEqual(warnings, [mistake]);
    assert.equal(gate.state(), 'open');
    // A direct report has its caller: the listener's error reaches it.
    gate.reset();
    assert.throws(() => gate.record('server_error'), (error) => error === mistake);
  } finally {
    gate.close();
  }
});

test("a subclass's promise or a thenable is told when it settles, and run() settles as it did", async () => {
  class Tracked extends Promise {}
  const gate = new respite.Gate({ failuresToEnterRecovery: 1 });
  try {
    assert.equal(await gate.run(() => Tracked.resolve('subclass')), 'subclass');
    assert.equal(await gate.run(() => ({ then: (resolve) => resolve('thenable') })), 'thenable');
    assert.equal(gate.stats().successes, 2);
    await assert.rejects(gate.run(() => Tracked.reject(networkError())), /ECONNRESET/);
    assert.equal(gate.state(), 'open');
  } finally {
    gate.close();
  }
});
