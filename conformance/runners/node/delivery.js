'use strict';
// Runner components for policies (and, later, delivery), through the public
// Node API. Loaded by runner.js.
const respite = require('../../../bindings/node');

class RunnerError extends Error {}

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
        else throw new RunnerError('validate takes {"document": value} or {"text": string}');
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

module.exports = { policy: policyComponent, RunnerError };
