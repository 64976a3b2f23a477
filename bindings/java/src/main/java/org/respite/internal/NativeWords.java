package org.respite.internal;

import java.nio.ByteBuffer;

/**
 * How the fast path reads and writes aligned 64-bit words of the core's memory
 * in place: the state word, event words and counter blocks (spec K1-K5), with
 * no JNI crossing. Words are named as Unsafe names them, a base object and a
 * position: {@link #base} once per memory area, {@link #position} once per word,
 * then each access. {@link NativeMemory#WORDS} is the one implementation of the
 * runtime, a constant, so every access inlines to a load or a store. The memory's
 * owner (a core reference) must outlive every access.
 */
public abstract class NativeWords {
    /** What the words of {@code size} bytes at {@code address} are read through (null: their addresses). */
    public abstract Object base(long address, int size);

    /** The position, for {@code base(address, ...)}, of the word {@code offset} bytes past {@code address}. */
    public abstract long position(long address, int offset);

    /** K1: one atomic 64-bit load, acquire (or stronger). */
    public abstract long getAcquire(Object base, long position);

    /** K5: a plain load, for words only this thread writes. */
    public abstract long get(Object base, long position);

    /** K5: a plain (relaxed) store of an aligned word, atomic on a 64-bit JVM. */
    public abstract void set(Object base, long position, long value);

    /** A direct buffer over {@code size} bytes at {@code address} (fast_native.c). */
    static native ByteBuffer buffer0(long address, int size);
}
