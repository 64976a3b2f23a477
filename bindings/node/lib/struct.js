'use strict';
// A SWIG struct (the statistics) as a plain object: every field in
// camelCase, as a number, or converted by `as[field]` (a name, a flag).
function plainStruct(raw, as = {}) {
  const out = {};
  for (const field of Object.getOwnPropertyNames(Object.getPrototypeOf(raw))) {
    if (field === 'constructor' || field === 'toString') continue;
    const value = raw[field];
    out[field.replace(/_([a-z])/g, (_, letter) => letter.toUpperCase())] = as[field] ? as[field](value) : Number(value);
  }
  return out;
}

// A 0/1 field as a boolean.
const flag = (value) => value === 1;

module.exports = { plainStruct, flag };
