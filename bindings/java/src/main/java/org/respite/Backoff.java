package org.respite;

import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;
import org.respite.swig.respite_retry_call;

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
    private final Consumer<? super RetryEvent> beforeSleep; // null: none

    private Backoff(long pointer, Classifier classifier, Consumer<? super RetryEvent> beforeSleep) {
        super(pointer, RespiteNative::respite_backoff_free);
        this.classifier = classifier;
        this.beforeSleep = beforeSleep;
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
            NativeHandle.closed(respite_handle_kind.RESPITE_HANDLE_BACKOFF);
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
     * failure the core decides (respite_retry_decide: max_attempts, retry_on,
     * max_elapsed_seconds), the {@link Builder#beforeSleep hook} is told, and this thread
     * sleeps (not under {@link Testing#setImmediateRetries}). The caller's own exception is
     * rethrown at once, never retried. Giving up throws the core's {@link TransportException}
     * (spec B20): caused by the last exception, or carrying the last failed result (a 503
     * response) as {@link TransportException#getResult()}.
     */
    public <T, E extends Exception> T call(Gate gate, CheckedSupplier<T, E> work) throws E {
        Classifier rules = classifierFor(gate);
        respite_retry_call call = begin();
        try {
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
                    sleep(decide(call, attempt, verdict, e, null));
                    continue;
                }
                Verdict verdict = rules.ofResult(result);
                if (gate != null) {
                    gate.report(permit, verdict);
                }
                if (!verdict.retriable()) {
                    return result;
                }
                sleep(decide(call, attempt, verdict, null, result));
            }
        } finally {
            call.delete();
        }
    }

    /**
     * As {@link #call(Gate, CheckedSupplier)} for asynchronous work: no thread waits;
     * the next attempt is scheduled after the core's delay
     * ({@code CompletableFuture.delayedExecutor}). A refusal, the caller's own failure,
     * an exception from the hook and the give-up error complete the returned stage
     * exceptionally.
     */
    public <T> CompletableFuture<T> callAsync(Gate gate, Supplier<? extends CompletionStage<T>> work) {
        CompletableFuture<T> done = new CompletableFuture<>();
        respite_retry_call call = begin();
        done.whenComplete((result, failure) -> call.delete());
        attemptAsync(gate, work, classifierFor(gate), call, 1, done);
        return done;
    }

    private <T> void attemptAsync(Gate gate, Supplier<? extends CompletionStage<T>> work, Classifier rules,
            respite_retry_call call, int attempt, CompletableFuture<T> done) {
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
                double wait = verdict.retriable() ? decide(call, attempt, verdict, failure, result) : STOP;
                if (wait == STOP && failure == null) {
                    done.complete(result);
                } else if (wait == STOP) {
                    done.completeExceptionally(failure);
                } else {
                    CompletableFuture.delayedExecutor((long) (wait * 1e9), TimeUnit.NANOSECONDS)
                            .execute(() -> attemptAsync(gate, work, rules, call, attempt + 1, done));
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

    /** One retried call's state in the core (respite_retry_begin); deleted by its caller. */
    private respite_retry_call begin() {
        respite_retry_call call = new respite_retry_call();
        try {
            handle.run(p -> RespiteNative.respite_retry_begin(p, call));
        } catch (RuntimeException e) {
            call.delete();
            throw e;
        }
        return call;
    }

    /**
     * The core's decision after a failed attempt: the seconds to wait (0 under the testing
     * switch), after telling the hook; else throws the give-up error, caused by the failure
     * or carrying the result (B20).
     */
    private double decide(respite_retry_call call, int attempt, Verdict verdict, Throwable failure, Object result) {
        double delay;
        try {
            delay = handle.apply(p -> RespiteNative.respite_retry_decide(p, call, attempt,
                    verdict.outcome().code(), verdict.httpStatus(), verdict.retryAfterHint()));
        } catch (TransportException gaveUp) {
            if (failure != null) {
                gaveUp.initCause(failure);
            }
            throw gaveUp.withResult(result);
        }
        if (beforeSleep != null) {
            beforeSleep.accept(new RetryEvent(attempt, delay, verdict.outcome(), verdict.httpStatus(), failure,
                    failure == null ? result : null));
        }
        return call.getWait();
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
        private Consumer<? super RetryEvent> beforeSleep;

        private Builder() {}

        /**
         * Called before each wait of {@link Backoff#call} and {@link Backoff#callAsync} (spec B19),
         * with the attempt that failed, the delay and the failure; an exception it throws ends the
         * call with that exception (no wait, no further attempt). tenacity's before_sleep,
         * resilience4j's onRetry event.
         */
        public Builder beforeSleep(Consumer<? super RetryEvent> hook) {
            this.beforeSleep = Objects.requireNonNull(hook, "hook");
            return this;
        }

        /** What counts as a failure and is retried (default: the gate's classifier, else {@link Classifier#DEFAULT}). */
        public Builder classifier(Classifier value) {
            this.classifier = Objects.requireNonNull(value, "classifier");
            return this;
        }

        public Backoff build() {
            return NativeSettings.with("backoff", values, s -> new Backoff(RespiteNative.respite_backoff_new(s), classifier,
                    beforeSleep));
        }
    }
}
