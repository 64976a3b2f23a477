'use strict';
// The TypeScript declarations: a sample app using every public name
// type-checks under --strict, and each sample with one typo (an option, a
// setting, an event name or an event's field) fails, naming the typo.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const dir = path.join(__dirname, 'types');
// The typo each sample makes, as tsc must name it.
const TYPOS = {
  'typo-options-literal.ts': 'failuresToEnterRecovry',
  'typo-options-variable.ts': 'failuresToEnterRecovry',
  'typo-settings.ts': 'probs',
  'typo-retry.ts': 'maxAttemps',
  'typo-request.ts': 'signl',
  'typo-sender-event.ts': 'sendFailed',
  'typo-event-field.ts': 'pauze',
};

// tsc --noEmit --strict on the files (typescript and @types/node are
// devDependencies): its exit status and output.
function tsc(files) {
  const compiler = require.resolve('typescript/bin/tsc');
  const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--types', 'node', ...files];
  const run = spawnSync(process.execPath, [compiler, ...args], { cwd: dir, encoding: 'utf8' });
  return { status: run.status, output: run.stdout + run.stderr };
}

test('the sample app using every public name type-checks', () => {
  const { status, output } = tsc(['app.ts']);
  assert.equal(status, 0, output);
});

test('a typo in options, settings, event names or event fields is a type error', () => {
  const samples = fs.readdirSync(dir).filter((file) => file.startsWith('typo-'));
  assert.deepEqual(samples.sort(), Object.keys(TYPOS).sort());
  const { status, output } = tsc(samples);
  assert.notEqual(status, 0);
  for (const [file, typo] of Object.entries(TYPOS)) {
    const errors = output.split('\n').filter((line) => line.startsWith(`${file}(`));
    assert.ok(errors.length > 0, `${file} type-checks:\n${output}`);
    assert.ok(output.includes(typo), `tsc does not name ${typo}:\n${output}`);
  }
});
