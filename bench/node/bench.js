'use strict';
// A protected no-op async call through respite, opossum and cockatiel, in
// one process: ns per call (median of rounds) and the overhead over a bare
// `await` compared between libraries. Not a test: run `npm install && node
// bench.js` here after `npm install` in bindings/node.
const path = require('node:path');
const respite = require(path.join(__dirname, '..', '..', 'bindings', 'node'));
const CircuitBreaker = require('opossum');
const cockatiel = require('cockatiel');

const CALLS = Number(process.env.CALLS || 1_000_000);
const ROUNDS = Number(process.env.ROUNDS || 7);

async function noop() {
  return 1;
}

const gate = new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 });
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
  cockatiel: async () => {
    for (let i = 0; i < CALLS; i++) await breaker.execute(noop);
  },
  opossum: async () => {
    for (let i = 0; i < CALLS; i++) await opossum.fire();
  },
};

async function measure(run) {
  const start = process.hrtime.bigint();
  await run();
  return Number(process.hrtime.bigint() - start) / CALLS;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function main() {
  const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (const run of Object.values(cases)) await run(); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    // Interleaved rounds, so a noisy neighbour hurts every library alike.
    for (const [name, run] of Object.entries(cases)) samples[name].push(await measure(run));
  }
  const ns = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)]));
  const bare = ns['bare await'];
  const overhead = (name) => ns[name] - bare;
  console.log(`node ${process.version}, ${CALLS} calls x ${ROUNDS} rounds (median)`);
  console.log('library      ns/call  overhead  overhead vs cockatiel');
  for (const name of Object.keys(cases)) {
    const ratio = name === 'bare await' ? '' : (overhead(name) / overhead('cockatiel')).toFixed(2);
    console.log(`${name.padEnd(12)} ${ns[name].toFixed(1).padStart(7)}  ${overhead(name).toFixed(1).padStart(8)}  ${ratio.padStart(8)}`);
  }
  console.log(`respite/cockatiel per call: ${(ns.respite / ns.cockatiel).toFixed(2)}; respite/opossum: ${(ns.respite / ns.opossum).toFixed(2)}`);
  const stats = gate.stats();
  if (stats.admitted < CALLS || stats.refused !== 0) throw new Error(`respite gate did not admit every call: ${JSON.stringify(stats)}`);
  gate.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
