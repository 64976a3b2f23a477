'use strict';
// A gate's closed path decided in JavaScript, with no Node-API crossing
// (docs/spec.md section 2, "The fast-path protocol", K1-K6). The core hands
// this handle its published word, its event words and a counter block of
// its own (respite_node_fast_path); every mask, value and offset is the
// core's. Everything else goes to the core.
const native = require('./native');

// The platform's order of a 64-bit word's 32-bit halves.
const LO = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1 ? 0 : 1;
const HI = 1 - LO;
const TWO32 = 2 ** 32;
const LOW_MAX = 0xffffffff;

// [low, high] 32-bit halves of a mask or value the core gave (an integer
// below 2^53 in size, possibly negative), for `&` on each half.
function halves(value) {
  return [value | 0, Math.floor(value / TWO32) | 0];
}

class FastPath {
  constructor(token) {
    const fp = native.respite_node_fast_path(token);
    this.word = new Uint32Array(fp.word);
    this.events = new Uint32Array(fp.events);
    this.cursor = new Uint32Array(fp.cursor);
    this.blockBuffer = fp.block;
    this.block = new Uint32Array(fp.block);
    [this.admitMaskLo, this.admitMaskHi] = halves(fp.admitMask);
    [this.admitValueLo, this.admitValueHi] = halves(fp.admitValue);
    [this.permitMaskLo, this.permitMaskHi] = halves(fp.permitMask);
    [this.successMaskLo, this.successMaskHi] = halves(fp.successMask);
    [this.successValueLo, this.successValueHi] = halves(fp.successValue);
    this.admittedOffset = fp.admittedOffset;
    this.reportedOffset = fp.reportedOffset;
  }

  // K2: the permit when the gate is closed (counted here), else 0: ask the
  // core. The word is read as two halves, the high one twice: generations
  // only grow (K1), so an unchanged high half means both halves are one word's.
  admit() {
    const word = this.word;
    const hi = Atomics.load(word, HI);
    const lo = Atomics.load(word, LO);
    if (Atomics.load(word, HI) !== hi
      || (lo & this.admitMaskLo) !== this.admitValueLo || (hi & this.admitMaskHi) !== this.admitValueHi) return 0;
    this._add(this.admittedOffset);
    return ((hi & this.permitMaskHi) >>> 0) * TWO32 + ((lo & this.permitMaskLo) >>> 0);
  }

  // K3: true when a success with this permit (0: none) was settled here.
  success(permit) {
    const word = this.word;
    const hi = Atomics.load(word, HI);
    const lo = Atomics.load(word, LO);
    if (Atomics.load(word, HI) !== hi
      || (lo & this.successMaskLo) !== this.successValueLo || (hi & this.successMaskHi) !== this.successValueHi) return false;
    if (permit !== 0 && permit !== ((hi & this.permitMaskHi) >>> 0) * TWO32 + ((lo & this.permitMaskLo) >>> 0)) return false;
    this._add(this.reportedOffset);
    return true;
  }

  // K4: whether events wait for this handle.
  eventsWaiting() {
    return Atomics.load(this.events, LO) !== Atomics.load(this.cursor, LO)
      || Atomics.load(this.events, HI) !== Atomics.load(this.cursor, HI);
  }

  // The handle's count at `offset` (tests: the fast path was taken).
  count(offset) {
    const i = offset / 4;
    return this.block[i + HI] * TWO32 + this.block[i + LO];
  }

  // K5: this handle's block has one writer, this thread. A reader must see
  // the 64-bit count whole: the low half is stored alone (one 32-bit
  // store) until it would carry, then the core's addon stores all 64 bits.
  _add(offset) {
    const i = offset / 4 + LO;
    const low = this.block[i];
    if (low !== LOW_MAX) this.block[i] = low + 1;
    else native.respite_node_fast_carry(this.blockBuffer, offset);
  }
}

module.exports = { FastPath };
