package org.respite;

/** How a taken event is settled (spec section 4). The order is the core's codes. */
public enum Disposition {
    /** D1: it reached the service. */
    DELIVERED,
    /** D4: back to the head of the queue when the batch is closed (unless D3 exhausted it). */
    RETRY,
    /** D2: a discard handler, or no handler for the failure. */
    DISCARDED,
    /** D3: already attempted retry_times + 1 times. */
    RETRIES_EXHAUSTED;

    /** "delivered", "retry", "discarded", "retries_exhausted". */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }

    int code() {
        return ordinal();
    }
}
