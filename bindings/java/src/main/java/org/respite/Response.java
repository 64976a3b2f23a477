package org.respite;

import java.time.Duration;
import java.util.function.LongFunction;

import org.respite.internal.NativeHandle;
import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;

/**
 * The answer to one {@link Client} call (spec C8). Figures and the body are copied
 * when the call returns; the headers stay in native memory until {@link #close()}.
 */
public final class Response extends NativeObject {
    private final int status;
    private final byte[] body;
    private final String error;
    private final double retryAfter;
    private final int attempts;
    private final double elapsedSeconds;
    private volatile Outcome outcome;

    Response(long pointer) {
        super(pointer, RespiteNative::respite_response_free);
        this.status = RespiteNative.respite_response_status(pointer);
        this.outcome = Outcome.ofCode(RespiteNative.respite_response_outcome(pointer));
        this.body = RespiteNative.respite_response_body(pointer);
        this.error = RespiteNative.respite_response_error(pointer);
        this.retryAfter = RespiteNative.respite_response_retry_after(pointer);
        this.attempts = RespiteNative.respite_response_attempts(pointer);
        this.elapsedSeconds = RespiteNative.respite_response_elapsed_seconds(pointer);
    }

    /** The HTTP status, or 0 when the transport failed. */
    public int status() {
        return status;
    }

    /** The outcome (section 1); {@code unusable} after {@link Client#reportUnusable}. */
    public Outcome outcome() {
        return outcome;
    }

    /** Whether the outcome is {@code success}. */
    public boolean ok() {
        return outcome == Outcome.SUCCESS;
    }

    /** The body's bytes (empty when none). */
    public byte[] body() {
        return body.clone();
    }

    /** The body as UTF-8 text. */
    public String text() {
        return Utf8.string(body);
    }

    /** A header of the final answer (case-insensitive name, the last wins) or null; closed: ClosedException. */
    public String header(String name) {
        return use(p -> RespiteNative.respite_response_header(p, name));
    }

    /** libcurl's text when the transport failed, "" otherwise. */
    public String error() {
        return error;
    }

    /** Retry-After of a 429/503 answer in seconds, 0 when none (C6). */
    public double retryAfter() {
        return retryAfter;
    }

    /** Attempts made, retries included. */
    public int attempts() {
        return attempts;
    }

    /** Seconds the whole call took, sleeps between attempts included. */
    public double elapsedSeconds() {
        return elapsedSeconds;
    }

    /** {@link #retryAfter()} as a Duration (zero when none). */
    public Duration retryAfterDuration() {
        return Respite.duration(retryAfter);
    }

    /** {@link #elapsedSeconds()} as a Duration. */
    public Duration elapsed() {
        return Respite.duration(elapsedSeconds);
    }

    /** Runs call with the native response (reportUnusable); closed is refused. */
    <T> T use(LongFunction<T> call) {
        return NativeHandle.use(handle, respite_handle_kind.RESPITE_HANDLE_RESPONSE, call);
    }

    void markUnusable() {
        outcome = Outcome.UNUSABLE;
    }

    @Override
    public String toString() {
        return "Response[status=" + status + ", outcome=" + outcome + ", attempts=" + attempts + ", bytes="
                + body.length + "]";
    }
}
