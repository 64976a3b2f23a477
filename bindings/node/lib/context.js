'use strict';
// The context a protected function is called with (Gate#run, Retry, wrap):
// {signal, attempt}. `signal` is always an AbortSignal, so fn can pass it on
// (fetch(url, {signal})) unconditionally; with none given it never aborts.
const NEVER = new AbortController().signal;
const DEFAULT_CONTEXT = Object.freeze({ signal: NEVER, attempt: 1 });

// The context for a call given `context` (undefined, or {signal?, attempt?}).
function contextOf(context) {
  if (context === undefined || context === null) return DEFAULT_CONTEXT;
  if (context.signal instanceof AbortSignal) return context;
  if (context.signal !== undefined && context.signal !== null) {
    throw new TypeError('respite: signal must be an AbortSignal');
  }
  return { ...context, signal: NEVER };
}

module.exports = { contextOf, DEFAULT_CONTEXT, NEVER };
