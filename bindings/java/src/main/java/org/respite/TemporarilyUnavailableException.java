package org.respite;

/**
 * Status {@code temporarily_unavailable}: the gate refused the call because of
 * recent failures (G17). The call was not made.
 */
public class TemporarilyUnavailableException extends RespiteException {
    private static final long serialVersionUID = 1L;
    private final double retryAfter;

    public TemporarilyUnavailableException(double retryAfter, String message) {
        super("temporarily_unavailable", message);
        this.retryAfter = retryAfter;
    }

    /** Seconds until a call may be admitted; {@code Double.POSITIVE_INFINITY} until a reset (recover_never). */
    public double getRetryAfter() {
        return retryAfter;
    }
}
