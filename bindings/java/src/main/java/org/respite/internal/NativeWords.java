package org.respite.internal;

import java.nio.ByteBuffer;

/**
 * Aligned 64-bit words of the core's memory at a fixed address: the fast-path
 * protocol's state word, event words and counter blocks (spec K1-K5), read and
 * written without a JNI crossing. {@link NativeMemory#words} picks the
 * implementation once per runtime; only one is ever loaded, so every call
 * inlines. The memory's owner (a core reference) must outlive every access.
 */
public abstract class NativeWords {
    /** K1: one atomic 64-bit load, acquire (or stronger). */
    public abstract long getAcquire(int offset);

    /** K5: a plain load, for words only this thread writes. */
    public abstract long get(int offset);

    /** K5: a plain (relaxed) store of an aligned word, atomic on a 64-bit JVM. */
    public abstract void set(int offset, long value);

    /** A direct buffer over {@code size} bytes at {@code address} (fast_native.c). */
    static native ByteBuffer buffer0(long address, int size);
}
