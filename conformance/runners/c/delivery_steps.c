/* Component "delivery": a policy, a queue, a gate and the delivery engine on
 * the injected clock, against a scripted endpoint (the scenario's
 * "endpoint": {"sequence": [answers in order], "by_event": {event: [answers]},
 * "otherwise": answer | null}, or a list, the sequence alone).
 *   enqueue "e1" | ["e1", ...] | {"count": n, "prefix": "e"}
 *                                  -> {"accepted": n, "refused"?: {status: count}}
 *   next                           -> {"action": name, "wait_seconds"?}
 *   take                           -> {"events": [...], "attempts": [...]} | {"error"}
 *   settle answer | null           -> {"answer": answer}   (null: the endpoint's next answer)
 *   send                           -> take, then settle with the endpoint's next answer:
 *                                     {"events", "attempts", "answer"} | {"events": []} | {"error"}
 *   run                            -> while next says send: send.
 *                                     {"sends": [[events], ...], "action", "wait_seconds"?}
 *   close                          -> {}
 *   expire                         -> {"expired": n}
 *   state                          -> {"state": the gate's state}
 *   stats                          -> {"queue": {...}, "engine": {...}, "balanced": bool}
 *   events                         -> {"gate": [...], "engine": [...]} (drains both rings) */
#include "runner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RUN_SENDS_MAX 100000

typedef struct delivery_state {
    respite_policy *policy;
    respite_queue *queue;
    respite_gate *gate;
    respite_engine *engine;
    respite_batch *batch; /* taken and not yet settled */
    json_t *sequence, *by_event, *otherwise;
    size_t answered;
} delivery_state;

static void delivery_close(void *state);

static respite_policy *policy_of(json_t *spec, respite_error *err)
{
    if (json_is_string(spec) && strcmp(json_string_value(spec), "@default") == 0)
        return respite_policy_default(err);
    char *text = json_dumps(spec, JSON_ENCODE_ANY | JSON_PRESERVE_ORDER);
    respite_policy *policy = respite_policy_from_json(text ? text : "", NULL, err);
    free(text);
    return policy;
}

static void *delivery_open(json_t *scenario, json_t **failure)
{
    respite_error err = {0};
    delivery_state *s = calloc(1, sizeof *s);
    const char *profile = json_string_value(json_object_get(scenario, "profile"));
    respite_settings *queue_settings = NULL, *gate_settings = NULL, *engine_settings = NULL;
    s->policy = policy_of(json_object_get(scenario, "policy"), &err);
    if (s->policy)
        queue_settings = settings_from_json("queue", json_object_get(scenario, "queue"), &err);
    if (queue_settings)
        s->queue = respite_queue_new(s->policy, queue_settings, &err);
    if (s->queue)
        gate_settings = settings_from_json(profile ? profile : "gate", json_object_get(scenario, "gate"), &err);
    if (gate_settings)
        s->gate = respite_gate_new(gate_settings, &err);
    if (s->gate)
        engine_settings = settings_from_json("sender", json_object_get(scenario, "engine"), &err);
    if (engine_settings)
        s->engine = respite_engine_new(s->queue, s->gate, engine_settings, &err);
    respite_settings_free(queue_settings);
    respite_settings_free(gate_settings);
    respite_settings_free(engine_settings);
    if (!s->engine) {
        *failure = observe_error(&err);
        delivery_close(s);
        return NULL;
    }
    json_t *endpoint = json_object_get(scenario, "endpoint");
    s->sequence = json_incref(json_is_array(endpoint) ? endpoint : json_object_get(endpoint, "sequence"));
    s->by_event = json_deep_copy(json_object_get(endpoint, "by_event")); /* answers are used up */
    s->otherwise = json_incref(json_object_get(endpoint, "otherwise"));
    if (json_is_object(endpoint) && !s->otherwise) /* as written (respite simulate): 200 by default */
        s->otherwise = json_integer(200);
    return s;
}

/* ------------------------------------------------------------- enqueue */

static void count_refusal(json_t *refused, int status)
{
    const char *name = respite_status_name(status);
    json_t *count = json_object_get(refused, name);
    json_object_set_new(refused, name, json_integer(count ? json_integer_value(count) + 1 : 1));
}

static json_t *enqueue(delivery_state *s, json_t *arg, double now)
{
    json_t *events = json_array();
    if (json_is_string(arg)) {
        json_array_append(events, arg);
    } else if (json_is_array(arg)) {
        json_array_extend(events, arg);
    } else if (json_is_object(arg)) {
        const char *prefix = json_string_value(json_object_get(arg, "prefix"));
        json_int_t count = json_integer_value(json_object_get(arg, "count"));
        for (json_int_t i = 1; i <= count; i++) {
            char text[128];
            snprintf(text, sizeof text, "%s%lld", prefix ? prefix : "e", (long long)i);
            json_array_append_new(events, json_string(text));
        }
    } else {
        json_decref(events);
        return observe_runner_error("enqueue takes a string, a list of strings or {\"count\", \"prefix\"}");
    }
    json_t *refused = json_object();
    json_int_t accepted = 0;
    size_t i;
    json_t *event;
    json_array_foreach(events, i, event) {
        respite_error err = {0};
        if (respite_queue_enqueue(s->queue, json_string_value(event), json_string_length(event), now, &err))
            count_refusal(refused, err.status);
        else
            accepted++;
    }
    json_decref(events);
    json_t *observed = json_pack("{s:I}", "accepted", accepted);
    if (json_object_size(refused))
        json_object_set(observed, "refused", refused);
    json_decref(refused);
    return observed;
}

