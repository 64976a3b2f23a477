'use strict';
// Delivery policies (spec section 4): Astarte's trigger delivery policy,
// validated by the core, which reports every problem.
// An invalid one raises InvalidPolicyError carrying every problem (swig/node.i).
const native = require('./native');
const { own, Owned } = require('./handle');

class Policy extends Owned {
  constructor(handle) {
    super();
    if (!handle) throw new TypeError('use Policy.fromJSON, Policy.build or Policy.default');
    own(this, handle, native.respite_policy_free);
  }

  // A policy from JSON text: a string, its bytes (a Buffer or another typed
  // array, DataView) as given, or a plain object (serialised first).
  static fromJSON(document) {
    const bytes = typeof document === 'string' || ArrayBuffer.isView(document);
    const text = bytes ? document : JSON.stringify(document, null, 2);
    return new Policy(native.respite_policy_from_json_n(text));
  }

  // The built-in @default policy (D8).
  static default() {
    return new Policy(native.respite_policy_default());
  }

  // A policy without JSON: {name, maximumCapacity, handlers: [{on, strategy}],
  // retryTimes?, eventTtl?, prefetchCount?}; `on` is 'client_error',
  // 'server_error', 'any_error' or a list of codes.
  static build(spec) {
    let builder = null;
    try {
      builder = native.respite_policy_builder_new(spec.name ?? null, spec.maximumCapacity ?? spec.maximum_capacity ?? 0);
      for (const handler of spec.handlers || []) {
        const on = Array.isArray(handler.on) ? handler.on.join(',') : String(handler.on);
        native.respite_policy_builder_add_handler(builder, on, String(handler.strategy));
      }
      const retryTimes = spec.retryTimes ?? spec.retry_times;
      const eventTtl = spec.eventTtl ?? spec.event_ttl;
      const prefetchCount = spec.prefetchCount ?? spec.prefetch_count;
      if (retryTimes !== undefined) native.respite_policy_builder_set_retry_times(builder, retryTimes);
      if (eventTtl !== undefined) native.respite_policy_builder_set_event_ttl(builder, eventTtl);
      if (prefetchCount !== undefined) native.respite_policy_builder_set_prefetch_count(builder, prefetchCount);
      return new Policy(native.respite_policy_builder_build(builder));
    } finally {
      if (builder) native.respite_policy_builder_free(builder);
    }
  }

  _live() {
    if (this._handle === null) {
      native.respite_closed(native.RESPITE_HANDLE_POLICY); // the core's ClosedError
    }
    return this._handle;
  }

  get name() {
    return native.respite_policy_name(this._live());
  }

  get maximumCapacity() {
    return native.respite_policy_maximum_capacity(this._live());
  }

  get retryTimes() {
    return native.respite_policy_retry_times(this._live());
  }

  get eventTtl() {
    return native.respite_policy_event_ttl(this._live());
  }

  get prefetchCount() {
    return native.respite_policy_prefetch_count(this._live());
  }

  get handlers() {
    const handle = this._live();
    const handlers = [];
    for (let i = 0; i < native.respite_policy_handler_count(handle); i++) {
      handlers.push({
        on: native.respite_policy_handler_on(handle, i),
        strategy: native.respite_strategy_name(native.respite_policy_handler_strategy(handle, i)),
      });
    }
    return handlers;
  }

  // 'discard' or 'retry' for a failed attempt: an HTTP status, or
  // {transport: true} (matched as 503, D2).
  strategyFor(failure) {
    const transport = typeof failure === 'object' && failure !== null && failure.transport === true;
    const status = typeof failure === 'number' ? failure : (failure && failure.status) || 0;
    return native.respite_strategy_name(native.respite_policy_strategy_for(this._handle, transport ? 1 : 0, status));
  }

  // The canonical document, as an object.
  toJSON() {
    return JSON.parse(native.respite_policy_to_json(this._handle));
  }
}

module.exports = { Policy };
