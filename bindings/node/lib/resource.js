'use strict';
// One native handle and who still needs it. A delivery engine borrows its
// queue, gate and policy (the core requires them to outlive it), so their
// memory is freed only once the owner let go (close() or garbage
// collection) AND no engine uses them any more: finalizers run in any order.
class NativeResource {
  constructor(handle, free, keep = null) {
    this.handle = handle;
    this._free = free;
    this._keep = keep; // memory the core writes into (e.g. an event counter)
    this._users = 0;
    this._released = false;
  }

  // The owner is done with it (close() or its finalizer).
  release() {
    this._released = true;
    this._maybeFree();
  }

  // A borrower (an engine) starts or stops using it.
  attach() {
    this._users++;
  }

  detach() {
    this._users--;
    this._maybeFree();
  }

  _maybeFree() {
    if (!this._released || this._users > 0 || this.handle === null) return;
    const handle = this.handle;
    this.handle = null;
    this._free(handle);
    this._keep = null;
  }
}

// The objects (engines, clients) borrowing an owner's resource. Each holds
// it until it lets go; closing the owner closes them first.
class Borrowers {
  constructor(resource) {
    this._resource = resource;
    this._users = new Set();
  }

  get size() {
    return this._users.size;
  }

  add(user) {
    this._users.add(user);
    this._resource.attach();
  }

  // `user` closed; whether it was borrowing. Its hold on the resource ends
  // when its own native handle is freed (which detaches), not here.
  forget(user) {
    return this._users.delete(user);
  }

  closeAll() {
    for (const user of [...this._users]) user.close();
  }
}

// Frees the resource of an owner that was garbage-collected unclosed.
const finalizer = new FinalizationRegistry((resource) => resource.release());

module.exports = { NativeResource, Borrowers, finalizer };
