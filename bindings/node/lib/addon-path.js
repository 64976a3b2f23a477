'use strict';
// Where the native addon lives: built from source here (scripts/build.js),
// or prebuilt for a platform in the npm tarball (scripts/prepack.js), named
// as prebuildify/node-gyp-build name them.
const path = require('node:path');

const root = path.join(__dirname, '..');
const builtPath = path.join(root, 'native', 'respite_native.node');

function prebuildPath(platform = process.platform, arch = process.arch) {
  return path.join(root, 'prebuilds', `${platform}-${arch}`, 'respite.napi.node');
}

module.exports = { builtPath, prebuildPath };
