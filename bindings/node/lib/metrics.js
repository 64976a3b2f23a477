'use strict';
// Metrics (spec section 12): a snapshot of gates, queues and senders taken by
// the core, as OpenMetrics text (render), as samples (samples), and as
// prom-client metrics (register). Every metric's name, type, help and labels
// come from the core; nothing here names a metric.
const native = require('./native');
require('./errors'); // the addon's errors are the generated classes
const { Gate } = require('./gate');
const { Queue } = require('./queue');
const { Sender } = require('./sender');

const CONTENT_TYPE = native.respite_metrics_content_type();

const ADD = [[Gate, native.respite_metrics_add_gate], [Queue, native.respite_metrics_add_queue],
  [Sender, native.respite_metrics_add_sender]];

// A snapshot of the handles, passed to use(); freed after.
function withSnapshot(handles, prefix, use) {
  const metrics = native.respite_metrics_new(prefix ?? null);
  try {
    for (const handle of handles) {
      const add = ADD.find(([cls]) => handle instanceof cls);
      if (!add) {
        throw new TypeError(`metrics are read from a Gate, Queue or Sender (got ${handle?.constructor?.name ?? handle})`);
      }
      add[1](metrics, handle._handle);
    }
    return use(metrics);
  } finally {
    native.respite_metrics_free(metrics);
  }
}

// The samples of the handles now, family by family: {family, name, type, unit, help, labels, value}.
function samples(handles, { prefix } = {}) {
  return withSnapshot(handles, prefix, (metrics) => {
    const raw = new native.respite_metric_sample();
    const out = [];
    const count = native.respite_metrics_sample_count(metrics);
    for (let i = 0; i < count; i++) {
      native.respite_metrics_sample(metrics, i, raw);
      const labels = { [raw.handle_label]: raw.handle };
      if (raw.label) labels[raw.label] = raw.label_value;
      out.push({ family: raw.family, name: raw.name, type: raw.type, unit: raw.unit, help: raw.help, labels,
        value: raw.value });
    }
    return out;
  });
}

// The handles now as OpenMetrics text, ending "# EOF\n".
function render(handles, { prefix } = {}) {
  return withSnapshot(handles, prefix, (metrics) => native.respite_metrics_render(metrics));
}

// Registers one prom-client metric per family of the handles on `registry`
// (a prom-client Registry); returns them. One snapshot serves every family
// of a scrape (taken by the first family read, dropped after that turn).
// prom-client has no stateset: a state is a gauge sample. A counter is
// named with "_total", which prom-client's OpenMetrics output expects.
function register(registry, handles, { prefix } = {}) {
  let snapshot = null;
  const current = () => {
    if (snapshot === null) {
      snapshot = samples(handles, { prefix });
      queueMicrotask(() => { snapshot = null; });
    }
    return snapshot;
  };
  const families = new Map();
  for (const sample of samples(handles, { prefix })) {
    if (families.has(sample.family)) continue;
    const counter = sample.type === 'counter';
    const family = sample.family;
    const metric = {
      name: counter ? sample.name : family,
      help: sample.help,
      type: counter ? 'counter' : 'gauge',
      aggregator: 'sum',
      get() {
        const values = current().filter((s) => s.family === family).map((s) => ({ labels: s.labels, value: s.value }));
        return { name: this.name, help: this.help, type: this.type, values, aggregator: this.aggregator };
      },
    };
    families.set(family, metric);
  }
  for (const metric of families.values()) registry.registerMetric(metric);
  return [...families.values()];
}

module.exports = { CONTENT_TYPE, samples, render, register };
