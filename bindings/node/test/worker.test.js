'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { Worker } = require('node:worker_threads');

// The addon is context-aware: it loads in worker threads and each worker has
// its own gates.
const script = `
const { parentPort, workerData } = require('node:worker_threads');
const respite = require(workerData.root);
(async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 2, recoverySeconds: 60 });
  let sum = 0;
  for (let i = 0; i < 2000; i++) sum += await gate.run(async () => 1);
  await gate.run(async () => { throw Object.assign(new Error('x'), { code: 'ECONNRESET' }); }).catch(() => {});
  await gate.run(async () => { throw Object.assign(new Error('x'), { code: 'ECONNRESET' }); }).catch(() => {});
  let refused = null;
  await gate.run(async () => 1).catch((error) => { refused = [error.name, error.retryAfter > 0]; });
  const stats = gate.stats();
  gate.close();
  let closed = null;
  try { gate.state(); } catch (error) { closed = error.message; }
  parentPort.postMessage({ sum, refused, admitted: stats.admitted, trips: stats.trips, closed });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack) }));
`;

function runWorker() {
  return new Promise((resolve, reject) => {
    const worker = new Worker(script, { eval: true, workerData: { root: path.join(__dirname, '..') } });
    worker.once('message', resolve);
    worker.once('error', reject);
  });
}

test('the addon loads and works in worker threads, in parallel', async () => {
  const results = await Promise.all([runWorker(), runWorker(), runWorker()]);
  for (const result of results) {
    assert.equal(result.error, undefined);
    assert.deepEqual(result, { sum: 2000, refused: ['TemporarilyUnavailableError', true], admitted: 2002, trips: 1, closed: 'gate is closed' });
  }
  // The main thread's module still works after the workers exit.
  const respite = require('..');
  const gate = new respite.Gate();
  assert.equal(await gate.run(async () => 'main'), 'main');
  gate.close();
  // Its errors are still made by its own maker (one per environment).
  assert.throws(() => gate.state(), respite.ClosedError);
});
