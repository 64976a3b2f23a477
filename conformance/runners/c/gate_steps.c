/* Component "gate": one gate made from the scenario's "profile" (default
 * "gate", i.e. cloud_request) and "settings", driven on the injected clock;
 * "handles": n opens it n times (the shared mode: one shared gate, twice); each
 * step's "handle" says which one it uses; permits are the scenario's.
 *   check {"as": "p1"}?          -> {"allowed", "probe", "retry_after", "message"?}
 *   acquire                      -> {} or the refusal's error
 *   record outcome (+ "permit": "p1" or a forged number, "retry_after": hint) -> {"outcome": name}
 *   state                        -> {"state": name}
 *   retry_after                  -> {"retry_after": seconds | null}
 *   stats                        -> {"stats": {...}}
 *   events                       -> {"events": [...]}  (drains the ring)
 *   reset                        -> {}
 *   refusal_message seconds|null -> {"message": text}
 *   close                        -> {} (later actions see a closed gate) */
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define PERMIT_NAMES_MAX 64
#define GATE_HANDLES_MAX 8

typedef struct gate_state {
    respite_gate *gate; /* the handle the current step uses: one of gates */
    respite_gate *gates[GATE_HANDLES_MAX];
    int handles;
    int current;
    int permit_count;
    char *permit_names[PERMIT_NAMES_MAX];
    int64_t permits[PERMIT_NAMES_MAX];
} gate_state;

static void gate_close(void *state);

static void *gate_open(json_t *scenario, json_t **failure)
{
    json_t *handles = json_object_get(scenario, "handles");
    json_int_t count = handles ? (json_is_integer(handles) ? json_integer_value(handles) : 0) : 1;
    if (count < 1 || count > GATE_HANDLES_MAX) {
        *failure = observe_runner_error("\"handles\" must be an integer from 1 to %d", GATE_HANDLES_MAX);
        return NULL;
    }
    const char *profile = json_string_value(json_object_get(scenario, "profile"));
    respite_error err = {0};
    respite_settings *settings = settings_from_json(profile ? profile : "gate", json_object_get(scenario, "settings"), &err);
    gate_state *s = calloc(1, sizeof *s);
    for (s->handles = 0; settings && s->handles < count; s->handles++) {
        s->gates[s->handles] = respite_gate_new(settings, &err);
        if (!s->gates[s->handles])
            break;
    }
    respite_settings_free(settings);
    if (s->handles < count) {
        gate_close(s);
        *failure = observe_error(&err);
        return NULL;
    }
    s->gate = s->gates[0];
    return s;
}

static int gate_use(void *state, json_int_t handle)
{
    gate_state *s = state;
    if (handle < 0 || handle >= s->handles)
        return -1;
    s->current = (int)handle;
    s->gate = s->gates[s->current];
    return 0;
}

static void remember_permit(gate_state *s, const char *name, int64_t permit)
{
    for (int i = 0; i < s->permit_count; i++) {
        if (strcmp(s->permit_names[i], name) == 0) {
            s->permits[i] = permit;
            return;
        }
    }
    if (s->permit_count < PERMIT_NAMES_MAX) {
        s->permit_names[s->permit_count] = strdup(name);
        s->permits[s->permit_count++] = permit;
    }
}

static int permit_named(const gate_state *s, const char *name, int64_t *permit)
{
    for (int i = 0; i < s->permit_count; i++) {
        if (strcmp(s->permit_names[i], name) == 0) {
            *permit = s->permits[i];
            return 1;
        }
    }
    return 0;
}

static json_t *check(gate_state *s, json_t *arg, double now)
{
    respite_error err = {0};
    respite_decision decision;
    if (respite_gate_check(s->gate, now, &decision, &err))
        return observe_error(&err);
    const char *as = json_string_value(json_object_get(arg, "as"));
    if (as && decision.allowed)
        remember_permit(s, as, decision.permit);
    json_t *observed = json_pack("{s:b,s:b,s:o}", "allowed", decision.allowed, "probe", decision.probe,
                                 "retry_after", json_number_or_null(decision.retry_after));
    if (!decision.allowed) {
        char message[256];
        respite_refusal_message(decision.retry_after, message, sizeof message);
        json_object_set_new(observed, "message", json_string(message));
    }
    return observed;
}

/* The admit-or-raise call: {} when admitted, else the refusal's error. */
static json_t *acquire(gate_state *s, double now)
{
    respite_error err = {0};
    return respite_gate_admit(s->gate, now, &err) > 0 ? observe_ok() : observe_error(&err);
}

static json_t *record(gate_state *s, json_t *arg, double now)
{
    respite_error err = {0};
    int http_status;
    int outcome = arg_outcome(arg, &http_status, &err);
    if (err.status)
        return observe_error(&err);
    int bad = 0;
    double hint = arg_number(arg, "retry_after", 0.0, &bad);
    json_t *given = json_object_get(arg, "permit");
    int64_t permit = json_is_integer(given) ? (int64_t)json_integer_value(given) : RESPITE_NO_PERMIT; /* forged */
    const char *name = json_string_value(given);
    if (bad)
        return observe_runner_error("retry_after must be a number");
    if (name && !permit_named(s, name, &permit))
        return observe_runner_error("no admitted check was named '%s'", name);
    if (respite_gate_report(s->gate, permit, outcome, hint, now, &err))
        return observe_error(&err);
    return json_pack("{s:s}", "outcome", respite_outcome_name(outcome));
}

