/* The delivery engine (S1-S5): decides when to send, admits each batch
 * through the gate and settles its events by the policy. No threads, no
 * network, no sleeping: the caller brings the time and does the I/O. */
#include "event_ring.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ENGINE_EVENT_RING 16

struct respite_engine {
    respite_queue *queue;          /* held */
    respite_gate *gate;            /* held */
    const respite_policy *policy;  /* the queue's */
    char name[RESPITE_NAME_MAX];   /* the sender settings' name: events' source */

    int min_entries;
    int max_entries;
    double close_timeout;

    respite_batch *batch; /* in flight: taken, not settled */
    int64_t permit;

    double last_now;
    double wait_seconds;
    int done;
    respite_engine_stats stats;
    respite_event_ring events;
};

static const char *const action_names[] = {"send", "wait", "idle", "done"};

const char *respite_action_name(int action)
{
    if (action < 0 || action > RESPITE_ACTION_DONE)
        return NULL;
    return action_names[action];
}

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_ENGINE, err);
}

respite_engine *respite_engine_new(respite_queue *queue, respite_gate *gate, const respite_settings *settings,
                                   respite_error *err)
{
    if (!queue)
        return respite_closed(RESPITE_HANDLE_QUEUE, err), NULL;
    if (!gate)
        return respite_closed(RESPITE_HANDLE_GATE, err), NULL;
    respite_settings *own_settings = NULL;
    if (settings) {
        if (respite_settings_expect(settings, "sender", "settings", err) != RESPITE_OK)
            return NULL;
        if (respite_settings_validate(settings, err) != RESPITE_OK)
            return NULL;
    } else if (!(settings = own_settings = respite_settings_new("sender", err))) {
        return NULL;
    }

    respite_engine *e = calloc(1, sizeof *e);
    if (!e) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating an engine");
        goto fail;
    }
    const respite_policy *policy = respite_queue_policy(queue);
    respite_copy_text(e->name, sizeof e->name, respite_setting_text(settings, RESPITE_SETTING_SENDER_NAME));
    e->min_entries = (int)respite_setting_integer(settings, RESPITE_SETTING_SENDER_MIN_ENTRIES_PER_MESSAGE);
    int max = (int)respite_setting_integer(settings, RESPITE_SETTING_SENDER_MAX_ENTRIES_PER_MESSAGE);
    /* S2: the sender's own setting wins; then the policy's prefetch_count
     * (D7) when the policy sets one; then twice the minimum. */
    if (max == 0)
        max = respite_policy_has_prefetch_count(policy) ? respite_policy_prefetch_count(policy) : 2 * e->min_entries;
    e->max_entries = max;
    e->close_timeout = respite_setting_number(settings, RESPITE_SETTING_SENDER_CLOSE_TIMEOUT_SECONDS);
    e->stats.unsent = -1;
    if (respite_event_ring_init(&e->events, ENGINE_EVENT_RING, err) != RESPITE_OK)
        goto fail;
    e->queue = respite_queue_retain(queue);
    e->gate = respite_gate_retain(gate);
    e->policy = policy;
    respite_settings_free(own_settings);
    return e;
fail:
    free(e);
    respite_settings_free(own_settings);
    return NULL;
}

void respite_engine_free(respite_engine *engine)
{
    if (!engine)
        return;
    respite_batch_free(engine->batch); /* unsettled events go back to the head */
    respite_event_ring_destroy(&engine->events);
    respite_queue_free(engine->queue);
    respite_gate_free(engine->gate);
    free(engine);
}

/* Time never goes backwards inside an engine (common.h). */
static int engine_time(respite_engine *e, double *now, respite_error *err)
{
    if (respite_check_time(*now, "now", err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    if (*now < e->last_now)
        *now = e->last_now;
    e->last_now = *now;
    return RESPITE_OK;
}

/* S5: closing has ended; what is still queued was not sent. */
static int finish(respite_engine *e, double now, respite_error *err)
{
    if (!e->done) {
        int64_t unsent = respite_queue_pending(e->queue, err);
        if (unsent < 0)
            return -1;
        e->done = 1;
        e->stats.unsent = unsent;
        if (unsent > 0) {
            respite_event ev;
            memset(&ev, 0, sizeof ev);
            memcpy(ev.source, e->name, sizeof ev.source);
            ev.type = RESPITE_EVENT_UNSENT_AT_CLOSE;
            ev.at = now;
            ev.count = unsent;
            respite_event_ring_push(&e->events, &ev);
        }
    }
    return RESPITE_ACTION_DONE;
}

static int start_closing(respite_engine *e, double now, respite_error *err)
{
    double wait = 0.0;
    int status = respite_queue_close(e->queue, err);
    if (status == RESPITE_OK)
        status = respite_gate_wait(e->gate, now, &wait, err);
    if (status != RESPITE_OK)
        return status;
    e->stats.closing = 1;
    e->stats.close_deadline = now + e->close_timeout;
    e->stats.closed_while_paused = wait > 0;
    return RESPITE_OK;
}

int respite_engine_next(respite_engine *engine, double now, respite_error *err)
{
    if (!engine)
        return fail_closed(err), -1;
    if (engine_time(engine, &now, err) != RESPITE_OK)
        return -1;
    if (engine->batch) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "a batch is in flight: settle it with respite_engine_settle before asking for the next action");
        return -1;
    }
    engine->wait_seconds = 0;
    if (engine->done)
        return RESPITE_ACTION_DONE;
    if (respite_queue_expire(engine->queue, now, err) < 0)
        return -1;
    int64_t pending = respite_queue_pending(engine->queue, err);
    if (pending < 0)
        return -1;
    /* A queue closed directly closes the engine too, so it drains. */
    if (!engine->stats.closing && respite_queue_is_closed(engine->queue, NULL) == 1 &&
        start_closing(engine, now, err) != RESPITE_OK)
        return -1;

    if (engine->stats.closing) {
        if (engine->stats.closed_while_paused || pending == 0 || now >= engine->stats.close_deadline)
            return finish(engine, now, err);
        double wait = respite_gate_retry_after(engine->gate, now, err);
        if (wait < 0)
            return -1;
        if (wait > 0) /* the gate paused while draining: stop as S5 stops a paused close */
            return finish(engine, now, err);
        return RESPITE_ACTION_SEND;
    }
    if (pending < engine->min_entries)
        return RESPITE_ACTION_IDLE;
    double wait = respite_gate_retry_after(engine->gate, now, err);
    if (wait < 0)
        return -1;
    if (wait > 0) {
        engine->wait_seconds = wait;
        return RESPITE_ACTION_WAIT;
    }
    return RESPITE_ACTION_SEND;
}

