'use strict';
// Loads the raw SWIG module: the addon built from source here if present,
// else the one prebuilt for this platform (as node-gyp-build does).
const fs = require('node:fs');
const { builtPath, prebuildPath } = require('./addon-path');

const addon = [builtPath, prebuildPath()].find((file) => fs.existsSync(file));
if (!addon) {
  throw new Error(`respite: no native addon for ${process.platform}-${process.arch} `
    + `(neither ${builtPath} nor ${prebuildPath()}); build it with \`node scripts/build.js\` `
    + 'in the package directory (needs CMake, a C/C++ compiler, and the libcurl, zlib and jansson headers)');
}
module.exports = require(addon);
