package org.respite;

import org.respite.swig.RespiteNative;

/**
 * Ends the calls made with it (spec C10): after {@link #cancel()}, from any
 * thread, a {@link Client#request(String, String, java.util.Map, byte[], CancelToken)}
 * given this token throws {@link CancelledException} within 100 ms, from the
 * transfer or a sleep between attempts, and its attempt in flight counts
 * nothing against the service (G19). A token already cancelled ends a call
 * before the gate is asked. Once cancelled it stays so; one token may serve
 * many calls. A native call is not interrupted by {@link Thread#interrupt()}:
 * cancel the token instead (a cancelled {@link Client#requestAsync} future does).
 */
public final class CancelToken extends NativeObject {
    public CancelToken() {
        super(RespiteNative.respite_cancel_token_new(), RespiteNative::respite_cancel_token_free);
    }

    /** Cancels every call made with the token, now and later; a second cancel does nothing. */
    public void cancel() {
        handle.run(RespiteNative::respite_cancel_token_cancel);
    }

    /** Whether {@link #cancel()} was called. */
    public boolean isCancelled() {
        return handle.apply(RespiteNative::respite_cancel_token_cancelled) == 1;
    }
}
