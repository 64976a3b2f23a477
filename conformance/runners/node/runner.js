'use strict';
// The Node conformance runner: reads normalised scenarios on stdin (one JSON
// line each, written by conformance/run), drives the public Node API
// (bindings/node, not the raw module) through each and prints one JSON line
// per scenario, {"id", "steps": [...]} or {"id", "error": {...}}, as
// conformance/README.md and the C runner define.
const readline = require('node:readline');
const respite = require('../../../bindings/node');

const { RunnerError, settingValues } = require('./delivery');

function observeError(error) {
  if (error instanceof RunnerError) return { error: { status: 'runner', message: error.message } };
  // Not an error of the core: shown as a runner error (and a failure).
  if (!(error instanceof respite.RespiteError)) return { error: { status: 'runner', message: String(error && error.message) } };
  const detail = { status: error.code, message: error.message };
  if (error instanceof respite.InvalidSettingError) detail.setting = error.setting;
  if (error instanceof respite.TemporarilyUnavailableError) detail.retry_after = error.retryAfter;
  return { error: detail };
}

// An outcome argument (the driver made it an object: {"outcome", "status"?},
// {"status", "usable"} or {"transport": true}) in the API's form.
function outcomeArg(arg) {
  if (arg.outcome !== undefined) {
    // A number on its own is an HTTP status to Node; the core's number goes as {outcome: n}.
    if (Number.isInteger(arg.status)) return { outcome: arg.outcome, status: arg.status };
    return typeof arg.outcome === 'number' ? { outcome: arg.outcome } : arg.outcome;
  }
  if (arg.transport === true) return { transport: true };
  return { status: arg.status, bodyUsable: arg.usable !== false };
}

// ------------------------------------------------------------ settings

const settingsComponent = {
  open(scenario) {
    if (typeof scenario.target !== 'string') throw new RunnerError('a settings scenario needs a "target"');
    return { target: scenario.target };
  },
  step(state, action, arg) {
    if (action === 'set') {
      if (!arg || typeof arg !== 'object') throw new RunnerError('set takes an object of settings');
      new respite.Settings(state.target, settingValues(arg)).close();
      return {};
    }
    if (action === 'get') {
      if (typeof arg !== 'string') throw new RunnerError("get takes a setting's name");
      const settings = new respite.Settings(state.target);
      try {
        return { value: settings.get(arg) };
      } finally {
        settings.close();
      }
    }
    throw new RunnerError(`the settings component has no action '${action}'`);
  },
  close() {},
};

// ------------------------------------------------------------- outcome

const outcomeComponent = {
  open() {
    return {};
  },
  step(state, action, arg) {
    if (action === 'classify') {
      return { outcome: respite.classify(arg.status, { transport: arg.transport, bodyUsable: arg.usable }) };
    }
    if (action === 'counts') {
      const name = respite.outcome(String(arg && arg.outcome));
      return { counts: respite.outcomeCounts(name, { countAllFailures: arg.count_all_failures === true }) };
    }
    if (action === 'parse') return { outcome: respite.outcome(String(arg)) };
    throw new RunnerError(`the outcome component has no action '${action}'`);
  },
  close() {},
};

// ---------------------------------------------------------------- gate

function eventJson(event) {
  const out = { type: event.type, at: event.at, line: event.message };
  if (event.type === 'recovery_started') Object.assign(out, { failures: event.failures, window: event.window, pause: event.pause });
  if (event.type === 'recovery_extended') out.pause = event.pause;
  if (event.type === 'send_failed') Object.assign(out, { http_status: event.httpStatus, detail: event.detail });
  if (event.type === 'unsent_at_close') out.count = event.count;
  return out;
}

const STATS_KEYS = {
  admitted: 'admitted', refused: 'refused', reported: 'reported', counted_failures: 'countedFailures', late: 'late',
  trips: 'trips', probes: 'probes', probe_timeouts: 'probeTimeouts', events_dropped: 'eventsDropped',
  generation: 'generation', window_failures: 'windowFailures', state: 'state', delay: 'delay', until: 'until',
  successes: 'successes', pauses: 'pauses',
};

