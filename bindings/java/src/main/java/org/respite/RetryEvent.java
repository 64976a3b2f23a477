package org.respite;

import java.time.Duration;

/**
 * What the {@link Backoff.Builder#beforeSleep hook} is told before each wait (spec B19):
 * the attempt that failed (1 = the first), the delay in seconds about to be waited (the
 * schedule's, also under {@link Testing#setImmediateRetries}), the failure's outcome and
 * HTTP status (0: none), and the exception thrown or the result returned (the other null).
 */
public record RetryEvent(int attempt, double delaySeconds, Outcome outcome, int httpStatus, Throwable failure,
        Object result) {
    /** The delay as a {@link Duration}. */
    public Duration delay() {
        return Duration.ofNanos(Math.round(delaySeconds * 1e9));
    }
}
