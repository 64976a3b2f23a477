'use strict';
// The HTTP request client against respite-fault-server.
const test = require('node:test');
const assert = require('node:assert/strict');
const { Worker } = require('node:worker_threads');
const path = require('node:path');
const respite = require('..');
const { sleep, useFaultServer } = require('./fault_server');

let server;
useFaultServer(test, (started) => (server = started));

test('a call returns a Response: status, headers, body, outcome, attempts, elapsed', async () => {
  await server.script('201 body=created header=X-Request-Id:42');
  const client = new respite.Client({ timeoutSeconds: 1, userAgent: 'node-test' });
  try {
    const response = await client.post(server.url, Buffer.from('{"a":1}'), { headers: { 'Content-Type': 'application/json' } });
    assert.equal(response.status, 201);
    assert.equal(response.outcome, 'success');
    assert.ok(response.ok);
    assert.equal(response.text(), 'created');
    assert.ok(Buffer.isBuffer(response.body));
    assert.equal(response.headers.get('x-request-id'), '42');
    assert.equal(response.headers.get('X-Missing'), null);
    assert.equal(response.attempts, 1);
    assert.ok(response.elapsed > 0 && response.elapsed < 1);
    response.close();
    assert.throws(() => response.headers.get('x-request-id'), { name: 'ClosedError', message: 'response is closed' });
    assert.throws(() => client.reportUnusable(response), { name: 'ClosedError', message: 'response is closed' });
    const received = (await server.stats(true)).received[0];
    assert.equal(received.method, 'POST');
    assert.equal(received.body, '{"a":1}');
    assert.equal(received.headers['Content-Type'], 'application/json');
    assert.equal(received.headers['User-Agent'], 'node-test');
  } finally {
    client.close();
  }
});

test('the event loop keeps running while a call waits for the network', async () => {
  await server.script('hang');
  const client = new respite.Client({ timeoutSeconds: 0.3 });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 10);
  try {
    const response = await client.get(server.url);
    assert.equal(response.status, 0);
    assert.equal(response.outcome, 'transport');
    assert.match(response.error, /timed out/i);
    assert.ok(ticks >= 10, `the loop ran ${ticks} 10 ms timers during a 300 ms call`);
  } finally {
    clearInterval(timer);
    client.close();
  }
});

test('request({signal}): an abort rejects at once with the reason; an aborted signal makes no request', async () => {
  await server.script('hang');
  const client = new respite.Client({ timeoutSeconds: 3 });
  try {
    const controller = new AbortController();
    const started = performance.now();
    const call = client.request({ url: server.url, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await assert.rejects(call, { name: 'AbortError' });
    const took = performance.now() - started;
    assert.ok(took < 1000, `the aborted call took ${took.toFixed(0)} ms (timeoutSeconds 3)`);
    const requests = await server.requests();
    const reason = new Error('gave up');
    await assert.rejects(client.get(server.url, { signal: AbortSignal.abort(reason) }), (error) => error === reason);
    await assert.rejects(client.post(server.url, 'x', { signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(await server.requests(), requests, 'no request for an aborted signal');
    await assert.rejects(client.request({ url: server.url, signal: 'stop' }), TypeError);
  } finally {
    client.close();
  }
});

test('request({signal}): a signal that never aborts changes nothing', async () => {
  await server.script('204');
  const client = new respite.Client({ timeoutSeconds: 1 });
  try {
    const response = await client.get(server.url, { signal: new AbortController().signal });
    assert.equal(response.status, 204);
    response.close();
  } finally {
    client.close();
  }
});

test('ten timeouts open a recovery period: no request reaches the server, a refusal takes under 1 ms', async () => {
  await server.script('hang');
  const gate = new respite.Gate({ failuresToEnterRecovery: 10, failuresWindowSeconds: 30, recoverySeconds: 2, jitter: 0 });
  const client = new respite.Client({ gate, timeoutSeconds: 0.2 });
  const warnings = [];
  gate.on('recovery_started', (event) => warnings.push(event));
  try {
    // Ten at once: each runs on its own thread of the pool.
    const responses = await Promise.all(Array.from({ length: 10 }, () => client.get(server.url)));
    assert.deepEqual(responses.map((r) => r.outcome), Array(10).fill('transport'));
    assert.equal(gate.state(), 'open');
    assert.equal(warnings.length, 1, 'recovery_started emitted once');
    assert.equal(warnings[0].failures, 10);
    const before = await server.requests();
    await client.get(server.url).catch(() => {}); // warm-up: the first error built is slow (JIT)
    const times = [];
    for (let i = 0; i < 20; i++) {
      const start = process.hrtime.bigint();
      const error = await client.get(server.url).then(
        () => assert.fail('a call was admitted during the pause'),
        (e) => e,
      );
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
      assert.ok(error instanceof respite.TemporarilyUnavailableError);
      assert.equal(error.code, 'temporarily_unavailable');
      assert.ok(error.retryAfter > 1 && error.retryAfter <= 2, `retryAfter ${error.retryAfter}`);
      assert.equal(error.message, respite.refusalMessage(error.retryAfter));
    }
    times.sort((a, b) => a - b);
    // The median is the figure; the slowest may meet a GC pause on a busy machine,
    // but is still far from the 200 ms a network call would take.
    assert.ok(times[10] < 1, `median refused call took ${times[10].toFixed(3)} ms`);
    assert.ok(times[19] < 50, `slowest refused call took ${times[19].toFixed(3)} ms`);
    assert.equal(await server.requests(), before, 'the server saw no request during the pause');
    assert.equal(gate.stats().refused, 21);
  } finally {
    client.close();
    gate.close();
  }
});

test("one visitor's 404s never open the gate; ten 503s do", async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 10, recoverySeconds: 5 });
  const client = new respite.Client({ gate, timeoutSeconds: 1 });
  try {
    await server.script('404');
    for (let i = 0; i < 30; i++) {
      const response = await client.get(`${server.url}missing/${i}`);
      assert.equal(response.status, 404);
      assert.equal(response.outcome, 'request_error');
    }
    assert.equal(gate.state(), 'closed');
    await server.script('503 retry_after=1');
    for (let i = 0; i < 10; i++) {
      const response = await client.get(server.url);
      assert.equal(response.outcome, 'server_error');
      assert.equal(response.retryAfter, 1);
    }
    assert.equal(gate.state(), 'open');
    await assert.rejects(client.get(server.url), respite.TemporarilyUnavailableError);
  } finally {
    client.close();
    gate.close();
  }
});

test('retries follow the back-off; the last response counts the attempts', async () => {
  await server.script('2*503; healthy');
  const backoff = new respite.Backoff({ maxAttempts: 4, initialDelaySeconds: 0.01, jitter: 'none', retryOn: ['server_error'] });
  const client = new respite.Client({ backoff, timeoutSeconds: 1 });
  try {
    const response = await client.get(server.url);
    assert.equal(response.status, 200);
    assert.equal(response.attempts, 3);
    assert.equal(await server.requests(), 3);
  } finally {
    client.close();
    backoff.close();
  }
});

test('reportUnusable counts an unusable failure; only a success can be reported', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 2 });
  const client = new respite.Client({ gate });
  try {
    await server.script('200 body=not-json');
    const response = await client.get(server.url);
    client.reportUnusable(response);
    assert.equal(response.outcome, 'unusable');
    client.reportUnusable(response); // a second report changes nothing
    assert.equal(gate.stats().countedFailures, 1);
    await server.script('404');
    const missing = await client.get(server.url);
    assert.throws(() => client.reportUnusable(missing), {
      name: 'InvalidArgumentError',
      message: 'only a success can be reported unusable (the response\'s outcome is request_error)',
    });
  } finally {
    client.close();
    gate.close();
  }
});