/* ------------------------------------------------------------- sending */

static json_t *next_action(delivery_state *s, double now, int *action)
{
    respite_error err = {0};
    *action = respite_engine_next(s->engine, now, &err);
    if (*action < 0)
        return observe_error(&err);
    json_t *observed = json_pack("{s:s}", "action", respite_action_name(*action));
    if (*action == RESPITE_ACTION_WAIT)
        json_object_set_new(observed, "wait_seconds", json_number_or_null(respite_engine_wait_seconds(s->engine)));
    return observed;
}

/* Takes a batch into s->batch: {"events", "attempts"}, {"events": []} when
 * nothing is pending, or an error. */
static json_t *take(delivery_state *s, double now)
{
    respite_error err = {0};
    if (s->batch)
        return observe_runner_error("the batch taken before has not been settled");
    s->batch = respite_engine_take(s->engine, now, &err);
    if (!s->batch && err.status)
        return observe_error(&err);
    json_t *texts = json_array(), *attempts = json_array();
    for (int i = 0; i < respite_batch_count(s->batch); i++) {
        json_array_append_new(texts, json_string(respite_batch_event_text(s->batch, i, NULL)));
        json_array_append_new(attempts, json_integer(respite_batch_event_attempts(s->batch, i, NULL)));
    }
    return json_pack("{s:o,s:o}", "events", texts, "attempts", attempts);
}

/* The endpoint's answer for the batch (new ref): the next answer of its
 * first event scripted by_event that has one left, else the sequence's
 * next, else "otherwise"; NULL when the script has run out. */
static json_t *scripted_answer(delivery_state *s, const respite_batch *batch)
{
    for (int i = 0; i < respite_batch_count(batch); i++) {
        json_t *answers = json_object_get(s->by_event, respite_batch_event_text(batch, i, NULL));
        if (json_array_size(answers)) {
            json_t *answer = json_incref(json_array_get(answers, 0));
            json_array_remove(answers, 0);
            return answer;
        }
    }
    if (s->answered < json_array_size(s->sequence))
        return json_incref(json_array_get(s->sequence, s->answered++));
    return json_is_null(s->otherwise) ? NULL : json_incref(s->otherwise);
}

static json_t *settle_with(delivery_state *s, json_t *answer, double now)
{
    respite_error err = {0};
    int transport = json_is_true(json_object_get(answer, "transport"));
    json_t *status = json_is_integer(answer) ? answer : json_object_get(answer, "status");
    int bad = 0;
    double hint = arg_number(answer, "retry_after", 0.0, &bad);
    if (bad || (!transport && !json_is_integer(status)))
        return observe_runner_error("an answer is a status, {\"status\", \"retry_after\"?} or {\"transport\": true}");
    respite_batch *batch = s->batch;
    s->batch = NULL; /* settle frees it, whatever it returns */
    if (respite_engine_settle(s->engine, batch, transport, transport ? 0 : (int)json_integer_value(status), hint, now,
                              &err))
        return observe_error(&err);
    return json_pack("{s:O}", "answer", answer);
}

static json_t *settle(delivery_state *s, json_t *answer, double now)
{
    if (!s->batch)
        return observe_runner_error("settle needs a batch taken before");
    answer = json_is_null(answer) || !answer ? scripted_answer(s, s->batch) : json_incref(answer);
    if (!answer)
        return observe_runner_error("the endpoint has no more answers");
    json_t *observed = settle_with(s, answer, now);
    json_decref(answer);
    return observed;
}

static json_t *send(delivery_state *s, double now)
{
    json_t *observed = take(s, now);
    if (json_object_get(observed, "error") || !s->batch)
        return observed;
    json_t *settled = settle(s, NULL, now);
    if (json_object_get(settled, "error")) {
        json_decref(observed);
        return settled;
    }
    json_object_set(observed, "answer", json_object_get(settled, "answer"));
    json_decref(settled);
    return observed;
}

static json_t *run(delivery_state *s, double now)
{
    json_t *sends = json_array();
    for (int i = 0; i < RUN_SENDS_MAX; i++) {
        int action;
        json_t *observed = next_action(s, now, &action);
        if (action != RESPITE_ACTION_SEND) {
            json_object_set_new(observed, "sends", sends);
            return observed;
        }
        json_decref(observed);
        json_t *sent = send(s, now);
        if (json_object_get(sent, "error")) {
            json_decref(sends);
            return sent;
        }
        json_array_append(sends, json_object_get(sent, "events"));
        json_decref(sent);
    }
    json_decref(sends);
    return observe_runner_error("run: still sending after %d batches", RUN_SENDS_MAX);
}

