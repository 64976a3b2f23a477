'use strict';
// Native handles owned by objects. The core reference-counts what handles
// share, so each object frees only its own: at close(), or when it is
// garbage-collected unclosed (finalizer.register(object, [free, handle])).
const finalizer = new FinalizationRegistry(([free, handle]) => free(handle));

// Makes `handle` the object's own (object._handle).
function own(object, handle, free) {
  object._handle = handle;
  object._free = free;
  finalizer.register(object, [free, handle], object);
}

// Frees the object's handle once: false when it was already released.
function release(object) {
  if (object._handle === null) return false;
  finalizer.unregister(object);
  object._free(object._handle);
  object._handle = null;
  return true;
}

// An object over one native handle: closed, and close(), which drops this
// object's hold (whatever else holds the handle keeps it). Idempotent.
class Owned {
  get closed() {
    return this._handle === null;
  }

  close() {
    release(this);
  }
}

// A native handle that jobs on the addon's pool (a request, a flush) may
// still use after close(): freed once released and no job is in flight.
class PoolHandle {
  constructor(handle, free) {
    this.handle = handle;
    this._free = free;
    this._inFlight = 0;
    this._released = false;
  }

  release() {
    this._released = true;
    if (this._inFlight > 0 || this.handle === null) return;
    const handle = this.handle;
    this.handle = null;
    this._free(handle);
  }

  // A promise of the pool job start(done) starts: done(error or null,
  // result) settles it once, after `after()` (events drained); a throw of
  // start (argument conversion) rejects it. The handle lives meanwhile.
  job(start, after) {
    return new Promise((resolve, reject) => {
      let answered = false;
      const done = (error, value) => {
        if (answered) return;
        answered = true;
        this._inFlight--;
        if (this._released) this.release();
        after();
        if (error !== null) reject(error);
        else resolve(value);
      };
      this._inFlight++;
      try {
        start(done);
      } catch (error) {
        done(error, null);
      }
    });
  }
}

// The finalizer's entry for a PoolHandle: releases it.
const releasePool = (held) => held.release();

module.exports = { finalizer, own, release, Owned, PoolHandle, releasePool };
