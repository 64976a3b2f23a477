'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const respite = require('..');
const { raises } = require('./helpers');

const { native } = respite;

test('one error class per status of the core, named from the status table', () => {
  assert.ok(native.respite_status_count() >= 12);
  for (let status = 1; status < native.respite_status_count(); status++) {
    const code = native.respite_status_name(status);
    const name = code.replace(/(^|_)([a-z])/g, (_, __, c) => c.toUpperCase()) + 'Error';
    const cls = respite[name];
    assert.equal(typeof cls, 'function', `${name} is exported`);
    const error = new cls('some message', code);
    assert.ok(error instanceof respite.RespiteError);
    assert.ok(error instanceof Error);
    assert.equal(error.name, name);
    assert.equal(error.code, code);
  }
  assert.equal(respite.STATUS_NAMES[0], 'ok');
});

test('invalid settings: InvalidSettingError naming the setting, with the core message', () => {
  const error = raises(() => new respite.Gate({ failuresToEnterRecovery: 0 }), respite.InvalidSettingError);
  assert.equal(error.setting, 'failures_to_enter_recovery');
  assert.equal(error.code, 'invalid_setting');
  assert.equal(error.message, 'failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)');
  // The raw module raises the same error, made from respite_error's fields.
  const raw = native.respite_settings_new('gate');
  try {
    const same = raises(() => native.respite_settings_set_number(raw, 'failures_to_enter_recovery', 0), respite.InvalidSettingError);
    assert.deepEqual([same.message, same.setting, same.code], [error.message, error.setting, error.code]);
  } finally {
    native.respite_settings_free(raw);
  }
});

test('unknown settings and profiles are rejected, not ignored', () => {
  const unknown = raises(() => new respite.Gate({ failuresToEnterRecoveryy: 3 }), respite.InvalidSettingError);
  assert.equal(unknown.setting, 'failures_to_enter_recoveryy');
  assert.match(unknown.message, /^failures_to_enter_recoveryy is not a gate setting/);
  // The setting is the core's field, not read out of the message (issue 13).
  const colon = raises(() => new respite.Gate({ 'probes:x': 1 }), respite.InvalidSettingError);
  assert.equal(colon.setting, 'probes:x');
  const profile = raises(() => new respite.Gate({ profile: 'fast' }), respite.InvalidSettingError);
  assert.match(profile.message, /cloud_request, usage_sharing \(got 'fast'\)/);
  assert.throws(() => new respite.Gate({ profile: 'backoff' }), respite.InvalidSettingError);
});

test('values of the wrong type go to the core, which words the error', () => {
  const text = raises(() => new respite.Gate({ recoverySeconds: 'soon' }), respite.InvalidSettingError);
  assert.equal(text.message, "recovery_seconds must be a number at most 86400 (0 or less disables the gate), in plain decimal notation such as 12 or 0.5 (got 'soon')");
  assert.throws(() => new respite.Gate({ recoverySeconds: NaN }), respite.InvalidSettingError);
  assert.throws(() => new respite.Gate({ probes: 1.5 }), { setting: 'probes' });
  assert.throws(() => new respite.Gate(42), TypeError);
});

test('rules between settings are checked', () => {
  const error = raises(
    () => new respite.Gate({ recoveryMultiplier: 2, recoverySeconds: 60, maxRecoverySeconds: 10 }),
    respite.InvalidSettingError,
  );
  assert.equal(error.setting, 'max_recovery_seconds');
});

test('bad times and arguments: InvalidTimeError, InvalidArgumentError, TypeError', () => {
  const gate = new respite.Gate();
  try {
    const time = raises(() => gate.check(-1), respite.InvalidTimeError);
    assert.equal(time.message, 'now must be a finite number of seconds, 0 or more (got -1)');
    assert.throws(() => gate.report(12345, 'success', { now: 1 }), respite.InvalidArgumentError);
    const outcome = raises(() => gate.record('bogus', { now: 1 }), respite.InvalidArgumentError);
    assert.match(outcome.message, /^outcome must be one of success, request_error/);
    assert.throws(() => gate.check('later'), TypeError);
    // The hand-written entry points refuse a non-number as SWIG's do.
    assert.throws(() => gate.acquire('later'), { name: 'TypeError', message: 'now must be a number of seconds' });
    assert.throws(() => gate.record('success', { now: 'later' }), TypeError);
    assert.throws(() => gate.acquire(-1), respite.InvalidTimeError);
    assert.equal(gate.stats().reported, 0);
  } finally {
    gate.close();
  }
});

test('a refusal is TemporarilyUnavailableError with retryAfter and the core message', () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverySeconds: 60 });
  try {
    gate.record('transport', { now: 10 });
    const error = raises(() => gate.acquire(12.5), respite.TemporarilyUnavailableError);
    assert.equal(error.retryAfter, 57.5);
    assert.equal(error.code, 'temporarily_unavailable');
    assert.equal(
      error.message,
      'sending requests to the service is temporarily restricted due to recent failures; recovery resumes in 57.5s',
    );
    assert.equal(error.message, native.respite_refusal_message(57.5));
  } finally {
    gate.close();
  }
});

test('recover_never: retryAfter is Infinity and the message says a reset is needed', () => {
  const gate = new respite.Gate({ failuresToEnterRecovery: 1, recoverNever: true });
  try {
    gate.record('server_error', { now: 1 });
    const error = raises(() => gate.acquire(1000), respite.TemporarilyUnavailableError);
    assert.equal(error.retryAfter, Infinity);
    assert.match(error.message, /recovery resumes only after a reset$/);
  } finally {
    gate.close();
  }
});

test('a setting reads as its type; an unknown name is the core\'s error', () => {
  const gate = new respite.Settings('gate', { probes: 3, honourRetryAfter: false, name: 'billing' });
  const values = ['probes', 'failuresWindowSeconds', 'honourRetryAfter', 'name'].map((name) => gate.get(name));
  assert.deepEqual(values, [3, 100, false, 'billing']);
  assert.equal(new respite.Settings('backoff').get('jitter'), 'none');
  assert.throws(() => gate.get('colour'), { name: 'InvalidSettingError', setting: 'colour' });
  gate.close();
});
