/* Component "backoff": one back-off made from the scenario's "settings".
 *   start                                            -> {"sequence": n}
 *   delay {"sequence": 0, "retry": k, "retry_after"?} -> {"delay": d}
 *   delays {"sequence": 0, "count": n}               -> {"delays": [d1..dn]} (retries 1..n)
 *   next {"sequence": 0, "attempt": k, outcome..., "retry_after"?} -> {"retry": bool, "delay"?}
 *   schedule {"sequence": 0, outcome..., "retry_after"?} -> {"delays": [...]} (next from
 *        attempt 1 with the same outcome until it stops)
 *   retries_on outcome                               -> {"retries": bool}
 *   max_attempts                                     -> {"max_attempts": n}
 *   retry {"attempts": [answers], "immediate"?}  -> {"attempts", "gave_up", "last_outcome"?, "result",
 *        "failure"?: {"status", "message"?, "result"?} or {"callers_own": true}} (respite_retry_run with the
 *        scenario's "gate", if any, under the testing switch when "immediate"; answers as
 *        delivery's endpoint, plus {"returned": status} and {"callers_own": true})
 *   gave_up {"attempts": n, outcome...} -> {"error"} of respite_retry_gave_up
 *   close                                            -> {} (later actions see a closed back-off) */
#include "runner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct backoff_state {
    respite_backoff *backoff;
    respite_gate *gate; /* from the scenario's "gate" settings, for retry; may be NULL */
} backoff_state;

/* The scripted attempts of one retry action, and the last one's status and
 * whether it was a {"returned": status} (the value a give-up carries, B20). */
typedef struct script {
    json_t *answers;
    size_t next;
    int last_status;
    int last_returned;
} script;

static void *backoff_open(json_t *scenario, json_t **failure)
{
    respite_error err = {0};
    respite_settings *settings = settings_from_json("backoff", json_object_get(scenario, "settings"), &err);
    respite_backoff *backoff = settings ? respite_backoff_new(settings, &err) : NULL;
    respite_settings_free(settings);
    if (!backoff) {
        *failure = observe_error(&err);
        return NULL;
    }
    backoff_state *s = calloc(1, sizeof *s);
    s->backoff = backoff;
    json_t *gate = json_object_get(scenario, "gate");
    if (gate) {
        respite_settings *gate_settings = settings_from_json("gate", gate, &err);
        s->gate = gate_settings ? respite_gate_new(gate_settings, &err) : NULL;
        respite_settings_free(gate_settings);
        if (!s->gate) {
            *failure = observe_error(&err);
            respite_backoff_free(backoff);
            free(s);
            return NULL;
        }
    }
    return s;
}

/* The outcome an argument of next/schedule/retries_on names: the "outcome"
 * member as a name or object, else the argument itself. */
static int outcome_of(json_t *arg, int *http_status, respite_error *err)
{
    json_t *inner = json_object_get(arg, "outcome");
    if (json_is_object(inner))
        return arg_outcome(inner, http_status, err);
    return arg_outcome(arg, http_status, err);
}

static json_t *next(backoff_state *s, json_t *arg)
{
    respite_error err = {0};
    int http_status, bad = 0;
    int outcome = outcome_of(arg, &http_status, &err);
    if (err.status)
        return observe_error(&err);
    int64_t sequence = (int64_t)arg_number(arg, "sequence", 0, &bad);
    int attempt = (int)arg_number(arg, "attempt", 1, &bad);
    double hint = arg_number(arg, "retry_after", 0, &bad);
    if (bad)
        return observe_runner_error("sequence, attempt and retry_after must be numbers");
    double d = respite_backoff_next(s->backoff, sequence, attempt, outcome, http_status, hint, &err);
    if (isnan(d))
        return observe_error(&err);
    if (d == RESPITE_RETRY_STOP)
        return json_pack("{s:b}", "retry", 0);
    return json_pack("{s:b,s:f}", "retry", 1, "delay", d);
}

