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

module.exports = { raises };
