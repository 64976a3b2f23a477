package org.respite;

import java.lang.ref.WeakReference;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.respite.internal.NativeSettings;
import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;

/**
 * A background HTTP sender (spec section 5): {@link #enqueue} never waits for
 * the network; the sender's native thread POSTs batches through its gate.
 * Its events (S6) go to {@code System.Logger} "org.respite.Sender" with the
 * core's lines; the thread is native, so one shared daemon thread takes them
 * every 50 ms (and flush, stats and close do).
 */
public final class Sender extends NativeObject {
    private static final long POLL_MILLIS = 50;
    private static final ScheduledExecutorService POLLER = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "respite-sender-events");
        thread.setDaemon(true);
        return thread;
    });

    private final EventLog events;
    private final ScheduledFuture<?> polling;
    private volatile SenderStats finalStats;
    private long unsent = -1;

    private Sender(long pointer, Consumer<Event> listener) {
        super(pointer, RespiteNative::respite_sender_free);
        this.events = new EventLog("org.respite.Sender", listener);
        // The task holds the sender only weakly, so an abandoned sender can still be cleaned.
        WeakReference<Sender> self = new WeakReference<>(this);
        this.polling = POLLER.scheduleWithFixedDelay(() -> pollWeak(self), POLL_MILLIS, POLL_MILLIS,
                TimeUnit.MILLISECONDS);
    }

    private static void pollWeak(WeakReference<Sender> self) {
        Sender sender = self.get();
        if (sender != null) {
            try {
                sender.pollEvents();
            } catch (RuntimeException ignored) {
                // A failing listener must not stop the polling of other senders.
            }
        }
    }

    /** A builder for a sender posting to {@code url}. */
    public static Builder builder(String url) {
        return new Builder().url(url);
    }

    /** A builder; {@link Builder#url} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /** Queues one event (S1, S10) without waiting for the network; refusals are the core's (queue_full, too_large, closed). */
    public void enqueue(byte[] event) {
        handle.run(p -> RespiteNative.respite_sender_enqueue(p, event));
    }

    /** As {@link #enqueue(byte[])} with the text's UTF-8 bytes. */
    public void enqueue(String event) {
        enqueue(Utf8.bytes(event));
    }

    /** S7: adds a header to every later request (name an HTTP token, value without line breaks). */
    public void addHeader(String name, String value) {
        handle.run(p -> RespiteNative.respite_sender_add_header(p, name, value));
    }

    /**
     * S11: sends what is queued (below min_entries_per_message too) and waits
     * up to {@code timeoutSeconds} until nothing is pending or in flight.
     *
     * @throws TemporarilyUnavailableException at once while paused (events stay queued)
     * @throws TransportException when the time ran out
     */
    public void flush(double timeoutSeconds) {
        apply(p -> RespiteNative.respite_sender_flush(p, timeoutSeconds), this::pollEvents);
    }

    /** As {@link #flush(double)} with a Duration. */
    public void flush(Duration timeout) {
        flush(Respite.seconds(timeout));
    }

    /** S13: one snapshot of the figures; also after close. */
    public SenderStats stats() {
        SenderStats last = finalStats;
        if (last != null) {
            return last;
        }
        try {
            return handle.apply(NativeStats::senderStats);
        } finally {
            pollEvents();
        }
    }

    /** Takes, logs and returns the events waiting in the sender now (its gate's too). */
    public List<Event> pollEvents() {
        return handle.apply(p -> events.drain(e -> RespiteNative.respite_sender_next_event(p, e)));
    }

    /**
     * S5, S12: closes (draining within close_timeout_seconds unless paused), frees the
     * sender and returns the number of events not sent, also on later calls; its last
     * figures stay readable with {@link #stats}.
     */
    public synchronized long closeAndCountUnsent() {
        if (finalStats == null) {
            unsent = handle.apply(RespiteNative::respite_sender_close);
            polling.cancel(false);
            pollEvents();
            finalStats = stats();
            handle.close();
        }
        return unsent;
    }

    /** As {@link #closeAndCountUnsent()}; the count is also logged (unsent_at_close) when not 0. */
    @Override
    public void close() {
        closeAndCountUnsent();
    }

    /**
     * Builds a sender: one method per "sender", "gate" and "queue" setting of the
     * core's table ({@link SenderSettings}, {@link GateSettings}, {@link QueueSettings}).
     * The gate starts from the usage_sharing profile; the policy is {@code @default}
     * unless given.
     */
    public static final class Builder extends SettingsBuilder<Builder>
            implements SenderSettings<Builder>, GateSettings<Builder>, QueueSettings<Builder> {
        private final Map<String, Object> gateValues = new LinkedHashMap<>();
        private final Map<String, Object> queueValues = new LinkedHashMap<>();
        private final Map<String, String> headers = new LinkedHashMap<>();
        private String gateProfile;
        private Policy policy;
        private Consumer<Event> listener;

        private Builder() {}

        /**
         * The sender's name (its "sender" setting): it starts the line of every event the sender
         * and its gate log (the gate's and queue's own: gateSetting/queueSetting).
         */
        public Builder name(String value) {
            return senderSetting("name", value);
        }

        /** The profile the gate's settings start from (default usage_sharing). */
        public Builder gateProfile(Profile value) {
            this.gateProfile = Objects.requireNonNull(value, "profile").wireName();
            return this;
        }

        /** Sets a "gate" setting by its spec name. */
        @Override
        public Builder gateSetting(String name, Object value) {
            gateValues.put(name, value);
            return this;
        }

        /** Sets a "queue" setting by its spec name. */
        @Override
        public Builder queueSetting(String name, Object value) {
            queueValues.put(name, value);
            return this;
        }

        /** The delivery policy (capacity, TTL, retries, handlers per status); default {@code @default}. */
        public Builder policy(Policy value) {
            this.policy = value;
            return this;
        }

        /** A header on every request (S7); checked by the core when built. */
        public Builder header(String name, String value) {
            headers.put(name, value);
            return this;
        }

        /** Also gives every event to this listener (called on the thread that polled it). */
        public Builder onEvent(Consumer<Event> value) {
            this.listener = value;
            return this;
        }

        /** Builds and starts the sender's thread. */
        public Sender build() {
            return NativeSettings.with("sender", values, s -> NativeSettings.with(
                    gateProfile == null ? Profile.USAGE_SHARING.wireName() : gateProfile,
                    gateProfile == null && gateValues.isEmpty() ? null : gateValues,
                    g -> NativeSettings.with("queue", queueValues.isEmpty() ? null : queueValues,
                            q -> start(policy == null ? RespiteNative.respite_sender_new(s, g, q, 0)
                                    : policy.use(p -> RespiteNative.respite_sender_new(s, g, q, p))))));
        }

        private Sender start(long pointer) {
            Sender sender = new Sender(pointer, listener);
            try {
                headers.forEach(sender::addHeader);
            } catch (RuntimeException e) {
                sender.closeAndCountUnsent();
                throw e;
            }
            return sender;
        }
    }
}
