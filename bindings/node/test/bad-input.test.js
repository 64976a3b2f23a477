'use strict';
// Issue 14 item 16 (spec E16): bad input is passed through to the core, or
// refused by type, never converted silently. The conformance scenarios under
// */bad-input compare what every language can express; these are Node's own.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises } = require('./helpers');

test('a permit or outcome that is not an integer, or does not fit, is refused, never truncated', () => {
  const gate = new respite.Gate();
  try {
    const permit = gate.acquire(1);
    raises(() => gate.report(permit + 0.5, 'success', { now: 1 }), TypeError);
    raises(() => gate.report(2 ** 70, 'success', { now: 1 }), TypeError);
    raises(() => gate.report(0, { outcome: 2 ** 40 }, { now: 1 }), RangeError);
    raises(() => gate.report(0, { outcome: 1.5 }, { now: 1 }), TypeError);
    assert.equal(gate.stats().reported, 0, 'nothing was reported');
  } finally {
    gate.close();
  }
});

test('a status that is not an integer, or beyond a C int, is refused, never truncated or wrapped', () => {
  raises(() => respite.classify(503.5), TypeError);
  raises(() => respite.classify(NaN), TypeError);
  raises(() => respite.classify(2 ** 70), RangeError);
  const gate = new respite.Gate();
  try {
    raises(() => gate.report(0, 503.5, { now: 1 }), TypeError);
    raises(() => gate.report(0, 2 ** 70, { now: 1 }), RangeError);
    assert.equal(gate.stats().reported, 0);
  } finally {
    gate.close();
  }
});

test('null is no text to the core, not the text "null"', () => {
  const error = raises(() => new respite.Gate({ recoverySeconds: null }), respite.InvalidSettingError);
  assert.equal(error.setting, 'recovery_seconds');
  assert.match(error.message, /\(got nothing \(NULL\)\)$/);
});

test('a gate from another component\'s settings is the core\'s error', () => {
  const error = raises(() => new respite.Gate({ profile: 'backoff' }), respite.InvalidSettingError);
  assert.equal(error.message, 'settings must be gate settings (got backoff settings)');
});

test('Policy.fromJSON takes bytes as bytes: not UTF-8 is P4, valid bytes a policy', () => {
  const error = raises(() => respite.Policy.fromJSON(Buffer.from([0x7b, 0xff, 0x7d])), respite.InvalidPolicyError);
  assert.equal(error.problems.length, 1);
  assert.match(error.message, /^invalid JSON at line 1, column \d+: the text is not valid UTF-8/);
  const text = '{"name": "café", "maximum_capacity": 1, "error_handlers": [{"on": "any_error", "strategy": "discard"}]}';
  const policy = respite.Policy.fromJSON(new TextEncoder().encode(text));
  try {
    assert.equal(policy.name, 'café');
  } finally {
    policy.close();
  }
});

test('an outcome given as a number is the core\'s to check (O1), not an HTTP status', () => {
  const gate = new respite.Gate();
  try {
    const error = raises(() => gate.report(0, { outcome: 9 }, { now: 1 }), respite.InvalidArgumentError);
    assert.equal(error.message, 'outcome must be a respite_outcome from 0 to 5 (success, request_error, throttled, '
      + 'server_error, unusable, transport) (got 9)');
    gate.report(0, { outcome: 3 }, { now: 1 });
    assert.equal(gate.stats().countedFailures, 1, 'outcome 3 is server_error');
  } finally {
    gate.close();
  }
});
