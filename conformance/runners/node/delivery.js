'use strict';
// Runner components for policies and delivery, through the public
// Node API. Loaded by runner.js.
const respite = require('../../../bindings/node');

class RunnerError extends Error {}

// Settings from a scenario object: {"number": "NaN"} is that double.
function settingValues(values) {
  return Object.fromEntries(Object.entries(values || {}).map(([name, value]) => [name, value !== null && typeof value === 'object' ? Number(value.number) : value]));
}

function describe(state, make) {
  let policy;
  try {
    policy = make();
  } catch (error) {
    if (error instanceof respite.InvalidPolicyError) return { valid: false, message: error.message, problems: error.problems };
    throw error;
  }
  if (state.policy) state.policy.close();
  state.policy = policy;
  return {
    valid: true,
    policy: policy.toJSON(),
    fields: {
      name: policy.name,
      maximum_capacity: policy.maximumCapacity,
      retry_times: policy.retryTimes,
      event_ttl: policy.eventTtl,
      prefetch_count: policy.prefetchCount,
    },
  };
}

const policyComponent = {
  open() {
    return { policy: null };
  },
  step(state, action, arg) {
    switch (action) {
      case 'validate': {
        let text;
        if (arg && typeof arg.text === 'string') text = arg.text + (arg.pad > 0 ? ' '.repeat(arg.pad) : '');
        else if (arg && 'document' in arg) text = JSON.stringify(arg.document, null, 2);
        else if (arg && typeof arg.hex === 'string') text = Buffer.from(arg.hex, 'hex'); // bytes, as a Buffer
        else throw new RunnerError('validate takes {"document": value}, {"text": string} or {"hex": string}');
        return describe(state, () => respite.Policy.fromJSON(text));
      }
      case 'build':
        return describe(state, () => respite.Policy.build(arg));
      case 'default':
        return describe(state, () => respite.Policy.default());
      case 'strategy': {
        if (!state.policy) throw new RunnerError('strategy needs a valid policy first');
        return { strategy: state.policy.strategyFor(arg && arg.transport === true ? { transport: true } : (arg && arg.status) || 0) };
      }
      default:
        throw new RunnerError(`the policy component has no action '${action}'`);
    }
  },
  close(state) {
    if (state.policy) state.policy.close();
  },
};

// ------------------------------------------------------------ delivery

const RUN_SENDS_MAX = 100000;

function policyOf(spec) {
  if (spec === '@default') return respite.Policy.default();
  return respite.Policy.fromJSON(JSON.stringify(spec));
}

// The scenario's answer (a status, {"status", "retry_after"?} or
// {"transport": true}) in the API's form.
function answerArg(answer) {
  if (Number.isInteger(answer)) return answer;
  const retryAfter = answer.retry_after ?? 0;
  return answer.transport ? { transport: true, retryAfter } : { status: answer.status, retryAfter };
}

function take(state, now) {
  if (state.batch) throw new RunnerError('the batch taken before has not been settled');
  const batch = state.engine.take(now);
  state.batch = batch;
  if (!batch) return { events: [], attempts: [] };
  const attempts = [];
  for (let i = 0; i < batch.length; i++) attempts.push(batch.attempts(i));
  return { events: batch.texts(), attempts };
}

// The next answer of the batch's first event scripted by_event that has one
// left, else the sequence's next, else "otherwise".
function scriptedAnswer(endpoint, events) {
  const scripted = events.find((event) => (endpoint.by_event[event] || []).length);
  if (scripted !== undefined) return endpoint.by_event[scripted].shift();
  return endpoint.sequence.length ? endpoint.sequence.shift() : endpoint.otherwise;
}

function settle(state, answer, now) {
  if (!state.batch) throw new RunnerError('settle needs a batch taken before');
  if (answer === null || answer === undefined) answer = scriptedAnswer(state.endpoint, state.batch.texts());
  if (answer === null) throw new RunnerError('the endpoint has no more answers');
  const given = answerArg(answer);
  const batch = state.batch;
  state.batch = null; // settled or not, as the C runner does
  state.engine.settle(batch, given, { now });
  return { answer };
}

