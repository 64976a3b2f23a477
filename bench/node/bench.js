'use strict';
// A protected no-op async call through respite, cockatiel and opossum, in
// one process, in paired rounds: every round runs every case once (the
// order rotates from round to round), and a case's overhead is its time
// above a bare `await` in the same round. Per round, respite's overhead is
// divided by cockatiel's; the figures are the min / median / max of those
// ratios. respite is measured alone on its gate and with a Client attached
// to the gate (what issue 16's target names). Not a test: run
// `npm install && node bench.js` here after `npm install` in bindings/node
// (RESPITE_NODE_PACKAGE=<dir>: another copy of the package, before/after).
// First, before any timing, the memory one breaker of each library holds:
// the growth of the process's resident memory (JS heap and native) while
// breakers are made and kept, until it has grown by at least 16 MB.
// Lines starting with "result" and "memory" are what scripts/bench.sh
// tabulates.
const path = require('node:path');
const respite = require(process.env.RESPITE_NODE_PACKAGE || path.join(__dirname, '..', '..', 'bindings', 'node'));
const CircuitBreaker = require('opossum');
const cockatiel = require('cockatiel');

const CALLS = Number(process.env.CALLS || 1_000_000);
const ROUNDS = Number(process.env.ROUNDS || 21);

async function noop() {
  return 1;
}

const gate = new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 });
const sharedGate = new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 });
const client = new respite.Client({ gate: sharedGate });
const breaker = cockatiel.circuitBreaker(cockatiel.handleAll, {
  halfOpenAfter: 10_000,
  breaker: new cockatiel.ConsecutiveBreaker(5),
});
const opossum = new CircuitBreaker(noop, { timeout: false, errorThresholdPercentage: 50, resetTimeout: 10_000 });

const cases = {
  'bare await': async () => {
    for (let i = 0; i < CALLS; i++) await noop();
  },
  respite: async () => {
    for (let i = 0; i < CALLS; i++) await gate.run(noop);
  },
  'respite, client attached': async () => {
    for (let i = 0; i < CALLS; i++) await sharedGate.run(noop);
  },
  cockatiel: async () => {
    for (let i = 0; i < CALLS; i++) await breaker.execute(noop);
  },
  opossum: async () => {
    for (let i = 0; i < CALLS; i++) await opossum.fire();
  },
};

const GROWTH = 16 * 1024 * 1024;

// Resident bytes per object, made until the process grew by GROWTH (or
// 200,000 of them), all kept alive while measured.
function bytesPerObject(make) {
  const before = process.memoryUsage.rss();
  const kept = [];
  while (kept.length < 200_000) {
    for (let i = 0; i < 500; i++) kept.push(make(kept.length));
    if (process.memoryUsage.rss() - before >= GROWTH) break;
  }
  return [(process.memoryUsage.rss() - before) / kept.length, kept.length, kept];
}

function memoryPerBreaker() {
  console.log('resident memory per breaker (made and kept until the process grew by 16 MB):');
  const makers = {
    'respite Gate': () => new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 }),
    'cockatiel circuitBreaker': () => cockatiel.circuitBreaker(cockatiel.handleAll, {
      halfOpenAfter: 10_000,
      breaker: new cockatiel.ConsecutiveBreaker(5),
    }),
    'opossum CircuitBreaker': () => new CircuitBreaker(noop, { timeout: false, resetTimeout: 10_000 }),
  };
  for (const [label, make] of Object.entries(makers)) {
    const [per, count, kept] = bytesPerObject(make);
    console.log(`  ${label.padEnd(26)} ${per.toFixed(0).padStart(9)} bytes (${count} made)`);
    console.log(`memory\tNode\t${label}\t${per.toFixed(0)}`);
    if (label === 'respite Gate') kept.forEach((g) => g.close());
    if (label === 'opossum CircuitBreaker') kept.forEach((b) => b.shutdown());
  }
  console.log('');
}

async function measure(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / CALLS;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const spread = (values) => [Math.min(...values), median(values), Math.max(...values)];

async function main() {
  memoryPerBreaker();
  const names = Object.keys(cases);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (const run of Object.values(cases)) await run(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      samples[name].push(await measure(cases[name]));
    }
  }
  const overhead = Object.fromEntries(
    names.map((name) => [name, samples[name].map((ns, r) => ns - samples['bare await'][r])]),
  );
  const ratios = (name) => overhead[name].map((o, r) => o / overhead.cockatiel[r]);
  console.log(`node ${process.version}, ${CALLS} calls x ${ROUNDS} paired rounds, order rotating (medians)`);
  console.log('case                      ns/call  overhead  overhead / cockatiel\'s per round');
  for (const name of names) {
    const [lo, mid, hi] = spread(ratios(name));
    const ratio = name === 'bare await' ? '' : `min ${lo.toFixed(2)}  median ${mid.toFixed(2)}  max ${hi.toFixed(2)}`;
    console.log(`${name.padEnd(24)} ${median(samples[name]).toFixed(1).padStart(8)}  ${median(overhead[name]).toFixed(1).padStart(8)}  ${ratio}`);
  }
  for (const name of ['respite', 'respite, client attached']) {
    const [lo, mid, hi] = spread(ratios(name));
    console.log(`result\tNode: ${name} overhead <= 1/3 of cockatiel's\t${median(overhead[name]).toFixed(0)} ns vs ` +
      `${median(overhead.cockatiel).toFixed(0)} ns: ${mid.toFixed(2)}x median (min ${lo.toFixed(2)}, max ${hi.toFixed(2)}) ` +
      `of ${ROUNDS} paired rounds\t${mid <= 1 / 3 ? 'met' : 'NOT met'}`);
  }
  for (const g of [gate, sharedGate]) {
    const stats = g.stats();
    if (stats.admitted < CALLS * ROUNDS || stats.refused !== 0) throw new Error(`respite gate did not admit every call: ${JSON.stringify(stats)}`);
  }
  client.close();
  gate.close();
  sharedGate.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
