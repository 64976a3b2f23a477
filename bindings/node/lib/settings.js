'use strict';
// Options objects → the core's settings. Keys are the spec's setting names in
// camelCase (failuresToEnterRecovery) or as-is (failures_to_enter_recovery);
// the core checks names, types and ranges and words every error.
const native = require('./native');
const { SETTINGS } = require('../generated/tables');
const { settingValue } = require('../generated/structs');

function snakeCase(name) {
  return name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
}

function setOne(settings, name, value) {
  if (typeof value === 'number') {
    native.respite_settings_set_number(settings, name, value);
  } else if (typeof value === 'boolean') {
    native.respite_settings_set_boolean(settings, name, value ? 1 : 0);
  } else if (Array.isArray(value)) {
    native.respite_settings_set_text(settings, name, value.join(','));
  } else if (value === null) {
    native.respite_settings_set_text(settings, name, null); // no text: the core refuses it (E3)
  } else {
    // strings, bigints (seed), anything else: the core parses or rejects it.
    native.respite_settings_set_text(settings, name, String(value));
  }
}

// Builds raw settings for `component` (or options.profile) from options;
// the caller frees them. Keys in `skip` belong to the class, not the core.
function buildSettings(component, options = {}, skip = []) {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`respite: options must be an object (got ${options === null ? 'null' : typeof options})`);
  }
  const profile = options.profile !== undefined ? snakeCase(String(options.profile)) : component;
  let settings;
  try {
    settings = native.respite_settings_new(profile);
    for (const key of Object.keys(options)) {
      const value = options[key];
      if (key === 'profile' || value === undefined || skip.includes(key)) continue;
      setOne(settings, snakeCase(key), value);
    }
    native.respite_settings_validate(settings);
  } catch (error) {
    if (settings) native.respite_settings_free(settings);
    throw error;
  }
  return settings;
}

// The table of every setting, as the core defines it (generated from
// respite_setting_at: bounds with minExclusive/maxExclusive, choices,
// accepted text, doc).
function settingsTable() {
  return SETTINGS;
}

// A validated bag of settings for a component or profile, for checking
// options or reading defaults: new Settings('gate', {probes: 2}).get('probes').
class Settings {
  constructor(target, options = {}) {
    this._handle = buildSettings(snakeCase(String(target)), { ...options, profile: undefined });
    this.component = native.respite_settings_component(this._handle);
  }

  // The value of a setting (camelCase or snake_case name), typed as the
  // settings table says: number, boolean or string. The core words a
  // closed or unknown one.
  get(name) {
    return settingValue(this._handle, this.component, snakeCase(String(name)));
  }

  close() {
    if (this._handle === null) return;
    native.respite_settings_free(this._handle);
    this._handle = null;
  }
}

module.exports = { buildSettings, snakeCase, settingsTable, Settings };
