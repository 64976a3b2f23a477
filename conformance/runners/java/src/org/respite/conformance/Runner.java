package org.respite.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonNull;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSerializer;
import com.google.gson.ToNumberPolicy;

import org.respite.Backoff;
import org.respite.Classifier;
import org.respite.Decision;
import org.respite.Event;
import org.respite.Gate;
import org.respite.GateStats;
import org.respite.InvalidSettingException;
import org.respite.Outcome;
import org.respite.OutcomeException;
import org.respite.Respite;
import org.respite.RespiteException;
import org.respite.TemporarilyUnavailableException;
import org.respite.Testing;
import org.respite.TransportException;

/**
 * The Java conformance runner: reads normalised scenarios on stdin (one JSON
 * line each, written by conformance/run), drives the public org.respite API
 * step by step and prints one JSON line per scenario: {"id", "steps":
 * [observation...]} or {"id", "error": {...}}. It compares nothing;
 * conformance/run does. One JVM runs every scenario.
 */
public final class Runner {
    /** Integers read as Long, other numbers as Double (as jansson tells integer from real);
     *  NaN and infinities written as null (an infinite retry_after is null in JSON). */
    static final Gson JSON = new GsonBuilder().setObjectToNumberStrategy(ToNumberPolicy.LONG_OR_DOUBLE)
            .serializeNulls().disableHtmlEscaping()
            .registerTypeAdapter(Double.class, (JsonSerializer<Double>) (d, type, context) ->
                    d.isNaN() || d.isInfinite() ? JsonNull.INSTANCE : new JsonPrimitive(d))
            .create();

    interface Component extends AutoCloseable {
        Map<String, Object> step(String action, Object arg, double now);

        /** Picks the handle the next steps use (a step's "handle"); most components have one. */
        default void useHandle(long handle) {
            if (handle != 0) {
                throw new RunnerError("this component has one handle");
            }
        }

        @Override
        default void close() {}
    }

    /** Thrown when a scenario asks for something the runner cannot do. */
    static final class RunnerError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RunnerError(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        for (String line; (line = in.readLine()) != null;) {
            out.println(JSON.toJson(runScenario(asMap(JSON.fromJson(line, Object.class)))));
            out.flush();
        }
    }

