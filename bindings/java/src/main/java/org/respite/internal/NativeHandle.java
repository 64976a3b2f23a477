package org.respite.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;

/**
 * Owns one native pointer (one reference, in the core's counting). Every call
 * brackets its use of the pointer with {@link #enter()} / {@link #exit()};
 * {@link #close()} frees at once when no call is inside the core, otherwise
 * the last call out frees it. After close, calls get 0, which the core answers
 * "&lt;handle&gt; is closed" (where 0 means "none", {@link #use} asks the core). The count of calls inside is kept in one cell per
 * thread stripe (a thread enters and exits on its own cell, so every cell is
 * &gt;= 0 and a call in flight is always seen), so threads of different
 * stripes calling a shared handle - a gate's fast path - write different
 * cache lines. A Cleaner frees a handle that was never closed.
 */
public final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int STRIDE = 16; // longs: 128 bytes between cells, and from the array's header
    private static final int STRIPES = Integer.highestOneBit(Math.min(16, Runtime.getRuntime().availableProcessors()));

    private final long[] calls = new long[(STRIPES + 1) * STRIDE];
    private volatile long pointer;
    private final Cleaner.Cleanable cleanable;

    public NativeHandle(long pointer, LongConsumer free) {
        this.pointer = pointer;
        this.cleanable = CLEANER.register(this, () -> free.accept(pointer));
    }

    /** The pointer for one call (0 once closed); pair with {@link #exit()} in a finally. */
    public long enter() {
        CELLS.getAndAdd(calls, cell(), 1L);
        return pointer;
    }

    public void exit() {
        CELLS.getAndAdd(calls, cell(), -1L);
        if (pointer == 0) {
            freeIfIdle();
        }
    }

    /** Runs call with the pointer, between enter and exit. */
    public <T> T apply(LongFunction<T> call) {
        long p = enter();
        try {
            return call.apply(p);
        } finally {
            exit();
        }
    }

    public void run(LongConsumer call) {
        apply(p -> {
            call.accept(p);
            return null;
        });
    }

    /**
     * Runs call with the pointer of an optional handle (0 for null) where the core
     * takes NULL as "none" rather than "closed": a closed handle is refused with
     * the core's closed error for its kind.
     */
    public static <T> T use(NativeHandle handle, respite_handle_kind kind, LongFunction<T> call) {
        if (handle == null) {
            return call.apply(0);
        }
        return handle.apply(p -> {
            if (p == 0) {
                closed(kind);
            }
            return call.apply(p);
        });
    }

    /** Throws the core's ClosedException for a handle of this kind ("response is closed"). */
    public static void closed(respite_handle_kind kind) {
        RespiteNative.respite_closed(kind);
        throw new AssertionError("respite_closed always fails");
    }

    /** Runs {@code action} once {@code owner} is unreachable (the binding's one Cleaner thread). */
    public static Cleaner.Cleanable whenUnreachable(Object owner, Runnable action) {
        return CLEANER.register(owner, action);
    }

    public boolean isClosed() {
        return pointer == 0;
    }

    /** Drops the pointer and frees it as soon as no call is inside the core. Idempotent. */
    public void close() {
        pointer = 0;
        freeIfIdle();
    }

    private void freeIfIdle() {
        for (int i = STRIDE; i < calls.length; i += STRIDE) {
            if ((long) CELLS.getVolatile(calls, i) != 0) {
                return;
            }
        }
        cleanable.clean();
    }

    private static int cell() {
        return (int) ((Thread.currentThread().getId() & (STRIPES - 1)) + 1) * STRIDE;
    }
}
