'use strict';
// respite.metrics (spec section 12): the core's samples and text, and the
// prom-client metrics on a Registry (M9).
const test = require('node:test');
const assert = require('node:assert/strict');
const { Registry } = require('prom-client');
const respite = require('..');
const { useFaultServer } = require('./fault_server');

const { metrics } = respite;
let server;
useFaultServer(test, (started) => (server = started));

// Opened for good by two counted failures; one call refused.
function openGate(name = 'billing') {
  const gate = new respite.Gate({ name, failuresToEnterRecovery: 2, recoverNever: true });
  gate.report(gate.acquire(), 'server_error');
  gate.report(gate.acquire(), 'server_error');
  assert.throws(() => gate.acquire(), { name: 'TemporarilyUnavailableError' });
  return gate;
}

test('samples and text come from the core', () => {
  const gate = openGate();
  const queue = new respite.Queue({ name: 'events' });
  try {
    queue.enqueue('one');
    const samples = metrics.samples([gate, queue]);
    assert.equal(samples.length, 19 + 15);
    assert.deepEqual(samples[1], {
      family: 'respite_gate_state', name: 'respite_gate_state', type: 'stateset', unit: '', help: samples[1].help,
      labels: { gate: 'billing', respite_gate_state: 'open' }, value: 1,
    });
    assert.equal(samples[3].name, 'respite_gate_admitted_total');
    assert.equal(samples[3].value, 2);
    const text = metrics.render([gate, queue], { prefix: 'app' });
    assert.match(text, /\napp_gate_refused_total\{gate="billing"\} 1\n/);
    assert.match(text, /\napp_queue_pending\{queue="events"\} 1\n/);
    assert.match(text, /\napp_gate_pause_left_seconds\{gate="billing"\} \+Inf\n/);
    assert.ok(text.endsWith('# EOF\n'));
    assert.equal(metrics.CONTENT_TYPE, 'application/openmetrics-text; version=1.0.0; charset=utf-8');
  } finally {
    gate.close();
    queue.close();
  }
});

test('bad handles and prefixes are refused by the core', () => {
  const a = new respite.Gate({ name: 'a' });
  const b = new respite.Gate({ name: 'a' });
  assert.throws(() => metrics.register(new Registry(), [a, b]),
    { name: 'InvalidArgumentError', message: /metrics already have a gate named 'a'/ });
  assert.throws(() => metrics.render([{}]), { name: 'TypeError', message: /Gate, Queue or Sender/ });
  assert.throws(() => metrics.render([a], { prefix: 'my-app' }), { name: 'InvalidArgumentError', message: /prefix must be/ });
  a.close();
  assert.throws(() => metrics.render([a]), { name: 'ClosedError', message: 'gate is closed' });
  b.close();
});

test('prom-client reads the core at every scrape, in both text formats', async () => {
  const gate = openGate();
  const queue = new respite.Queue({ name: 'events' });
  const sender = new respite.Sender({ url: server.url, name: 'usage', minEntriesPerMessage: 1 });
  try {
    const registry = new Registry();
    const registered = metrics.register(registry, [gate, queue, sender]);
    assert.equal(registered.length, 34 - 7 + 7); // gate and queue families, and the sender's own
    let text = await registry.metrics();
    assert.match(text, /\nrespite_gate_admitted_total\{gate="billing"\} 2\n/);
    assert.match(text, /\nrespite_gate_state\{gate="billing",respite_gate_state="open"\} 1\n/);
    assert.match(text, /# TYPE respite_gate_admitted_total counter\n/);
    assert.match(text, /\nrespite_queue_pending\{queue="events"\} 0\n/);
    queue.enqueue('a');
    sender.enqueue('x');
    sender.enqueue('y');
    await sender.flush(2);
    text = await registry.metrics();
    assert.match(text, /\nrespite_queue_pending\{queue="events"\} 1\n/);
    assert.match(text, /\nrespite_sender_events_sent_total\{sender="usage"\} 2\n/);
    assert.match(text, /\nrespite_queue_delivered_total\{queue="usage"\} 2\n/);
    const json = await registry.getMetricsAsJSON();
    const dropped = json.find((m) => m.name === 'respite_queue_dropped_total');
    assert.deepEqual(dropped.values.map((v) => v.labels.reason), ['capacity', 'expired', 'retries_exhausted', 'discarded', 'capacity', 'expired', 'retries_exhausted', 'discarded']);
    registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE);
    text = await registry.metrics();
    assert.match(text, /# TYPE respite_gate_admitted counter\n/);
    assert.match(text, /\nrespite_gate_admitted_total\{gate="billing"\} 2\n/);
    assert.ok(text.endsWith('# EOF\n'));
  } finally {
    gate.close();
    queue.close();
    await sender.close();
  }
});
