'use strict';
// What counts against the service (issue 20): by default only errors the
// binding can tell are the transport's or the service's; the caller's own
// errors are re-raised and told to the gate as request_error (not counted);
// a classifier overrides, for the gate and the retry helper alike.
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { networkError } = require('./helpers');

const quick = { maxAttempts: 3, initialDelaySeconds: 0.001, maxDelaySeconds: 0.001 };

test("a KeyError-like bug in the caller's code never opens the gate", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 3 });
  try {
    const bug = new TypeError("Cannot read properties of undefined (reading 'id')");
    for (let i = 0; i < 10; i++) await assert.rejects(gate.run(() => { throw bug; }), (error) => error === bug);
    const stats = gate.stats();
    assert.equal(stats.countedFailures, 0);
    assert.equal(stats.reported, 10, 'each was reported, as request_error');
    assert.equal(gate.state(), 'closed');
  } finally {
    gate.close();
  }
});

test('network errors count: Node codes, fetch failures (cause), timeouts, HTTP statuses of axios/got errors', async () => {
  const fetchFailed = new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }) });
  const undici = new TypeError('fetch failed', { cause: Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }) });
  const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
  const axios = Object.assign(new Error('Request failed with status code 503'), { response: { status: 503 } });
  const got = Object.assign(new Error('Response code 502 (Bad Gateway)'), { response: { statusCode: 502 } });
  const notFound = Object.assign(new Error('Request failed with status code 404'), { response: { status: 404 } });
  const cases = [
    [networkError('getaddrinfo ENOTFOUND api.example.com', 'ENOTFOUND'), 1],
    [fetchFailed, 1],
    [undici, 1],
    [timeout, 1],
    [axios, 1],
    [got, 1],
    [notFound, 0],
    [new respite.TransportError('the call failed'), 1],
    [new Error('plain'), 0],
    [new DOMException('This operation was aborted', 'AbortError'), 0],
  ];
  for (const [error, counted] of cases) {
    const gate = new respite.Gate();
    try {
      await assert.rejects(gate.run(() => Promise.reject(error)), (thrown) => thrown === error);
      assert.equal(gate.stats().countedFailures, counted, error.message);
    } finally {
      gate.close();
    }
  }
});

test('a caller-supplied classifier overrides: error classes, predicates, results (a 5xx response value)', async () => {
  class QuotaError extends Error {}
  const gate = new respite.Gate({
    failuresToEnterRecovery: 100,
    classify: {
      error: [QuotaError],
      result: (response) => (response.body === '' ? 'unusable' : undefined),
    },
  });
  try {
    await assert.rejects(gate.run(() => { throw new QuotaError('over quota'); }));
    assert.equal(gate.stats().countedFailures, 1, 'a listed class counts');
    await assert.rejects(gate.run(() => { throw new Error('mine'); }));
    await assert.rejects(gate.run(() => { throw networkError(); }));
    assert.equal(gate.stats().countedFailures, 2, 'others keep the default');
    await gate.run(() => ({ status: 200, body: '' }));
    assert.equal(gate.stats().countedFailures, 3, 'an empty 200 is unusable');
    await gate.run(() => ({ status: 503, body: 'busy' }));
    assert.equal(gate.stats().countedFailures, 4, 'undefined keeps the default: a 503 value counts');
    await gate.run(() => ({ status: 0, outcome: 'transport' }));
    assert.equal(gate.stats().countedFailures, 5, "a value's outcome name (a respite Response's) counts");
  } finally {
    gate.close();
  }
  // The old rule in one line: every error counts.
  const strict = new respite.Gate({ failuresToEnterRecovery: 2, classify: { error: () => true } });
  try {
    await assert.rejects(strict.run(() => { throw new Error('x'); }));
    await assert.rejects(strict.run(() => { throw new Error('x'); }));
    assert.equal(strict.state(), 'open');
  } finally {
    strict.close();
  }
  // And the reverse: nothing the function throws counts; false on a result is a success.
  const lenient = new respite.Gate({ failuresToEnterRecovery: 1, classify: { error: () => false, result: () => false } });
  try {
    await assert.rejects(lenient.run(() => { throw networkError(); }));
    await lenient.run(() => ({ status: 503 }));
    assert.equal(lenient.stats().countedFailures, 0);
  } finally {
    lenient.close();
  }
  assert.throws(() => new respite.Gate({ classify: { error: 'all' } }), TypeError);
  assert.throws(() => new respite.Gate({ classify: { result: [] } }), TypeError);
});

test('countAllFailures (the core setting) counts the caller\'s own errors too (O9)', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, countAllFailures: true });
  try {
    await assert.rejects(gate.run(() => { throw new Error('mine'); }));
    assert.equal(gate.state(), 'open');
  } finally {
    gate.close();
  }
});

test("a probe that ends in the caller's own error closes the gate (G8: the service was not shown failing)", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 1 });
  try {
    gate.record('transport', { now: 0 });
    const probe = gate.check(1.5);
    assert.ok(probe.probe);
    gate.report(probe.permit, 'request_error', { now: 1.5 });
    assert.equal(gate.state(1.5), 'closed');
  } finally {
    gate.close();
  }
});

test("retry: the caller's own error is re-raised at once, not retried; the retry uses the gate's classifier", async () => {
  let calls = 0;
  const bug = new RangeError('bad index');
  await assert.rejects(respite.retry(() => { calls++; throw bug; }, quick), (error) => error === bug);
  assert.equal(calls, 1);
  class Flaky extends Error {}
  const gate = new respite.Gate({ classify: { error: [Flaky] } });
  try {
    calls = 0;
    await assert.rejects(respite.retry(() => { calls++; throw new Flaky('again'); }, quick, { gate }), (error) => {
      assert.ok(error instanceof respite.TransportError);
      assert.ok(error.cause instanceof Flaky);
      return true;
    });
    assert.equal(calls, 3);
    assert.equal(gate.stats().countedFailures, 3);
    // A classifier of the retry's own: a result that is not good enough
    // (true: unusable) is retried when retryOn lists it.
    calls = 0;
    const value = await respite.retry(() => ++calls, { ...quick, retryOn: ['transport', 'unusable'] }, { classify: { result: (n) => n < 3 } });
    assert.equal(value, 3);
    await assert.rejects(respite.retry(() => 1, quick, { classify: { result: () => true } }), /the call failed with unusable, which retry_on does not retry/);
  } finally {
    gate.close();
  }
});
