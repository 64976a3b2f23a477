package org.respite.conformance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.respite.Action;
import org.respite.Batch;
import org.respite.DeliveryEngine;
import org.respite.EngineStats;
import org.respite.Event;
import org.respite.Gate;
import org.respite.Policy;
import org.respite.Queue;
import org.respite.QueueStats;
import org.respite.RespiteException;

/**
 * Component "delivery": a policy, a queue, a gate and the delivery engine on
 * the injected clock, against the scenario's scripted endpoint ({"sequence",
 * "by_event", "otherwise"}, see conformance/README.md). Events are strings. Mirrors conformance/runners/c/delivery_steps.c.
 */
final class DeliverySteps implements Runner.Component {
    private static final int RUN_SENDS_MAX = 100_000;

    private final Policy policy;
    private final Queue queue;
    private final Gate gate;
    private final DeliveryEngine engine;
    private final List<Object> sequence;
    private final Map<String, List<Object>> byEvent = new HashMap<>();
    private final Object otherwise;
    private final List<Event> gateEvents = new ArrayList<>();
    private final List<Event> engineEvents = new ArrayList<>();
    private Batch batch;

    DeliverySteps(Map<String, Object> scenario) {
        Object spec = scenario.get("policy");
        policy = "@default".equals(spec) ? Policy.defaultPolicy()
                : Policy.fromJson(spec == null ? "" : Runner.JSON.toJson(spec));
        Queue q = null;
        Gate g = null;
        try {
            q = Queue.builder(policy).setAll(Runner.settings(scenario.get("queue"))).build();
            String profile = scenario.get("profile") instanceof String p ? p : "gate";
            g = Gate.builder(profile).setAll(Runner.settings(scenario.get("gate"))).onEvent(gateEvents::add).build();
            engine = DeliveryEngine.builder(q, g).setAll(Runner.settings(scenario.get("engine")))
                    .onEvent(engineEvents::add).build();
        } catch (RespiteException e) {
            if (g != null) {
                g.close();
            }
            if (q != null) {
                q.close();
            }
            policy.close();
            throw e;
        }
        queue = q;
        gate = g;
        Map<String, Object> endpoint = Runner.asMap(scenario.get("endpoint"));
        sequence = new ArrayList<>((List<?>) endpoint.get("sequence"));
        Runner.asMap(endpoint.get("by_event")).forEach((event, answers) -> byEvent.put(event, new ArrayList<>((List<?>) answers)));
        otherwise = endpoint.get("otherwise");
    }

    @Override
    public Map<String, Object> step(String action, Object arg, double now) {
        switch (action) {
            case "enqueue" -> {
                return enqueue(arg, now);
            }
            case "next" -> {
                return next(now);
            }
            case "take" -> {
                return take(now);
            }
            case "settle" -> {
                return settle(arg, now);
            }
            case "send" -> {
                return send(now);
            }
            case "run" -> {
                return run(now);
            }
            case "close" -> {
                engine.shutdown(now);
                return Runner.ok();
            }
            case "expire" -> {
                return Runner.of("expired", queue.expire(now));
            }
            case "state" -> {
                return Runner.of("state", gate.state(now).wireName());
            }
            case "stats" -> {
                return stats();
            }
            case "events" -> {
                engine.pollEvents();
                List<Object> g = new ArrayList<>();
                gateEvents.forEach(e -> g.add(Runner.eventJson(e)));
                gateEvents.clear();
                List<Object> e = new ArrayList<>();
                engineEvents.forEach(ev -> e.add(Runner.eventJson(ev)));
                engineEvents.clear();
                return Runner.of("gate", g, "engine", e);
            }
            default -> {
                return Runner.runnerError("the delivery component has no action '" + action + "'");
            }
        }
    }

    private Map<String, Object> enqueue(Object arg, double now) {
        long accepted = 0;
        Map<String, Object> refused = new LinkedHashMap<>();
        for (Object event : (List<?>) arg) {
            try {
                queue.enqueue((String) event, now);
                accepted++;
            } catch (RespiteException e) {
                refused.merge(e.getStatus(), 1L, (a, b) -> (Long) a + (Long) b);
            }
        }
        Map<String, Object> observed = Runner.of("accepted", accepted);
        if (!refused.isEmpty()) {
            observed.put("refused", refused);
        }
        return observed;
    }

    private Map<String, Object> next(double now) {
        Action action = engine.next(now);
        Map<String, Object> observed = Runner.of("action", action.wireName());
        if (action == Action.WAIT) {
            observed.put("wait_seconds", engine.waitSeconds());
        }
        return observed;
    }

