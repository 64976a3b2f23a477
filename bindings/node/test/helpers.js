'use strict';
const assert = require('node:assert/strict');

// assert.throws that returns the error, for checking its fields.
function raises(fn, expected) {
  let caught;
  assert.throws(() => {
    try {
      fn();
    } catch (error) {
      caught = error;
      throw error;
    }
  }, expected);
  return caught;
}

// An error as Node's network code throws it (a connection reset): a
// transport failure by the default classification.
function networkError(message = 'read ECONNRESET', code = 'ECONNRESET') {
  return Object.assign(new Error(message), { code });
}

module.exports = { raises, networkError };
