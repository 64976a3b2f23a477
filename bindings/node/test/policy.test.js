'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises } = require('./helpers');

test('a valid policy, its fields and canonical document', () => {
  const policy = respite.Policy.fromJSON({
    name: 'edgehog',
    maximum_capacity: 100,
    error_handlers: [{ on: 'server_error', strategy: 'retry' }],
    retry_times: 3,
  });
  try {
    assert.equal(policy.name, 'edgehog');
    assert.equal(policy.maximumCapacity, 100);
    assert.equal(policy.retryTimes, 3);
    assert.equal(policy.strategyFor(503), 'retry');
    assert.equal(policy.strategyFor({ transport: true }), 'retry', 'transport is matched as 503 (D2)');
    assert.equal(policy.strategyFor(404), 'discard', 'no handler: discard');
    assert.deepEqual(policy.toJSON().error_handlers, [{ on: 'server_error', strategy: 'retry' }]);
  } finally {
    policy.close();
  }
});

test('InvalidPolicyError lists every problem with its JSON pointer', () => {
  const error = raises(() => respite.Policy.fromJSON({ name: 'x', maximum_capacity: 0, error_handlers: [] }), respite.InvalidPolicyError);
  assert.equal(error.code, 'invalid_policy');
  assert.deepEqual(error.problems.map((problem) => problem.pointer), ['/maximum_capacity', '/error_handlers']);
  const parse = raises(() => respite.Policy.fromJSON('{"name": '), respite.InvalidPolicyError);
  assert.equal(parse.problems[0].line, 1);
  assert.match(parse.message, /^invalid JSON at line 1, column \d+/);
});

test('the builder makes the same policy; @default discards', () => {
  const built = respite.Policy.build({ name: 'b', maximumCapacity: 10, handlers: [{ on: [500, 503], strategy: 'retry' }], retryTimes: 2 });
  const fallback = respite.Policy.default();
  try {
    assert.equal(built.strategyFor(503), 'retry');
    assert.equal(built.strategyFor(502), 'discard');
    assert.equal(fallback.name, '@default');
    assert.equal(fallback.maximumCapacity, 1000);
  } finally {
    built.close();
    fallback.close();
  }
  assert.throws(() => built.name, { name: 'ClosedError', message: 'policy is closed' });
  // not taken as "no policy" (@default): the core's words, as in every language
  assert.throws(() => new respite.Queue({ policy: built }), { name: 'ClosedError', message: 'policy is closed' });
});
