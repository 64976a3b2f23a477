package org.respite.internal;

/**
 * Hand-written JNI entry points (src/main/native/fast_native.c) for what the
 * SWIG layer does slowly or cannot do: payload bytes with NULs, and the
 * protected-call pair (admit, report) through respite_gate_admit_now /
 * report_now, so a call crosses into C once per step and reads no clock
 * while the gate is closed. Errors are raised as SWIG's are
 * ("&lt;status_name&gt;: &lt;message&gt;"), for {@link Errors#translate}.
 */
public final class FastNative {
    static {
        NativeLoader.load();
    }

    private FastNative() {}

    /** Event {@code index}'s payload, every byte (NULs included). */
    public static native byte[] batchPayload(long batch, int index);

    /** respite_gate_admit_now: the permit, or 0 when refused (no clock read while closed). */
    public static native long gateAdmitNow(long gate);

    /** respite_gate_report_now(permit, outcome, no hint): no clock read while closed. */
    public static native void gateReportNow(long gate, long permit, int outcome);

    /**
     * respite_client_request: the response pointer; a refusal is thrown as
     * TemporarilyUnavailableException with its retry_after (SWIG's error text
     * would lose it).
     */
    public static native long clientRequest(long client, String method, String url, String headers, byte[] body);

    /** The response's body, every byte. */
    public static native byte[] responseBody(long response);

    /** respite_sender_flush; refused while paused: TemporarilyUnavailableException with retry_after. */
    public static native void senderFlush(long sender, double timeoutSeconds);
}
