'use strict';
// The error hierarchy, generated from the core's status table: status
// `invalid_setting` becomes InvalidSettingError with code 'invalid_setting'.
// Messages are the core's, never re-worded here.
const native = require('./native');

class RespiteError extends Error {
  constructor(message, code = 'internal') {
    super(message);
    this.code = code;
  }

  get name() {
    return this.constructor.name;
  }
}

class InvalidSettingError extends RespiteError {
  constructor(message, code = 'invalid_setting') {
    super(message, code);
    // The core guarantees the message starts with the setting's name.
    this.setting = message.split(/[\s:,]/, 1)[0];
  }
}

class TemporarilyUnavailableError extends RespiteError {
  constructor(message, code = 'temporarily_unavailable', retryAfter = undefined) {
    super(message, code);
    // Seconds until a call may be admitted; Infinity under recover_never.
    this.retryAfter = retryAfter;
  }
}

class InvalidPolicyError extends RespiteError {
  constructor(message, code = 'invalid_policy', problems = []) {
    super(message, code);
    // [{pointer, message, line, column}], every problem the core found.
    this.problems = problems;
  }
}

const special = { InvalidSettingError, TemporarilyUnavailableError, InvalidPolicyError };

function className(statusName) {
  return statusName.replace(/(^|_)([a-z])/g, (_, __, letter) => letter.toUpperCase()) + 'Error';
}

const byCode = new Map(); // status name -> class
const classes = { RespiteError };
for (let status = 1; status < native.respite_status_count(); status++) {
  const code = native.respite_status_name(status);
  const name = className(code);
  // A computed property name gives the class its name for stack traces.
  const cls = special[name] || { [name]: class extends RespiteError {} }[name];
  const base = cls;
  byCode.set(code, base);
  classes[name] = base;
}
for (const name of Object.keys(special)) {
  if (!classes[name]) throw new Error(`respite: status table has no status for ${name}`);
}

const RAW_MESSAGE = /^([a-z_]+): ([\s\S]*)$/;

// Turns the raw module's "<status_name>: <message>" error into its class.
// Anything else (a TypeError from argument conversion, ...) is returned as is.
function translate(error) {
  if (error instanceof RespiteError || !(error instanceof Error)) return error;
  const match = RAW_MESSAGE.exec(error.message);
  if (!match) return error;
  const cls = byCode.get(match[1]);
  if (!cls) return error;
  return new cls(match[2], match[1]);
}

// The refusal of a gate: the core's message and the retry_after figure.
function refusal(retryAfter) {
  return new TemporarilyUnavailableError(native.respite_refusal_message(retryAfter), 'temporarily_unavailable', retryAfter);
}

// "<handle> is closed", as the core words it (it answers a NULL handle).
function closedError(call) {
  try {
    call();
  } catch (error) {
    return translate(error);
  }
  return new classes.ClosedError('handle is closed', 'closed');
}

module.exports = { ...classes, translate, refusal, closedError, byCode };
