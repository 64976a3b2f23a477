'use strict';
// The error hierarchy, generated from the core's status table
// (generated/errors.js: InvalidSettingError with code 'invalid_setting' and
// its `setting`, ...). The addon's one exception typemap (swig/node.i) calls
// errorFromFields with respite_error's fields; messages are the core's,
// never parsed or re-worded.
const native = require('./native');

// Written as a re-export so that Node's ESM loader follows it to the names.
module.exports = require('../generated/errors');

native.respite_node_set_error_maker(module.exports.errorFromFields);
