package org.respite;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_decision;
import org.respite.swig.respite_fleet_view;

/**
 * A recovery gate (spec section 2): shared by every thread that calls one
 * service, it refuses calls for a while after recent failures. Methods without
 * {@code now} use the core's clock, {@link Respite#now()}. Its events go to
 * {@code System.Logger} "org.respite.Gate" with the core's line, and to the listener.
 * With fleet settings ({@code Gate.builder().name("billing").fleetUrl(...)}) it is a
 * fleet gate (spec section 11): the hosts' gates of one name share their openings
 * through Redis, no call waits on it, and its events (fleet_paused,
 * fleet_store_lost, fleet_rejoined, fleet_probing) are the gate's.
 */
public final class Gate extends NativeObject {
    private final EventLog events;
    private final Classifier classifier;
    private final ThreadLocal<respite_decision> decisions = ThreadLocal.withInitial(respite_decision::new);
    private final FastPath fast;

    /* The fleet gate whose local gate this is (0: none); used only inside the handle, which keeps it alive. */
    private final long fleet;

    private Gate(long pointer, LongConsumer free, long fleet, Consumer<Event> listener, Classifier classifier) {
        super(pointer, free);
        this.fleet = fleet;
        this.events = new EventLog("org.respite.Gate", listener);
        this.classifier = classifier;
        this.fast = new FastPath(pointer);
    }

    /** A builder starting from the cloud_request defaults. */
    public static Builder builder() {
        return new Builder(Profile.CLOUD_REQUEST.wireName());
    }

    /** A builder starting from a profile's defaults. */
    public static Builder builder(Profile profile) {
        return new Builder(Objects.requireNonNull(profile, "profile").wireName());
    }

    /** A builder starting from the defaults of a profile or component by its spec name ("gate"). */
    public static Builder builder(String profileOrComponent) {
        return new Builder(profileOrComponent);
    }

    /** The refusal message for retry_after seconds (G17), as the core words it. */
    public static String refusalMessage(double retryAfter) {
        return RespiteNative.respite_refusal_message(retryAfter);
    }

    /** The gate's name (the {@code name} setting; "" when unset), which starts its log lines. */
    public String name() {
        return handle.apply(RespiteNative::respite_gate_name);
    }

    /** Admits a call now: the permit (&gt; 0) to report its outcome with, or 0 when refused. */
    public long admit() {
        return admit(true, 0, false);
    }

    /** As {@link #admit()} at {@code now}. */
    public long admit(double now) {
        return admit(false, now, false);
    }

    /** Admits a call now and returns its permit, or throws the refusal with its retry_after (G17). */
    public long acquire() {
        return admit(true, 0, true);
    }

    /** As {@link #acquire()} at {@code now}. */
    public long acquire(double now) {
        return admit(false, now, true);
    }

    private long admit(boolean clock, double now, boolean raise) {
        return admit(fastBlock(clock, now), clock, now, raise);
    }

    /* block: this thread's fast-path block (K2: the closed path is decided here), or null. */
    private long admit(FastPath.Block block, boolean clock, double now, boolean raise) {
        if (block != null) {
            long permit = fast.admit(block);
            if (permit != 0) {
                afterFast();
                return permit;
            }
        }
        long pointer = handle.enter();
        try {
            return admit0(pointer, clock, now, raise);
        } finally {
            handle.exit();
        }
    }

    /** The full decision now: allowed or not, probe or not, the permit, retry_after. */
    public Decision check() {
        return check(Respite.now());
    }

    /** As {@link #check()} at {@code now}. */
    public Decision check(double now) {
        respite_decision out = decisions.get();
        return apply(p -> {
            RespiteNative.respite_gate_check(p, now, out);
            return NativeStats.decision(out);
        }, this::pollIfPending);
    }

    /** Seconds until a call may be admitted: 0 when one would be, infinite under recover_never. */
    public double retryAfter() {
        return retryAfter(Respite.now());
    }

    public double retryAfter(double now) {
        return handle.apply(p -> RespiteNative.respite_gate_retry_after(p, now));
    }

