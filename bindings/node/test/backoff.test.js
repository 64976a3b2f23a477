'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises, networkError } = require('./helpers');

test('delays without jitter: initial x multiplier^(k-1), capped', () => {
  const backoff = new respite.Backoff({ initialDelaySeconds: 0.5, multiplier: 2, maxDelaySeconds: 3 });
  try {
    const sequence = backoff.start();
    assert.deepEqual([1, 2, 3, 4, 5].map((retry) => backoff.delay(sequence, retry)), [0.5, 1, 2, 3, 3]);
    assert.equal(backoff.delay(sequence, 1, 2.5), 2.5, 'a retry-after hint raises the delay');
    assert.equal(backoff.maxAttempts, 3);
  } finally {
    backoff.close();
  }
});

test('next: null when the outcome is a success, not retried, or attempts are used up', () => {
  const backoff = new respite.Backoff({ retryOn: ['transport', 503], maxAttempts: 2 });
  try {
    const sequence = backoff.start();
    assert.equal(backoff.next(sequence, 1, 'transport'), 0.5);
    assert.equal(backoff.next(sequence, 1, 503), 0.5);
    assert.equal(backoff.next(sequence, 1, 500), null);
    assert.equal(backoff.next(sequence, 1, 'success'), null);
    assert.equal(backoff.next(sequence, 2, 'transport'), null);
    assert.equal(backoff.retriesOn(503), true);
    assert.equal(backoff.retriesOn('server_error'), false);
  } finally {
    backoff.close();
  }
});

test('seeded jitter is reproducible', () => {
  const a = new respite.Backoff({ jitter: 'full', seed: 42 });
  const b = new respite.Backoff({ jitter: 'full', seed: 42n });
  try {
    const delays = (backoff) => {
      const sequence = backoff.start();
      return [1, 2, 3].map((retry) => backoff.delay(sequence, retry));
    };
    const first = delays(a);
    assert.deepEqual(first, delays(b));
    assert.ok(first[0] >= 0 && first[0] < 0.5);
  } finally {
    a.close();
    b.close();
  }
});

test('invalid back-off settings', () => {
  const jitter = raises(() => new respite.Backoff({ jitter: 'wild' }), respite.InvalidSettingError);
  assert.equal(jitter.message, "jitter must be one of none, full, equal, decorrelated (got 'wild')");
  const retryOn = raises(() => new respite.Backoff({ retryOn: ['transport', 999] }), respite.InvalidSettingError);
  assert.equal(retryOn.setting, 'retry_on');
});

test('retry: retries failures with timers and returns the first success', async () => {
  let attempts = 0;
  const value = await respite.retry(
    async (attempt) => {
      attempts++;
      assert.equal(attempt, attempts);
      if (attempt < 3) throw networkError('reset');
      return 'ok';
    },
    { initialDelaySeconds: 0.01, maxAttempts: 3 },
  );
  assert.equal(value, 'ok');
  assert.equal(attempts, 3);
});

test("retry gives up with the core's TransportError, the last error as its cause", async () => {
  let attempts = 0;
  const error = await respite.retry(
    async () => { attempts++; throw networkError(`failure ${attempts}`); },
    { initialDelaySeconds: 0.001, maxAttempts: 4 },
  ).catch((caught) => caught);
  assert.ok(error instanceof respite.TransportError);
  assert.equal(error.message, 'the call failed after 4 attempts: last outcome transport');
  assert.equal(error.cause.message, 'failure 4');
  assert.equal(error.result, undefined); // it threw: nothing returned to carry
  assert.equal(error.attempts, 4);
  assert.equal(error.lastOutcome, 'transport');

  attempts = 0;
  const notRetried = await respite.retry(
    async () => { attempts++; throw Object.assign(new Error('bad request'), { status: 400 }); },
    { initialDelaySeconds: 0.001 },
  ).catch((caught) => caught);
  assert.equal(attempts, 1);
  assert.equal(notRetried.message, 'the call failed with request_error (status 400), which retry_on does not retry');
  assert.equal(notRetried.cause.message, 'bad request');

  // A resolved answer that is a failure (a fetch Response) is kept as `result` (B20).
  const response = { status: 503, ok: false };
  const fromValue = await respite.retry(async () => response, { initialDelaySeconds: 0.001, maxAttempts: 2 }).catch((caught) => caught);
  assert.equal(fromValue.message, 'the call failed after 2 attempts: last outcome server_error (status 503)');
  assert.equal(fromValue.result, response);
  assert.equal(fromValue.cause, undefined);
});

test("gaveUp: the core's give-up error for a retry loop of one's own", () => {
  const backoff = new respite.Backoff({ maxAttempts: 3 });
  try {
    assert.equal(backoff.gaveUp(3, 503).message, 'the call failed after 3 attempts: last outcome server_error (status 503)');
    assert.equal(backoff.gaveUp(1, 'throttled').message, 'the call failed with throttled, which retry_on does not retry');
    const success = raises(() => backoff.gaveUp(1, 'success'), respite.InvalidArgumentError);
    assert.match(success.message, /^outcome must be a failure outcome/);
  } finally {
    backoff.close();
  }
  raises(() => backoff.gaveUp(3, 503), { name: 'ClosedError', message: 'backoff is closed' });
});

