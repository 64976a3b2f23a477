package org.respite;

/**
 * Implemented by an exception that knows what it means for the service, so
 * {@link Gate#call} reports that outcome instead of the default {@code transport}.
 */
public interface CarriesOutcome {
    /** The outcome to report for the failed call. */
    Outcome outcome();

    /** A Retry-After hint in seconds (0 for none). */
    default double retryAfterHint() {
        return 0;
    }
}
