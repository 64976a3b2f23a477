'use strict';
// Composition (cockatiel's wrap, resilience4j's Decorators): wrap(retry,
// gate, ...).run(fn, {signal}) runs fn inside every layer, the first the
// outermost. A layer is anything with run(fn, context) — a Gate, a Retry
// (a Backoff stands for new Retry(backoff)), a Fallback, or your own — and
// calls fn(context) with {signal, attempt}; the context passes inwards.
const { Backoff } = require('./backoff');
const { Gate } = require('./gate');
const { Retry } = require('./retry');
const { contextOf } = require('./context');
const { DEFAULT_CLASSIFIER, isErrorClasses } = require('./classify');

class Fallback {
  // fallback: the value to answer with, or (error, context) => value (may
  // be async). options.on: which errors it answers for — an array of error
  // classes or a predicate; default every error. An error after the
  // caller's signal aborted is never answered for.
  constructor(fallback, { on } = {}) {
    if (on !== undefined && typeof on !== 'function' && !isErrorClasses(on)) {
      throw new TypeError('respite: Fallback option `on` must be a predicate or an array of error classes');
    }
    this._fallback = fallback;
    this._on = Array.isArray(on) ? (error) => on.some((type) => error instanceof type) : on;
  }

  async run(fn, context) {
    const own = contextOf(context);
    try {
      return await fn(own);
    } catch (error) {
      if (own.signal.aborted || (this._on !== undefined && !this._on(error))) throw error;
      return typeof this._fallback === 'function' ? this._fallback(error, own) : this._fallback;
    }
  }
}

// A layer as something with run(fn, context).
function layerOf(layer) {
  if (layer instanceof Backoff) return new Retry(layer);
  if (layer !== null && typeof layer === 'object' && typeof layer.run === 'function') return layer;
  throw new TypeError('respite: wrap takes Gates, Retry, Backoffs, Fallbacks or objects with run(fn, context)');
}

class Wrapped {
  constructor(layers) {
    this._layers = layers.map(layerOf);
    // A Retry with no classifier of its own judges as the first gate inside
    // it does, so the gate and the retry agree on what counted.
    this._classifiers = this._layers.map((_, index) => {
      const gate = this._layers.slice(index + 1).find((inner) => inner instanceof Gate);
      return gate ? gate.classifier : DEFAULT_CLASSIFIER;
    });
  }

  // fn(context) inside every layer; resolves with fn's value (or a
  // fallback's), rejects as the outermost layer does.
  async run(fn, context) {
    return this._at(0, fn, contextOf(context));
  }

  _at(index, fn, context) {
    if (index === this._layers.length) return fn(context);
    const layer = this._layers[index];
    const inner = (innerContext) => this._at(index + 1, fn, innerContext);
    if (layer instanceof Retry) return layer._run(inner, context, null, this._classifiers[index]);
    return layer.run(inner, context);
  }
}

// The layers, outermost first, as one: wrap(retry, gate, fallback)... see above.
function wrap(...layers) {
  return new Wrapped(layers);
}

module.exports = { Fallback, Wrapped, wrap };
