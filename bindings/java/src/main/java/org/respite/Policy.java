package org.respite;

import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import org.respite.internal.Errors;
import org.respite.internal.NativeHandle;
import org.respite.swig.RespiteNativeJNI;

/**
 * A delivery policy (Astarte's trigger delivery policy, spec section 4):
 * validated once, immutable, safe to share. Invalid documents raise
 * {@link InvalidPolicyException} listing every problem with its JSON pointer.
 *
 * <pre>{@code
 * Policy policy = Policy.fromJson("""
 *     {"name": "edgehog", "maximum_capacity": 100, "retry_times": 3,
 *      "error_handlers": [{"on": "server_error", "strategy": "retry"}]}""");
 * }</pre>
 */
public final class Policy implements AutoCloseable {
    private final NativeHandle handle;

    private Policy(long pointer) {
        this.handle = new NativeHandle(this, pointer, RespiteNativeJNI::respite_policy_free);
    }

    /** Parses and validates a JSON document. */
    public static Policy fromJson(String json) {
        if (json == null) {
            return make(problems -> RespiteNativeJNI.respite_policy_from_json(null, problems));
        }
        return fromJson(json.getBytes(StandardCharsets.UTF_8));
    }

    /** Parses and validates a JSON document given as UTF-8 bytes. */
    public static Policy fromJson(byte[] json) {
        return make(problems -> RespiteNativeJNI.respite_policy_from_json_n(json, problems));
    }

    /** D8: the built-in "@default" policy: any error is discarded, capacity 1000. */
    public static Policy defaultPolicy() {
        try {
            return new Policy(RespiteNativeJNI.respite_policy_default());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        }
    }

    /** A policy without JSON; build() validates it with the JSON path's rules and messages. */
    public static Builder builder(String name, int maximumCapacity) {
        return new Builder(name, maximumCapacity);
    }

    private interface Maker {
        long make(long problems);
    }

    private static Policy make(Maker maker) {
        long problems;
        try {
            problems = RespiteNativeJNI.respite_problems_new();
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        }
        try {
            return new Policy(maker.make(problems));
        } catch (RuntimeException e) {
            RuntimeException translated = Errors.translate(e);
            if (translated instanceof InvalidPolicyException invalid) {
                throw new InvalidPolicyException(invalid.getMessage(), problems(problems));
            }
            throw translated;
        } finally {
            RespiteNativeJNI.respite_problems_free(problems);
        }
    }

    private static List<PolicyProblem> problems(long problems) {
        List<PolicyProblem> list = new ArrayList<>();
        int count = RespiteNativeJNI.respite_problems_count(problems);
        for (int i = 0; i < count; i++) {
            list.add(new PolicyProblem(RespiteNativeJNI.respite_problems_pointer(problems, i),
                    RespiteNativeJNI.respite_problems_message(problems, i),
                    RespiteNativeJNI.respite_problems_line(problems, i),
                    RespiteNativeJNI.respite_problems_column(problems, i)));
        }
        return list;
    }

    private long pointer() {
        long pointer = handle.get();
        if (pointer == 0) {
            throw NativeHandle.closed("policy");
        }
        return pointer;
    }

    public String name() {
        try {
            return RespiteNativeJNI.respite_policy_name(pointer());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    public int maximumCapacity() {
        try {
            return RespiteNativeJNI.respite_policy_maximum_capacity(pointer());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Resends after the first attempt (D3); 0 when nothing retries. */
    public int retryTimes() {
        try {
            return RespiteNativeJNI.respite_policy_retry_times(pointer());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Seconds; 0 when unset. */
    public int eventTtl() {
        try {
            return RespiteNativeJNI.respite_policy_event_ttl(pointer());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Events taken for one request (D7); 1 when unset. */
    public int prefetchCount() {
        try {
            return RespiteNativeJNI.respite_policy_prefetch_count(pointer());
        } finally {
            Reference.reachabilityFence(this);
        }
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
        try {
            return Strategy.values()[RespiteNativeJNI.respite_policy_strategy_for(handle.get(), transportFailed,
                    httpStatus)];
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** The canonical JSON of the policy (reads back as an equal policy). */
    public String toJson() {
        try {
            return RespiteNativeJNI.respite_policy_to_json(handle.get());
        } catch (RuntimeException e) {
            throw Errors.translate(e);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Raw pointer for the queue and engine of this package. */
    long pointerForQueue() {
        return handle.get();
    }

    public boolean isClosed() {
        return handle.isClosed();
    }

    @Override
    public void close() {
        handle.close();
    }

    @Override
    public String toString() {
        return isClosed() ? "Policy[closed]" : toJson();
    }

    /** Records values; {@link #build()} validates them in the core. */
    public static final class Builder {
        private final String name;
        private final int maximumCapacity;
        private final List<String[]> handlers = new ArrayList<>();
        private Integer retryTimes;
        private Integer eventTtl;
        private Integer prefetchCount;

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
            handlers.add(new String[] {on, strategy});
            return this;
        }

        public Builder retryTimes(int value) {
            retryTimes = value;
            return this;
        }

        public Builder eventTtl(int seconds) {
            eventTtl = seconds;
            return this;
        }

        public Builder prefetchCount(int value) {
            prefetchCount = value;
            return this;
        }

        public Policy build() {
            long builder;
            try {
                builder = RespiteNativeJNI.respite_policy_builder_new(name, maximumCapacity);
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            }
            try {
                for (String[] handler : handlers) {
                    RespiteNativeJNI.respite_policy_builder_add_handler(builder, handler[0], handler[1]);
                }
                if (retryTimes != null) {
                    RespiteNativeJNI.respite_policy_builder_set_retry_times(builder, retryTimes);
                }
                if (eventTtl != null) {
                    RespiteNativeJNI.respite_policy_builder_set_event_ttl(builder, eventTtl);
                }
                if (prefetchCount != null) {
                    RespiteNativeJNI.respite_policy_builder_set_prefetch_count(builder, prefetchCount);
                }
                return make(problems -> RespiteNativeJNI.respite_policy_builder_build(builder, problems));
            } catch (RuntimeException e) {
                throw Errors.translate(e);
            } finally {
                RespiteNativeJNI.respite_policy_builder_free(builder);
            }
        }
    }
}
