package org.respite.internal;

import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;

import org.respite.ClosedException;

/**
 * Owns one native pointer for an idiomatic object. close() drops the pointer at
 * once, so every later call passes NULL and the core answers "... is closed";
 * the memory is freed by a Cleaner once the owner is unreachable, i.e. when no
 * thread can still be inside a native call with it (owners keep themselves
 * reachable across calls with Reference.reachabilityFence). A call racing with
 * close therefore never touches freed memory, and the hot path needs no lock.
 */
public final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();

    private volatile long pointer;
    private final Cleaner.Cleanable cleanable;

    public NativeHandle(Object owner, long pointer, LongConsumer free) {
        this.pointer = pointer;
        this.cleanable = CLEANER.register(owner, () -> free.accept(pointer));
    }

    /** The pointer, or 0 once closed. */
    public long get() {
        return pointer;
    }

    public boolean isClosed() {
        return pointer == 0;
    }

    /** Drops the pointer; later calls get a ClosedException from the core. Idempotent. */
    public void close() {
        pointer = 0;
    }

    /** Frees now: only for owners that know no other thread uses the pointer (or on a failed constructor). */
    public void closeAndFree() {
        pointer = 0;
        cleanable.clean();
    }

    /** For Java-side checks of a closed handle that never reach the core. */
    public static ClosedException closed(String what) {
        return new ClosedException(what + " is closed");
    }
}
