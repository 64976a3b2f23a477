'use strict';
// Loads the raw SWIG module (built by `npm install`, see scripts/build.js).
const path = require('node:path');

const addon = path.join(__dirname, '..', 'native', 'respite_native.node');
let native;
try {
  native = require(addon);
} catch (error) {
  if (error && error.code === 'MODULE_NOT_FOUND') {
    throw new Error(`respite: the native addon is not built (${addon} is missing); run \`npm install\` in bindings/node`);
  }
  throw error;
}
module.exports = native;
