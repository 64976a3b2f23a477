'use strict';
// Helpers for test suites, not production code.
const native = require('./native');

// The core's testing switch (spec B17), process-wide: while on, every retry
// is immediate (the same attempts, delays, decisions and onRetry calls, no
// wait). Returns the previous setting, to restore it after the test.
function immediateRetries(on = true) {
  const before = native.respite_testing_immediate_retries() === 1;
  native.respite_testing_set_immediate_retries(on ? 1 : 0);
  return before;
}

module.exports = { immediateRetries };
