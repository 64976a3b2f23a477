#!/usr/bin/env node
'use strict';
// The npm install script: keeps the prebuilt addon for this platform when it
// loads here (no compiler needed), else builds from source (scripts/build.js).
// RESPITE_BUILD_FROM_SOURCE=1 always builds.
const fs = require('node:fs');
const path = require('node:path');
const { build, root } = require('./build');
const { builtPath, prebuildPath } = require('../lib/addon-path');

const prebuild = prebuildPath();
if (process.env.RESPITE_BUILD_FROM_SOURCE !== '1' && fs.existsSync(prebuild)) {
  try {
    require(prebuild);
    console.log(`respite: using the prebuilt addon ${path.relative(root, prebuild)}`);
    process.exit(0);
  } catch (error) {
    console.log(`respite: the prebuilt addon does not load here (${error.message}); building from source`);
  }
}
build(builtPath);