function send(state, now) {
  const observed = take(state, now);
  if (!state.batch) return observed;
  return { ...observed, answer: settle(state, null, now).answer };
}

function nextAction(state, now) {
  const action = state.engine.next(now);
  const observed = { action };
  if (action === 'wait') observed.wait_seconds = state.engine.waitSeconds;
  return observed;
}

function deliveryStats(state) {
  const q = state.queue.stats();
  const e = state.engine.stats();
  return {
    queue: {
      accepted: q.accepted,
      delivered: q.delivered,
      dropped_capacity: q.droppedCapacity,
      expired: q.expired,
      retries_exhausted: q.retriesExhausted,
      discarded: q.discarded,
      pending: q.pending,
      in_flight: q.inFlight,
      refused_full: q.refusedFull,
      refused_too_large: q.refusedTooLarge,
      refused_closed: q.refusedClosed,
      retried: q.retried,
      pending_bytes: q.pendingBytes,
      capacity: q.capacity,
      closed: q.closed,
    },
    engine: {
      sends: e.sends,
      probes: e.probes,
      sends_failed: e.sendsFailed,
      refusals: e.refusals,
      events_sent: e.eventsSent,
      unsent: e.unsent === null ? -1 : e.unsent,
      closing: e.closing,
      closed_while_paused: e.closedWhilePaused,
    },
    balanced: q.balanced,
  };
}

function deliveryClose(state) {
  // The engine first (it returns a batch left unsettled), then what it used.
  for (const owned of [state.engine, state.gate, state.queue, state.policy]) if (owned) owned.close();
}

const deliveryComponent = {
  open(scenario, eventJson) {
    const state = { policy: null, queue: null, gate: null, engine: null, batch: null, gateEvents: [], engineEvents: [] };
    try {
      state.policy = policyOf(scenario.policy);
      state.queue = new respite.Queue({ ...settingValues(scenario.queue), policy: state.policy });
      const gateOptions = settingValues(scenario.gate);
      if (scenario.profile !== undefined) gateOptions.profile = scenario.profile;
      state.gate = new respite.Gate(gateOptions);
      state.engine = new respite.DeliveryEngine({ ...settingValues(scenario.engine), queue: state.queue, gate: state.gate });
    } catch (error) {
      deliveryClose(state);
      throw error;
    }
    state.endpoint = scenario.endpoint; // used up as it answers
    state.gate.on('event', (event) => state.gateEvents.push(eventJson(event)));
    state.engine.on('event', (event) => state.engineEvents.push(eventJson(event)));
    return state;
  },
  step(state, action, arg, now) {
    switch (action) {
      case 'enqueue': {
        let accepted = 0;
        const refused = {};
        for (const event of arg) {
          try {
            state.queue.enqueue(event, now);
            accepted++;
          } catch (error) {
            if (!(error instanceof respite.RespiteError)) throw error;
            refused[error.code] = (refused[error.code] || 0) + 1;
          }
        }
        return Object.keys(refused).length ? { accepted, refused } : { accepted };
      }
      case 'next':
        return nextAction(state, now);
      case 'take':
        return take(state, now);
      case 'settle':
        return settle(state, arg, now);
      case 'send':
        return send(state, now);
      case 'run': {
        const sends = [];
        for (let i = 0; i < RUN_SENDS_MAX; i++) {
          const observed = nextAction(state, now);
          if (observed.action !== 'send') return { ...observed, sends };
          sends.push(send(state, now).events);
        }
        throw new RunnerError(`run: still sending after ${RUN_SENDS_MAX} batches`);
      }
      case 'close':
        state.engine.shutdown(now);
        return {};
      case 'expire':
        return { expired: state.queue.expire(now) };
      case 'state':
        return { state: state.gate.state(now) };
      case 'stats':
        return deliveryStats(state);
      case 'events': {
        const observed = { gate: state.gateEvents, engine: state.engineEvents };
        state.gateEvents = [];
        state.engineEvents = [];
        return observed;
      }
      default:
        throw new RunnerError(`the delivery component has no action '${action}'`);
    }
  },
  close: deliveryClose,
};

module.exports = { policy: policyComponent, delivery: deliveryComponent, RunnerError, settingValues };