test('retry does not block the event loop while it waits', async () => {
  const backoff = new respite.Backoff({ initialDelaySeconds: 0.05, maxAttempts: 2 });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  try {
    let attempts = 0;
    await respite.retry(async () => { if (++attempts === 1) throw networkError('once'); return attempts; }, backoff);
    assert.ok(ticks >= 3, `the event loop ran ${ticks} timer ticks during the wait`);
    assert.equal(backoff.closed, false, 'a Backoff passed in is not closed by retry');
  } finally {
    clearInterval(timer);
    backoff.close();
  }
});

test('retry asks the gate before every attempt; a refusal stops it without calling fn', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 2, recoverySeconds: 60 });
  try {
    let attempts = 0;
    await assert.rejects(
      respite.retry(async () => { attempts++; throw networkError('down'); }, { initialDelaySeconds: 0.001, maxAttempts: 5 }, { gate }),
      respite.TemporarilyUnavailableError,
    );
    assert.equal(attempts, 2, 'the gate opened after two failures and refused the third attempt');
    assert.equal(gate.stats().refused, 1);
  } finally {
    gate.close();
  }
});

test('retry with an AbortSignal stops waiting', async () => {
  const controller = new AbortController();
  const running = respite.retry(async () => { throw networkError('down'); }, { initialDelaySeconds: 10 }, { signal: controller.signal });
  setTimeout(() => controller.abort(), 10);
  await assert.rejects(running, { name: 'AbortError' });
});

test('maxElapsedSeconds: no retry starts past the limit (B16)', async () => {
  let attempts = 0;
  const error = await respite.retry(
    async () => { attempts++; throw networkError('down'); },
    { maxAttempts: 10, initialDelaySeconds: 0.03, multiplier: 1, maxElapsedSeconds: 0.05 },
  ).catch((caught) => caught);
  assert.ok(error instanceof respite.TransportError);
  assert.equal(attempts, 2, '0.03 fits in 0.05, 0.03 + 0.03 does not');
  assert.equal(error.message, 'the call failed after 2 attempts: the next would start past max_elapsed_seconds (0.05); last outcome transport');
  raises(() => new respite.Backoff({ maxElapsedSeconds: -1 }), {
    name: 'InvalidSettingError', message: 'max_elapsed_seconds must be a number from 0 to 86400 (got -1)',
  });
});

test('testing.immediateRetries: five attempts with 1 s delays in well under 100 ms, same decisions (B17)', async () => {
  const seen = [];
  let attempts = 0;
  const before = respite.testing.immediateRetries(true);
  const started = performance.now();
  try {
    const error = await respite.retry(
      async () => { attempts++; throw networkError('down'); },
      { maxAttempts: 5, initialDelaySeconds: 1, multiplier: 1 },
      { onRetry: (info) => seen.push(info.delay) },
    ).catch((caught) => caught);
    assert.equal(error.message, 'the call failed after 5 attempts: last outcome transport');
  } finally {
    assert.equal(respite.testing.immediateRetries(before), true);
  }
  assert.ok(performance.now() - started < 100, `took ${performance.now() - started} ms`);
  assert.equal(attempts, 5);
  assert.deepEqual(seen, [1, 1, 1, 1], 'the hook sees the schedule\'s delays');
  assert.equal(respite.native.respite_testing_immediate_retries(), before ? 1 : 0);
});

test('onRetry sees attempt, delay, outcome, status and the error or result (B19)', async () => {
  const seen = [];
  const answers = [{ status: 503 }, 'error', { status: 200 }];
  const unavailable = Object.assign(new Error('busy'), { status: 429, retryAfter: 0.02 });
  const value = await respite.retry(
    async (attempt) => {
      const answer = answers[attempt - 1];
      if (answer === 'error') throw unavailable;
      return answer;
    },
    { maxAttempts: 4, initialDelaySeconds: 0.01 },
    { onRetry: (info) => seen.push(info) },
  );
  assert.deepEqual(value, { status: 200 });
  assert.deepEqual(seen.map(({ attempt, delay, outcome, status }) => [attempt, delay, outcome, status]),
    [[1, 0.01, 'server_error', 503], [2, 0.02, 'throttled', 429]]);
  assert.deepEqual(seen[0].result, { status: 503 });
  assert.equal(seen[0].error, undefined);
  assert.equal(seen[1].error, unavailable);
  assert.equal(seen[1].result, undefined);
});

test('an error thrown by onRetry rejects the call: no wait, no further attempt (B19)', async () => {
  let attempts = 0;
  const stop = new Error('stop retrying');
  await assert.rejects(
    respite.retry(async () => { attempts++; throw networkError('down'); }, { initialDelaySeconds: 10 }, {
      onRetry: () => { throw stop; },
    }),
    (error) => error === stop,
  );
  assert.equal(attempts, 1);
});

test("the caller's own error is not retried even when retryOn lists request_error (B18)", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1 });
  try {
    let attempts = 0;
    const mine = new TypeError('my bug');
    await assert.rejects(
      respite.retry(async () => { attempts++; throw mine; }, { retryOn: ['transport', 'request_error'], initialDelaySeconds: 0.001 }, { gate }),
      (error) => error === mine,
    );
    assert.equal(attempts, 1);
    const stats = gate.stats();
    assert.equal(stats.reported, 1);
    assert.equal(stats.countedFailures, 0);
    assert.equal(gate.state(), 'closed');
  } finally {
    gate.close();
  }
});
