'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const { EventEmitter } = require('node:events');
const respite = require('..');
const { raises, networkError } = require('./helpers');

function tripGate(options = {}) {
  return new respite.Gate({ failuresToEnterRecovery: 3, failuresWindowSeconds: 10, recoverySeconds: 60, ...options });
}

test('camelCase options reach the core; the gate trips at N failures in the window (G2, G3, G5)', () => {
  const gate = tripGate();
  try {
    assert.ok(gate instanceof EventEmitter);
    assert.equal(gate.check(0).allowed, true);
    gate.record('transport', { now: 0 });
    gate.record({ status: 503 }, { now: 1 });
    assert.equal(gate.state(2), 'closed');
    gate.record(500, { now: 2 });
    assert.equal(gate.state(3), 'open');
    assert.deepEqual(gate.check(3), { allowed: false, probe: false, permit: 0, retryAfter: 59 });
    assert.equal(gate.retryAfter(32), 30);
    const stats = gate.stats();
    assert.equal(stats.trips, 1);
    assert.equal(stats.countedFailures, 3);
    assert.equal(stats.state, 'open');
    assert.equal(stats.until, 62);
  } finally {
    gate.close();
  }
});

test('request errors (4xx) do not count; 429 does', () => {
  const gate = tripGate({ failuresToEnterRecovery: 2 });
  try {
    for (let i = 0; i < 5; i++) gate.record(404, { now: i });
    assert.equal(gate.state(5), 'closed');
    gate.record(429, { now: 6 });
    gate.record({ status: 200, bodyUsable: false }, { now: 7 });
    assert.equal(gate.state(7), 'open');
  } finally {
    gate.close();
  }
});

test('probe after the pause; a successful probe closes the gate (G7, G8)', () => {
  const gate = tripGate({ failuresToEnterRecovery: 1 });
  try {
    gate.record('transport', { now: 0 });
    const probe = gate.check(60);
    assert.equal(probe.allowed, true);
    assert.equal(probe.probe, true);
    assert.equal(gate.check(60).allowed, false); // one probe at a time
    gate.report(probe.permit, 'success', { now: 61 });
    assert.equal(gate.state(61), 'closed');
  } finally {
    gate.close();
  }
});

test('profiles: usage_sharing pauses 2s then doubles', () => {
  const gate = new respite.Gate({ profile: 'usage_sharing', failuresToEnterRecovery: 1 });
  try {
    gate.record('transport', { now: 0 });
    assert.equal(gate.retryAfter(0), 2);
    const probe = gate.check(2);
    gate.report(probe.permit, 'transport', { now: 2 });
    assert.equal(gate.retryAfter(2), 4);
  } finally {
    gate.close();
  }
  const camel = new respite.Gate({ profile: 'usageSharing' });
  assert.equal(camel.stats().delay, 2);
  camel.close();
});

test('events are emitted by type and as "event", and forwarded to the logger', () => {
  const logged = [];
  const logger = {
    warn: (message, event) => logged.push(['warn', message, event.type]),
    info: (message, event) => logged.push(['info', message, event.type]),
  };
  const gate = tripGate({ failuresToEnterRecovery: 2, logger });
  const seen = [];
  const started = [];
  gate.on('event', (event) => seen.push(event));
  gate.on('recovery_started', (event) => started.push(event));
  try {
    gate.record('transport', { now: 1 });
    assert.equal(seen.length, 0);
    gate.record('transport', { now: 2 });
    assert.deepEqual(started, [{
      type: 'recovery_started', at: 2, warning: true, failures: 2, window: 10, pause: 60, source: '',
      httpStatus: 0, count: 0, detail: '',
      message: 'recovery started: 2 failures within 10s; requests paused for 60s',
    }]);
    assert.equal(gate.name, '', 'no name setting: the lines have no prefix');
    const probe = gate.check(62);
    gate.report(probe.permit, 'success', { now: 63 });
    gate.reset(64);
    assert.deepEqual(
      seen.map((event) => event.type),
      ['recovery_started', 'probing', 'recovered', 'reset'],
    );
    assert.deepEqual(
      logged.map(([level, , type]) => `${level}:${type}`),
      ['warn:recovery_started', 'info:probing', 'info:recovered', 'info:reset'],
    );
    assert.deepEqual(logged.map(([, message]) => message), [
      'recovery started: 2 failures within 10s; requests paused for 60s',
      'recovery period ended: the next request is a probe',
      'recovered: the service answered; requests resume',
      'gate reset: requests resume',
    ]);
  } finally {
    gate.close();
  }
});

test('a named gate: its name starts every line the core writes, and is each event\'s source', () => {
  const logged = [];
  const logger = { warn: (message) => logged.push(message), info: (message) => logged.push(message) };
  const gate = new respite.Gate({ name: 'billing', failuresToEnterRecovery: 1, recoverySeconds: 60, logger });
  const sources = [];
  gate.on('event', (event) => sources.push(event.source));
  try {
    assert.equal(gate.name, 'billing');
    gate.record('transport', { now: 1 });
    gate.reset(2);
    assert.deepEqual(logged, [
      'billing: recovery started: 1 failure within 100s; requests paused for 60s',
      'billing: gate reset: requests resume',
    ]);
    assert.deepEqual(sources, ['billing', 'billing']);
  } finally {
    gate.close();
  }
  assert.equal(gate.name, null);
  raises(() => new respite.Gate({ name: 'x'.repeat(64) }), { name: 'InvalidSettingError', setting: 'name' });
});

