package org.respite;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

import org.respite.internal.Errors;
import org.respite.internal.EventLog;
import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNativeJNI;
import org.respite.swig.respite_engine_stats;
import org.respite.swig.respite_event;

/**
 * The delivery engine (spec section 5, S1-S5): a sender's decisions on the
 * caller's clock, joining a {@link Queue}, its {@link Policy} and a
 * {@link Gate}, without threads, network or sleeping. One thread drives it
 * (its methods are synchronized, so misuse from several threads is safe but
 * serialised); producers only touch the queue.
 *
 * <pre>{@code
 * for (;;) {
 *     switch (engine.next()) {
 *         case SEND -> {
 *             Batch batch = engine.take();
 *             int status = post(batch.texts());          // your HTTP call
 *             engine.settle(batch, status);              // or settleTransportFailure(batch)
 *         }
 *         case WAIT -> Thread.sleep((long) (engine.waitSeconds() * 1000));
 *         case IDLE -> queue.awaitPending(engine.minEntries(), 1.0);
 *         case DONE -> { return; }
 *     }
 * }
 * }</pre>
 *
 * Engine events (unsent_at_close) go to System.Logger "org.respite.Engine" and
 * the listener; the gate's own events go to the gate's logger and listener.
 */
public final class DeliveryEngine implements AutoCloseable {
    private final NativeHandle handle;
    private final Queue queue;
    private final Gate gate;
    private final Policy policy;
    private final Consumer<Event> listener;
    private final respite_event eventBuffer = new respite_event();
    private Batch inFlight;

    private DeliveryEngine(long pointer, Queue queue, Gate gate, Policy policy, Consumer<Event> listener) {
        this.handle = new NativeHandle(this, pointer, freeKeeping(new Object[] {queue, gate, policy}));
        this.queue = queue;
        this.gate = gate;
        this.policy = policy;
        this.listener = listener;
    }

    /*
     * The engine borrows the queue, gate and policy: their Java owners must stay
     * reachable (so their cleaners wait) until the engine itself is freed. The
     * action is made here so that it cannot capture the engine.
     */
    private static java.util.function.LongConsumer freeKeeping(Object[] parts) {
        return pointer -> {
            RespiteNativeJNI.respite_engine_free(pointer);
            java.lang.ref.Reference.reachabilityFence(parts);
        };
    }

    /**
     * A builder for an engine over {@code queue} and {@code gate}; give the queue's
     * policy with {@link Builder#policy} (none: "@default").
     */
    public static Builder builder(Queue queue, Gate gate) {
        return new Builder(Objects.requireNonNull(queue, "queue"), Objects.requireNonNull(gate, "gate"));
    }

    public Queue queue() {
        return queue;
    }

    public Gate gate() {
        return gate;
    }

    /** The policy given to the builder, or null for "@default". */
    public Policy policy() {
        return policy;
    }

    // --------------------------------------------------------------- the loop

    /** What to do next, now. */
    public Action next() {
        return next(Respite.now());
    }