    private Map<String, Object> take(double now) {
        if (batch != null) {
            return Runner.runnerError("the batch taken before has not been settled");
        }
        batch = engine.take(now);
        List<Object> texts = new ArrayList<>();
        List<Object> attempts = new ArrayList<>();
        if (batch != null) {
            for (int i = 0; i < batch.size(); i++) {
                texts.add(batch.text(i));
                attempts.add((long) batch.attempts(i));
            }
        }
        return Runner.of("events", texts, "attempts", attempts);
    }

    /** The next answer of the batch's first event scripted by_event that has one left,
     *  else the sequence's next, else "otherwise". */
    private Object scriptedAnswer() {
        for (int i = 0; i < batch.size(); i++) {
            List<Object> answers = byEvent.get(batch.text(i));
            if (answers != null && !answers.isEmpty()) {
                return answers.remove(0);
            }
        }
        return sequence.isEmpty() ? otherwise : sequence.remove(0);
    }

    private Map<String, Object> settle(Object answer, double now) {
        if (batch == null) {
            return Runner.runnerError("settle needs a batch taken before");
        }
        if (answer == null) {
            answer = scriptedAnswer();
        }
        if (answer == null) {
            return Runner.runnerError("the endpoint has no more answers");
        }
        boolean transport = false;
        long status = 0;
        double hint = 0;
        if (answer instanceof Long s) {
            status = s;
        } else if (answer instanceof Map<?, ?>) {
            Map<String, Object> map = Runner.asMap(answer);
            transport = Boolean.TRUE.equals(map.get("transport"));
            if (map.get("status") instanceof Long s) {
                status = s;
            } else if (!transport) {
                return Runner.runnerError("an answer is a status, {\"status\", \"retry_after\"?} or {\"transport\": true}");
            }
            hint = Runner.number(map, "retry_after");
        } else {
            return Runner.runnerError("an answer is a status, {\"status\", \"retry_after\"?} or {\"transport\": true}");
        }
        Batch taken = batch;
        batch = null; // as the C runner: forgotten whatever settle answers
        engine.settle(taken, transport, transport ? 0 : (int) status, hint, now);
        return Runner.of("answer", answer);
    }

    private Map<String, Object> send(double now) {
        Map<String, Object> observed = take(now);
        if (observed.containsKey("error") || batch == null) {
            return observed;
        }
        Map<String, Object> settled = settle(null, now);
        if (settled.containsKey("error")) {
            return settled;
        }
        observed.put("answer", settled.get("answer"));
        return observed;
    }

    private Map<String, Object> run(double now) {
        List<Object> sends = new ArrayList<>();
        for (int i = 0; i < RUN_SENDS_MAX; i++) {
            Map<String, Object> observed = next(now);
            if (!"send".equals(observed.get("action"))) {
                Map<String, Object> result = Runner.of("sends", sends);
                result.putAll(observed);
                return result;
            }
            Map<String, Object> sent = send(now);
            if (sent.containsKey("error")) {
                return sent;
            }
            sends.add(sent.get("events"));
        }
        return Runner.runnerError("run: still sending after " + RUN_SENDS_MAX + " batches");
    }

    private Map<String, Object> stats() {
        QueueStats q = queue.stats();
        EngineStats e = engine.stats();
        Map<String, Object> qo = Runner.of("accepted", q.accepted(), "delivered", q.delivered(), "dropped_capacity",
                q.droppedCapacity(), "expired", q.expired(), "retries_exhausted", q.retriesExhausted(), "discarded",
                q.discarded(), "pending", q.pending(), "in_flight", q.inFlight(), "refused_full", q.refusedFull(),
                "refused_too_large", q.refusedTooLarge(), "refused_closed", q.refusedClosed(), "retried",
                q.retried(), "pending_bytes", q.pendingBytes(), "capacity", q.capacity(), "closed", q.closed());
        Map<String, Object> eo = Runner.of("sends", e.sends(), "probes", e.probes(), "sends_failed", e.sendsFailed(),
                "refusals", e.refusals(), "events_sent", e.eventsSent(), "unsent", e.unsent(), "closing",
                e.closing(), "closed_while_paused", e.closedWhilePaused());
        return Runner.of("queue", qo, "engine", eo, "balanced", q.balanced());
    }

    @Override
    public void close() {
        engine.close();
        gate.close();
        queue.close();
        policy.close();
    }
}
