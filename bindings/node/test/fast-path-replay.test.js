'use strict';
// Spec K6: the gate's closed path decided in JavaScript (lib/fast-path.js)
// gives, step by step, the same permits, figures and events as the core
// alone, whoever else (an engine, a client, another handle) uses the gate.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const respite = require('..');
const { native } = respite;

// A small deterministic generator for the operation sequences.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const FIGURES = ['admitted', 'refused', 'reported', 'countedFailures', 'late', 'trips', 'probes', 'generation', 'windowFailures', 'state'];

// A report through the core alone (the raw module), and its events taken.
function coreReport(gate, permit, outcome) {
  native.respite_gate_report_now(gate._handle, permit, native[`RESPITE_OUTCOME_${outcome.toUpperCase()}`], 0);
  gate.pollEvents();
}

function figures(gate) {
  const stats = gate.stats();
  return Object.fromEntries(FIGURES.map((key) => [key, stats[key]]));
}

// One operation on `gate` through run(), and the same through the core
// (check + report with the permit), with calls left in flight and settled
// later, so permits of older generations are reported too.
async function replay(options, seed, steps) {
  const lean = new respite.Gate(options);
  const core = new respite.Gate(options);
  const random = generator(seed);
  const inFlight = []; // [settleLean(outcome), settleCore(outcome)]
  try {
    for (let step = 0; step < steps; step++) {
      const pick = random();
      if (pick < 0.06) {
        lean.reset();
        core.reset();
      } else if (pick < 0.3 && inFlight.length) {
        const [settleLean, settleCore] = inFlight.splice(Math.floor(random() * inFlight.length), 1)[0];
        const outcome = random() < 0.5 ? 'success' : 'server_error';
        await settleLean(outcome);
        settleCore(outcome);
      } else {
        const outcome = random() < 0.85 ? 'success' : random() < 0.5 ? 'request_error' : 'transport';
        const keep = random() < 0.2;
        let release;
        let called = false;
        const running = lean.run(() => {
          called = true;
          if (!keep) return outcome === 'success' ? 'ok' : Promise.reject(Object.assign(new Error(outcome), { outcome }));
          return new Promise((resolve, reject) => (release = (late) => (late === 'success' ? resolve('ok') : reject(Object.assign(new Error(late), { outcome: late })))));
        }).catch(() => {});
        const decision = core.check();
        assert.equal(called, decision.allowed, `step ${step}: run() and check() agree on admitting`);
        if (!decision.allowed) {
          await running;
        } else if (keep) {
          inFlight.push([async (late) => { release(late); await running; }, (late) => coreReport(core, decision.permit, late)]);
        } else {
          await running;
          coreReport(core, decision.permit, outcome);
        }
      }
      assert.deepEqual(figures(lean), figures(core), `step ${step}`);
    }
  } finally {
    lean.close();
    core.close();
  }
}

for (const probes of [1, 3]) {
  test(`run() and the core give the same figures (probes ${probes}, resets, late reports)`, async () => {
    for (const seed of [1, 2, 3]) {
      await replay({ failuresToEnterRecovery: 3, failuresWindowSeconds: 600, recoverySeconds: 600, probes }, seed, 400);
    }
  });
}

test('probes 0 (G11): run() and the core give the same figures', async () => {
  await replay({ failuresToEnterRecovery: 2, recoverySeconds: 600, probes: 0 }, 7, 200);
});

// Step by step at given times: the fast gate through acquire/report, the
// core gate through the raw module, and an "engine" failing calls and
// resetting both gates through the core between an admit and its report.
function replayAt(probes, seed, steps) {
  const options = {
    failuresToEnterRecovery: 3, failuresWindowSeconds: 10, recoverySeconds: 1, recoveryMultiplier: 2,
    maxRecoverySeconds: 8, probes, probeTimeoutSeconds: 2, jitter: 0.5, seed: 7,
  };
  const fast = new respite.Gate(options);
  const core = new respite.Gate(options);
  const fastLog = [];
  const coreLog = [];
  let step = 0;
  fast.on('event', (e) => fastLog.push(`${step}:${e.type}@${e.at}`));
  const raw = new native.respite_event();
  const decision = new native.respite_decision();
  const drain = () => {
    while (native.respite_gate_next_event(core._handle, raw) === 1) {
      coreLog.push(`${step}:${native.respite_event_type_name(raw.type)}@${raw.at}`);
    }
  };
  const random = generator(seed);
  const heldFast = new Array(8).fill(0);
  const heldCore = new Array(8).fill(0);
  const outcomes = ['success', 'success', 'success', 'server_error', 'request_error'];
  let now = 0;
  const before = fast._fast.count(fast._fast.admittedOffset);
  try {
    for (step = 0; step < steps; step++) {
      const slot = Math.floor(random() * 8);
      const what = Math.floor(random() * 10);
      if (what < 3) {
        let a = 0;
        try {
          a = fast.acquire(now);
        } catch (error) {
          assert.ok(error instanceof respite.TemporarilyUnavailableError, String(error));
        }
        native.respite_gate_check(core._handle, now, decision);
        drain();
        const b = decision.allowed === 1 ? Number(decision.permit) : 0;
        assert.equal(a, b, `permit at step ${step}`);
        heldFast[slot] = a;
        heldCore[slot] = b;
      } else if (what < 6) {
        const outcome = outcomes[Math.floor(random() * outcomes.length)];
        fast.report(heldFast[slot], outcome, { now });
        native.respite_gate_report(core._handle, heldCore[slot], native[`RESPITE_OUTCOME_${outcome.toUpperCase()}`], 0, now);
        drain();
        heldFast[slot] = heldCore[slot] = 0;
      } else if (what < 8) {
        now += Math.floor(random() * 1000) / 400;
      } else if (what === 8) {
        for (const gate of [fast, core]) native.respite_gate_report(gate._handle, 0, native.RESPITE_OUTCOME_TRANSPORT, 0, now);
      } else if (random() < 0.05) {
        for (const gate of [fast, core]) native.respite_gate_reset(gate._handle, now);
      } else {
        assert.throws(() => fast.acquire(-1), respite.InvalidTimeError); // to the core
        assert.throws(() => native.respite_gate_check(core._handle, -1, decision), respite.InvalidTimeError);
        drain();
      }
      if (step % 97 === 0) assert.deepEqual(fast.stats(), core.stats(), `stats at step ${step}`);
    }
    assert.deepEqual(fast.stats(), core.stats());
    assert.deepEqual(fastLog, coreLog);
    assert.ok(fastLog.length > 20, 'the replay went through transitions');
    assert.ok(fast._fast.count(fast._fast.admittedOffset) - before > 500, 'the fast path decided the closed admits');
  } finally {
    fast.close();
    core.close();
  }
}

