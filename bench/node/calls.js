'use strict';
// One case of bench.js's protected no-op call, `node calls.js <case> <calls>`,
// for counting instructions (instructions.sh): every case is warmed first, as
// in bench.js, so the code V8 runs is the same, then <case> runs <calls> times.
// respite's first gate is `respite`; `attached` is a second one with a Client
// (V8 specializes the first gate's handlers only); `then` is the floor: the
// one `.then` that observes fn's promise, with handlers that do nothing.
const path = require('node:path');
const respite = require(process.env.RESPITE_NODE_PACKAGE || path.join(__dirname, '..', '..', 'bindings', 'node'));
const cockatiel = require('cockatiel');

const [which, count] = process.argv.slice(2);

async function noop() {
  return 1;
}
const pass = (value) => value;
const rethrow = (error) => {
  throw error;
};

const gate = new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 });
const sharedGate = new respite.Gate({ failuresToEnterRecovery: 5, recoverySeconds: 10 });
const client = new respite.Client({ gate: sharedGate });
const breaker = cockatiel.circuitBreaker(cockatiel.handleAll, {
  halfOpenAfter: 10_000,
  breaker: new cockatiel.ConsecutiveBreaker(5),
});

const cases = (calls) => ({
  bare: async () => {
    for (let i = 0; i < calls; i++) await noop();
  },
  then: async () => {
    for (let i = 0; i < calls; i++) await noop().then(pass, rethrow);
  },
  respite: async () => {
    for (let i = 0; i < calls; i++) await gate.run(noop);
  },
  attached: async () => {
    for (let i = 0; i < calls; i++) await sharedGate.run(noop);
  },
  cockatiel: async () => {
    for (let i = 0; i < calls; i++) await breaker.execute(noop);
  },
});

async function main() {
  if (!(which in cases(0))) throw new Error(`usage: node calls.js <${Object.keys(cases(0)).join('|')}> <calls>`);
  for (const warm of Object.values(cases(20_000))) await warm();
  await cases(Number(count))[which]();
  client.close();
  gate.close();
  sharedGate.close();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
