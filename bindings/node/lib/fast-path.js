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
// K1: the word is read with one 64-bit load (a Float64Array element: an
// aligned 8-byte load, which x86-64 and arm64 make atomic; it is below 2^53,
// never a NaN, so its bits are kept and compare exactly), and when it
// changed, moved into local memory to be read as halves. Atomics.load of a
// BigUint64Array would allocate, and of a Uint32Array takes two loads that
// a publish may split (and costs a runtime call on a buffer that is not
// shared). The decisions depend on the word alone, so no further ordering
// is needed.
const SCRATCH = new ArrayBuffer(8);
const SCRATCH_WORD = new Float64Array(SCRATCH);
const SCRATCH_HALVES = new Uint32Array(SCRATCH);

// [low, high] 32-bit halves of a mask or value the core gave (an integer
// below 2^53 in size, possibly negative), for `&` on each half.
function halves(value) {
  return [value | 0, Math.floor(value / TWO32) | 0];
}

class FastPath {
  // fp: what the core hands a handle (respite_node_fast_path).
  constructor(fp) {
    // The fields every call reads come first, so they are kept inside the
    // object (the later ones may live in a separate property array).
    // The word last decoded when it lets a call be admitted here (closed),
    // and when it lets a success be settled here (closed and confirmed),
    // else NaN (equal to no word), and its permit: a call compares the word
    // it reads with one of them, and decodes only after a transition (set
    // by _decode below). These fields hold doubles from the start: a field
    // that turned from integer to double would change this object's shape,
    // and the first gate's optimized code would leave every other gate's
    // calls ("wrong map") for slower, polymorphic code.
    this.closedWord = NaN;
    this.confirmedWord = NaN;
    this.permit = NaN;
    this.taken = NaN; // this handle's event cursor as last read (tookEvents)
    this.word = new Float64Array(fp.word);
    this.events = new Float64Array(fp.events);
    this.cursor = new Float64Array(fp.cursor);
    // The low halves of the two counts, one element each: a constant index.
    this.admitted = new Uint32Array(fp.block, fp.admittedOffset + 4 * LO, 1);
    this.reported = new Uint32Array(fp.block, fp.reportedOffset + 4 * LO, 1);
    this.block = new Uint32Array(fp.block);
    this.blockBuffer = fp.block;
    this.admittedOffset = fp.admittedOffset;
    this.reportedOffset = fp.reportedOffset;
    [this.admitMaskLo, this.admitMaskHi] = halves(fp.admitMask);
    [this.admitValueLo, this.admitValueHi] = halves(fp.admitValue);
    [this.permitMaskLo, this.permitMaskHi] = halves(fp.permitMask);
    [this.successMaskLo, this.successMaskHi] = halves(fp.successMask);
    [this.successValueLo, this.successValueHi] = halves(fp.successValue);
    // Decoded now, so a call decodes only after a transition: the optimized
    // code then has no call to _decode in its common path (a branch never
    // taken is compiled out).
    this._decode(this.word[0]);
    this.tookEvents();
  }

  // The permit a closed admit gets (closedWord) and the one a success may
  // be settled with here (confirmedWord), for the word read (K1).
  _decode(word) {
    SCRATCH_WORD[0] = word;
    const lo = SCRATCH_HALVES[LO] | 0;
    const hi = SCRATCH_HALVES[HI] | 0;
    const closed = (lo & this.admitMaskLo) === this.admitValueLo && (hi & this.admitMaskHi) === this.admitValueHi;
    const confirmed = (lo & this.successMaskLo) === this.successValueLo && (hi & this.successMaskHi) === this.successValueHi;
    this.permit = ((hi & this.permitMaskHi) >>> 0) * TWO32 + ((lo & this.permitMaskLo) >>> 0);
    this.closedWord = closed ? word : NaN;
    this.confirmedWord = confirmed ? word : NaN;
  }

  // K2: the permit when the gate is closed (counted here), else 0: ask the
  // core. K1: the word is read whole with one 64-bit load; decoded again
  // only when it is not the closed word last decoded.
  admit() {
    const word = this.word[0];
    if (word !== this.closedWord) {
      this._decode(word);
      if (word !== this.closedWord) return 0;
    }
    this._add(this.admitted, this.admittedOffset);
    return this.permit;
  }

  // K3: true when a success with this permit (0: none) was settled here.
  success(permit) {
    const word = this.word[0];
    if (word !== this.confirmedWord) {
      this._decode(word);
      if (word !== this.confirmedWord) return false;
    }
    if (permit !== this.permit && permit !== 0) return false;
    this._add(this.reported, this.reportedOffset);
    return true;
  }

  // K4: whether events wait for this handle. Each word is read whole, as a
  // Float64Array element (below 2^53: never a NaN, so its bits are kept).
  // The cursor is this handle's: only taking events moves it, forward and
  // never past the events word, so its value at the last take answers as
  // well: equal words mean none wait; an older value (the handle's events
  // taken another way) only sends a call to the core, which finds none.
  eventsWaiting() {
    return this.events[0] !== this.taken;
  }

  // After this handle's events were taken (or found not waiting).
  tookEvents() {
    this.taken = this.cursor[0];
  }

  // The handle's count at `offset` (tests: the fast path was taken).
  count(offset) {
    const i = offset / 4;
    return this.block[i + HI] * TWO32 + this.block[i + LO];
  }

  // K5: this handle's block has one writer, this thread. A reader must see
  // the 64-bit count whole: its low half (`low`, a one-element view) is
  // stored alone (one 32-bit store) until it would carry, then the core's
  // addon stores all 64 bits.
  _add(low, offset) {
    const count = low[0];
    if (count !== LOW_MAX) low[0] = count + 1;
    else native.respite_node_fast_carry(this.blockBuffer, offset);
  }
}

// A gate's fast path, made from the core's answer for its token.
function fastPathOf(token) {
  return new FastPath(native.respite_node_fast_path(token));
}

// A closed gate's: the shape of every other (so closing a gate changes no
// field's type, and no optimized code is thrown away), over memory of its
// own instead of the freed gate's; it never admits or settles.
const CLOSED_FAST_PATH = new FastPath({
  word: new ArrayBuffer(8),
  events: new ArrayBuffer(8),
  cursor: new ArrayBuffer(8),
  block: new ArrayBuffer(16),
  admittedOffset: 0,
  reportedOffset: 8,
  admitMask: 0,
  admitValue: 1,
  permitMask: 0,
  successMask: 0,
  successValue: 1,
});

module.exports = { fastPathOf, CLOSED_FAST_PATH };