double respite_engine_wait_seconds(const respite_engine *engine)
{
    return engine ? engine->wait_seconds : 0;
}

respite_batch *respite_engine_take(respite_engine *engine, double now, respite_error *err)
{
    if (!engine)
        return fail_closed(err), NULL;
    if (engine_time(engine, &now, err) != RESPITE_OK)
        return NULL;
    if (engine->batch) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "a batch is already in flight: settle it first");
        return NULL;
    }
    if (engine->done || engine->stats.closed_while_paused) {
        fail_closed(err);
        return NULL;
    }
    /* Events first, then the gate: a permit taken for nothing to send would
     * leave a probe outstanding until it timed out (G10). */
    respite_batch *batch = respite_queue_take(engine->queue, engine->max_entries, now, err);
    if (!batch)
        return NULL;
    respite_decision decision;
    if (respite_gate_check(engine->gate, now, &decision, err) != RESPITE_OK) {
        respite_batch_free(batch);
        return NULL;
    }
    if (!decision.allowed) {
        respite_batch_free(batch); /* back to the head, attempt not counted */
        engine->stats.refusals++;
        respite_refusal_error(decision.retry_after, err);
        return NULL;
    }
    engine->batch = batch;
    engine->permit = decision.permit;
    engine->stats.sends++;
    engine->stats.probes += decision.probe ? 1 : 0;
    engine->stats.events_sent += respite_batch_count(batch);
    return batch;
}

int respite_engine_settle(respite_engine *engine, respite_batch *batch, int transport_failed, int http_status,
                          double retry_after_hint, double now, respite_error *err)
{
    if (!engine)
        return fail_closed(err);
    if (!batch || batch != engine->batch)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "batch must be the one respite_engine_take returned and not yet settled");
    if (engine_time(engine, &now, err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    int outcome = respite_classify(transport_failed, http_status, 1, err);
    if (outcome < 0)
        return RESPITE_E_INVALID_ARGUMENT;
    int status = respite_gate_report(engine->gate, engine->permit, outcome, retry_after_hint, now, err);
    if (status != RESPITE_OK)
        return status;

    int disposition;
    if (outcome == RESPITE_OUTCOME_SUCCESS) {
        disposition = RESPITE_DISPOSITION_DELIVERED; /* D1 */
    } else {
        engine->stats.sends_failed++;
        /* D2: a transport failure or a 1xx (no final answer) matches as 503. */
        int no_answer = transport_failed || http_status < 200;
        int strategy = RESPITE_STRATEGY_DISCARD;
        status = respite_policy_find_strategy(engine->policy, no_answer, http_status, &strategy, err);
        if (status != RESPITE_OK)
            return status;
        disposition = strategy == RESPITE_STRATEGY_RETRY ? RESPITE_DISPOSITION_RETRY : RESPITE_DISPOSITION_DISCARDED;
    }
    engine->batch = NULL;
    engine->permit = 0;
    int settled = 0;
    status = respite_batch_settle_every(batch, disposition, &settled, err);
    respite_batch_free(batch);
    return status;
}

int respite_engine_close(respite_engine *engine, double now, respite_error *err)
{
    if (!engine)
        return fail_closed(err);
    if (engine_time(engine, &now, err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    if (engine->stats.closing)
        return RESPITE_OK;
    return start_closing(engine, now, err);
}

int respite_engine_is_closing(const respite_engine *engine)
{
    return engine ? engine->stats.closing : -1;
}

int64_t respite_engine_unsent(respite_engine *engine, respite_error *err)
{
    if (!engine)
        return fail_closed(err), -1;
    return engine->stats.unsent;
}

int respite_engine_min_entries(const respite_engine *engine)
{
    return engine ? engine->min_entries : 0;
}

int respite_engine_max_entries(const respite_engine *engine)
{
    return engine ? engine->max_entries : 0;
}

int respite_engine_stats_get(const respite_engine *engine, respite_engine_stats *out, respite_error *err)
{
    if (!engine)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL");
    *out = engine->stats;
    return RESPITE_OK;
}

int respite_engine_next_event(respite_engine *engine, respite_event *out, respite_error *err)
{
    if (!engine)
        return fail_closed(err), -1;
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL"), -1;
    return respite_event_ring_pop(&engine->events, out);
}
