'use strict';
// Node-API is ABI-stable: the addon built for this Node loads unchanged
// under another Node major. The second Node comes from scripts/setup.d/node.sh
// ($RESPITE_TOOLS/node-other), or RESPITE_OTHER_NODE names one.
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

function otherNode() {
  if (process.env.RESPITE_OTHER_NODE) return process.env.RESPITE_OTHER_NODE;
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(process.env.RESPITE_TOOLS || path.join(cache, 'respite'), 'node-other');
}

// Gate admit/report through the core, then a refusal and an invalid setting.
const smoke = `
const respite = require(process.argv[1]);
const gate = new respite.Gate({ failuresToEnterRecovery: 2, recoverySeconds: 60 });
const permit = gate.acquire(0);
gate.report(permit, 'success', { now: 0 });
gate.record('server_error', { now: 1 });
gate.record('server_error', { now: 2 });
let refusal;
try { gate.acquire(3); } catch (error) { refusal = [error.name, error.retryAfter]; }
let invalid;
try { new respite.Gate({ probes: -1 }); } catch (error) { invalid = [error.name, error.setting]; }
const stats = gate.stats();
console.log(JSON.stringify({ version: process.versions.node, permit: permit > 0, state: gate.state(3),
  admitted: stats.admitted, reported: stats.reported, refusal, invalid }));
`;

test('the addon built for this Node loads and works under another Node major', () => {
  const binary = otherNode();
  assert.ok(fs.existsSync(binary), `no second Node at ${binary}: run scripts/setup.d/node.sh (or set RESPITE_OTHER_NODE)`);
  const output = execFileSync(binary, ['-e', smoke, path.join(__dirname, '..')], { encoding: 'utf8' });
  const result = JSON.parse(output);
  assert.notEqual(result.version.split('.')[0], process.versions.node.split('.')[0], 'the second Node is another major');
  delete result.version;
  assert.deepEqual(result, {
    permit: true,
    state: 'open',
    admitted: 1,
    reported: 3,
    refusal: ['TemporarilyUnavailableError', 59],
    invalid: ['InvalidSettingError', 'probes'],
  });
});