    /** {@link #retryAfter()} as a Duration (the longest Duration under recover_never). */
    public Duration retryAfterDuration() {
        return Respite.duration(retryAfter());
    }

    /** Reports a success for an admitted call. */
    public void success(long permit) {
        report(permit, Outcome.SUCCESS);
    }

    /** Reports an outcome for an admitted call now (permit 0: the current generation's). */
    public void report(long permit, Outcome outcome) {
        report(permit, outcome, 0, true, 0);
    }

    /** Reports an outcome with a Retry-After hint in seconds (0: none) at {@code now}. */
    public void report(long permit, Outcome outcome, double retryAfterHint, double now) {
        report(permit, outcome, retryAfterHint, false, now);
    }

    private void report(long permit, Outcome outcome, double retryAfterHint, boolean clock, double now) {
        report(outcome == Outcome.SUCCESS ? fastBlock(clock, now) : null, permit, outcome, retryAfterHint, clock, now);
    }

    /* block: as for admit; a success without a hint is settled here when K3 allows. */
    private void report(FastPath.Block block, long permit, Outcome outcome, double retryAfterHint, boolean clock,
            double now) {
        if (block != null && outcome == Outcome.SUCCESS && retryAfterHint == 0 && !handle.isClosed()
                && fast.success(block, permit)) {
            afterFast();
            return;
        }
        long pointer = handle.enter();
        try {
            report0(pointer, permit, outcome.code(), retryAfterHint, clock, now);
        } finally {
            handle.exit();
        }
    }

    /** G14: back to closed with the first pause, an empty window and a new generation. */
    public void reset() {
        reset(Respite.now());
    }

    public void reset(double now) {
        apply(p -> RespiteNative.respite_gate_reset(p, now), this::pollIfPending);
    }

    /* This thread's fast-path block when the call may be decided here: a time
     * the core would accept (K2; else the core refuses it) and a gate not closed. */
    private FastPath.Block fastBlock(boolean clock, double now) {
        return (clock || (now >= 0 && now <= Double.MAX_VALUE)) && !handle.isClosed() ? fast.block() : null;
    }

    /* K4: the events rule after a decision made here. */
    private void afterFast() {
        if (fast.eventsWaiting()) {
            pollEvents();
        }
    }

    /** This thread's closed admits decided in Java (the replay test's proof that the fast path ran). */
    long fastAdmits() {
        return fast.admittedHere();
    }

    /** How many counter blocks the fast path took from the core (tests: bounded by the threads alive). */
    int fastBlocks() {
        return fast.blocksTaken();
    }

    /* One JNI crossing each, events rule included (fast_native.c); clock: the core's, else now. */
    private native long admit0(long pointer, boolean clock, double now, boolean raise);

    private native void report0(long pointer, long permit, int outcome, double hint, boolean clock, double now);

    /** The events rule, also for the calls an engine or client makes into this gate: take them when any wait. */
    void pollIfPending() {
        handle.run(p -> {
            if (RespiteNative.respite_gate_events_pending(p) > 0) {
                pollEvents();
            }
        });
    }

    /**
     * Runs {@code work} if the gate admits it and reports what its {@link Classifier}
     * makes of the result or exception (by default: an exception that is not an
     * I/O, timeout or {@link CarriesOutcome} failure is the caller's own and does
     * not count; a returned HTTP response counts by its status). The exception is
     * rethrown unchanged. Refused: throws {@link TemporarilyUnavailableException}
     * and {@code work} is not run.
     */
    public <T, E extends Exception> T call(CheckedSupplier<T, E> work) throws E {
        return call(work, null);
    }

    /**
     * As {@link #call(CheckedSupplier)}, with {@code classifier} telling the outcome of
     * a returned value (e.g. an HTTP response's status; null: success); an exception
     * it throws propagates after the outcome {@code unusable} is reported.
     */
    public <T, E extends Exception> T call(CheckedSupplier<T, E> work, Function<? super T, Outcome> classifier)
            throws E {
        FastPath.Block block = fastBlock(true, 0); // one look-up for the admit and the report
        long permit = admit(block, true, 0, true);
        T result;
        try {
            result = work.get();
        } catch (Exception | Error e) {
            report(block, permit, this.classifier.ofException(e));
            throw e;
        }
        return settle(block, permit, result, classifier);
    }

