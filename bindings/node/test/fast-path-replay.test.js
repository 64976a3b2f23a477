'use strict';
// Gate#run skips the core while the gate is known to be closed. These tests
// check that it cannot diverge from the core: the same operations through
// run() and through the core's own admit/report give the same figures.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');

// A small deterministic generator for the operation sequences.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const FIGURES = ['admitted', 'refused', 'reported', 'countedFailures', 'late', 'trips', 'probes', 'generation', 'windowFailures', 'state'];

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
          inFlight.push([async (late) => { release(late); await running; }, (late) => core.report(decision.permit, late)]);
        } else {
          await running;
          core.report(decision.permit, outcome);
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

test('probes 0 (G11), however it is spelled, turns the lean path off', async () => {
  for (const options of [{ probes: 0 }, { profile: 'usage_sharing', probes: 0 }, { profile: 'cloudRequest', probes: 0.0 }]) {
    const gate = new respite.Gate(options);
    try {
      await gate.run(() => 1);
      await gate.run(() => 2);
      assert.equal(gate._leanPermit, 0, JSON.stringify(options));
      assert.deepEqual([gate.stats().admitted, gate.stats().reported], [2, 2]);
    } finally {
      gate.close();
    }
  }
  await replay({ failuresToEnterRecovery: 2, recoverySeconds: 600, probes: 0 }, 7, 200);
});

test('a DeliveryEngine sharing the gate: its failures stop run() at once', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  const queue = new respite.Queue();
  const engine = new respite.DeliveryEngine({ queue, gate, minEntriesPerMessage: 1 });
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
  } finally {
    engine.close();
    queue.close();
    gate.close();
  }
});

test('an in-flight run() settled after the engine reopened the gate is late, as in the core', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  const queue = new respite.Queue();
  try {
    await gate.run(() => 'warm'); // the closed permit is cached
    let release;
    const running = gate.run(() => new Promise((resolve) => (release = resolve)));
    const engine = new respite.DeliveryEngine({ queue, gate, minEntriesPerMessage: 1 });
    queue.enqueue('e1');
    engine.settle(engine.take(), { transport: true });
    release('done');
    assert.equal(await running, 'done');
    assert.equal(gate.stats().late, 1, 'the success of an earlier generation is late (G6)');
    engine.close();
    // Without the engine the gate is its object's alone again.
    gate.reset();
    for (let i = 0; i < 3; i++) await gate.run(() => i);
    assert.notEqual(gate._leanPermit, 0, 'the lean path is back');
    const stats = gate.stats();
    assert.deepEqual([stats.admitted, stats.reported, stats.late], [6, 6, 1]); // the engine's take is one
  } finally {
    queue.close();
    gate.close();
  }
});

test('the lean path takes the permit layout from the core (RESPITE_GATE_PERMIT_SLOTS)', () => {
  const slots = respite.native.RESPITE_GATE_PERMIT_SLOTS;
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 1, probes: 2 });
  try {
    const closed = gate.acquire(0);
    assert.equal(closed, gate.stats().generation * slots, 'a closed-state permit is slot 0');
    gate.report(closed, 'server_error', { now: 0 });
    const probe = gate.acquire(2);
    assert.equal(gate.state(2), 'probing');
    assert.equal(probe - gate.stats().generation * slots, 1, 'the first probe is slot 1');
  } finally {
    gate.close();
  }
});