// One gate, or `handles` gates from the same settings (a shared gate opened
// twice), each with the events it emitted; a step's "handle" picks one.
const gateComponent = {
  open(scenario) {
    const options = settingValues(scenario.settings);
    if (scenario.profile !== undefined) options.profile = scenario.profile;
    const state = { handles: [], permits: new Map() };
    try {
      for (let i = 0; i < (scenario.handles ?? 1); i++) {
        const handle = { gate: new respite.Gate(options), events: [] };
        // The binding emits every event as it happens; they wait here for "events".
        handle.gate.on('event', (event) => handle.events.push(eventJson(event)));
        state.handles.push(handle);
      }
    } catch (error) {
      gateComponent.close(state);
      throw error;
    }
    gateComponent.useHandle(state, 0);
    return state;
  },
  useHandle(state, index) {
    if (!(index >= 0 && index < state.handles.length)) throw new RunnerError(`there is no gate handle ${index}`);
    state.handle = state.handles[index];
  },
  step(state, action, arg, now) {
    const { gate } = state.handle;
    switch (action) {
      case 'check': {
        const decision = gate.check(now);
        const as = arg && typeof arg === 'object' && typeof arg.as === 'string' ? arg.as : null;
        if (as && decision.allowed) state.permits.set(as, decision.permit);
        const observed = { allowed: decision.allowed, probe: decision.probe, retry_after: decision.retryAfter };
        if (!decision.allowed) observed.message = respite.refusalMessage(decision.retryAfter);
        return observed;
      }
      case 'record': {
        const outcome = outcomeArg(arg);
        const name = arg && typeof arg === 'object' ? arg.permit : undefined;
        let permit = Number.isInteger(name) ? name : 0; // a number: forged
        if (typeof name === 'string') {
          if (!state.permits.has(name)) throw new RunnerError(`no admitted check was named '${name}'`);
          permit = state.permits.get(name);
        }
        gate.report(permit, outcome, { retryAfter: arg.retry_after, now });
        return { outcome: respite.outcome(outcome) };
      }
      case 'acquire':
        gate.acquire(now);
        return {};
      case 'state':
        return { state: gate.state(now) };
      case 'retry_after':
        return { retry_after: gate.retryAfter(now) };
      case 'stats': {
        const stats = gate.stats();
        return { stats: Object.fromEntries(Object.entries(STATS_KEYS).map(([key, field]) => [key, stats[field]])) };
      }
      case 'events': {
        // Events another handle's calls made wait until this handle's next
        // call; pollEvents takes them now (no call of its own).
        gate.pollEvents();
        const { events } = state.handle;
        state.handle.events = [];
        return { events };
      }
      case 'reset':
        gate.reset(now);
        return {};
      case 'close':
        gate.close(); // later actions get "gate is closed"
        return {};
      case 'refusal_message':
        return { message: respite.refusalMessage(arg) };
      default:
        throw new RunnerError(`the gate component has no action '${action}'`);
    }
  },
  close(state) {
    for (const { gate } of state.handles) gate.close();
  },
};

// ------------------------------------------------------------- backoff

// One scripted answer (a status, {"status", "retry_after"?} or
// {"transport": true}; past the end a success) as user code: a value or a
// thrown error that carries the status, as callers of retry() write it.
function scriptedAnswer(answer) {
  if (answer === undefined) return { status: 200 };
  // B18: a plain error of the caller's code (no status, code or outcome)
  if (answer.callers_own) throw new CallersOwnError('scripted: the caller\'s own error');
  // B18: a returned response whose status the default classifier reads
  if (answer.returned !== undefined) return { status: answer.returned };
  const object = typeof answer === 'number' ? { status: answer } : answer;
  const outcome = respite.outcome(outcomeArg(object));
  if (outcome === 'success') return object;
  const error = new Error(`scripted ${outcome}`);
  if (Number.isInteger(object.status)) error.status = object.status;
  if (typeof object.retry_after === 'number') error.retryAfter = object.retry_after;
  // An error with neither is the caller's own, which counts for nothing.
  if (!Number.isInteger(object.status)) error.outcome = outcome;
  throw error;
}

class CallersOwnError extends Error {}

// The outcome name of a scripted answer (the caller's own: what the gate is told).
function answerOutcome(answer) {
  if (answer === undefined) return 'success';
  if (answer.callers_own) return 'request_error';
  if (answer.returned !== undefined) return respite.outcome({ status: answer.returned });
  return respite.outcome(outcomeArg(typeof answer === 'number' ? { status: answer } : answer));
}