static json_t *stats(gate_state *s)
{
    respite_error err = {0};
    respite_gate_stats st;
    if (respite_gate_stats_get(s->gate, &st, &err))
        return observe_error(&err);
    json_t *o = json_object();
    json_object_set_new(o, "admitted", json_integer(st.admitted));
    json_object_set_new(o, "refused", json_integer(st.refused));
    json_object_set_new(o, "reported", json_integer(st.reported));
    json_object_set_new(o, "counted_failures", json_integer(st.counted_failures));
    json_object_set_new(o, "late", json_integer(st.late));
    json_object_set_new(o, "trips", json_integer(st.trips));
    json_object_set_new(o, "probes", json_integer(st.probes));
    json_object_set_new(o, "probe_timeouts", json_integer(st.probe_timeouts));
    json_object_set_new(o, "events_dropped", json_integer(st.events_dropped));
    json_object_set_new(o, "generation", json_integer(st.generation));
    json_object_set_new(o, "window_failures", json_integer(st.window_failures));
    json_object_set_new(o, "state", json_string(respite_gate_state_name(st.state)));
    json_object_set_new(o, "delay", json_number_or_null(st.delay));
    json_object_set_new(o, "until", json_number_or_null(st.until));
    json_object_set_new(o, "successes", json_integer(st.successes));
    json_object_set_new(o, "pauses", json_integer(st.pauses));
    return json_pack("{s:o}", "stats", o);
}

/* The event's type, time, log line and the figures that apply to its type. */
json_t *event_to_json(const respite_event *e)
{
    char line[RESPITE_NAME_MAX + RESPITE_EVENT_DETAIL_MAX + 256];
    respite_event_message(e, line, sizeof line);
    json_t *o = json_pack("{s:s,s:o,s:s}", "type", respite_event_type_name(e->type), "at", json_real(e->at), "line",
                          line);
    switch (e->type) {
    case RESPITE_EVENT_RECOVERY_STARTED:
        json_object_set_new(o, "failures", json_integer(e->failures));
        json_object_set_new(o, "window", json_real(e->window));
        json_object_set_new(o, "pause", json_number_or_null(e->pause));
        break;
    case RESPITE_EVENT_RECOVERY_EXTENDED:
        json_object_set_new(o, "pause", json_number_or_null(e->pause));
        break;
    case RESPITE_EVENT_SEND_FAILED:
        json_object_set_new(o, "http_status", json_integer(e->http_status));
        json_object_set_new(o, "detail", json_string(e->detail));
        break;
    case RESPITE_EVENT_UNSENT_AT_CLOSE:
        json_object_set_new(o, "count", json_integer(e->count));
        break;
    default:
        break;
    }
    return o;
}

static json_t *events(gate_state *s)
{
    respite_error err = {0};
    json_t *list = json_array();
    respite_event e;
    int rc;
    while ((rc = respite_gate_next_event(s->gate, &e, &err)) == 1)
        json_array_append_new(list, event_to_json(&e));
    if (rc < 0) {
        json_decref(list);
        return observe_error(&err);
    }
    return json_pack("{s:o}", "events", list);
}

static json_t *gate_step(void *state, const char *action, json_t *arg, double now)
{
    gate_state *s = state;
    respite_error err = {0};
    if (strcmp(action, "check") == 0)
        return check(s, arg, now);
    if (strcmp(action, "record") == 0)
        return record(s, arg, now);
    if (strcmp(action, "acquire") == 0)
        return acquire(s, now);
    if (strcmp(action, "state") == 0) {
        int st = respite_gate_get_state(s->gate, now, &err);
        return st < 0 ? observe_error(&err) : json_pack("{s:s}", "state", respite_gate_state_name(st));
    }
    if (strcmp(action, "retry_after") == 0) {
        double seconds = respite_gate_retry_after(s->gate, now, &err);
        return err.status ? observe_error(&err) : json_pack("{s:o}", "retry_after", json_number_or_null(seconds));
    }
    if (strcmp(action, "stats") == 0)
        return stats(s);
    if (strcmp(action, "events") == 0)
        return events(s);
    if (strcmp(action, "reset") == 0)
        return respite_gate_reset(s->gate, now, &err) ? observe_error(&err) : observe_ok();
    if (strcmp(action, "close") == 0) {
        respite_gate_free(s->gate);
        s->gate = s->gates[s->current] = NULL; /* later actions get "gate is closed" */
        return observe_ok();
    }
    if (strcmp(action, "refusal_message") == 0) {
        char message[256];
        respite_refusal_message(json_is_null(arg) ? INFINITY : json_number_value(arg), message, sizeof message);
        return json_pack("{s:s}", "message", message);
    }
    return observe_unknown_action("gate", action);
}

static void gate_close(void *state)
{
    gate_state *s = state;
    for (int i = 0; i < s->handles; i++)
        respite_gate_free(s->gates[i]);
    for (int i = 0; i < s->permit_count; i++)
        free(s->permit_names[i]);
    free(s);
}

static respite_gate *gate_of_gate(void *state)
{
    return ((gate_state *)state)->gate;
}

const component gate_component = {"gate", gate_open, gate_step, gate_close, gate_of_gate, gate_use};