    /** S2, S4, S5: what to do next at {@code now}; expired events are dropped first (D6). */
    public synchronized Action next(double now) {
        int action;
        try {
            action = RespiteNativeJNI.respite_engine_next(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            pollEvents();
        }
        return Action.values()[action];
    }

    /** After {@link Action#WAIT}: seconds until the gate admits again (infinite under recover_never); else 0. */
    public synchronized double waitSeconds() {
        return RespiteNativeJNI.respite_engine_wait_seconds(handle.get());
    }

    /** Takes the next batch now; see {@link #take(double)}. */
    public Batch take() {
        return take(Respite.now());
    }

    /**
     * Takes the next batch (up to {@link #maxEntries()} events) and admits it
     * through the gate; null when nothing is pending. Refused by the gate:
     * {@link TemporarilyUnavailableException} with retry_after, the events stay
     * queued. Send the batch, then {@link #settle} it.
     */
    public synchronized Batch take(double now) {
        long batch;
        try {
            batch = RespiteNativeJNI.respite_engine_take(handle.get(), now);
        } catch (RuntimeException e) {
            RuntimeException error = Errors.translate(e);
            if (error instanceof TemporarilyUnavailableException) {
                // The same message, with the gate's retry_after at that time (G17).
                error = Errors.refusal(gate.retryAfter(now));
            }
            throw error;
        } finally {
            pollEvents();
        }
        if (batch == 0) {
            return null;
        }
        inFlight = Batch.ofEngine(batch, this);
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
     * S3: reports how sending {@code batch} (the one {@link #take} returned) ended:
     * the outcome goes to the gate with the batch's permit, and every event is
     * settled by the policy (delivered, retried to the head, discarded or
     * retries_exhausted). The batch is closed afterwards. An invalid status, hint
     * or time is refused before anything is reported; the batch stays in flight.
     */
    public synchronized void settle(Batch batch, boolean transportFailed, int httpStatus, double retryAfterHint,
                                    double now) {
        long pointer = batch == null ? 0 : batch.pointer();
        try {
            RespiteNativeJNI.respite_engine_settle(handle.get(), pointer, transportFailed ? 1 : 0, httpStatus,
                    retryAfterHint, now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            pollEvents();
        }
        // Settled: the engine freed it.
        if (batch != null) {
            batch.detach();
        }
        if (inFlight == batch) {
            inFlight = null;
        }
    }

    /** Starts closing now; see {@link #shutdown(double)}. */
    public void shutdown() {
        shutdown(Respite.now());
    }

    /**
     * S5: starts closing at {@code now}: the queue refuses new events; if the gate
     * refuses now, {@link #next} answers DONE at once and pending events are
     * unsent; otherwise it drains, sending final batches even below the minimum,
     * until the queue is empty, close_timeout_seconds pass or the gate refuses.
     * Idempotent (the first call's time sets the deadline).
     */
    public synchronized void shutdown(double now) {
        try {
            RespiteNativeJNI.respite_engine_close(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            pollEvents();
        }
    }

    /** Whether {@link #shutdown} was called. */
    public synchronized boolean isShuttingDown() {
        return RespiteNativeJNI.respite_engine_is_closing(handle.get()) == 1;
    }

    /** Events left unsent when DONE was reached; -1 before. */
    public synchronized long unsent() {
        try {
            return RespiteNativeJNI.respite_engine_unsent(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        }
    }

    /** min_entries_per_message: fewer pending events than this and {@link #next} answers IDLE. */
    public synchronized int minEntries() {
        return checkedBound(RespiteNativeJNI.respite_engine_min_entries(handle.get()));
    }

    /** The most events in one batch (S2: max_entries_per_message, else prefetch_count, else 2 x min). */
    public synchronized int maxEntries() {
        return checkedBound(RespiteNativeJNI.respite_engine_max_entries(handle.get()));
    }

    private int checkedBound(int value) {
        if (handle.isClosed()) {
            throw NativeHandle.closed("engine");
        }
        return value;
    }

    /** Figures since the engine was made. */
    public synchronized EngineStats stats() {
        respite_engine_stats s = new respite_engine_stats();
        try {
            RespiteNativeJNI.respite_engine_stats_get(handle.get(), respite_engine_stats.getCPtr(s), s);
            return NativeStats.engine(s);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            s.delete();
        }
    }

    /**
     * Takes the engine's waiting events (unsent_at_close), logs them and gives
     * them to the listener, and returns them; the gate's waiting events are
     * polled too (they go to the gate's logger and listener). Called after every
     * step of the loop; public to see events at a precise moment.
     */
    public synchronized List<Event> pollEvents() {
        List<Event> taken = new ArrayList<>(1);
        long pointer = handle.get();
        if (pointer != 0) {
            long events = respite_event.getCPtr(eventBuffer);
            try {
                while (RespiteNativeJNI.respite_engine_next_event(pointer, events, eventBuffer) == 1) {
                    taken.add(EventLog.toEvent(eventBuffer));
                }
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
        }
        EventLog.ENGINE.forward(taken, listener);
        if (!gate.isClosed()) {
            gate.pollEvents();
        }
        return taken;
    }

    // --------------------------------------------------------------- lifetime

    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Frees the engine now: a batch still in flight goes back to the head of the
     * queue, its attempt not counted. Later calls throw {@link ClosedException}
     * ("engine is closed"). The queue, gate and policy stay open. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (inFlight != null) {
            inFlight.detach();
            inFlight = null;
        }
        // Every method holds the engine's lock, so no thread is inside the core with it.
        handle.closeAndFree();
    }

    /** Builds an engine; methods are the spec's "sender" setting names in camel case. */
    public static final class Builder extends SettingsBuilder<Builder> {
        private final Queue queue;
        private final Gate gate;
        private Policy policy;
        private Consumer<Event> listener;

        private Builder(Queue queue, Gate gate) {
            this.queue = queue;
            this.gate = gate;
            this.policy = queue.policy();
        }

        /** The queue's policy (by default the one the queue was built with; null: "@default"). */
        public Builder policy(Policy value) {
            policy = value;
            return this;
        }

        /** S2: fewer pending events than this and the sender idles (1-1000000, default 50). */
        public Builder minEntriesPerMessage(int value) {
            return set("min_entries_per_message", value);
        }

        /** S2: the most events in one batch; 0 derives it (default 0). */
        public Builder maxEntriesPerMessage(int value) {
            return set("max_entries_per_message", value);
        }

        /** S5: how long closing may drain, seconds (0-86400, default 5). */
        public Builder closeTimeoutSeconds(double value) {
            return set("close_timeout_seconds", value);
        }

        /** Also gives every engine event to this listener. */
        public Builder onEvent(Consumer<Event> value) {
            listener = value;
            return this;
        }

        /** The engine; {@link InvalidSettingException}, or {@link InvalidArgumentException} for a policy that is not the queue's. */
        public DeliveryEngine build() {
            if (policy != null && policy.isClosed()) {
                throw NativeHandle.closed("policy");
            }
            long settings = NativeSettings.make("sender", values);
            try {
                long pointer = RespiteNativeJNI.respite_engine_new(queue.pointer(), gate.pointerForEngine(), settings);
                return new DeliveryEngine(pointer, queue, gate, policy, listener);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                NativeSettings.free(settings);
                java.lang.ref.Reference.reachabilityFence(queue);
                java.lang.ref.Reference.reachabilityFence(gate);
                java.lang.ref.Reference.reachabilityFence(policy);
            }
        }
    }
}
