package org.respite;

/**
 * An exception user code may throw inside {@link Gate#call} to say what the
 * call's outcome was, e.g. {@code throw OutcomeException.ofStatus(503, "busy")}.
 */
public class OutcomeException extends RuntimeException implements CarriesOutcome {
    private static final long serialVersionUID = 1L;
    private final Outcome outcome;
    private final int httpStatus;
    private final double retryAfterHint;

    public OutcomeException(Outcome outcome, String message) {
        this(outcome, 0, 0, message);
    }

    public OutcomeException(Outcome outcome, int httpStatus, double retryAfterHint, String message) {
        super(message);
        this.outcome = outcome;
        this.httpStatus = httpStatus;
        this.retryAfterHint = retryAfterHint;
    }

    /** The outcome of an HTTP status (classified by the core), with a message. */
    public static OutcomeException ofStatus(int httpStatus, String message) {
        return new OutcomeException(Outcome.classify(httpStatus, false), httpStatus, 0, message);
    }

    /** As {@link #ofStatus(int, String)} with a Retry-After hint in seconds. */
    public static OutcomeException ofStatus(int httpStatus, double retryAfterHint, String message) {
        return new OutcomeException(Outcome.classify(httpStatus, false), httpStatus, retryAfterHint, message);
    }

    @Override
    public Outcome outcome() {
        return outcome;
    }

    /** The HTTP status, 0 when there was none. */
    public int httpStatus() {
        return httpStatus;
    }

    @Override
    public double retryAfterHint() {
        return retryAfterHint;
    }
}