for (const probes of [0, 1, 2]) {
  test(`acquire/report at given times match the core step by step, with an engine between (probes ${probes})`, () => {
    replayAt(probes, 11 + probes, 5000);
  });
}

test('a DeliveryEngine sharing the gate: its failures stop run() at once', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  const queue = new respite.Queue();
  const engine = new respite.DeliveryEngine({ queue, gate, minEntriesPerMessage: 1 });
  const events = [];
  gate.on('event', (e) => events.push(e.type));
  try {
    for (let i = 0; i < 5; i++) await gate.run(() => i);
    queue.enqueue('e1');
    const batch = engine.take();
    engine.settle(batch, 503); // the engine's report opens the core gate
    let called = false;
    await assert.rejects(gate.run(() => { called = true; }), respite.TemporarilyUnavailableError);
    assert.equal(called, false);
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.refused, stats.reported, stats.trips, stats.state], [6, 1, 6, 1, 'open']);
    assert.deepEqual(events, ['recovery_started']);
  } finally {
    engine.close();
    queue.close();
    gate.close();
  }
});

test('an in-flight run() settled after the engine reopened the gate is late, as in the core', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  const queue = new respite.Queue();
  const engine = new respite.DeliveryEngine({ queue, gate, minEntriesPerMessage: 1 });
  try {
    await gate.run(() => 'warm');
    let release;
    const running = gate.run(() => new Promise((resolve) => (release = resolve)));
    queue.enqueue('e1');
    engine.settle(engine.take(), { transport: true });
    release('done');
    assert.equal(await running, 'done');
    assert.equal(gate.stats().late, 1, 'the success of an earlier generation is late (G6)');
    gate.reset();
    const before = gate._fast.count(gate._fast.admittedOffset);
    for (let i = 0; i < 3; i++) await gate.run(() => i);
    assert.equal(gate._fast.count(gate._fast.admittedOffset) - before, 3, 'decided without the core, engine attached');
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.reported, stats.late], [6, 6, 1]); // the engine's take is one
  } finally {
    engine.close();
    queue.close();
    gate.close();
  }
});

test('a run() whose fn starts a new generation and runs again reports with the permit it was admitted with', async () => {
  const gate = new respite.Gate();
  try {
    const outer = await gate.run(async () => {
      gate.reset(); // a new generation: the next run() gets another permit and handlers
      return `${await gate.run(async () => 'inner')} then outer`;
    });
    assert.equal(outer, 'inner then outer');
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.reported, stats.late], [2, 2, 1], 'the outer success is late (G6)');
  } finally {
    gate.close();
  }
});

test('another handle on a shared gate opens it: the fast path of this handle refuses at once (section 9)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-fast-'));
  const settings = { name: 'cloud', sharedPath: path.join(dir, 'gates'), failuresToEnterRecovery: 1, recoverySeconds: 60 };
  const one = new respite.Gate(settings);
  const two = new respite.Gate(settings);
  try {
    assert.equal(await one.run(() => 'ok'), 'ok');
    two.record('server_error');
    await assert.rejects(one.run(() => 'no'), respite.TemporarilyUnavailableError);
    assert.equal(two.stats().state, 'open');
  } finally {
    one.close();
    two.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a closed gate goes to the core, which raises ClosedError', () => {
  const gate = new respite.Gate();
  assert.ok(gate.acquire() > 0);
  gate.close();
  assert.throws(() => gate.acquire(), respite.ClosedError);
  assert.throws(() => gate.report(0, 'success'), respite.ClosedError);
});

test('the block carries its low half into the high one in a single 64-bit store', () => {
  const gate = new respite.Gate();
  try {
    const fast = gate._fast;
    const at = fast.admittedOffset;
    const reported = fast.reportedOffset;
    const lo = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;
    fast.block[at / 4 + lo] = 0xfffffffe; // as if 4294967294 calls were admitted here
    fast.block[reported / 4 + lo] = 0xfffffffe; // and reported
    for (let i = 0; i < 3; i++) gate.report(gate.acquire(), 'success'); // the second carries
    assert.equal(fast.count(at), 2 ** 32 + 1);
    assert.equal(fast.count(reported), 2 ** 32 + 1);
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.reported], [2 ** 32 + 1, 2 ** 32 + 1]);
  } finally {
    gate.close();
  }
});