    static Map<String, Object> runScenario(Map<String, Object> scenario) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("id", scenario.get("id"));
        Component component;
        try {
            component = open((String) scenario.get("component"), scenario);
        } catch (Throwable e) {
            result.put("error", observe(e).get("error"));
            return result;
        }
        List<Object> observed = new ArrayList<>();
        for (Object step : (List<?>) scenario.get("steps")) {
            observed.add(runStep(component, asMap(step)));
        }
        try {
            component.close();
        } catch (Throwable e) {
            // closing a handle the scenario closed is not an observation
        }
        result.put("steps", observed);
        return result;
    }

    private static Component open(String name, Map<String, Object> scenario) {
        return switch (name) {
            case "settings" -> new SettingsSteps(scenario);
            case "outcome" -> new OutcomeSteps();
            case "gate" -> new GateSteps(scenario);
            case "backoff" -> new BackoffSteps(scenario);
            case "policy" -> new PolicySteps();
            case "delivery" -> new DeliverySteps(scenario);
            default -> throw new RunnerError("unknown component '" + name + "'");
        };
    }

    private static Map<String, Object> runStep(Component component, Map<String, Object> step) {
        String action = step.keySet().stream()
                .filter(k -> !k.equals("at") && !k.equals("repeat") && !k.equals("handle")).findFirst().get();
        double now = number(step.get("at"));
        long repeat = (Long) step.get("repeat");
        Map<String, Object> observed = null;
        if (step.containsKey("handle")) {
            try {
                component.useHandle((Long) step.get("handle"));
            } catch (Throwable e) {
                return observe(e);
            }
        }
        for (long i = 0; i < repeat; i++) {
            try {
                observed = component.step(action, step.get(action), now);
            } catch (Throwable e) { // never dies: the step observes what went wrong
                observed = observe(e);
            }
            if (observed.containsKey("error")) {
                break; // a repeated action stops at its first error
            }
        }
        return observed;
    }

    /** The error observation for anything a step or a set-up threw. */
    static Map<String, Object> observe(Throwable e) {
        if (e instanceof RespiteException r) {
            return Map.of("error", error(r));
        }
        return runnerError(e instanceof RunnerError ? e.getMessage() : e.toString());
    }

    /** A number: a JSON number, or "NaN", "Infinity", "-Infinity" (what JSON cannot write). */
    static double number(Object value) {
        return value instanceof String text ? Double.parseDouble(text) : ((Number) value).doubleValue();
    }

    // ------------------------------------------------------------ observations

    static Map<String, Object> error(RespiteException e) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("status", e.getStatus());
        detail.put("message", e.getMessage());
        if (e instanceof InvalidSettingException s) {
            detail.put("setting", s.getSetting());
        }
        if (e instanceof TemporarilyUnavailableException t) {
            detail.put("retry_after", t.getRetryAfter());
        }
        return detail;
    }

    static Map<String, Object> runnerError(String message) {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("status", "runner");
        detail.put("message", message);
        return Map.of("error", detail);
    }

    static Map<String, Object> ok() {
        return new LinkedHashMap<>();
    }

    static Map<String, Object> of(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    static Map<String, Object> eventJson(Event e) {
        Map<String, Object> o = of("type", e.type(), "at", e.at(), "line", e.message());
        switch (e.type()) {
            case "recovery_started" -> {
                o.put("failures", e.failures());
                o.put("window", e.window());
                o.put("pause", e.pause());
            }
            case "recovery_extended" -> o.put("pause", e.pause());
            case "send_failed" -> {
                o.put("http_status", (long) e.httpStatus());
                o.put("detail", e.detail());
            }
            case "unsent_at_close" -> o.put("count", e.count());
            default -> {
            }
        }
        return o;
    }

    // --------------------------------------------------------------- arguments

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object value) {
        if (value instanceof Map<?, ?>) {
            return (Map<String, Object>) value;
        }
        throw new RunnerError("expected an object");
    }

    static Map<String, Object> mapOrEmpty(Object value) {
        return value instanceof Map<?, ?> ? asMap(value) : Map.of();
    }

    /** A number member of an argument, or 0 when it has none (a scripted answer's retry_after). */
    static double number(Object object, String key) {
        return asMap(object).get(key) instanceof Number n ? n.doubleValue() : 0;
    }

    static int integer(Object object, String key) {
        return ((Number) asMap(object).get(key)).intValue();
    }

    /** An outcome and its HTTP status (0 when none). */
    record OutcomeArg(Outcome outcome, int httpStatus) {}

    /** An outcome argument, which the driver made an object: {"outcome", "status"?},
     *  {"status", "usable"} or {"transport": true}; as the C runner's arg_outcome. */
    static OutcomeArg outcome(Object arg) {
        Map<String, Object> map = asMap(arg);
        int status = map.get("status") instanceof Long l ? l.intValue() : 0;
        if (map.get("outcome") instanceof String name) {
            return new OutcomeArg(Outcome.fromName(name), status);
        }
        if (map.get("outcome") instanceof Long code) { // the core's number, checked by the core (O1)
            return new OutcomeArg(Outcome.fromCode(Math.toIntExact(code)), status);
        }
        if (Boolean.TRUE.equals(map.get("transport"))) {
            return new OutcomeArg(Outcome.TRANSPORT, 0);
        }
        return new OutcomeArg(Outcome.classify(status, !Boolean.FALSE.equals(map.get("usable"))), status);
    }

    /** Scenario settings as the builder's generic setter takes them (integers stay Long;
     *  {"number": "NaN"} is that double). */
    static Map<String, Object> settings(Object value) {
        Map<String, Object> out = new LinkedHashMap<>();
        mapOrEmpty(value).forEach((k, v) -> out.put(k, v instanceof Map<?, ?> m ? number(m.get("number")) : v));
        return out;
    }

    // -------------------------------------------------------------- components

    static final class SettingsSteps implements Component {
        private final String target;

        SettingsSteps(Map<String, Object> scenario) {
            if (!(scenario.get("target") instanceof String t)) {
                throw new RunnerError("a settings scenario needs a \"target\"");
            }
            this.target = t;
        }

        @Override
        public Map<String, Object> step(String action, Object arg, double now) {
            switch (action) {
                case "set" -> {
                    if (!(arg instanceof Map<?, ?>)) {
                        return runnerError("set takes an object of settings");
                    }
                    Respite.checkSettings(target, settings(arg));
                    return ok();
                }
                case "get" -> {
                    if (!(arg instanceof String name)) {
                        return runnerError("get takes a setting's name");
                    }
                    return of("value", Respite.defaultSetting(target, name));
                }
                default -> {
                    return runnerError("the settings component has no action '" + action + "'");
                }
            }
        }
    }

    static final class OutcomeSteps implements Component {
        @Override
        public Map<String, Object> step(String action, Object arg, double now) {
            switch (action) {
                case "classify" -> {
                    if (!(arg instanceof Map<?, ?>)) {
                        return runnerError("classify takes an object");
                    }
                    return of("outcome", outcome(arg).outcome().wireName());
                }
                case "counts" -> {
                    Map<String, Object> map = mapOrEmpty(arg);
                    Object name = map.get("outcome");
                    Outcome outcome = Outcome.fromName(name instanceof String s ? s : null);
                    return of("counts", outcome.counts(Boolean.TRUE.equals(map.get("count_all_failures"))));
                }
                case "parse" -> {
                    return of("outcome", Outcome.fromName(arg instanceof String s ? s : null).wireName());
                }
                default -> {
                    return runnerError("the outcome component has no action '" + action + "'");
                }
            }
        }
    }

    static final class GateSteps implements Component {
        // One gate, or "handles" gates from the same settings (a shared gate
        // opened twice), each with the events it delivered; a step's
        // "handle" picks the one it uses.
        private final List<Gate> gates = new ArrayList<>();
        private final List<List<Event>> eventsOf = new ArrayList<>();
        private Gate gate;
        private List<Event> events;
        private final Map<String, Long> permits = new HashMap<>();

        GateSteps(Map<String, Object> scenario) {
            String profile = scenario.get("profile") instanceof String p ? p : "gate";
            long handles = scenario.get("handles") instanceof Long n ? n : 1;
            try {
                for (long i = 0; i < handles; i++) {
                    List<Event> delivered = new ArrayList<>();
                    gates.add(Gate.builder(profile).setAll(settings(scenario.get("settings"))).onEvent(delivered::add)
                            .build());
                    eventsOf.add(delivered);
                }
            } catch (RuntimeException e) {
                close();
                throw e;
            }
            useHandle(0);
        }

        @Override
        public void useHandle(long handle) {
            if (handle < 0 || handle >= gates.size()) {
                throw new RunnerError("there is no gate handle " + handle);
            }
            gate = gates.get((int) handle);
            events = eventsOf.get((int) handle);
        }

        @Override
        public Map<String, Object> step(String action, Object arg, double now) {
            switch (action) {
                case "check" -> {
                    Decision decision = gate.check(now);
                    Object as = mapOrEmpty(arg).get("as");
                    if (as instanceof String name && decision.allowed()) {
                        permits.put(name, decision.permit());
                    }
                    Map<String, Object> o = of("allowed", decision.allowed(), "probe", decision.probe(),
                            "retry_after", decision.retryAfter());
                    if (!decision.allowed()) {
                        o.put("message", Gate.refusalMessage(decision.retryAfter()));
                    }
                    return o;
                }
                case "record" -> {
                    OutcomeArg outcome = outcome(arg);
                    Object name = mapOrEmpty(arg).get("permit");
                    long permit = name instanceof Long forged ? forged : 0;
                    if (name instanceof String s) {
                        Long known = permits.get(s);
                        if (known == null) {
                            return runnerError("no admitted check was named '" + s + "'");
                        }
                        permit = known;
                    }
                    gate.report(permit, outcome.outcome(), number(arg, "retry_after"), now);
                    return of("outcome", outcome.outcome().wireName());
                }
                case "acquire" -> {
                    gate.acquire(now);
                    return ok();
                }
                case "state" -> {
                    return of("state", gate.state(now).wireName());
                }
                case "retry_after" -> {
                    return of("retry_after", gate.retryAfter(now));
                }
                case "stats" -> {
                    GateStats s = gate.stats();
                    return of("stats", of("admitted", s.admitted(), "refused", s.refused(), "reported",
                            s.reported(), "counted_failures", s.countedFailures(), "late", s.late(), "trips",
                            s.trips(), "probes", s.probes(), "probe_timeouts", s.probeTimeouts(), "events_dropped",
                            s.eventsDropped(), "generation", s.generation(), "window_failures",
                            (long) s.windowFailures(), "state", s.state().wireName(), "delay", s.delay(), "until",
                            s.until(), "successes", s.successes(), "pauses", s.pauses()));
                }
                case "events" -> {
                    gate.pollEvents();
                    List<Object> list = new ArrayList<>();
                    events.forEach(e -> list.add(eventJson(e)));
                    events.clear();
                    return of("events", list);
                }
                case "reset" -> {
                    gate.reset(now);
                    return ok();
                }
                case "close" -> {
                    gate.close();
                    return ok();
                }
                case "refusal_message" -> {
                    double seconds = arg instanceof Number n ? n.doubleValue() : Double.POSITIVE_INFINITY;
                    return of("message", Gate.refusalMessage(seconds));
                }
                default -> {
                    return runnerError("the gate component has no action '" + action + "'");
                }
            }
        }

        @Override
        public void close() {
            gates.forEach(Gate::close);
        }
    }

    /** A scripted answer the work returns (B18), classified by its status. */
    record ScriptedResponse(int status) {}

    /** The status of a value the retry helper returned or its give-up carries; null for none (JSON null). */
    static Object statusOf(Object value) {
        return value instanceof ScriptedResponse response ? (Object) (long) response.status() : null;
    }

    /** A scripted failure of the caller's own code (B18): the default classifier does not count it. */
    static final class CallersOwnException extends RuntimeException {
        CallersOwnException() {
            super("scripted: the caller's own error");
        }
    }

    static final class BackoffSteps implements Component {
        private final Backoff backoff;
        private final Gate gate; // from the scenario's "gate" settings, for retry; may be null

        BackoffSteps(Map<String, Object> scenario) {
            backoff = Backoff.builder().setAll(settings(scenario.get("settings")))
                    .classifier(Classifier.DEFAULT.resultStatus(ScriptedResponse.class, ScriptedResponse::status))
                    .build();
            Object gateSettings = scenario.get("gate");
            try {
                gate = gateSettings == null ? null : Gate.builder("gate").setAll(settings(gateSettings)).build();
            } catch (RespiteException e) {
                backoff.close();
                throw e;
            }
        }

        /**
         * The retry helper (Backoff.call) over scripted answers: a status,
         * {"status", "retry_after"?} or {"transport": true} (thrown), {"returned": status}
         * (returned), {"callers_own": true}; past the end, a success (a returned 200). Attempts
         * and the last outcome are what the work saw; "result" what the helper returned or its
         * give-up carries (B20); "immediate" runs under the testing switch.
         */
        private Map<String, Object> retry(Object arg) {
            Map<String, Object> given = mapOrEmpty(arg);
            Object list = given.get("attempts");
            List<?> answers = list instanceof List<?> l ? l : List.of();
            int[] attempts = {0};
            Outcome[] last = {null};
            boolean gaveUp = false;
            Object returned = null;
            Map<String, Object> failure = null;
            boolean before = Testing.setImmediateRetries(Boolean.TRUE.equals(given.get("immediate")));
            try {
                Object result = backoff.call(gate, () -> {
                    Object answer = attempts[0] < answers.size() ? answers.get(attempts[0]) : 200L;
                    attempts[0]++;
                    Map<String, Object> object = answer instanceof Long code ? of("status", code) : asMap(answer);
                    if (Boolean.TRUE.equals(object.get("callers_own"))) {
                        last[0] = Outcome.REQUEST_ERROR; // what the gate is told
                        throw new CallersOwnException();
                    }
                    if (object.get("returned") instanceof Long status) {
                        last[0] = Outcome.classify(status.intValue(), true);
                        return new ScriptedResponse(status.intValue());
                    }
                    OutcomeArg outcome = outcome(object);
                    last[0] = outcome.outcome();
                    if (outcome.outcome() == Outcome.SUCCESS) {
                        return new ScriptedResponse(outcome.httpStatus());
                    }
                    throw new OutcomeException(outcome.outcome(), outcome.httpStatus(),
                            number(object, "retry_after"), "scripted answer " + JSON.toJson(answer));
                });
                returned = statusOf(result);
            } catch (CallersOwnException e) {
                failure = of("callers_own", true); // rethrown unchanged
            } catch (RespiteException e) {
                failure = of("status", e.getStatus());
                // A refusal's figures depend on the real clock: only other failures show their message.
                if (!(e instanceof TemporarilyUnavailableException)) {
                    failure.put("message", e.getMessage());
                }
                // Backoff.call gives up with the core's transport error, carrying the last returned value (B20).
                if (e instanceof TransportException gaveUpError) {
                    gaveUp = true;
                    failure.put("result", statusOf(gaveUpError.getResult()));
                }
            } finally {
                Testing.setImmediateRetries(before);
            }
            Map<String, Object> observed = of("attempts", (long) attempts[0], "gave_up", gaveUp);
            if (last[0] != null) {
                observed.put("last_outcome", last[0].wireName());
            }
            observed.put("result", returned);
            if (failure != null) {
                observed.put("failure", failure);
            }
            return observed;
        }

        @Override
        public Map<String, Object> step(String action, Object arg, double now) {
            switch (action) {
                case "start" -> {
                    return of("sequence", backoff.start());
                }
                case "delay" -> {
                    return of("delay", backoff.delay(integer(arg, "sequence"), integer(arg, "retry"),
                            number(arg, "retry_after")));
                }
                case "delays" -> {
                    List<Object> delays = new ArrayList<>();
                    for (int retry = 1; retry <= integer(arg, "count"); retry++) {
                        delays.add(backoff.delay(integer(arg, "sequence"), retry, number(arg, "retry_after")));
                    }
                    return of("delays", delays);
                }
                case "next" -> {
                    OutcomeArg outcome = outcome(arg);
                    double d = backoff.next(integer(arg, "sequence"), integer(arg, "attempt"), outcome.outcome(),
                            outcome.httpStatus(), number(arg, "retry_after"));
                    return d == Backoff.STOP ? of("retry", false) : of("retry", true, "delay", d);
                }
                case "schedule" -> {
                    OutcomeArg outcome = outcome(arg);
                    long sequence = integer(arg, "sequence");
                    double hint = number(arg, "retry_after");
                    List<Object> delays = new ArrayList<>();
                    for (int attempt = 1; attempt <= 1000; attempt++) {
                        double d = backoff.next(sequence, attempt, outcome.outcome(), outcome.httpStatus(), hint);
                        if (d == Backoff.STOP) {
                            break;
                        }
                        delays.add(d);
                    }
                    return of("delays", delays);
                }
                case "retries_on" -> {
                    OutcomeArg outcome = outcome(arg);
                    return of("retries", backoff.retriesOn(outcome.outcome(), outcome.httpStatus()));
                }
                case "close" -> {
                    backoff.close();
                    return ok();
                }
                case "max_attempts" -> {
                    return of("max_attempts", (long) backoff.maxAttempts());
                }
                case "retry" -> {
                    return retry(arg);
                }
                case "gave_up" -> {
                    OutcomeArg outcome = outcome(arg);
                    // Always an error: the give-up error is returned, other errors thrown.
                    throw backoff.gaveUpError(integer(arg, "attempts"), outcome.outcome(),
                            outcome.httpStatus());
                }
                default -> {
                    return runnerError("the backoff component has no action '" + action + "'");
                }
            }
        }

        @Override
        public void close() {
            backoff.close();
            if (gate != null) {
                gate.close();
            }
        }
    }
}