test("bad arguments are the core's invalid_argument errors", async () => {
  const client = new respite.Client();
  try {
    await assert.rejects(client.request({ method: 'GE T', url: server.url }), {
      name: 'InvalidArgumentError',
      message: "method must be an HTTP method such as GET or POST (got 'GE T')",
    });
    await assert.rejects(client.get('ftp://example.com/'), {
      name: 'InvalidArgumentError',
      message: "url must be an http:// or https:// URL (got 'ftp://example.com/')",
    });
    await assert.rejects(client.get(server.url, { headers: 'X-A: 1\nno colon here' }), {
      message: 'headers must be "Name: value" lines separated by \\n (line 2 is "no colon here")',
    });
    await assert.rejects(client.get(server.url, { headers: { 'X-A': 'one\r\nX-B: two' } }), TypeError);
    await assert.rejects(client.post(server.url, { not: 'a payload' }), { message: 'payload must be a string or a Buffer' });
    assert.throws(() => new respite.Client({ timeoutSeconds: 0 }), { name: 'InvalidSettingError', setting: 'timeout_seconds' });
    assert.equal(await server.requests(), 0);
  } finally {
    client.close();
  }
});

test('closed: a closed client rejects with ClosedError; its gate and back-off live on in the core; in-flight calls finish', async () => {
  await server.script('200 delay=0.2');
  const gate = new respite.Gate();
  const backoff = new respite.Backoff({ maxAttempts: 1 });
  const client = new respite.Client({ gate, backoff });
  const inFlight = client.get(server.url);
  gate.close(); // the client holds its own reference to the core gate (and back-off)
  backoff.close();
  assert.equal(client.closed, false);
  assert.equal((await client.get(server.url)).status, 200);
  client.close(); // the call in flight still finishes
  assert.ok(client.closed);
  await assert.rejects(client.get(server.url), { name: 'ClosedError', message: 'client is closed' });
  const response = await inFlight;
  assert.equal(response.status, 200);
  assert.throws(() => client.reportUnusable(response), { name: 'ClosedError', message: 'client is closed' });
  assert.throws(() => new respite.Client({ gate }), { name: 'ClosedError', message: 'gate is closed' });
  const other = new respite.Client({ backoff: new respite.Backoff() });
  other.close();
  other.close(); // idempotent
});

test('a Client works in a worker thread', async () => {
  await server.script('healthy');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const respite = require(workerData.package);
    (async () => {
      const gate = new respite.Gate();
      const client = new respite.Client({ gate });
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await client.get(workerData.url)).status);
      client.close();
      gate.close();
      parentPort.postMessage(statuses);
    })();`;
  const worker = new Worker(code, { eval: true, workerData: { package: path.resolve(__dirname, '..'), url: server.url } });
  const [statuses] = await Promise.all([new Promise((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  })]);
  assert.deepEqual(statuses, [200, 200, 200, 200, 200]);
  await worker.terminate();
});

test('terminating a worker while its call waits does not crash the process', async () => {
  await server.script('hang for=1');
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const respite = require(workerData.package);
    const client = new respite.Client({ timeoutSeconds: 0.5 });
    client.get(workerData.url);
    parentPort.postMessage('started');`;
  const worker = new Worker(code, { eval: true, workerData: { package: path.resolve(__dirname, '..'), url: server.url } });
  await new Promise((resolve) => worker.once('message', resolve));
  await sleep(50);
  await worker.terminate();
  await sleep(600); // the pool thread finishes its call after the worker is gone
  assert.ok(true);
});
