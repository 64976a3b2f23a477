'use strict';
// lib/native.js outside a build: names the platform it looked for and how
// to build, instead of a bare MODULE_NOT_FOUND.
const test = require('node:test');
const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { prebuildPath } = require('../lib/addon-path');

test('the prebuild path is prebuildify\'s: prebuilds/<platform>-<arch>/<name>.napi.node', () => {
  assert.strictEqual(path.relative(path.join(__dirname, '..'), prebuildPath('linux', 'x64')),
    path.join('prebuilds', 'linux-x64', 'respite.napi.node'));
});

test('with neither a source build nor a prebuild, loading names the platform and scripts/build.js', (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'respite-loader-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'lib'));
  for (const file of ['native.js', 'addon-path.js']) {
    fs.copyFileSync(path.join(__dirname, '..', 'lib', file), path.join(dir, 'lib', file));
  }
  assert.throws(() => require(path.join(dir, 'lib', 'native.js')), (error) => {
    assert.match(error.message, new RegExp(`no native addon for ${process.platform}-${process.arch}`));
    assert.match(error.message, /node scripts\/build\.js/);
    assert.ok(error.message.includes(path.join(dir, 'prebuilds', `${process.platform}-${process.arch}`, 'respite.napi.node')));
    return true;
  });
});