test('a recover_never pause is logged as "until a reset" (G13, G18)', () => {
  const logged = [];
  const logger = {
    warn: (message) => logged.push(['warn', message]),
    info: (message) => logged.push(['info', message]),
  };
  const gate = tripGate({ failuresToEnterRecovery: 2, recoverNever: true, logger });
  try {
    gate.record('transport', { now: 1 });
    gate.record('transport', { now: 2 });
    gate.reset(3);
    assert.deepEqual(logged, [
      ['warn', 'recovery started: 2 failures within 10s; requests paused until a reset'],
      ['info', 'gate reset: requests resume'],
    ]);
  } finally {
    gate.close();
  }
});

test('run: the value passes through and the call is admitted and reported', async () => {
  const gate = tripGate();
  try {
    assert.equal(await gate.run(async () => 42), 42);
    assert.equal(await gate.run(() => 'sync'), 'sync');
    const stats = gate.stats();
    assert.equal(stats.admitted, 2);
    assert.equal(stats.reported, 2);
    assert.equal(stats.countedFailures, 0);
  } finally {
    gate.close();
  }
});

test('run: a network error is a transport failure and is re-thrown unchanged', async () => {
  const gate = tripGate();
  try {
    const boom = networkError('connection reset');
    await assert.rejects(gate.run(async () => { throw boom; }), (error) => error === boom);
    await assert.rejects(gate.run(() => { throw boom; }), (error) => error === boom);
    assert.equal(gate.stats().countedFailures, 2);
    await assert.rejects(gate.run(() => Promise.reject(boom)));
    assert.equal(gate.state(), 'open');
  } finally {
    gate.close();
  }
});

test('run: an error carrying status/statusCode reports that HTTP status', async () => {
  const gate = tripGate();
  try {
    const notFound = Object.assign(new Error('not found'), { status: 404 });
    for (let i = 0; i < 5; i++) await assert.rejects(gate.run(async () => { throw notFound; }));
    assert.equal(gate.stats().countedFailures, 0, '404 does not count');
    const throttled = Object.assign(new Error('slow down'), { statusCode: 429 });
    await assert.rejects(gate.run(async () => { throw throttled; }));
    assert.equal(gate.stats().countedFailures, 1, '429 counts');
    // A resolved response with a 5xx status is a server error too.
    assert.deepEqual(await gate.run(async () => ({ status: 503 })), { status: 503 });
    assert.equal(gate.stats().countedFailures, 2);
    const named = Object.assign(new Error('bad json'), { outcome: 'unusable' });
    await assert.rejects(gate.run(async () => { throw named; }));
    assert.equal(gate.state(), 'open');
  } finally {
    gate.close();
  }
});

test('run: refused calls reject with TemporarilyUnavailableError and never call fn', async () => {
  const gate = tripGate({ failuresToEnterRecovery: 1, recoverySeconds: 30 });
  const started = [];
  gate.on('recovery_started', (event) => started.push(event));
  try {
    await assert.rejects(gate.run(async () => { throw networkError('down'); }));
    assert.equal(started.length, 1, 'the event is emitted by run as well');
    let called = false;
    const refusal = gate.run(async () => { called = true; });
    assert.ok(refusal instanceof Promise);
    await assert.rejects(refusal, (error) => {
      assert.ok(error instanceof respite.TemporarilyUnavailableError);
      assert.ok(error.retryAfter > 29 && error.retryAfter <= 30, `retryAfter ${error.retryAfter}`);
      assert.match(error.message, /^sending requests to the service is temporarily restricted due to recent failures; recovery resumes in (30\.0|29\.\d)s$/);
      return true;
    });
    assert.equal(called, false);
  } finally {
    gate.close();
  }
});

test('run: a Retry-After hint on the error lengthens the pause (G15)', async () => {
  const gate = tripGate({ failuresToEnterRecovery: 1, recoverySeconds: 5, maxRecoverySeconds: 300 });
  try {
    await assert.rejects(gate.run(async () => { throw Object.assign(new Error('busy'), { status: 503, retryAfter: 120 }); }));
    assert.ok(gate.retryAfter() > 100);
  } finally {
    gate.close();
  }
});

test('run: the lean path keeps the same statistics as the core would', async () => {
  const gate = tripGate({ failuresToEnterRecovery: 100 });
  try {
    for (let i = 0; i < 1000; i++) await gate.run(async () => i);
    await assert.rejects(gate.run(async () => { throw networkError('x'); }));
    for (let i = 0; i < 10; i++) await gate.run(async () => i);
    const stats = gate.stats();
    assert.equal(stats.admitted, 1011);
    assert.equal(stats.reported, 1011);
    assert.equal(stats.countedFailures, 1);
    assert.equal(stats.late, 0);
    // A reset makes a new generation: in-flight calls of the old one are late (G6).
    let release;
    const inFlight = gate.run(() => new Promise((resolve) => (release = resolve)));
    gate.reset();
    release(1);
    await inFlight;
    assert.equal(gate.stats().late, 1);
  } finally {
    gate.close();
  }
});

test('probes = 0 (G11): every run reaches the core, so the first success after a pause resets the delay', async () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, probes: 0, recoverySeconds: 0.05, recoveryMultiplier: 2, maxRecoverySeconds: 1 });
  try {
    await assert.rejects(gate.run(async () => { throw networkError('down'); }));
    await new Promise((resolve) => setTimeout(resolve, 70));
    assert.equal(await gate.run(async () => 'up'), 'up');
    await assert.rejects(gate.run(async () => { throw networkError('down'); }));
    assert.ok(gate.retryAfter() <= 0.05, 'delay back to R after the first success');
  } finally {
    gate.close();
  }
});
