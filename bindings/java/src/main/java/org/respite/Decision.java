package org.respite;

import java.time.Duration;

/** The answer of {@link Gate#check}: admitted with a permit (maybe a probe), or refused with retry_after. */
public record Decision(boolean allowed, boolean probe, long permit, double retryAfter) {
    /** {@link #retryAfter()} as a Duration (the longest Duration when infinite, under recover_never). */
    public Duration retryAfterDuration() {
        return Respite.duration(retryAfter);
    }
}
