package org.respite;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

import org.respite.internal.Errors;
import org.respite.internal.NativeHandle;
import org.respite.internal.NativeSettings;
import org.respite.swig.RespiteNativeJNI;
import org.respite.swig.respite_queue_stats;

/**
 * The bounded delivery queue (spec section 4): events are byte payloads,
 * copied in. Safe to share: any number of threads may {@link #enqueue} while
 * one consumer takes batches ({@link #take}) or a {@link DeliveryEngine}
 * drives it.
 *
 * <pre>{@code
 * try (Queue queue = Queue.builder(policy).overflow(Overflow.DROP_NEWEST).maxBytes(1 << 20).build()) {
 *     queue.enqueue("{\"temperature\": 21.5}");        // QueueFullException, TooLargeException, ...
 * }
 * }</pre>
 *
 * {@link #shutdown()} refuses later events and lets the consumer drain;
 * {@link #close()} also shuts down, then releases the queue: every later call
 * throws {@link ClosedException} ("queue is closed").
 */
public final class Queue implements AutoCloseable {
    private final NativeHandle handle;
    private final Policy policy;

    private Queue(long pointer, Policy policy) {
        this.handle = new NativeHandle(this, pointer, RespiteNativeJNI::respite_queue_free);
        this.policy = policy;
    }

    /** A builder for a queue under the built-in "@default" policy (D8). */
    public static Builder builder() {
        return new Builder(null);
    }

    /** A builder for a queue under {@code policy} (its capacity, event_ttl and retry_times are copied). */
    public static Builder builder(Policy policy) {
        return new Builder(Objects.requireNonNull(policy, "policy"));
    }

    /** The policy given to the builder, or null for "@default". */
    public Policy policy() {
        return policy;
    }

    long pointer() {
        return handle.get();
    }

    // ------------------------------------------------------------- producers

    /** Queues a copy of {@code payload} now. */
    public void enqueue(byte[] payload) {
        enqueue(payload, Respite.now());
    }

    /**
     * Queues a copy of {@code payload} at {@code now}. Throws
     * {@link QueueFullException} (overflow drop_newest at capacity),
     * {@link TooLargeException} (larger than max_bytes), {@link ClosedException}
     * (after shutdown), {@link InvalidArgumentException} (empty or null payload),
     * with the core's message.
     */
    public void enqueue(byte[] payload, double now) {
        try {
            RespiteNativeJNI.respite_queue_enqueue(handle.get(), payload, now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Queues {@code text} as UTF-8 now. */
    public void enqueue(String text) {
        enqueue(text, Respite.now());
    }

    /** Queues {@code text} as UTF-8 at {@code now}. */
    public void enqueue(String text, double now) {
        enqueue(text == null ? null : text.getBytes(StandardCharsets.UTF_8), now);
    }

    // -------------------------------------------------------------- consumer

    /** Events queued and not taken. */
    public long pending() {
        try {
            return RespiteNativeJNI.respite_queue_pending(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** D6: drops every pending event whose age reached event_ttl now; returns how many. */
    public long expire() {
        return expire(Respite.now());
    }

    public long expire(double now) {
        try {
            return RespiteNativeJNI.respite_queue_expire(handle.get(), now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Takes up to {@code maxEvents} events from the head now; null when nothing is pending. */
    public Batch take(int maxEvents) {
        return take(maxEvents, Respite.now());
    }

    /**
     * Takes up to {@code maxEvents} (&ge; 1) events from the head as an in-flight
     * batch (dropping expired events it meets); null when nothing is pending.
     * Settle its events, then close it: retried and unsettled events go back to
     * the head then (D4, Q5).
     */
    public Batch take(int maxEvents, double now) {
        long batch;
        try {
            batch = RespiteNativeJNI.respite_queue_take(handle.get(), maxEvents, now);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
        return batch == 0 ? null : Batch.owned(batch);
    }

    /**
     * Q9: blocks until at least {@code minPending} events are pending or the queue
     * is shut down (true), or {@code timeoutSeconds} pass (false).
     */
    public boolean awaitPending(long minPending, double timeoutSeconds) {
        try {
            return RespiteNativeJNI.respite_queue_wait(handle.get(), minPending, timeoutSeconds) == 1;
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // --------------------------------------------------------------- figures

    /** The D9 figures, one consistent snapshot. */
    public QueueStats stats() {
        respite_queue_stats s = new respite_queue_stats();
        try {
            RespiteNativeJNI.respite_queue_stats_get(handle.get(), respite_queue_stats.getCPtr(s), s);
            return NativeStats.queue(s);
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            s.delete();
            Reference.reachabilityFence(this);
        }
    }

    /** D9 on a fresh snapshot: throws {@link InternalException} with every figure when it does not hold. */
    public void checkAccounting() {
        try {
            RespiteNativeJNI.respite_queue_check_accounting(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    // -------------------------------------------------------------- lifetime

    /** Q1: refuses every later enqueue ({@link ClosedException}); taking and settling go on. Idempotent. */
    public void shutdown() {
        try {
            RespiteNativeJNI.respite_queue_close(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Whether {@link #shutdown()} was called (or an engine closed the queue). */
    public boolean isShutDown() {
        try {
            return RespiteNativeJNI.respite_queue_is_closed(handle.get()) == 1;
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    /**
     * Shuts the queue down (waking threads in {@link #awaitPending}) and drops it:
     * later calls throw {@link ClosedException}. Pending events are freed once no
     * thread and no engine uses the queue any more. Batches already taken stay
     * readable. Idempotent.
     */
    @Override
    public void close() {
        long pointer = handle.get();
        if (pointer != 0) {
            try {
                RespiteNativeJNI.respite_queue_close(pointer);
            } finally {
                Reference.reachabilityFence(this);
            }
        }
        handle.close();
    }

    /** Builds a queue; methods are the spec's "queue" setting names in camel case. */
    public static final class Builder extends SettingsBuilder<Builder> {
        private final Policy policy;

        private Builder(Policy policy) {
            this.policy = policy;
        }

        /** What enqueue does at capacity (default drop_oldest). */
        public Builder overflow(Overflow value) {
            return set("overflow", value);
        }

        /** The most payload bytes pending at once; 0: no byte limit (default 0). */
        public Builder maxBytes(long value) {
            return set("max_bytes", value);
        }

        /** The queue; {@link InvalidSettingException} names a setting the core does not accept. */
        public Queue build() {
            if (policy != null && policy.isClosed()) {
                throw NativeHandle.closed("policy");
            }
            long settings = NativeSettings.make("queue", values);
            try {
                return new Queue(RespiteNativeJNI.respite_queue_new(policy == null ? 0 : policy.pointerForQueue(),
                        settings), policy);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                NativeSettings.free(settings);
                Reference.reachabilityFence(policy);
            }
        }
    }
}
