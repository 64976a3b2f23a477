package org.respite.conformance;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.respite.InvalidPolicyException;
import org.respite.Policy;
import org.respite.PolicyProblem;

/**
 * Component "policy": validate {"document"|"text", "pad"?}, build {...},
 * default, strategy {"status"|"transport"} (on the last valid policy).
 */
final class PolicySteps implements Runner.Component {
    private Policy policy;

    @Override
    public Map<String, Object> step(String action, Object arg, double now) {
        switch (action) {
            case "validate" -> {
                Map<String, Object> map = Runner.mapOrEmpty(arg);
                String json;
                if (map.get("text") instanceof String text) {
                    long pad = map.get("pad") instanceof Long p ? p : 0;
                    json = pad > 0 ? text + " ".repeat((int) pad) : text;
                } else if (map.containsKey("document")) {
                    json = Runner.JSON.toJson(map.get("document"));
                } else if (map.get("hex") instanceof String hex) {
                    byte[] bytes = java.util.HexFormat.of().parseHex(hex); // bytes: the byte[] overload
                    return made(() -> Policy.fromJson(bytes));
                } else {
                    return Runner.runnerError("validate takes {\"document\": value}, {\"text\": string} or {\"hex\": string}");
                }
                return made(() -> Policy.fromJson(json));
            }
            case "build" -> {
                Map<String, Object> map = Runner.mapOrEmpty(arg);
                Object name = map.get("name");
                int capacity = map.get("maximum_capacity") instanceof Long c ? c.intValue() : 0;
                Policy.Builder builder = Policy.builder(name instanceof String s ? s : null, capacity);
                if (map.get("handlers") instanceof List<?> handlers) {
                    for (Object handler : handlers) {
                        Map<String, Object> h = Runner.mapOrEmpty(handler);
                        builder.handler(h.get("on") instanceof String on ? on : null,
                                h.get("strategy") instanceof String st ? st : null);
                    }
                }
                if (map.get("retry_times") instanceof Long v) {
                    builder.retryTimes(v.intValue());
                }
                if (map.get("event_ttl") instanceof Long v) {
                    builder.eventTtl(v.intValue());
                }
                if (map.get("prefetch_count") instanceof Long v) {
                    builder.prefetchCount(v.intValue());
                }
                return made(builder::build);
            }
            case "default" -> {
                return made(Policy::defaultPolicy);
            }
            case "strategy" -> {
                Map<String, Object> map = Runner.mapOrEmpty(arg);
                Policy current = policy == null ? closedPolicy() : policy;
                if (Boolean.TRUE.equals(map.get("transport"))) {
                    return Runner.of("strategy", current.strategyForTransport().wireName());
                }
                int status = map.get("status") instanceof Long s ? s.intValue() : 0;
                return Runner.of("strategy", current.strategyFor(status).wireName());
            }
            default -> {
                return Runner.runnerError("the policy component has no action '" + action + "'");
            }
        }
    }

    private static Policy closedPolicy() {
        Policy none = Policy.defaultPolicy();
        none.close();
        return none;
    }

    private interface Maker {
        Policy make();
    }

    private Map<String, Object> made(Maker maker) {
        Policy made;
        try {
            made = maker.make();
        } catch (InvalidPolicyException e) {
            List<Object> problems = new ArrayList<>();
            for (PolicyProblem p : e.getProblems()) {
                Map<String, Object> o = Runner.of("pointer", p.pointer(), "message", p.message());
                if (p.line() > 0) {
                    o.put("line", (long) p.line());
                    o.put("column", (long) p.column());
                }
                problems.add(o);
            }
            return Runner.of("valid", false, "message", e.getMessage(), "problems", problems);
        }
        if (policy != null) {
            policy.close();
        }
        policy = made;
        Object canonical = Runner.JSON.fromJson(made.toJson(), Object.class);
        Map<String, Object> fields = Runner.of("name", made.name(), "maximum_capacity", (long) made.maximumCapacity(),
                "retry_times", (long) made.retryTimes(), "event_ttl", (long) made.eventTtl(), "prefetch_count",
                (long) made.prefetchCount());
        return Runner.of("valid", true, "policy", canonical, "fields", fields);
    }

    @Override
    public void close() {
        if (policy != null) {
            policy.close();
        }
    }
}