static json_t *schedule(backoff_state *s, json_t *arg)
{
    respite_error err = {0};
    int http_status, bad = 0;
    int outcome = outcome_of(arg, &http_status, &err);
    if (err.status)
        return observe_error(&err);
    int64_t sequence = (int64_t)arg_number(arg, "sequence", 0, &bad);
    double hint = arg_number(arg, "retry_after", 0, &bad);
    if (bad)
        return observe_runner_error("sequence and retry_after must be numbers");
    json_t *delays = json_array();
    for (int attempt = 1; attempt <= 1000; attempt++) {
        double d = respite_backoff_next(s->backoff, sequence, attempt, outcome, http_status, hint, &err);
        if (isnan(d)) {
            json_decref(delays);
            return observe_error(&err);
        }
        if (d == RESPITE_RETRY_STOP)
            break;
        json_array_append_new(delays, json_real(d));
    }
    return json_pack("{s:o}", "delays", delays);
}

static json_t *delays(backoff_state *s, json_t *arg, int single)
{
    respite_error err = {0};
    int bad = 0;
    int64_t sequence = (int64_t)arg_number(arg, "sequence", 0, &bad);
    double hint = arg_number(arg, "retry_after", 0, &bad);
    int first = single ? (int)arg_number(arg, "retry", 1, &bad) : 1;
    int last = single ? first : (int)arg_number(arg, "count", 1, &bad);
    if (bad)
        return observe_runner_error("sequence, retry, count and retry_after must be numbers");
    json_t *list = json_array();
    for (int retry = first; retry <= last; retry++) {
        double d = respite_backoff_delay(s->backoff, sequence, retry, hint, &err);
        if (err.status) {
            json_decref(list);
            return observe_error(&err);
        }
        json_array_append_new(list, json_real(d));
    }
    if (single) {
        json_t *observed = json_pack("{s:O}", "delay", json_array_get(list, 0));
        json_decref(list);
        return observed;
    }
    return json_pack("{s:o}", "delays", list);
}

/* respite_attempt_fn over the scripted answers: a status, {"status",
 * "retry_after"?} or {"transport": true}; past the end, a success. */
static int scripted_attempt(void *user_data, int attempt, int *http_status, double *retry_after_hint)
{
    (void)attempt;
    script *sc = user_data;
    json_t *answer = json_array_get(sc->answers, sc->next++);
    int bad = 0, status;
    respite_error err = {0};
    *retry_after_hint = arg_number(answer, "retry_after", 0.0, &bad);
    sc->last_status = 0;
    sc->last_returned = 0;
    if (!answer) {
        *http_status = sc->last_status = 200;
        return RESPITE_OUTCOME_SUCCESS;
    }
    if (json_is_true(json_object_get(answer, "callers_own")))
        return RESPITE_ATTEMPT_CALLERS_OWN;
    /* C has no exceptions: an answer returned is one given */
    json_t *returned = json_object_get(answer, "returned");
    sc->last_returned = returned != NULL;
    json_t *object = json_is_integer(answer) ? json_pack("{s:O}", "status", answer)
                     : returned          ? json_pack("{s:O}", "status", returned)
                                         : json_incref(answer);
    int outcome = arg_outcome(object, &status, &err);
    json_decref(object);
    *http_status = sc->last_status = status;
    return outcome;
}

