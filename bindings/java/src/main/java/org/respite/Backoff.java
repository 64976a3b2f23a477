package org.respite;

import java.util.function.Supplier;

import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;

/**
 * A retry schedule (spec section 3). Immutable and safe to share: each
 * retried call takes its own sequence number with {@link #start()}, and the
 * delays of a sequence are a pure function of (seed, sequence, retry), the same
 * in every language.
 */
public final class Backoff extends NativeObject {
    /** Returned by {@link #next} when no further attempt should be made. */
    public static final double STOP = -1.0;

    private Backoff(long pointer) {
        super(pointer, RespiteNative::respite_backoff_free);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** A new sequence number for one retried call (0, 1, 2, ...). */
    public long start() {
        return handle.apply(RespiteNative::respite_backoff_start);
    }

    /** Delay in seconds before retry {@code retry} (1 = the first) of {@code sequence}, raised to a hint (0: none). */
    public double delay(long sequence, int retry, double retryAfterHint) {
        return handle.apply(p -> RespiteNative.respite_backoff_delay(p, sequence, retry, retryAfterHint));
    }

    /** Whether retry_on lists this outcome or HTTP status (0: none). */
    public boolean retriesOn(Outcome outcome, int httpStatus) {
        return handle.apply(p -> RespiteNative.respite_backoff_retries_on(p, outcome.code(), httpStatus)) == 1;
    }

    /** The delay before the attempt after {@code attempt} (1 = the first) ended so, or {@link #STOP}. */
    public double next(long sequence, int attempt, Outcome outcome, int httpStatus, double retryAfterHint) {
        return handle.apply(p -> RespiteNative.respite_backoff_next(p, sequence, attempt, outcome.code(), httpStatus,
                retryAfterHint));
    }

    /** The max_attempts setting. */
    public int maxAttempts() {
        int value = handle.apply(RespiteNative::respite_backoff_max_attempts);
        if (value < 0) {
            throw new ClosedException("backoff is closed");
        }
        return value;
    }

    /** Runs {@code work} with retries and no gate; see {@link #call(Gate, Supplier)}. */
    public <T> T call(Supplier<T> work) {
        return call(null, work);
    }

    /**
     * Runs {@code work} with retries, each attempt through the gate (may be null; a refusal
     * is thrown at once). A thrown exception fails with its {@link CarriesOutcome} outcome,
     * else transport; giving up throws the core's {@link TransportException}, caused by it.
     */
    public <T> T call(Gate gate, Supplier<T> work) {
        long sequence = start();
        for (int attempt = 1;; attempt++) {
            long permit = gate == null ? 0 : gate.acquire();
            RuntimeException failure;
            try {
                T result = work.get();
                if (gate != null) {
                    gate.success(permit);
                }
                return result;
            } catch (RuntimeException e) {
                failure = e;
            }
            CarriesOutcome carrier = Gate.outcomeOf(failure);
            int httpStatus = failure instanceof OutcomeException withStatus ? withStatus.httpStatus() : 0;
            if (gate != null) {
                gate.reportThrown(permit, failure);
            }
            int tried = attempt;
            try {
                sleep(handle.apply(p -> RespiteNative.respite_retry_decide(p, sequence, tried,
                        carrier.outcome().code(), httpStatus, carrier.retryAfterHint())));
            } catch (TransportException gaveUp) {
                gaveUp.initCause(failure);
                throw gaveUp;
            }
        }
    }

    /**
     * The core's give-up error (B14) after {@code attempts} attempts whose last ended
     * with {@code outcome} ({@code httpStatus} 0 if none), for loops of your own.
     */
    public TransportException gaveUpError(int attempts, Outcome outcome, int httpStatus) {
        try {
            handle.run(p -> RespiteNative.respite_retry_gave_up(p, attempts, outcome.code(), httpStatus));
        } catch (TransportException gaveUp) {
            return gaveUp;
        }
        throw new IllegalStateException("respite_retry_gave_up did not fail");
    }

    private static void sleep(double seconds) {
        try {
            long nanos = (long) (seconds * 1e9);
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RespiteException("interrupted", "interrupted while waiting to retry");
        }
    }

    /** Builds a back-off: one method per "backoff" setting of the core's table ({@link BackoffSettings}). */
    public static final class Builder extends SettingsBuilder<Builder> implements BackoffSettings<Builder> {
        private Builder() {}

        public Backoff build() {
            return NativeSettings.with("backoff", values, s -> new Backoff(RespiteNative.respite_backoff_new(s)));
        }
    }
}