// {attempts, gave_up, last_outcome?, result, failure?: {status, message?,
// result?} or {callers_own: true}}, as the C runner observes respite_retry_run;
// result: the status of the value retry() resolved with, or its give-up
// carries (B20), null for none.
async function retryStep(state, arg) {
  const answers = (arg && arg.attempts) || [];
  let attempts = 0;
  let last = null;
  const before = respite.testing.immediateRetries(Boolean(arg && arg.immediate));
  const observed = (gaveUp, value) => {
    const out = { attempts, gave_up: gaveUp };
    if (last !== null) out.last_outcome = last;
    out.result = value === undefined ? null : value.status;
    return out;
  };
  try {
    const value = await respite.retry(
      () => {
        attempts++;
        const answer = answers[attempts - 1];
        last = answerOutcome(answer);
        return scriptedAnswer(answer);
      },
      state.backoff,
      { gate: state.gate || undefined },
    );
    return observed(false, value);
  } catch (error) {
    if (error instanceof CallersOwnError) return { ...observed(false), failure: { callers_own: true } }; // re-raised unchanged
    if (!(error instanceof respite.RespiteError)) throw error;
    // retry() gives up with the core's TransportError, which says how many
    // attempts it made (respite_retry_gave_up's message).
    const gaveUp = error instanceof respite.TransportError && error.attempts !== undefined;
    const out = observed(gaveUp);
    out.failure = { status: error.code };
    // A refusal's retry_after and message depend on the real clock.
    if (!(error instanceof respite.TemporarilyUnavailableError)) out.failure.message = error.message;
    if (error instanceof respite.TransportError) out.failure.result = error.result === undefined ? null : error.result.status;
    return out;
  } finally {
    respite.testing.immediateRetries(before);
  }
}

const backoffComponent = {
  open(scenario) {
    const backoff = new respite.Backoff(settingValues(scenario.settings));
    return { backoff, gate: scenario.gate ? new respite.Gate(settingValues(scenario.gate)) : null };
  },
  step(state, action, arg) {
    const { backoff } = state;
    switch (action) {
      case 'start':
        return { sequence: backoff.start() };
      case 'delay':
        return { delay: backoff.delay(arg.sequence, arg.retry, arg.retry_after) };
      case 'delays': {
        const delays = [];
        for (let retry = 1; retry <= arg.count; retry++) delays.push(backoff.delay(arg.sequence, retry, arg.retry_after));
        return { delays };
      }
      case 'next': {
        const delay = backoff.next(arg.sequence, arg.attempt, outcomeArg(arg), arg.retry_after);
        return delay === null ? { retry: false } : { retry: true, delay };
      }
      case 'schedule': {
        const delays = [];
        for (let attempt = 1; attempt <= 1000; attempt++) {
          const delay = backoff.next(arg.sequence, attempt, outcomeArg(arg), arg.retry_after);
          if (delay === null) break;
          delays.push(delay);
        }
        return { delays };
      }
      case 'retries_on':
        return { retries: backoff.retriesOn(outcomeArg(arg)) };
      case 'max_attempts':
        return { max_attempts: backoff.maxAttempts };
      case 'close':
        backoff.close(); // later actions get "backoff is closed"
        return {};
      case 'retry':
        return retryStep(state, arg);
      case 'gave_up':
        // The error a retry loop ends with (B14): observed as an error.
        throw backoff.gaveUp(arg.attempts, outcomeArg(arg));
      default:
        throw new RunnerError(`the backoff component has no action '${action}'`);
    }
  },
  close(state) {
    state.backoff.close();
    if (state.gate) state.gate.close();
  },
};

const components = {
  settings: settingsComponent,
  outcome: outcomeComponent,
  gate: gateComponent,
  backoff: backoffComponent,
};
components.policy = require('./delivery').policy;
const { delivery } = require('./delivery');
components.delivery = { ...delivery, open: (scenario) => delivery.open(scenario, eventJson) };

// ---------------------------------------------------------------- main

async function runStep(component, state, step) {
  const action = Object.keys(step).find((key) => key !== 'at' && key !== 'repeat' && key !== 'handle');
  let observed = null;
  if (step.handle !== undefined) {
    try {
      if (!component.useHandle) throw new RunnerError('this component has one handle');
      component.useHandle(state, step.handle);
    } catch (error) {
      return observeError(error);
    }
  }
  for (let i = 0; i < step.repeat; i++) {
    try {
      observed = await component.step(state, action, step[action], Number(step.at));
    } catch (error) {
      observed = observeError(error); // never dies: the step observes what went wrong
    }
    if (observed && observed.error) break; // a repeated action stops at its first error
  }
  return observed;
}

async function runScenario(scenario) {
  const result = { id: scenario.id };
  const component = components[scenario.component];
  let state;
  try {
    if (!component) throw new RunnerError(`unknown component '${scenario.component}'`);
    state = await component.open(scenario);
  } catch (error) {
    result.error = observeError(error).error;
    return result;
  }
  result.steps = [];
  for (const step of scenario.steps) result.steps.push(await runStep(component, state, step));
  try {
    component.close(state);
  } catch {
    // closing twice (a scenario closed a handle) is not an observation
  }
  return result;
}

async function main() {
  for await (const line of readline.createInterface({ input: process.stdin })) {
    process.stdout.write(JSON.stringify(await runScenario(JSON.parse(line))) + '\n');
  }
}

main();
