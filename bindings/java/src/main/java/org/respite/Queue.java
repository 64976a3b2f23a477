package org.respite;

import java.time.Duration;
import java.util.Objects;

import org.respite.internal.NativeSettings;
import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;

/**
 * The bounded delivery queue (spec section 4) of byte payloads, copied in:
 * any number of threads may {@link #enqueue} while one consumer takes batches
 * or a {@link DeliveryEngine} drives it.
 */
public final class Queue extends NativeObject {
    private final Policy policy;

    private Queue(long pointer, Policy policy) {
        super(pointer, RespiteNative::respite_queue_free);
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

    /** Queues a copy of {@code payload} now. */
    public void enqueue(byte[] payload) {
        enqueue(payload, Respite.now());
    }

    /** Queues a copy of {@code payload} at {@code now}; refusals are the core's (queue_full, too_large, closed). */
    public void enqueue(byte[] payload, double now) {
        handle.run(p -> RespiteNative.respite_queue_enqueue(p, payload, now));
    }

    /** Queues {@code text} as UTF-8 now. */
    public void enqueue(String text) {
        enqueue(text, Respite.now());
    }

    /** Queues {@code text} as UTF-8 at {@code now}. */
    public void enqueue(String text, double now) {
        enqueue(Utf8.bytes(text), now);
    }

    /** Events queued and not taken. */
    public long pending() {
        return handle.apply(RespiteNative::respite_queue_pending);
    }

    /** D6: drops every pending event whose age reached event_ttl now; returns how many. */
    public long expire() {
        return expire(Respite.now());
    }

    public long expire(double now) {
        return handle.apply(p -> RespiteNative.respite_queue_expire(p, now));
    }

    /** Takes up to {@code maxEvents} events from the head now; null when nothing is pending. */
    public Batch take(int maxEvents) {
        return take(maxEvents, Respite.now());
    }

    /** Takes up to {@code maxEvents} events as a batch to settle and close (D4, Q5); null when none is pending. */
    public Batch take(int maxEvents, double now) {
        long batch = handle.apply(p -> RespiteNative.respite_queue_take(p, maxEvents, now));
        return batch == 0 ? null : new Batch(batch, null);
    }

    /** Q9: true once {@code minPending} events are pending or the queue is shut down; false after the timeout. */
    public boolean awaitPending(long minPending, double timeoutSeconds) {
        return handle.apply(p -> RespiteNative.respite_queue_wait(p, minPending, timeoutSeconds)) == 1;
    }

    /** As {@link #awaitPending(long, double)} with a Duration. */
    public boolean awaitPending(long minPending, Duration timeout) {
        return awaitPending(minPending, Respite.seconds(timeout));
    }

    /** The D9 figures, one consistent snapshot. */
    public QueueStats stats() {
        return handle.apply(NativeStats::queueStats);
    }

    /** D9 on a fresh snapshot: throws {@link InternalException} with every figure when it does not hold. */
    public void checkAccounting() {
        handle.run(RespiteNative::respite_queue_check_accounting);
    }

    /** Q1: refuses every later enqueue ({@link ClosedException}); taking and settling go on. Idempotent. */
    public void shutdown() {
        handle.run(RespiteNative::respite_queue_close);
    }

    /** Whether {@link #shutdown()} was called (or an engine closed the queue). */
    public boolean isShutDown() {
        return handle.apply(RespiteNative::respite_queue_is_closed) == 1;
    }

    /** Shuts the queue down and frees it once no call is inside it (an engine keeps its own reference). */
    @Override
    public void close() {
        if (!handle.isClosed()) {
            shutdown();
        }
        handle.close();
    }

    /** Builds a queue: one method per "queue" setting of the core's table ({@link QueueSettings}). */
    public static final class Builder extends SettingsBuilder<Builder> implements QueueSettings<Builder> {
        private final Policy policy;

        private Builder(Policy policy) {
            this.policy = policy;
        }

        /** The queue; {@link InvalidSettingException} names a setting the core does not accept. */
        public Queue build() {
            return NativeSettings.with("queue", values, s -> new Queue(policy == null
                    ? RespiteNative.respite_queue_new(0, s)
                    : policy.use(p -> RespiteNative.respite_queue_new(p, s)), policy));
        }
    }
}
