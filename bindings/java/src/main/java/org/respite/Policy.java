package org.respite;

import java.util.ArrayList;
import java.util.List;
import java.util.function.LongConsumer;

import org.respite.internal.NativeHandle;
import org.respite.internal.Utf8;
import org.respite.swig.RespiteNative;
import org.respite.swig.respite_handle_kind;

/**
 * A delivery policy (Astarte's trigger delivery policy, spec section 4):
 * validated once, immutable, safe to share. Invalid documents raise
 * {@link InvalidPolicyException} listing every problem with its JSON pointer.
 */
public final class Policy extends NativeObject {

    private Policy(long pointer) {
        super(pointer, RespiteNative::respite_policy_free);
    }

    /** Parses and validates a JSON document. */
    public static Policy fromJson(String json) {
        return fromJson(Utf8.bytes(json));
    }

    /** Parses and validates a JSON document given as UTF-8 bytes. */
    public static Policy fromJson(byte[] json) {
        return new Policy(RespiteNative.respite_policy_from_json_n(json));
    }

    /** D8: the built-in "@default" policy: any error is discarded, capacity 1000. */
    public static Policy defaultPolicy() {
        return new Policy(RespiteNative.respite_policy_default());
    }

    /** A policy without JSON; build() validates it with the JSON path's rules and messages. */
    public static Builder builder(String name, int maximumCapacity) {
        return new Builder(name, maximumCapacity);
    }

    /** Runs call with the pointer; closed is refused here (accessors answer NULL/0, queue_new takes NULL as @default). */
    <T> T use(java.util.function.LongFunction<T> call) {
        return NativeHandle.use(handle, respite_handle_kind.RESPITE_HANDLE_POLICY, call);
    }

    public String name() {
        return use(RespiteNative::respite_policy_name);
    }

    public int maximumCapacity() {
        return use(RespiteNative::respite_policy_maximum_capacity);
    }

    /** Resends after the first attempt (D3); 0 when nothing retries. */
    public int retryTimes() {
        return use(RespiteNative::respite_policy_retry_times);
    }

    /** Seconds; 0 when unset. */
    public int eventTtl() {
        return use(RespiteNative::respite_policy_event_ttl);
    }

    /** Events taken for one request (D7); 1 when unset. */
    public int prefetchCount() {
        return use(RespiteNative::respite_policy_prefetch_count);
    }

    /** D2: the strategy for a failed attempt with this HTTP status (400-599). */
    public Strategy strategyFor(int httpStatus) {
        return strategy(0, httpStatus);
    }

    /** D2: the strategy for a transport failure (matched as 503). */
    public Strategy strategyForTransport() {
        return strategy(1, 0);
    }

    private Strategy strategy(int transportFailed, int httpStatus) {
        return Strategy.ofCode(handle.apply(p -> RespiteNative.respite_policy_strategy_for(p, transportFailed,
                httpStatus)));
    }

    /** The canonical JSON of the policy (reads back as an equal policy). */
    public String toJson() {
        return handle.apply(RespiteNative::respite_policy_to_json);
    }

    @Override
    public String toString() {
        return isClosed() ? "Policy[closed]" : toJson();
    }

    /** Records values; {@link #build()} replays them on the core's builder, which validates them. */
    public static final class Builder {
        private final String name;
        private final int maximumCapacity;
        private final List<LongConsumer> steps = new ArrayList<>();

        private Builder(String name, int maximumCapacity) {
            this.name = name;
            this.maximumCapacity = maximumCapacity;
        }

        /** A handler: on "client_error", "server_error", "any_error" or codes ("404,500"). */
        public Builder handler(String on, Strategy strategy) {
            return handler(on, strategy.wireName());
        }

        /** As {@link #handler(String, Strategy)} with the strategy as text ("discard", "retry"). */
        public Builder handler(String on, String strategy) {
            return step(b -> RespiteNative.respite_policy_builder_add_handler(b, on, strategy));
        }

        public Builder retryTimes(int value) {
            return step(b -> RespiteNative.respite_policy_builder_set_retry_times(b, value));
        }

        public Builder eventTtl(int seconds) {
            return step(b -> RespiteNative.respite_policy_builder_set_event_ttl(b, seconds));
        }

        public Builder prefetchCount(int value) {
            return step(b -> RespiteNative.respite_policy_builder_set_prefetch_count(b, value));
        }

        private Builder step(LongConsumer step) {
            steps.add(step);
            return this;
        }

        public Policy build() {
            long builder = RespiteNative.respite_policy_builder_new(name, maximumCapacity);
            try {
                steps.forEach(step -> step.accept(builder));
                return new Policy(RespiteNative.respite_policy_builder_build(builder));
            } finally {
                RespiteNative.respite_policy_builder_free(builder);
            }
        }
    }
}
