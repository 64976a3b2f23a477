package org.respite;

import java.util.function.LongConsumer;
import java.util.function.LongFunction;

import org.respite.internal.NativeHandle;

/** What every class over a core handle shares: the handle (one reference), isClosed and close. */
abstract class NativeObject implements AutoCloseable {
    final NativeHandle handle;

    NativeObject(long pointer, LongConsumer free) {
        this.handle = new NativeHandle(pointer, free);
    }

    /** Runs call with the pointer, then {@code after} (the events rule), also when the call throws. */
    <T> T apply(LongFunction<T> call, Runnable after) {
        try {
            return handle.apply(call);
        } finally {
            after.run();
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Drops this reference, freed once no call is inside it; whatever holds its
     * own (an engine, client or sender) keeps working. Later calls throw
     * {@link ClosedException}. Idempotent.
     */
    @Override
    public void close() {
        handle.close();
    }
}
