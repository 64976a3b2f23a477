package org.respite;

import java.lang.ref.Reference;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

import org.respite.internal.Errors;
import org.respite.internal.EventLog;
import org.respite.internal.FastNative;
import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNativeJNI;
import org.respite.swig.respite_decision;
import org.respite.swig.respite_event;
import org.respite.swig.respite_gate_stats;

/**
 * A recovery gate (spec section 2): shared by every thread that calls one
 * service, it refuses calls for a while after recent failures.
 *
 * <pre>{@code
 * try (Gate gate = Gate.builder().failuresToEnterRecovery(5).recoverySeconds(30).build()) {
 *     String body = gate.call(() -> http.get(url));   // refused: TemporarilyUnavailableException
 * }
 * }</pre>
 *
 * Methods without {@code now} read {@link Respite#now()}; the {@code now}
 * forms take seconds on that clock (tests, simulations). Transitions are
 * logged to {@code System.Logger} "org.respite.Gate" (warning when sending
 * pauses or a pause grows, info when it resumes) and given to the listener.
 */
public final class Gate implements AutoCloseable {
    private static final int CLOSED_STATE = 0;
    private static final int EVENT_RECOVERY_STARTED = 0;
    private static final int EVENT_RECOVERY_EXTENDED = 1;
    private static final int EVENT_PROBING = 2;

    private final NativeHandle handle;
    private final Consumer<Event> listener;
    private final ThreadLocal<respite_decision> decisions = ThreadLocal.withInitial(respite_decision::new);

    // Events are polled only while something may have happened: after a
    // refusal or a failure, and until the recovery they announce is over.
    private volatile boolean watching;
    private final Object eventLock = new Object();
    private final respite_event eventBuffer = new respite_event();
    private boolean inRecovery;

    private Gate(long pointer, Consumer<Event> listener) {
        this.handle = new NativeHandle(this, pointer, RespiteNativeJNI::respite_gate_free);
        this.listener = listener;
    }

    /** A builder starting from the cloud_request defaults. */
    public static Builder builder() {
        return new Builder(Profile.CLOUD_REQUEST.wireName());
    }

    /** A builder starting from a profile's defaults. */
    public static Builder builder(Profile profile) {
        return new Builder(Objects.requireNonNull(profile, "profile").wireName());
    }

    /**
     * A builder starting from the defaults of a profile or component named as the
     * spec writes it ("cloud_request", "usage_sharing", "gate"); the core checks the
     * name when {@code build()} is called.
     */
    public static Builder builder(String profileOrComponent) {
        return new Builder(profileOrComponent);
    }

    /** The refusal message for retry_after seconds (G17), as the core words it. */
    public static String refusalMessage(double retryAfter) {
        return Errors.refusal(retryAfter).getMessage();
    }

    // ------------------------------------------------------------ checking

