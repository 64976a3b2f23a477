package org.respite;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.LongFunction;

import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;

/**
 * The delivery engine (spec section 5): a sender's decisions over a
 * {@link Queue} (settling by its policy) and a {@link Gate} on the caller's
 * clock, without threads, network or sleeping; one thread drives it. Its events
 * go to System.Logger "org.respite.Engine", the gate's to the gate's logger.
 */
public final class DeliveryEngine extends NativeObject {
    private final Queue queue;
    private final Gate gate;
    private final EventLog events;
    private Batch inFlight;

    private DeliveryEngine(long pointer, Queue queue, Gate gate, Consumer<Event> listener) {
        super(pointer, RespiteNative::respite_engine_free);
        this.queue = queue;
        this.gate = gate;
        this.events = new EventLog("org.respite.Engine", listener);
    }

    /** A builder for an engine over {@code queue} and {@code gate}; it settles by the queue's policy. */
    public static Builder builder(Queue queue, Gate gate) {
        return new Builder(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(gate, "gate"));
    }

    public Queue queue() {
        return queue;
    }

    public Gate gate() {
        return gate;
    }

    /** A call into the engine (under its lock), then its events and the gate's waiting ones. */
    private synchronized <T> T step(LongFunction<T> call) {
        return apply(call, this::pollEvents);
    }

    /** What to do next, now. */
    public Action next() {
        return next(Respite.now());
    }

    /** S2, S4, S5: what to do next at {@code now}; expired events are dropped first (D6). */
    public Action next(double now) {
        return Action.ofCode(step(p -> RespiteNative.respite_engine_next(p, now)));
    }

    /** After {@link Action#WAIT}: seconds until the gate admits again (infinite under recover_never); else 0. */
    public synchronized double waitSeconds() {
        return handle.apply(RespiteNative::respite_engine_wait_seconds);
    }

    /** Takes the next batch now; see {@link #take(double)}. */
    public Batch take() {
        return take(Respite.now());
    }

    /** Takes the next batch, admitted by the gate (else {@link TemporarilyUnavailableException}); null when none. */
    public synchronized Batch take(double now) {
        long batch = step(p -> RespiteNative.respite_engine_take(p, now));
        if (batch == 0) {
            return null;
        }
        inFlight = new Batch(batch, this);
        return inFlight;
    }

    /** The batch was answered with {@code httpStatus} (100-599), now. */
    public void settle(Batch batch, int httpStatus) {
        settle(batch, false, httpStatus, 0, Respite.now());
    }

    /** The batch was answered with {@code httpStatus} and a Retry-After hint in seconds (0: none). */
    public void settle(Batch batch, int httpStatus, double retryAfterHint, double now) {
        settle(batch, false, httpStatus, retryAfterHint, now);
    }

    /** Sending the batch did not complete (timeout, refused, reset, DNS, TLS), now. */
    public void settleTransportFailure(Batch batch) {
        settle(batch, true, 0, 0, Respite.now());
    }

    public void settleTransportFailure(Batch batch, double now) {
        settle(batch, true, 0, 0, now);
    }

    /**
     * S3: how sending {@code batch} ended: the outcome goes to the gate, every event
     * is settled by the policy, and the batch is closed (unless the core refuses the input).
     */
    public synchronized void settle(Batch batch, boolean transportFailed, int httpStatus, double retryAfterHint,
                                    double now) {
        // The core only compares the pointer with its batch in flight, which only this lock frees.
        long pointer = batch == null ? 0 : batch.handle.apply(b -> b);
        step(p -> RespiteNative.respite_engine_settle(p, pointer, transportFailed ? 1 : 0, httpStatus,
                retryAfterHint, now));
        // Settled, so batch was the one in flight: the engine freed it.
        inFlight.handle.close();
        inFlight = null;
    }

    /** Starts closing now; see {@link #shutdown(double)}. */
    public void shutdown() {
        shutdown(Respite.now());
    }

    /** S5: starts closing at {@code now} (drains within close_timeout_seconds, or DONE at once while paused). */
    public void shutdown(double now) {
        step(p -> RespiteNative.respite_engine_close(p, now));
    }

    /** Whether {@link #shutdown} was called. */
    public synchronized boolean isShuttingDown() {
        return handle.apply(RespiteNative::respite_engine_is_closing) == 1;
    }

    /** Events left unsent when DONE was reached; -1 before. */
    public synchronized long unsent() {
        return handle.apply(RespiteNative::respite_engine_unsent);
    }

    /** min_entries_per_message: fewer pending events than this and {@link #next} answers IDLE. */
    public int minEntries() {
        return bound(RespiteNative::respite_engine_min_entries);
    }

    /** The most events in one batch (S2: max_entries_per_message, else prefetch_count, else 2 x min). */
    public int maxEntries() {
        return bound(RespiteNative::respite_engine_max_entries);
    }

    private synchronized int bound(LongFunction<Integer> accessor) {
        int value = handle.apply(accessor);
        if (handle.isClosed()) {
            NativeHandle.closed(respite_handle_kind.RESPITE_HANDLE_ENGINE);
        }
        return value;
    }

    /** Figures since the engine was made. */
    public synchronized EngineStats stats() {
        return handle.apply(NativeStats::engineStats);
    }

    /** Takes, logs and returns the engine's waiting events (and the gate's, for the gate's logger); done after every step. */
    public synchronized List<Event> pollEvents() {
        List<Event> taken = handle.isClosed() ? List.of()
                : handle.apply(p -> events.drain(e -> RespiteNative.respite_engine_next_event(p, e)));
        gate.pollIfPending();
        return taken;
    }

    /** Frees the engine now (a batch in flight goes back to the queue's head); the queue and gate stay open. */
    @Override
    public synchronized void close() {
        if (inFlight != null) {
            inFlight.handle.close();
            inFlight = null;
        }
        // Every method holds the engine's lock, so no call is inside the core: freed at once.
        handle.close();
    }

    /**
     * Builds an engine from "sender" settings ({@link SenderSettings}); it uses
     * min/max_entries_per_message, close_timeout_seconds and name.
     */
    public static final class Builder extends SettingsBuilder<Builder> implements SenderSettings<Builder> {
        private final Queue queue;
        private final Gate gate;
        private Consumer<Event> listener;

        private Builder(Queue queue, Gate gate) {
            this.queue = queue;
            this.gate = gate;
        }

        /** Also gives every engine event to this listener. */
        public Builder onEvent(Consumer<Event> value) {
            listener = value;
            return this;
        }

        /** The engine; {@link InvalidSettingException} names a setting the core does not accept. */
        public DeliveryEngine build() {
            return NativeSettings.with("sender", values, s -> queue.handle.apply(q -> gate.handle.apply(
                    g -> new DeliveryEngine(RespiteNative.respite_engine_new(q, g, s), queue, gate, listener))));
        }
    }
}