/* ------------------------------------------------------------- figures */

static json_t *stats(delivery_state *s)
{
    respite_error err = {0};
    respite_queue_stats q;
    respite_engine_stats e;
    if (respite_queue_stats_get(s->queue, &q, &err) || respite_engine_stats_get(s->engine, &e, &err))
        return observe_error(&err);
    json_t *queue = json_object();
    json_object_set_new(queue, "accepted", json_integer(q.accepted));
    json_object_set_new(queue, "delivered", json_integer(q.delivered));
    json_object_set_new(queue, "dropped_capacity", json_integer(q.dropped_capacity));
    json_object_set_new(queue, "expired", json_integer(q.expired));
    json_object_set_new(queue, "retries_exhausted", json_integer(q.retries_exhausted));
    json_object_set_new(queue, "discarded", json_integer(q.discarded));
    json_object_set_new(queue, "pending", json_integer(q.pending));
    json_object_set_new(queue, "in_flight", json_integer(q.in_flight));
    json_object_set_new(queue, "refused_full", json_integer(q.refused_full));
    json_object_set_new(queue, "refused_too_large", json_integer(q.refused_too_large));
    json_object_set_new(queue, "refused_closed", json_integer(q.refused_closed));
    json_object_set_new(queue, "retried", json_integer(q.retried));
    json_object_set_new(queue, "pending_bytes", json_integer(q.pending_bytes));
    json_object_set_new(queue, "capacity", json_integer(q.capacity));
    json_object_set_new(queue, "closed", json_boolean(q.closed));
    json_t *engine = json_object();
    json_object_set_new(engine, "sends", json_integer(e.sends));
    json_object_set_new(engine, "probes", json_integer(e.probes));
    json_object_set_new(engine, "sends_failed", json_integer(e.sends_failed));
    json_object_set_new(engine, "refusals", json_integer(e.refusals));
    json_object_set_new(engine, "events_sent", json_integer(e.events_sent));
    json_object_set_new(engine, "unsent", json_integer(e.unsent));
    json_object_set_new(engine, "closing", json_boolean(e.closing));
    json_object_set_new(engine, "closed_while_paused", json_boolean(e.closed_while_paused));
    return json_pack("{s:o,s:o,s:b}", "queue", queue, "engine", engine, "balanced", respite_queue_stats_balanced(&q));
}

static json_t *events(delivery_state *s)
{
    respite_error err = {0};
    json_t *gate = json_array(), *engine = json_array();
    respite_event e;
    int rc;
    while ((rc = respite_gate_next_event(s->gate, &e, &err)) == 1)
        json_array_append_new(gate, event_to_json(&e));
    while (rc >= 0 && (rc = respite_engine_next_event(s->engine, &e, &err)) == 1)
        json_array_append_new(engine, event_to_json(&e));
    if (rc < 0) {
        json_decref(gate);
        json_decref(engine);
        return observe_error(&err);
    }
    return json_pack("{s:o,s:o}", "gate", gate, "engine", engine);
}

static json_t *delivery_step(void *state, const char *action, json_t *arg, double now)
{
    delivery_state *s = state;
    respite_error err = {0};
    if (strcmp(action, "enqueue") == 0)
        return enqueue(s, arg, now);
    if (strcmp(action, "next") == 0) {
        int ignored;
        return next_action(s, now, &ignored);
    }
    if (strcmp(action, "take") == 0)
        return take(s, now);
    if (strcmp(action, "settle") == 0)
        return settle(s, arg, now);
    if (strcmp(action, "send") == 0)
        return send(s, now);
    if (strcmp(action, "run") == 0)
        return run(s, now);
    if (strcmp(action, "close") == 0)
        return respite_engine_close(s->engine, now, &err) ? observe_error(&err) : observe_ok();
    if (strcmp(action, "expire") == 0) {
        int64_t expired = respite_queue_expire(s->queue, now, &err);
        return expired < 0 ? observe_error(&err) : json_pack("{s:I}", "expired", (json_int_t)expired);
    }
    if (strcmp(action, "state") == 0) {
        int st = respite_gate_get_state(s->gate, now, &err);
        return st < 0 ? observe_error(&err) : json_pack("{s:s}", "state", respite_gate_state_name(st));
    }
    if (strcmp(action, "stats") == 0)
        return stats(s);
    if (strcmp(action, "events") == 0)
        return events(s);
    return observe_unknown_action("delivery", action);
}

static void delivery_close(void *state)
{
    delivery_state *s = state;
    respite_engine_free(s->engine); /* also returns a batch left unsettled */
    respite_gate_free(s->gate);
    respite_queue_free(s->queue);
    respite_policy_free(s->policy);
    json_decref(s->sequence);
    json_decref(s->by_event);
    json_decref(s->otherwise);
    free(s);
}

static respite_gate *gate_of_delivery(void *state)
{
    return ((delivery_state *)state)->gate;
}

const component delivery_component = {"delivery", delivery_open, delivery_step, delivery_close, gate_of_delivery, NULL};
