package org.respite;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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

    private final Classifier classifier; // null: the gate's

    private Backoff(long pointer, Classifier classifier) {
        super(pointer, RespiteNative::respite_backoff_free);
        this.classifier = classifier;
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

    /** Runs {@code work} with retries and no gate; see {@link #call(Gate, CheckedSupplier)}. */
    public <T, E extends Exception> T call(CheckedSupplier<T, E> work) throws E {
        return call(null, work);
    }

    /**
     * Runs {@code work} with retries, each attempt through the gate (may be null; a refusal
     * is thrown at once). Each attempt is classified by this back-off's {@link Classifier}
     * (else the gate's, else {@link Classifier#DEFAULT}) and reported to the gate; after a
     * failure the core decides (respite_retry_decide) and this thread sleeps. The caller's
     * own exception is rethrown at once; giving up after exceptions throws the core's
     * {@link TransportException}, caused by the last one; giving up after failed results
     * (a 503 response) returns the last result.
     */
    public <T, E extends Exception> T call(Gate gate, CheckedSupplier<T, E> work) throws E {
        Classifier rules = classifierFor(gate);
        long sequence = start();
        for (int attempt = 1;; attempt++) {
            long permit = gate == null ? 0 : gate.acquire();
            T result;
            try {
                result = work.get();
            } catch (Exception | Error e) {
                Verdict verdict = rules.ofException(e);
                if (gate != null) {
                    gate.report(permit, verdict);
                }
                if (!verdict.retriable()) {
                    throw e;
                }
                sleep(decide(sequence, attempt, verdict, e));
                continue;
            }
            Verdict verdict = rules.ofResult(result);
            if (gate != null) {
                gate.report(permit, verdict);
            }
            double delay = verdict.retriable() ? decide(sequence, attempt, verdict, null) : STOP;
            if (delay == STOP) {
                return result;
            }
            sleep(delay);
        }
    }

    /**
     * As {@link #call(Gate, CheckedSupplier)} for asynchronous work: no thread waits;
     * the next attempt is scheduled after the core's delay
     * ({@code CompletableFuture.delayedExecutor}). A refusal, the caller's own failure
     * and the give-up error complete the returned stage exceptionally.
     */
    public <T> CompletableFuture<T> callAsync(Gate gate, Supplier<? extends CompletionStage<T>> work) {
        CompletableFuture<T> done = new CompletableFuture<>();
        attemptAsync(gate, work, classifierFor(gate), start(), 1, done);
        return done;
    }

    private <T> void attemptAsync(Gate gate, Supplier<? extends CompletionStage<T>> work, Classifier rules,
            long sequence, int attempt, CompletableFuture<T> done) {
        long permit;
        CompletionStage<T> stage;
        try {
            permit = gate == null ? 0 : gate.acquire();
        } catch (RuntimeException refused) {
            done.completeExceptionally(refused);
            return;
        }
        try {
            stage = Objects.requireNonNull(work.get(), "the work returned no stage");
        } catch (RuntimeException | Error e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((result, failure) -> {
            try {
                Verdict verdict = failure != null ? rules.ofException(failure) : rules.ofResult(result);
                if (gate != null) {
                    gate.report(permit, verdict);
                }
                double delay = verdict.retriable() ? decide(sequence, attempt, verdict, failure) : STOP;
                if (delay == STOP && failure == null) {
                    done.complete(result);
                } else if (delay == STOP) {
                    done.completeExceptionally(failure);
                } else {
                    CompletableFuture.delayedExecutor((long) (delay * 1e9), TimeUnit.NANOSECONDS)
                            .execute(() -> attemptAsync(gate, work, rules, sequence, attempt + 1, done));
                }
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
            }
        });
    }

    /** {@code work} with retries through {@code gate} (may be null), as {@link #call(Gate, CheckedSupplier)}. */
    public <T, E extends Exception> CheckedSupplier<T, E> decorate(Gate gate, CheckedSupplier<T, E> work) {
        return () -> call(gate, work);
    }

    /** The core's delay before the next attempt; STOP when a failed result is given up on; throws the give-up error after an exception. */
    private double decide(long sequence, int attempt, Verdict verdict, Throwable failure) {
        try {
            return handle.apply(p -> RespiteNative.respite_retry_decide(p, sequence, attempt,
                    verdict.outcome().code(), verdict.httpStatus(), verdict.retryAfterHint()));
        } catch (TransportException gaveUp) {
            if (failure == null) {
                return STOP;
            }
            gaveUp.initCause(failure);
            throw gaveUp;
        }
    }

    private Classifier classifierFor(Gate gate) {
        return classifier != null ? classifier : gate != null ? gate.classifier() : Classifier.DEFAULT;
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
        private Classifier classifier;

        private Builder() {}

        /** What counts as a failure and is retried (default: the gate's classifier, else {@link Classifier#DEFAULT}). */
        public Builder classifier(Classifier value) {
            this.classifier = Objects.requireNonNull(value, "classifier");
            return this;
        }

        public Backoff build() {
            return NativeSettings.with("backoff", values, s -> new Backoff(RespiteNative.respite_backoff_new(s), classifier));
        }
    }
}