    /**
     * Admits a call now: the permit (&gt; 0) to report its outcome with, or 0 when
     * refused. One native call, which reads the core's clock itself.
     */
    public long admit() {
        long permit;
        try {
            permit = FastNative.gateAdmitNow(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        return afterAdmit(permit);
    }

    /** As {@link #admit()} at {@code now}. */
    public long admit(double now) {
        long permit;
        try {
            permit = RespiteNativeJNI.respite_gate_admit(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        return afterAdmit(permit);
    }

    private long afterAdmit(long permit) {
        if (permit == 0) {
            watching = true;
        }
        if (watching) {
            pollEvents();
        }
        return permit;
    }

    /** Admits a call now and returns its permit, or throws the refusal with its retry_after (G17). */
    public long acquire() {
        long permit = admit();
        return permit > 0 ? permit : acquireRefused(Respite.now());
    }

    /** As {@link #acquire()} at {@code now}. */
    public long acquire(double now) {
        long permit = admit(now);
        return permit > 0 ? permit : acquireRefused(now);
    }

    /** Admit refused: ask again for the full decision (it may admit by then) or throw the refusal. */
    private long acquireRefused(double now) {
        Decision decision = check(now);
        if (decision.allowed()) {
            return decision.permit();
        }
        throw Errors.refusal(decision.retryAfter());
    }

    /** The full decision now: allowed or not, probe or not, the permit, retry_after. */
    public Decision check() {
        return check(Respite.now());
    }

    /** As {@link #check()} at {@code now}. */
    public Decision check(double now) {
        respite_decision out = decisions.get();
        Decision decision;
        try {
            RespiteNativeJNI.respite_gate_check(handle.get(), now, respite_decision.getCPtr(out), out);
            decision = new Decision(out.getAllowed() != 0, out.getProbe() != 0, out.getPermit(), out.getRetry_after());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        if (!decision.allowed()) {
            watching = true;
        }
        if (watching || decision.probe()) {
            pollEvents();
        }
        return decision;
    }

    /** Seconds until a call may be admitted: 0 when one would be, infinite under recover_never. */
    public double retryAfter() {
        return retryAfter(Respite.now());
    }

    public double retryAfter(double now) {
        try {
            return RespiteNativeJNI.respite_gate_retry_after(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // ----------------------------------------------------------- reporting

    /** Reports a success for an admitted call. */
    public void success(long permit) {
        report(permit, Outcome.SUCCESS);
    }

    /**
     * Reports an outcome for an admitted call now (permit 0: no permit, the current
     * generation's). One native call, which reads the core's clock itself.
     */
    public void report(long permit, Outcome outcome) {
        int code = outcome.code();
        try {
            FastNative.gateReportNow(handle.get(), permit, code);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        afterReport(code);
    }

    /** Reports an outcome with a Retry-After hint in seconds (0: none) at {@code now}. */
    public void report(long permit, Outcome outcome, double retryAfterHint, double now) {
        int code = outcome.code();
        try {
            RespiteNativeJNI.respite_gate_report(handle.get(), permit, code, retryAfterHint, now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        afterReport(code);
    }

    private void afterReport(int code) {
        if (code != 0) {
            watching = true;
        }
        if (watching) {
            pollEvents();
        }
    }

    /** G14: back to closed with the first pause, an empty window and a new generation. */
    public void reset() {
        reset(Respite.now());
    }

    public void reset(double now) {
        try {
            RespiteNativeJNI.respite_gate_reset(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        watching = true;
        pollEvents();
    }

    // --------------------------------------------------------- protected calls

    /**
     * Runs {@code work} if the gate admits it and reports the outcome: success
     * when it returns, and when it throws, the exception's {@link CarriesOutcome}
     * outcome or else {@code transport}. Refused: throws
     * {@link TemporarilyUnavailableException} and {@code work} is not run.
     */
    public <T> T call(Supplier<T> work) {
        return call(work, null);
    }

    /**
     * As {@link #call(Supplier)}, with {@code classifier} telling the outcome of
     * a returned value (e.g. an HTTP response's status); an exception it throws
     * propagates after the outcome {@code unusable} is reported.
     */
    public <T> T call(Supplier<T> work, Function<? super T, Outcome> classifier) {
        long permit = acquire();
        T result;
        try {
            result = work.get();
        } catch (RuntimeException | Error e) {
            reportThrown(permit, e);
            throw e;
        }
        reportResult(permit, result, classifier);
        return result;
    }

    /** As {@link #call(Supplier)} for work that throws checked exceptions. */
    public <T> T run(Callable<T> work) throws Exception {
        long permit = acquire();
        T result;
        try {
            result = work.call();
        } catch (Exception | Error e) {
            reportThrown(permit, e);
            throw e;
        }
        reportResult(permit, result, null);
        return result;
    }

    private <T> void reportResult(long permit, T result, Function<? super T, Outcome> classifier) {
        Outcome outcome;
        try {
            outcome = classifier == null ? Outcome.SUCCESS : classifier.apply(result);
        } catch (RuntimeException e) {
            report(permit, Outcome.UNUSABLE);
            throw e;
        }
        report(permit, outcome == null ? Outcome.SUCCESS : outcome);
    }

    private void reportThrown(long permit, Throwable thrown) {
        if (thrown instanceof CarriesOutcome carrier) {
            report(permit, carrier.outcome(), carrier.retryAfterHint(), Respite.now());
        } else {
            report(permit, Outcome.TRANSPORT);
        }
    }

    // ------------------------------------------------------- state and events

    /** The state now (a pause that has ended reads as probing, or closed when probes = 0). */
    public GateState state() {
        return state(Respite.now());
    }

    public GateState state(double now) {
        try {
            return GateState.values()[RespiteNativeJNI.respite_gate_get_state(handle.get(), now)];
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Statistics since the gate was made. */
    public GateStats stats() {
        respite_gate_stats s = new respite_gate_stats();
        try {
            RespiteNativeJNI.respite_gate_stats_get(handle.get(), respite_gate_stats.getCPtr(s), s);
            return NativeStats.gate(s);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            s.delete();
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Takes the events waiting in the gate now, logs them and gives them to the
     * listener, and returns them. Called by the gate itself after calls that may
     * have made a transition; call it to see events at a precise moment.
     */
    public List<Event> pollEvents() {
        List<Event> taken = new ArrayList<>(2);
        synchronized (eventLock) {
            try {
                long events = respite_event.getCPtr(eventBuffer);
                while (RespiteNativeJNI.respite_gate_next_event(handle.get(), events, eventBuffer) == 1) {
                    Event event = EventLog.toEvent(eventBuffer);
                    int type = eventBuffer.getType();
                    inRecovery = type == EVENT_RECOVERY_STARTED || type == EVENT_RECOVERY_EXTENDED
                            || type == EVENT_PROBING;
                    taken.add(event);
                }
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                Reference.reachabilityFence(this);
            }
            watching = inRecovery;
            EventLog.GATE.forward(taken, listener);
        }
        return taken;
    }

    // --------------------------------------------------------------- lifetime

    /** Raw pointer for the delivery engine of this package (0 once closed). */
    long pointerForEngine() {
        return handle.get();
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return handle.isClosed();
    }

    /** Closes the gate: every later call throws {@link ClosedException} ("gate is closed"). Idempotent. */
    @Override
    public void close() {
        handle.close();
    }

    /** Builds a gate; methods are the spec's setting names in camel case. */
    public static final class Builder extends SettingsBuilder<Builder> {
        private final String profile;
        private Consumer<Event> listener;

        private Builder(String profile) {
            this.profile = profile;
        }

        /** N: counted failures within the window that open the gate (integer 1-1000, default 10). */
        public Builder failuresToEnterRecovery(int value) {
            return set("failures_to_enter_recovery", value);
        }

        /** W: the sliding window failures are counted in, seconds (default 100). */
        public Builder failuresWindowSeconds(double value) {
            return set("failures_window_seconds", value);
        }

        /** R: the first pause, seconds (default 60; 0 or less: the gate never refuses). */
        public Builder recoverySeconds(double value) {
            return set("recovery_seconds", value);
        }

        /** M: each failed probe multiplies the pause by this (1-100, default 1). */
        public Builder recoveryMultiplier(double value) {
            return set("recovery_multiplier", value);
        }

        /** Rmax: the longest pause, seconds (default 300). */
        public Builder maxRecoverySeconds(double value) {
            return set("max_recovery_seconds", value);
        }

        /** P: calls admitted at once when a pause ends (0-1000, default 1; 0 admits every call). */
        public Builder probes(int value) {
            return set("probes", value);
        }

        /** A probe with no outcome by then counts as failed, seconds (default 30). */
        public Builder probeTimeoutSeconds(double value) {
            return set("probe_timeout_seconds", value);
        }

        /** Once open, refuse until reset (default false). */
        public Builder recoverNever(boolean value) {
            return set("recover_never", value);
        }

        /** Count every non-success, 4xx included (default false). */
        public Builder countAllFailures(boolean value) {
            return set("count_all_failures", value);
        }

        /** A Retry-After hint on the failure that opens the gate lengthens the pause (default true). */
        public Builder honourRetryAfter(boolean value) {
            return set("honour_retry_after", value);
        }

        /** Shortens each pause by up to this fraction, at random (0-1, default 0). */
        public Builder jitter(double value) {
            return set("jitter", value);
        }

        /** Seeds the jitter generator; 0 seeds from the operating system. */
        public Builder seed(long value) {
            return set("seed", value);
        }

        /** Also gives every event to this listener (called on the thread that polled it). */
        public Builder onEvent(Consumer<Event> listener) {
            this.listener = listener;
            return this;
        }

        /** The gate; {@link InvalidSettingException} names a setting the core does not accept. */
        public Gate build() {
            long settings = NativeSettings.make(profile, values);
            try {
                return new Gate(RespiteNativeJNI.respite_gate_new(settings), listener);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                NativeSettings.free(settings);
            }
        }
    }
}
