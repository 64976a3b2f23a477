'use strict';
// The error hierarchy, one class per status of the core: status
// `invalid_setting` becomes InvalidSettingError with code 'invalid_setting'.
// The addon's one exception typemap (swig/node.i) calls errorFromFields with
// respite_error's fields; messages are the core's, never parsed or re-worded.
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
  constructor(message, { setting = '' } = {}) {
    super(message, 'invalid_setting');
    // The setting's name as the spec writes it (respite_error.setting).
    this.setting = setting;
  }
}

class TemporarilyUnavailableError extends RespiteError {
  constructor(message, { retryAfter = NaN } = {}) {
    super(message, 'temporarily_unavailable');
    // Seconds until a call may be admitted; Infinity under recover_never.
    this.retryAfter = retryAfter;
  }
}

class InvalidPolicyError extends RespiteError {
  constructor(message, { problems = [] } = {}) {
    super(message, 'invalid_policy');
    // [{pointer, message, line, column}], every problem the core found.
    this.problems = problems;
  }
}

const special = { InvalidSettingError, TemporarilyUnavailableError, InvalidPolicyError };

function className(statusName) {
  return statusName.replace(/(^|_)([a-z])/g, (_, __, letter) => letter.toUpperCase()) + 'Error';
}

const byCode = []; // status code -> class
const classes = { RespiteError };
for (let status = 1; status < native.respite_status_count(); status++) {
  const code = native.respite_status_name(status);
  const name = className(code);
  // A computed property name gives the class its name for stack traces.
  byCode[status] = special[name] || { [name]: class extends RespiteError { constructor(message) { super(message, code); } } }[name];
  classes[name] = byCode[status];
}
for (const name of Object.keys(special)) {
  if (!classes[name]) throw new Error(`respite: status table has no status for ${name}`);
}

// The error for a respite_error's fields; each class keeps those it carries.
function errorFromFields(status, message, setting = '', retryAfter = NaN, problems = []) {
  const cls = byCode[status];
  return cls ? new cls(message, { setting, retryAfter, problems }) : new RespiteError(message);
}
native.respite_node_set_error_maker(errorFromFields);

module.exports = { ...classes, errorFromFields };
