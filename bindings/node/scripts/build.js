#!/usr/bin/env node
'use strict';
// Builds the addon from source with CMake against this node's own Node-API
// headers (nothing is downloaded) and node-addon-api (an npm dependency).
// Sources: the core copied into vendor/ by scripts/prepack.js in a packed
// tarball, else the repository's core (../../core) in a checkout; the SWIG
// wrapper pregenerated in vendor/ if present, else generated with the pinned
// SWIG. Node-API is ABI-stable: the addon loads under any later Node too.
//   node scripts/build.js [output.node]   (default: native/respite_native.node)
// RESPITE_NODE_BUILD_DIR chooses the build directory (default: ./build);
// RESPITE_WERROR=ON makes the core's warnings errors (the test steps).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');

function fail(message) {
  console.error(`respite: ${message}`);
  process.exit(1);
}

function run(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'inherit' });
  } catch (error) {
    fail(`${cmd} ${args.join(' ')} failed (${error.status ?? error.message})`);
  }
}

function nodeApiInclude() {
  const candidates = [
    process.env.NODE_INCLUDE_DIR,
    path.join(path.dirname(process.execPath), '..', 'include', 'node'),
    '/usr/include/node',
    '/usr/local/include/node',
  ].filter(Boolean);
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'node_api.h')));
  if (!found) fail(`node_api.h not found (looked in ${candidates.join(', ')}); set NODE_INCLUDE_DIR`);
  return found;
}

// Builds the addon and copies it to `target` (a temporary name, then a
// rename, so a running process keeps its mapping).
function build(target) {
  const buildDir = path.resolve(process.env.RESPITE_NODE_BUILD_DIR || path.join(root, 'build'));
  const addonApi = require('node-addon-api').include_dir;
  const werror = process.env.RESPITE_WERROR === 'ON' ? 'ON' : 'OFF';
  run('cmake', ['-S', root, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release',
    `-DNODE_API_INCLUDE_DIR=${nodeApiInclude()}`, `-DNODE_ADDON_API_DIR=${addonApi}`, `-DRESPITE_WERROR=${werror}`]);
  run('cmake', ['--build', buildDir, '--target', 'respite_native', '-j2']);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.copyFileSync(path.join(buildDir, 'respite_native.node'), `${target}.tmp`);
  fs.renameSync(`${target}.tmp`, target);
  console.log(`respite: built ${target}`);
  return buildDir;
}

module.exports = { build, root };

if (require.main === module) {
  build(path.resolve(process.argv[2] || require('../lib/addon-path').builtPath));
}
