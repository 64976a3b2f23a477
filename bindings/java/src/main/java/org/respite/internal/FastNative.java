package org.respite.internal;

/**
 * Hand-written JNI entry points (src/main/native/fast_native.c) for what the
 * SWIG layer does slowly or cannot do: payload bytes with NULs, and the
 * protected-call pair (admit, report) reading the core's clock in C so that
 * a call crosses into C once per step. Errors are raised as SWIG's are
 * ("&lt;status_name&gt;: &lt;message&gt;"), for {@link Errors#translate}.
 */
public final class FastNative {
    static {
        NativeLoader.load();
    }

    private FastNative() {}

    /** Event {@code index}'s payload, every byte (NULs included). */
    public static native byte[] batchPayload(long batch, int index);

    /** respite_gate_admit at respite_now(): the permit, or 0 when refused. */
    public static native long gateAdmitNow(long gate);

    /** respite_gate_report(permit, outcome, no hint) at respite_now(). */
    public static native void gateReportNow(long gate, long permit, int outcome);
}
