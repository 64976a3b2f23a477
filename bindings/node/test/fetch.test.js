'use strict';
// gateFetch: the global fetch (undici) through a gate, against the fault
// server (issue 21: what counts, Retry-After, refusals without I/O, abort, retry).
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { useFaultServer } = require('./fault_server');

let server;
useFaultServer(test, (started) => (server = started));

test('gateFetch: 5xx and 429 count, other 4xx never; paused, it refuses with no request', async () => {
  await server.script('404; 503; 429; healthy');
  const gate = new respite.Gate({ failuresToEnterRecovery: 2, recoverySeconds: 30, jitter: 0 });
  const fetch = respite.gateFetch(gate);
  try {
    const notFound = await fetch(server.url);
    assert.equal(notFound.status, 404);
    assert.equal(await notFound.text(), '404\n');
    assert.equal(gate.stats().countedFailures, 0, 'a 404 is the caller\'s request error');
    assert.equal((await fetch(server.url)).status, 503, 'fetch resolves with an error status');
    assert.equal(gate.state(), 'closed');
    assert.equal((await fetch(server.url)).status, 429);
    assert.equal(gate.state(), 'open');
    const requests = await server.requests();
    await assert.rejects(fetch(server.url), (error) => error instanceof respite.TemporarilyUnavailableError &&
      error.retryAfter > 29 && error.retryAfter <= 30);
    assert.equal(await server.requests(), requests, 'a refusal makes no request');
  } finally {
    gate.close();
  }
});

test("gateFetch: a 503's Retry-After is the gate's hint; a 500's is not read", async () => {
  await server.script('503 retry_after=20; 500 retry_after=40');
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 1, maxRecoverySeconds: 60, jitter: 0 });
  const fetch = respite.gateFetch(gate);
  try {
    await fetch(server.url);
    const wait = gate.retryAfter();
    assert.ok(wait > 19 && wait <= 20, `paused for ${wait}s, Retry-After 20`);
    gate.reset();
    await fetch(server.url);
    assert.ok(gate.retryAfter() <= 1, 'C6: only a 429 or 503 gives a hint');
  } finally {
    gate.close();
  }
});

test('gateFetch: a transport error counts and rejects as fetch does', async () => {
  await server.script('close');
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });
  const fetch = respite.gateFetch(gate);
  try {
    await assert.rejects(fetch(server.url), TypeError); // undici: "fetch failed", the cause has the code
    assert.equal(gate.state(), 'open');
    assert.equal(gate.stats().countedFailures, 1);
  } finally {
    gate.close();
  }
});

test('gateFetch: the signal reaches fetch; an aborted call counts nothing', async () => {
  await server.script('hang for=5');
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });
  const fetch = respite.gateFetch(gate);
  try {
    const controller = new AbortController();
    const call = fetch(server.url, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    await assert.rejects(call, { name: 'AbortError' });
    assert.ok(performance.now() - started < 1000);
    assert.equal(gate.state(), 'closed');
    assert.equal(gate.stats().countedFailures, 0);
    await assert.rejects(fetch(server.url, { signal: AbortSignal.abort() }), { name: 'AbortError' });
    await assert.rejects(fetch(server.url, { signal: 'stop' }), TypeError);
  } finally {
    gate.close();
  }
});

test('gateFetch({retry}): retries through the gate; the last answer when the back-off stops', async () => {
  await server.script('2*503; healthy');
  const gate = new respite.Gate({ failuresToEnterRecovery: 10, recoverySeconds: 30 });
  const fetch = respite.gateFetch(gate, { retry: { maxAttempts: 3, initialDelaySeconds: 0.01, jitter: 'none' } });
  try {
    const request = new Request(server.url, { method: 'POST', body: 'event' });
    const response = await fetch(request);
    assert.equal(response.status, 200);
    const stats = await server.stats(true);
    assert.equal(stats.requests, 3);
    assert.deepEqual(stats.received.map((r) => r.body), ['event', 'event', 'event'], 'a Request is sent whole each time');
    assert.equal(gate.stats().countedFailures, 2);

    await server.script('down');
    const last = await fetch(server.url);
    assert.equal(last.status, 503, 'resolved with the last answer, as fetch would');
    assert.equal(await server.requests(), 6);
    // A 404 is not retried.
    await server.script('404');
    assert.equal((await fetch(server.url)).status, 404);
    assert.equal(await server.requests(), 7);
  } finally {
    gate.close();
  }
});

test('gateFetch: any fetch-shaped function; bad arguments are TypeErrors', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });
  try {
    const seen = [];
    const fake = async (input, init) => {
      seen.push([input, init.method, init.signal instanceof AbortSignal]);
      return new Response('busy', { status: 503 });
    };
    const fetch = respite.gateFetch(gate, { fetch: fake });
    assert.equal((await fetch('http://service.example.com/', { method: 'PUT' })).status, 503);
    assert.deepEqual(seen, [['http://service.example.com/', 'PUT', true]]);
    assert.equal(gate.state(), 'open');
    assert.throws(() => respite.gateFetch({}), TypeError);
    assert.throws(() => respite.gateFetch(gate, { fetch: 'x' }), TypeError);
    assert.throws(() => respite.gateFetch(gate, { retires: 3 }), /no option "retires"/);
    assert.throws(() => respite.gateFetch(gate, { retry: 3 }), TypeError);
  } finally {
    gate.close();
  }
});