    /** As {@link #call(CheckedSupplier)} for a {@link Callable}. */
    public <T> T run(Callable<T> work) throws Exception {
        return call(work::call);
    }

    /**
     * Runs asynchronous work if the gate admits it; the outcome is reported when its
     * stage completes, by the gate's {@link Classifier} (a stage failed with a
     * {@code CompletionException} is classified by its cause). Refused: a stage
     * already failed with {@link TemporarilyUnavailableException}, and {@code work}
     * is not run.
     */
    public <T> CompletableFuture<T> callAsync(Supplier<? extends CompletionStage<T>> work) {
        long permit;
        CompletionStage<T> stage;
        try {
            permit = acquire();
        } catch (RuntimeException refused) {
            return CompletableFuture.failedFuture(refused);
        }
        try {
            stage = Objects.requireNonNull(work.get(), "the work returned no stage");
        } catch (RuntimeException | Error e) {
            report(permit, classifier.ofException(e));
            return CompletableFuture.failedFuture(e);
        }
        CompletableFuture<T> done = new CompletableFuture<>();
        stage.whenComplete((result, failure) -> {
            try {
                if (failure != null) {
                    report(permit, classifier.ofException(failure));
                    done.completeExceptionally(failure);
                } else {
                    done.complete(settle(null, permit, result, null)); // another thread: its own block
                }
            } catch (RuntimeException | Error e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    /** {@code work} through this gate, as {@link #call(CheckedSupplier)}, each time it is called. */
    public <T> Supplier<T> decorateSupplier(Supplier<T> work) {
        return () -> call(work::get);
    }

    /** {@code work} through this gate, as {@link #call(CheckedSupplier)}, each time it is called. */
    public <T> Callable<T> decorateCallable(Callable<T> work) {
        return () -> call(work::call);
    }

    /** {@code work} through this gate, as {@link #call(CheckedSupplier)}, each time it is run. */
    public Runnable decorateRunnable(Runnable work) {
        return () -> call(() -> {
            work.run();
            return null;
        });
    }

    /** {@code work} through this gate, as {@link #call(CheckedSupplier)}, each time it is called. */
    public <T, E extends Exception> CheckedSupplier<T, E> decorateCheckedSupplier(CheckedSupplier<T, E> work) {
        return () -> call(work);
    }

    /** {@code work} through this gate, as {@link #call(CheckedSupplier)}, each time it is run. */
    public <E extends Exception> CheckedRunnable<E> decorateCheckedRunnable(CheckedRunnable<E> work) {
        return () -> call(() -> {
            work.run();
            return null;
        });
    }

    /** {@code work} through this gate, as {@link #callAsync}, each time it is called. */
    public <T> Supplier<CompletionStage<T>> decorateCompletionStage(Supplier<? extends CompletionStage<T>> work) {
        return () -> callAsync(work);
    }

    /** The classifier {@link #call} and the retry helper use for this gate. */
    public Classifier classifier() {
        return classifier;
    }

    /** Reports a returned value's outcome (by {@code byResult}, else the classifier) and returns it. */
    private <T> T settle(FastPath.Block block, long permit, T result, Function<? super T, Outcome> byResult) {
        Verdict verdict;
        try {
            Outcome outcome = byResult == null ? null : byResult.apply(result);
            verdict = byResult == null ? classifier.ofResult(result)
                    : outcome == null ? Verdict.SUCCESS : Verdict.of(outcome);
        } catch (RuntimeException e) {
            report(permit, Outcome.UNUSABLE);
            throw e;
        }
        report(block, permit, verdict);
        return result;
    }

    /** Reports a classified outcome now (the caller's own failure as request_error). */
    void report(long permit, Verdict verdict) {
        report(verdict.outcome() == Outcome.SUCCESS ? fastBlock(true, 0) : null, permit, verdict);
    }

    private void report(FastPath.Block block, long permit, Verdict verdict) {
        report(block, permit, verdict.outcome(), verdict.retryAfterHint(), true, 0);
    }

    /** The state now (a pause that has ended reads as probing, or closed when probes = 0). */
    public GateState state() {
        return state(Respite.now());
    }

    public GateState state(double now) {
        return GateState.ofCode(handle.apply(p -> RespiteNative.respite_gate_get_state(p, now)));
    }

    /** Statistics since the gate was made. */
    public GateStats stats() {
        return handle.apply(NativeStats::gateStats);
    }

    /** A fleet gate's fleet as its thread last read it (F12); null for a gate built without fleet settings. */
    public FleetView fleetView() {
        respite_fleet_view view = new respite_fleet_view();
        try {
            return handle.apply(p -> {
                if (fleet == 0 && p != 0) {
                    return null;
                }
                RespiteNative.respite_fleet_gate_view(p == 0 ? 0 : fleet, view); // closed: the core's ClosedException
                return NativeStats.fleet(view);
            });
        } finally {
            view.delete();
        }
    }

    /** Takes, logs and returns the events waiting now (done by every call that leaves some waiting). */
    public List<Event> pollEvents() {
        return handle.apply(p -> events.drain(e -> RespiteNative.respite_gate_next_event(p, e)));
    }

    /**
     * Drops this reference (see {@link NativeObject#close()}); the closed path's
     * view of the gate's memory goes with it when no other thread used it.
     */
    @Override
    public void close() {
        super.close();
        fast.close();
    }

    /**
     * Builds a gate: one method per "gate" and "fleet" setting of the core's table
     * ({@link GateSettings}, {@link FleetSettings}); any fleet setting makes it a fleet gate.
     */
    public static final class Builder extends SettingsBuilder<Builder>
            implements GateSettings<Builder>, FleetSettings<Builder> {
        private final Map<String, Object> fleetValues = new LinkedHashMap<>();
        private final String profile;
        private Consumer<Event> listener;
        private Classifier classifier = Classifier.DEFAULT;

        private Builder(String profile) {
            this.profile = profile;
        }

        /** Also gives every event to this listener (on the thread that took it). */
        public Builder onEvent(Consumer<Event> listener) {
            this.listener = listener;
            return this;
        }

        /** What counts as the service's failure in {@link Gate#call} and the retry helper (default {@link Classifier#DEFAULT}). */
        public Builder classifier(Classifier value) {
            this.classifier = Objects.requireNonNull(value, "classifier");
            return this;
        }

        /** The gate's name (its "gate" setting; the fleet's too unless fleetSetting("name", ...) says otherwise). */
        @Override
        public Builder name(String value) {
            return gateSetting("name", value);
        }

        /** Sets a "fleet" setting by its spec name: the gate becomes a fleet gate. */
        @Override
        public Builder fleetSetting(String name, Object value) {
            fleetValues.put(name, value);
            return this;
        }

        /** The gate; {@link InvalidSettingException} names a setting the core does not accept. */
        public Gate build() {
            if (fleetValues.isEmpty()) {
                return NativeSettings.with(profile, values,
                        s -> new Gate(RespiteNative.respite_gate_new(s), RespiteNative::respite_gate_free, 0, listener, classifier));
            }
            Map<String, Object> fleet = new LinkedHashMap<>();
            fleet.put("name", values.getOrDefault("name", ""));
            fleet.putAll(fleetValues);
            return NativeSettings.with(profile, values, s -> NativeSettings.with("fleet", fleet, f -> fleetGate(s, f)));
        }

        /* Owned through its local gate, where every call goes; freeing it stops its thread and drops the gate. */
        private Gate fleetGate(long gateSettings, long fleetSettings) {
            long fleet = RespiteNative.respite_fleet_gate_new(gateSettings, fleetSettings);
            return new Gate(RespiteNative.respite_fleet_gate_gate(fleet), p -> RespiteNative.respite_fleet_gate_free(fleet),
                    fleet, listener, classifier);
        }
    }
}
