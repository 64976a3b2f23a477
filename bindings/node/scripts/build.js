#!/usr/bin/env node
'use strict';
// The npm install script: builds the addon with CMake from the repository's
// sources against this node's own Node-API headers (nothing is downloaded)
// and node-addon-api (an npm dependency), then copies it to
// native/respite_native.node where lib/native.js loads it. Node-API is
// ABI-stable: the addon loads under any later Node too.
// RESPITE_NODE_BUILD_DIR chooses the build directory (default: ./build).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const buildDir = path.resolve(process.env.RESPITE_NODE_BUILD_DIR || path.join(root, 'build'));
const candidates = [
  process.env.NODE_INCLUDE_DIR,
  path.join(path.dirname(process.execPath), '..', 'include', 'node'),
  '/usr/include/node',
  '/usr/local/include/node',
].filter(Boolean);
const nodeInclude = candidates.find((dir) => fs.existsSync(path.join(dir, 'node_api.h')));
if (!nodeInclude) {
  console.error(`respite: node_api.h not found (looked in ${candidates.join(', ')}); set NODE_INCLUDE_DIR`);
  process.exit(1);
}

function run(cmd, args) {
  try {
    execFileSync(cmd, args, { stdio: 'inherit' });
  } catch (error) {
    console.error(`respite: ${cmd} ${args.join(' ')} failed (${error.status ?? error.message})`);
    process.exit(1);
  }
}

const addonApi = require('node-addon-api').include_dir;

run('cmake', ['-S', root, '-B', buildDir, '-DCMAKE_BUILD_TYPE=Release', `-DNODE_API_INCLUDE_DIR=${nodeInclude}`, `-DNODE_ADDON_API_DIR=${addonApi}`]);
run('cmake', ['--build', buildDir, '--target', 'respite_native', '-j2']);
fs.mkdirSync(path.join(root, 'native'), { recursive: true });
const target = path.join(root, 'native', 'respite_native.node');
// Copy to a temporary name and rename, so a running process keeps its mapping.
fs.copyFileSync(path.join(buildDir, 'respite_native.node'), `${target}.tmp`);
fs.renameSync(`${target}.tmp`, target);
console.log(`respite: built ${path.relative(process.cwd(), target) || target}`);
