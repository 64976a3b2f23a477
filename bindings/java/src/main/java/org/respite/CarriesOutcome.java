package org.respite;

/**
 * Implemented by an exception that knows what it means for the service, so
 * {@link Gate#call} and the retry helper report that outcome ({@link Classifier#DEFAULT}
 * treats an exception that neither carries one nor is an I/O failure as the caller's own).
 */
public interface CarriesOutcome {
    /** The outcome to report for the failed call. */
    Outcome outcome();

    /** A Retry-After hint in seconds (0 for none). */
    default double retryAfterHint() {
        return 0;
    }
}
