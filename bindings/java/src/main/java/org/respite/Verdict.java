package org.respite;

/**
 * What one call meant for the service, as a {@link Classifier} decided: an
 * outcome with its HTTP status and Retry-After hint, or the caller's own failure
 * (reported as {@code request_error}, which does not count unless the gate has
 * count_all_failures, and never retried).
 */
record Verdict(Outcome outcome, int httpStatus, double retryAfterHint, boolean callersOwn) {
    static final Verdict SUCCESS = new Verdict(Outcome.SUCCESS, 0, 0, false);
    static final Verdict CALLERS_OWN = new Verdict(Outcome.REQUEST_ERROR, 0, 0, true);
    static final Verdict TRANSPORT = new Verdict(Outcome.TRANSPORT, 0, 0, false);

    static Verdict of(Outcome outcome) {
        return outcome == null ? CALLERS_OWN : new Verdict(outcome, 0, 0, false);
    }

    /** The core's classification of an HTTP status whose body was usable (O2-O8), with the status. */
    static Verdict ofStatus(int httpStatus, double retryAfterHint) {
        return new Verdict(Outcome.classify(httpStatus, true), httpStatus, retryAfterHint, false);
    }

    /** Whether the retry helper should ask the back-off: a failure that is the service's. */
    boolean retriable() {
        return !callersOwn && outcome != Outcome.SUCCESS;
    }
}
