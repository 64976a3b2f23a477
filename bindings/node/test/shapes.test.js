'use strict';
// Every gate's calls share one optimized path only if calls leave the
// objects' hidden classes (V8 maps) as they were made: a field that turns
// from a small integer into a double (permits are doubles) gives the first
// gate a new map, and every other gate's run() then leaves the optimized
// code ("wrong map") for slower, polymorphic code. Checked in a child with
// V8's natives syntax (%HaveSameMap), after calls on one gate only, and
// after it is closed (closing one gate changes no field's type).
const test = require('node:test');
const assert = require('node:assert/strict');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const CHILD = `
const respite = require(${JSON.stringify(path.join(__dirname, '..'))});
const a = new respite.Gate();
const b = new respite.Gate();
(async () => {
  for (let i = 0; i < 3; i++) await a.run(async () => i);
  await a.run(() => 'sync');
  a.report(a.acquire(), 'success');
  const same = { gate: %HaveSameMap(a, b), fastPath: %HaveSameMap(a._fast, b._fast), taken: a.stats().admitted };
  a.close();
  same.closed = { gate: %HaveSameMap(a, b), fastPath: %HaveSameMap(a._fast, b._fast) };
  b.close();
  process.stdout.write(JSON.stringify(same));
})();
`;

test("a gate's calls keep its objects' shapes, so every gate shares one optimized path", () => {
  const output = execFileSync(process.execPath, ['--allow-natives-syntax', '-e', CHILD], { encoding: 'utf8' });
  assert.deepEqual(JSON.parse(output), { gate: true, fastPath: true, taken: 5, closed: { gate: true, fastPath: true } });
});
