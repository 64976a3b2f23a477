#!/usr/bin/env node
'use strict';
// npm pack's prepack script (run in a checkout): makes the tarball
// self-contained. Copies the core's sources into vendor/core, builds the
// addon from them with the pinned SWIG, keeps SWIG's wrapper as
// vendor/respite_node.cxx (so a source build needs no SWIG) and the addon as
// prebuilds/<platform>-<arch>/respite.napi.node. scripts/postpack.js removes
// both folders again: the sources live once, in core/.
const fs = require('node:fs');
const path = require('node:path');
const { build, root } = require('./build');
const { prebuildPath } = require('../lib/addon-path');

const repoCore = path.join(root, '..', '..', 'core');
const vendor = path.join(root, 'vendor');
if (!fs.existsSync(path.join(repoCore, 'CMakeLists.txt'))) {
  console.error(`respite: prepack runs in a checkout of respite (${repoCore} not found)`);
  process.exit(1);
}
function clean() {
  fs.rmSync(vendor, { recursive: true, force: true });
  fs.rmSync(path.join(root, 'prebuilds'), { recursive: true, force: true });
}
clean();
// A failed pack must not leave vendor/ behind: CMake would build the
// checkout from that stale copy.
process.on('exit', (code) => { if (code !== 0) clean(); });
fs.cpSync(repoCore, path.join(vendor, 'core'), { recursive: true });

process.env.RESPITE_NODE_BUILD_DIR ||= path.join(root, 'build', 'prebuild');
const buildDir = build(prebuildPath());
fs.copyFileSync(path.join(buildDir, 'respite_node.cxx'), path.join(vendor, 'respite_node.cxx'));
