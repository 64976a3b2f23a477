'use strict';
// Every class, error and function is a named export under ESM as well as
// CommonJS (Node reads the names from index.js's text), the same objects.
const test = require('node:test');
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const respite = require('..');
const generated = require('../generated/errors');

const root = path.resolve(__dirname, '..');
const errorNames = ['RespiteError', ...Object.values(generated.ERRORS_BY_STATUS).map((cls) => cls.name)];
const classNames = ['Gate', 'Backoff', 'Retry', 'Fallback', 'Classifier', 'Policy', 'Queue', 'Batch', 'DeliveryEngine', 'Client', 'Response', 'Sender', 'Settings'];

test('CommonJS: every error of the core status table and every class is exported', () => {
  for (const name of [...errorNames, ...classNames]) assert.equal(typeof respite[name], 'function', name);
  for (const name of errorNames) assert.equal(respite[name], generated[name], name);
});

test('ESM: every CommonJS export is a named export, the same object', async () => {
  const esm = await import(path.join(root, 'index.js'));
  const names = Object.keys(respite);
  assert.deepEqual(Object.keys(esm).filter((name) => name !== 'default').sort(), [...names].sort());
  for (const name of names) assert.equal(esm[name], respite[name], name);
  assert.equal(esm.default, respite);
});

test("ESM: import { TemporarilyUnavailableError } from 'respite' in a project that installed it", () => {
  const project = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-esm-'));
  try {
    fs.mkdirSync(path.join(project, 'node_modules'));
    fs.symlinkSync(root, path.join(project, 'node_modules', 'respite'), 'dir');
    const names = [...errorNames, ...classNames, 'retry', 'wrap'];
    const source = `import { ${names.join(', ')} } from 'respite';\n` +
      `const gate = new Gate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });\n` +
      `gate.record('transport');\n` +
      `try { gate.acquire(); } catch (error) { console.log(error instanceof TemporarilyUnavailableError, error instanceof RespiteError); }\n` +
      `console.log([${names.join(', ')}].every((value) => typeof value === 'function'));\n`;
    fs.writeFileSync(path.join(project, 'app.mjs'), source);
    const output = execFileSync(process.execPath, ['app.mjs'], { cwd: project, encoding: 'utf8' });
    assert.equal(output, 'true true\ntrue\n');
  } finally {
    fs.rmSync(project, { recursive: true, force: true });
  }
});