static json_t *retry(backoff_state *s, json_t *arg)
{
    respite_error err = {0};
    script sc = {json_object_get(arg, "attempts"), 0, 0, 0};
    int last_outcome = -2, attempts_made = 0;
    int immediate = json_is_true(json_object_get(arg, "immediate"));
    respite_testing_set_immediate_retries(immediate);
    int rc = respite_retry_run(s->backoff, s->gate, scripted_attempt, &sc, &last_outcome, &attempts_made, &err);
    respite_testing_set_immediate_retries(0);
    /* Language-neutral: what the loop did, not how a helper reports it. */
    json_t *observed = json_pack("{s:i,s:b}", "attempts", attempts_made, "gave_up", rc == RESPITE_E_TRANSPORT);
    int own = last_outcome == RESPITE_ATTEMPT_CALLERS_OWN; /* told to the gate as request_error (B18) */
    if (last_outcome >= 0 || own)
        json_object_set_new(observed, "last_outcome",
                            json_string(respite_outcome_name(own ? RESPITE_OUTCOME_REQUEST_ERROR : last_outcome)));
    /* The value returned: the successful answer's status (a success returns it) */
    json_object_set_new(observed, "result", rc || own ? json_null() : json_integer(sc.last_status));
    if (own)
        json_object_set_new(observed, "failure", json_pack("{s:b}", "callers_own", 1));
    if (rc) {
        json_t *failure = json_pack("{s:s}", "status", respite_status_name(rc));
        /* A refusal's retry_after and message depend on the real clock. */
        if (rc != RESPITE_E_TEMPORARILY_UNAVAILABLE)
            json_object_set_new(failure, "message", json_string(err.message));
        /* B20: the give-up carries the last returned value (in C, where the attempt function left it) */
        if (rc == RESPITE_E_TRANSPORT)
            json_object_set_new(failure, "result", sc.last_returned ? json_integer(sc.last_status) : json_null());
        json_object_set_new(observed, "failure", failure);
    }
    return observed;
}

/* The error a retry loop ends with when the back-off stops it (B14). */
static json_t *gave_up(backoff_state *s, json_t *arg)
{
    respite_error err = {0};
    int http_status, bad = 0;
    int outcome = outcome_of(arg, &http_status, &err);
    if (err.status)
        return observe_error(&err);
    int attempts = (int)arg_number(arg, "attempts", 1, &bad);
    if (bad)
        return observe_runner_error("attempts must be a number");
    respite_retry_gave_up(s->backoff, attempts, outcome, http_status, &err);
    return observe_error(&err);
}

static json_t *backoff_step(void *state, const char *action, json_t *arg, double now)
{
    (void)now;
    backoff_state *s = state;
    respite_error err = {0};
    if (strcmp(action, "start") == 0) {
        int64_t sequence = respite_backoff_start(s->backoff, &err);
        return sequence < 0 ? observe_error(&err) : json_pack("{s:I}", "sequence", (json_int_t)sequence);
    }
    if (strcmp(action, "delay") == 0)
        return delays(s, arg, 1);
    if (strcmp(action, "delays") == 0)
        return delays(s, arg, 0);
    if (strcmp(action, "next") == 0)
        return next(s, arg);
    if (strcmp(action, "schedule") == 0)
        return schedule(s, arg);
    if (strcmp(action, "retries_on") == 0) {
        int http_status;
        int outcome = outcome_of(arg, &http_status, &err);
        int retries = err.status ? -1 : respite_backoff_retries_on(s->backoff, outcome, http_status, &err);
        return retries < 0 ? observe_error(&err) : json_pack("{s:b}", "retries", retries);
    }
    if (strcmp(action, "retry") == 0)
        return retry(s, arg);
    if (strcmp(action, "gave_up") == 0)
        return gave_up(s, arg);
    if (strcmp(action, "close") == 0) {
        respite_backoff_free(s->backoff);
        s->backoff = NULL; /* later actions get "backoff is closed" */
        return observe_ok();
    }
    if (strcmp(action, "max_attempts") == 0)
        return json_pack("{s:i}", "max_attempts", respite_backoff_max_attempts(s->backoff));
    return observe_unknown_action("backoff", action);
}

static void backoff_close(void *state)
{
    backoff_state *s = state;
    respite_backoff_free(s->backoff);
    respite_gate_free(s->gate);
    free(s);
}

static respite_gate *gate_of_backoff(void *state)
{
    return ((backoff_state *)state)->gate;
}

const component backoff_component = {"backoff", backoff_open, backoff_step, backoff_close, gate_of_backoff, NULL};
