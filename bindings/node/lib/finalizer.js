'use strict';
// Frees the native handle of an object garbage-collected unclosed. The core
// reference-counts what handles share, so each object frees only its own:
// finalizer.register(object, [free, handle], object).
const finalizer = new FinalizationRegistry(([free, handle]) => free(handle));

// A native handle that jobs on the addon's pool (a request, a flush) may
// still use after close(): freed once released and no job is in flight.
class PoolHandle {
  constructor(handle, free) {
    this.handle = handle;
    this._free = free;
    this._inFlight = 0;
    this._released = false;
  }

  begin() {
    this._inFlight++;
  }

  end() {
    this._inFlight--;
    if (this._released) this.release();
  }

  release() {
    this._released = true;
    if (this._inFlight > 0 || this.handle === null) return;
    const handle = this.handle;
    this.handle = null;
    this._free(handle);
  }

  static release(held) {
    held.release();
  }
}

module.exports = { finalizer, PoolHandle };
