/* The delivery engine (spec section 5: S1-S5) on the injected clock, with
 * the Astarte delivery cases and the usage-sharing seed's tests. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../support/test_support.h"
#include "respite.h"

/* ------------------------------------------------------------- fixture */

typedef struct rig {
    respite_policy *policy;
    respite_queue *queue;
    respite_gate *gate;
    respite_engine *engine;
} rig;

/* gate: "usage_sharing" profile with N failures, pause R, multiplier M, max Rmax
 * (R <= 0 disables the gate, G12). */
static respite_gate *gate_of(int n, double r, double m, double rmax)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new("usage_sharing", &err);
    assert_non_null(s);
    assert_int_equal(respite_settings_set_number(s, "failures_to_enter_recovery", n, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "max_recovery_seconds", rmax, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "recovery_seconds", r, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "recovery_multiplier", m, &err), RESPITE_OK);
    respite_gate *g = respite_gate_new(s, &err);
    if (!g)
        fail_msg("gate: %s", err.message);
    respite_settings_free(s);
    return g;
}

static void rig_init(rig *r, const char *policy, const char *overflow, respite_gate *gate, int min, int max,
                     double close_timeout)
{
    respite_error err;
    respite_error_clear(&err);
    r->policy = policy ? policy_from(policy) : respite_policy_default(&err);
    respite_settings *qs = respite_settings_new("queue", &err);
    if (overflow)
        assert_int_equal(respite_settings_set_text(qs, "overflow", overflow, &err), RESPITE_OK);
    r->queue = respite_queue_new(r->policy, qs, &err);
    assert_non_null(r->queue);
    respite_settings_free(qs);
    r->gate = gate;
    respite_settings *ss = respite_settings_new("sender", &err);
    assert_int_equal(respite_settings_set_integer(ss, "min_entries_per_message", min, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_integer(ss, "max_entries_per_message", max, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(ss, "close_timeout_seconds", close_timeout, &err), RESPITE_OK);
    r->engine = respite_engine_new(r->queue, r->gate, ss, &err);
    if (!r->engine)
        fail_msg("engine: %s", err.message);
    respite_settings_free(ss);
}

static void rig_free(rig *r)
{
    respite_engine_free(r->engine);
    respite_queue_free(r->queue);
    respite_gate_free(r->gate);
    respite_policy_free(r->policy);
}

static void put_n(rig *r, int n, double now)
{
    char text[32];
    static int serial;
    for (int i = 0; i < n; i++) {
        int len = snprintf(text, sizeof text, "ev%d", serial++);
        assert_int_equal(respite_queue_enqueue(r->queue, text, (size_t)len, now, NULL), RESPITE_OK);
    }
}

static int next(rig *r, double now)
{
    respite_error err;
    respite_error_clear(&err);
    int action = respite_engine_next(r->engine, now, &err);
    if (action < 0)
        fail_msg("next: %s", err.message);
    return action;
}

/* Takes a batch and settles it with the answer; returns the batch's size.
 * *first_attempts gets the first event's attempt count when not NULL. */
static int send_one(rig *r, double now, int transport_failed, int status, int *first_attempts)
{
    respite_error err;
    respite_error_clear(&err);
    respite_batch *b = respite_engine_take(r->engine, now, &err);
    if (!b)
        fail_msg("take at %g: %s", now, err.status ? err.message : "nothing pending");
    int n = respite_batch_count(b);
    if (first_attempts)
        *first_attempts = respite_batch_event_attempts(b, 0, NULL);
    assert_int_equal(respite_engine_settle(r->engine, b, transport_failed, status, 0, now, &err), RESPITE_OK);
    return n;
}

static respite_queue_stats qstats(rig *r)
{
    respite_queue_stats s;
    assert_int_equal(respite_queue_stats_get(r->queue, &s, NULL), RESPITE_OK);
    assert_true(respite_queue_stats_balanced(&s)); /* D9 at every look */
    return s;
}

static respite_engine_stats estats(rig *r)
{
    respite_engine_stats s;
    assert_int_equal(respite_engine_stats_get(r->engine, &s, NULL), RESPITE_OK);
    return s;
}

static respite_gate_stats gstats(rig *r)
{
    respite_gate_stats s;
    assert_int_equal(respite_gate_stats_get(r->gate, &s, NULL), RESPITE_OK);
    return s;
}

#define RETRY_ALL "{\"name\":\"r\",\"maximum_capacity\":1000,\"retry_times\":%d," \
                  "\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"retry\"}]}"

/* Trips the gate with n failed sends of one event each, one every 0.1 s
 * from t0; returns the time of the last failure. */
static double fail_n_sends(rig *r, int n, double t0)
{
    double t = t0;
    for (int i = 0; i < n; i++) {
        t = t0 + 0.1 * i;
        assert_int_equal(next(r, t), RESPITE_ACTION_SEND);
        send_one(r, t, 0, 500, NULL);
    }
    return t;
}

/* ------------------------------------------------------------------- S1 */

static void test_S1_enqueue_never_blocks_and_is_refused_only_by_capacity(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, "{\"name\":\"s\",\"maximum_capacity\":3,\"error_handlers\":[{\"on\":\"any_error\","
                 "\"strategy\":\"discard\"}]}",
             "drop_newest", gate_of(2, 60, 1, 300), 1, 1, 5);
    put_n(&r, 2, 0);
    fail_n_sends(&r, 2, 0); /* gate open for 60 s */
    assert_int_equal(respite_gate_get_state(r.gate, 1, NULL), RESPITE_GATE_OPEN);
    put_n(&r, 3, 1); /* queued during the pause */
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_queue_enqueue(r.queue, "x", 1, 1, &err), RESPITE_E_QUEUE_FULL);
    assert_int_equal(qstats(&r).pending, 3);
    assert_int_equal(next(&r, 1), RESPITE_ACTION_WAIT);
    rig_free(&r);
}

/* ------------------------------------------------------------------- S2 */

static void test_S2_sends_at_min_up_to_twice_min(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2, 2, 300), 3, 0, 5);
    assert_int_equal(respite_engine_min_entries(r.engine), 3);
    assert_int_equal(respite_engine_max_entries(r.engine), 6);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_IDLE);
    put_n(&r, 2, 0);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_IDLE);
    put_n(&r, 1, 0);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_SEND);
    assert_int_equal(send_one(&r, 0, 0, 200, NULL), 3);
    put_n(&r, 8, 1);
    assert_int_equal(next(&r, 1), RESPITE_ACTION_SEND);
    assert_int_equal(send_one(&r, 1, 0, 200, NULL), 6);
    assert_int_equal(next(&r, 1), RESPITE_ACTION_IDLE); /* 2 left, fewer than 3 */
    assert_int_equal(qstats(&r).delivered, 9);
    rig_free(&r);
}

static void test_S2_explicit_max_wins_over_prefetch_count(void **state)
{
    (void)state;
    const char *prefetch = "{\"name\":\"p\",\"maximum_capacity\":100,\"prefetch_count\":5,"
                           "\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"discard\"}]}";
    rig r;
    rig_init(&r, prefetch, NULL, gate_of(10, 2, 2, 300), 1, 0, 5);
    assert_int_equal(respite_engine_max_entries(r.engine), 5); /* D7 prefetch_count */
    put_n(&r, 9, 0);
    assert_int_equal(send_one(&r, 0, 0, 200, NULL), 5);
    rig_free(&r);
    rig_init(&r, prefetch, NULL, gate_of(10, 2, 2, 300), 1, 7, 5);
    assert_int_equal(respite_engine_max_entries(r.engine), 7); /* the sender's own setting */
    rig_free(&r);
    rig_init(&r, NULL, NULL, gate_of(10, 2, 2, 300), 1, 0, 5);
    assert_int_equal(respite_engine_max_entries(r.engine), 2); /* no prefetch_count: 2 x min */
    rig_free(&r);
}

/* ------------------------------------------------------------------- S3 */

static void test_S3_outcome_goes_to_gate_and_policy(void **state)
{
    (void)state;
    rig r;
    rig_init(&r,
             "{\"name\":\"edgehog\",\"maximum_capacity\":100,\"retry_times\":3,\"event_ttl\":30,"
             "\"error_handlers\":[{\"on\":\"server_error\",\"strategy\":\"retry\"},"
             "{\"on\":\"client_error\",\"strategy\":\"discard\"}]}",
             NULL, gate_of(10, 2, 2, 300), 1, 1, 5);
    put_n(&r, 1, 0);
    send_one(&r, 0, 0, 503, NULL); /* counted, retried */
    assert_int_equal(gstats(&r).counted_failures, 1);
    assert_int_equal(qstats(&r).pending, 1);
    send_one(&r, 0, 1, 0, NULL); /* transport: counted, matched as 503: retried */
    assert_int_equal(gstats(&r).counted_failures, 2);
    assert_int_equal(qstats(&r).pending, 1);
    send_one(&r, 0, 0, 101, NULL); /* 1xx: unusable (counted), matched as 503 */
    assert_int_equal(gstats(&r).counted_failures, 3);
    assert_int_equal(qstats(&r).retried, 3);
    send_one(&r, 0, 0, 404, NULL); /* request_error: not counted; discarded */
    assert_int_equal(gstats(&r).counted_failures, 3);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.discarded, 1);
    assert_int_equal(s.pending, 0);
    put_n(&r, 1, 1);
    send_one(&r, 1, 0, 429, NULL); /* throttled: counted; client_error handler discards */
    assert_int_equal(gstats(&r).counted_failures, 4);
    assert_int_equal(qstats(&r).discarded, 2);
    respite_engine_stats e = estats(&r);
    assert_int_equal(e.sends, 5);
    assert_int_equal(e.sends_failed, 5);
    assert_int_equal(gstats(&r).reported, 5);
    rig_free(&r);
}

/* ------------------------------------------------------------------- S4 */

/* Seed: ShareUsageElement_BackOff_PausesThenDrainsQueue. */
static void test_S4_pauses_then_drains_queue(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2.0, 2.0, 300), 2, 2, 5);
    put_n(&r, 20, 0);
    double t9 = fail_n_sends(&r, 10, 0); /* the tenth failure opens the gate */
    assert_int_equal(qstats(&r).discarded, 20);
    put_n(&r, 9, t9);
    /* 0.7 s after the tenth failed send: no send (the seed saw 13). */
    assert_int_equal(next(&r, t9 + 0.7), RESPITE_ACTION_WAIT);
    assert_true(fabs(respite_engine_wait_seconds(r.engine) - 1.3) < 1e-9);
    respite_error err;
    respite_error_clear(&err);
    assert_null(respite_engine_take(r.engine, t9 + 0.7, &err)); /* a sender that ignores WAIT is refused */
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_true(fabs(err.retry_after - 1.3) < 1e-9);
    assert_int_equal(estats(&r).sends, 10);
    assert_int_equal(qstats(&r).pending, 9); /* the refused take put them back */
    /* The pause ends: one probe, which succeeds, then drain until fewer than min remain. */
    assert_int_equal(next(&r, t9 + 2.0), RESPITE_ACTION_SEND);
    send_one(&r, t9 + 2.0, 0, 200, NULL);
    assert_int_equal(estats(&r).probes, 1);
    assert_int_equal(respite_gate_get_state(r.gate, t9 + 2.0, NULL), RESPITE_GATE_CLOSED);
    int sends = 0;
    while (next(&r, t9 + 2.0) == RESPITE_ACTION_SEND) {
        send_one(&r, t9 + 2.0, 0, 200, NULL);
        sends++;
    }
    assert_int_equal(sends, 3); /* 9 = probe 2 + 3 x 2, then 1 < min */
    assert_int_equal(next(&r, t9 + 2.0), RESPITE_ACTION_IDLE);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.delivered, 8);
    assert_int_equal(s.pending, 1);
    rig_free(&r);
}

/* Seed: ShareUsageElement_BackOff_DelayGrowsToMaximum. */
static void test_S4_delay_grows_to_maximum(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(3, 2.0, 2.0, 10.0), 1, 1, 5);
    put_n(&r, 50, 0);
    double t = fail_n_sends(&r, 3, 0);
    const double expected[] = {2, 4, 8, 10, 10, 10};
    for (int i = 0; i < 6; i++) {
        assert_int_equal(next(&r, t), RESPITE_ACTION_WAIT);
        assert_true(fabs(respite_engine_wait_seconds(r.engine) - expected[i]) < 1e-9);
        t += respite_engine_wait_seconds(r.engine);
        assert_int_equal(next(&r, t), RESPITE_ACTION_SEND);
        send_one(&r, t, 0, 503, NULL); /* the probe fails: the pause grows */
    }
    assert_int_equal(estats(&r).probes, 6);
    assert_int_equal(gstats(&r).delay, 10.0);
    rig_free(&r);
}

static void test_S4_recover_never_waits_forever(void **state)
{
    (void)state;
    respite_settings *s = respite_settings_new("usage_sharing", NULL);
    respite_settings_set_number(s, "failures_to_enter_recovery", 1, NULL);
    respite_settings_set_boolean(s, "recover_never", 1, NULL);
    respite_gate *g = respite_gate_new(s, NULL);
    respite_settings_free(s);
    rig r;
    rig_init(&r, NULL, NULL, g, 1, 1, 5);
    put_n(&r, 3, 0);
    fail_n_sends(&r, 1, 0);
    assert_int_equal(next(&r, 1000), RESPITE_ACTION_WAIT);
    assert_true(isinf(respite_engine_wait_seconds(r.engine)));
    assert_int_equal(respite_engine_close(r.engine, 1000, NULL), RESPITE_OK);
    assert_int_equal(next(&r, 1000), RESPITE_ACTION_DONE);
    assert_int_equal(respite_engine_unsent(r.engine, NULL), 2);
    rig_free(&r);
}

/* ------------------------------------------------------------------- S5 */

/* Seed: ShareUsageElement_BackOff_CloseWhilePausedDoesNotWaitOrSend. */
static void test_S5_close_while_paused_sends_nothing_and_reports_unsent(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2.0, 2.0, 300), 1, 1, 5);
    put_n(&r, 10, 0);
    double t9 = fail_n_sends(&r, 10, 0);
    put_n(&r, 7, t9);
    int64_t admitted = gstats(&r).admitted;
    assert_int_equal(respite_engine_close(r.engine, t9 + 0.5, NULL), RESPITE_OK);
    assert_int_equal(respite_engine_is_closing(r.engine), 1);
    assert_int_equal(next(&r, t9 + 0.5), RESPITE_ACTION_DONE); /* at once, no waiting */
    assert_int_equal(next(&r, t9 + 5.0), RESPITE_ACTION_DONE); /* still done after the pause */
    respite_error err;
    respite_error_clear(&err);
    assert_null(respite_engine_take(r.engine, t9 + 5.0, &err));
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_int_equal(gstats(&r).admitted, admitted); /* nothing was sent */
    assert_int_equal(respite_engine_unsent(r.engine, NULL), 7);
    respite_event ev;
    assert_int_equal(respite_engine_next_event(r.engine, &ev, NULL), 1);
    assert_int_equal(ev.type, RESPITE_EVENT_UNSENT_AT_CLOSE);
    assert_int_equal(ev.count, 7);
    assert_true(fabs(ev.at - (t9 + 0.5)) < 1e-9);
    assert_int_equal(respite_engine_next_event(r.engine, &ev, NULL), 0);
    respite_engine_stats e = estats(&r);
    assert_int_equal(e.closed_while_paused, 1);
    assert_int_equal(e.unsent, 7);
    assert_int_equal(respite_queue_enqueue(r.queue, "late", 4, t9 + 1, NULL), RESPITE_E_CLOSED);
    rig_free(&r);
}

static void test_S5_close_while_not_paused_drains_below_min(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2.0, 2.0, 300), 50, 0, 5);
    put_n(&r, 7, 0);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_IDLE);
    assert_int_equal(respite_engine_unsent(r.engine, NULL), -1);
    respite_engine_close(r.engine, 1, NULL);
    assert_int_equal(next(&r, 1), RESPITE_ACTION_SEND);
    assert_int_equal(send_one(&r, 1, 0, 200, NULL), 7);
    assert_int_equal(next(&r, 1.1), RESPITE_ACTION_DONE);
    assert_int_equal(respite_engine_unsent(r.engine, NULL), 0);
    respite_event ev;
    assert_int_equal(respite_engine_next_event(r.engine, &ev, NULL), 0); /* nothing unsent: no event */
    assert_int_equal(qstats(&r).delivered, 7);
    rig_free(&r);
}

static void test_S5_close_timeout_ends_the_drain(void **state)
{
    (void)state;
    char policy[256];
    snprintf(policy, sizeof policy, RETRY_ALL, 100);
    rig r;
    rig_init(&r, policy, NULL, gate_of(10, 0, 1, 300), 50, 0, 5.0); /* R 0: gate never refuses */
    put_n(&r, 3, 0);
    respite_engine_close(r.engine, 10, NULL); /* deadline 15 */
    double t = 10;
    int sends = 0;
    while (next(&r, t) == RESPITE_ACTION_SEND) {
        send_one(&r, t, 0, 500, NULL); /* retried each time */
        sends++;
        t += 1.0;
    }
    assert_int_equal(sends, 5); /* at 10, 11, 12, 13, 14; DONE at 15 */
    assert_true(t == 15.0);
    assert_true(estats(&r).close_deadline == 15.0);
    assert_int_equal(respite_engine_unsent(r.engine, NULL), 3);
    assert_int_equal(qstats(&r).pending, 3);
    rig_free(&r);
}

static void test_S5_gate_pausing_during_drain_stops_it(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(1, 2.0, 2.0, 300), 1, 2, 5);
    put_n(&r, 5, 0);
    respite_engine_close(r.engine, 0, NULL);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_SEND);
    send_one(&r, 0, 1, 0, NULL); /* transport failure opens the gate (N 1) */
    assert_int_equal(next(&r, 0.1), RESPITE_ACTION_DONE);
    assert_int_equal(respite_engine_unsent(r.engine, NULL), 3);
    rig_free(&r);
}

static void test_S5_queue_closed_directly_closes_the_engine(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2.0, 2.0, 300), 50, 0, 5);
    put_n(&r, 2, 0);
    respite_queue_close(r.queue, NULL);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_SEND);
    assert_int_equal(respite_engine_is_closing(r.engine), 1);
    send_one(&r, 0, 0, 204, NULL);
    assert_int_equal(next(&r, 0), RESPITE_ACTION_DONE);
    rig_free(&r);
}

/* Seed: ShareUsageElement_BackOff_FullQueueDropsNewEvidence. */
static void test_S1_D5_full_queue_drops_new_evidence(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, "{\"name\":\"u\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"any_error\","
                 "\"strategy\":\"discard\"}]}",
             "drop_newest", gate_of(10, 2.0, 2.0, 300), 1, 1, 5);
    put_n(&r, 1, 0);
    double t9 = 0;
    for (int i = 0; i < 10; i++) {
        t9 = 0.1 * i;
        put_n(&r, 1, t9);
        send_one(&r, t9, 0, 500, NULL);
    }
    assert_int_equal(next(&r, t9), RESPITE_ACTION_WAIT); /* one left, paused... */
    int refused = 0;
    for (int i = 0; i < 8; i++) /* ...and evidence keeps arriving during the pause */
        if (respite_queue_enqueue(r.queue, "e", 1, t9 + 0.5, NULL) == RESPITE_E_QUEUE_FULL)
            refused++;
    assert_int_equal(refused, 4);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.refused_full, 4);
    assert_int_equal(s.pending, 5);
    assert_int_equal(next(&r, t9 + 0.5), RESPITE_ACTION_WAIT);
    int sends = 0;
    while (next(&r, t9 + 2.0) == RESPITE_ACTION_SEND)
        sends += send_one(&r, t9 + 2.0, 0, 200, NULL);
    assert_int_equal(sends, 5); /* the queued evidence, not the refused */
    assert_int_equal(qstats(&r).delivered, 5);
    rig_free(&r);
}

/* --------------------------------------------- Astarte delivery cases (D1-D6) */

static rig astarte(const char *policy)
{
    rig r;
    rig_init(&r, policy, NULL, gate_of(10, 60, 1, 300), 1, 1, 5);
    put_n(&r, 1, 0);
    return r;
}

static void test_D1_2xx_is_one_attempt_and_302_is_delivered(void **state)
{
    (void)state;
    char policy[256];
    snprintf(policy, sizeof policy, RETRY_ALL, 3);
    int attempts = 0;
    rig r = astarte(policy);
    send_one(&r, 0, 0, 200, &attempts);
    assert_int_equal(attempts, 1);
    assert_int_equal(qstats(&r).delivered, 1);
    put_n(&r, 1, 0);
    send_one(&r, 0, 0, 302, &attempts);
    assert_int_equal(attempts, 1);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.delivered, 2);
    assert_int_equal(s.retried, 0);
    rig_free(&r);
}

static void test_D3_any_error_retry_3_always_418_gives_4_attempts(void **state)
{
    (void)state;
    char policy[256];
    snprintf(policy, sizeof policy, RETRY_ALL, 3);
    rig r = astarte(policy);
    int attempts = 0, sends = 0;
    while (next(&r, sends) == RESPITE_ACTION_SEND) {
        send_one(&r, sends, 0, 418, &attempts);
        sends++;
    }
    assert_int_equal(sends, 4);
    assert_int_equal(attempts, 4);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.retries_exhausted, 1);
    assert_int_equal(s.pending, 0);
    rig_free(&r);
}

static void test_D2_418_then_200_is_2_attempts(void **state)
{
    (void)state;
    char policy[256];
    snprintf(policy, sizeof policy, RETRY_ALL, 3);
    rig r = astarte(policy);
    int attempts = 0;
    send_one(&r, 0, 0, 418, &attempts);
    send_one(&r, 1, 0, 200, &attempts);
    assert_int_equal(attempts, 2);
    assert_int_equal(qstats(&r).delivered, 1);
    rig_free(&r);
}

static void test_D2_connection_error_then_200_is_2_attempts_under_503_handler(void **state)
{
    (void)state;
    rig r = astarte("{\"name\":\"c\",\"maximum_capacity\":10,\"retry_times\":1,"
                    "\"error_handlers\":[{\"on\":[503],\"strategy\":\"retry\"}]}");
    int attempts = 0;
    send_one(&r, 0, 1, 0, &attempts);
    assert_int_equal(qstats(&r).pending, 1);
    send_one(&r, 1, 0, 200, &attempts);
    assert_int_equal(attempts, 2);
    assert_int_equal(qstats(&r).delivered, 1);
    rig_free(&r);
}

static void test_D2_no_matching_handler_discards_after_1_attempt(void **state)
{
    (void)state;
    rig r = astarte("{\"name\":\"c\",\"maximum_capacity\":10,\"retry_times\":1,"
                    "\"error_handlers\":[{\"on\":[418],\"strategy\":\"retry\"}]}");
    int attempts = 0;
    send_one(&r, 0, 0, 500, &attempts);
    assert_int_equal(attempts, 1);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.discarded, 1);
    assert_int_equal(s.pending, 0);
    assert_int_equal(next(&r, 1), RESPITE_ACTION_IDLE);
    rig_free(&r);
}

static void test_D5_capacity_100_with_150_events_while_down_drops_oldest_50(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, "{\"name\":\"c\",\"maximum_capacity\":100,\"error_handlers\":[{\"on\":\"any_error\","
                 "\"strategy\":\"discard\"}]}",
             NULL, gate_of(1, 60, 1, 300), 1, 200, 5);
    assert_int_equal(respite_queue_enqueue(r.queue, "first", 5, 0, NULL), RESPITE_OK);
    send_one(&r, 0, 1, 0, NULL); /* the endpoint is down: the gate opens */
    char text[16];
    for (int i = 0; i < 150; i++) {
        int n = snprintf(text, sizeof text, "%d", i);
        assert_int_equal(respite_queue_enqueue(r.queue, text, (size_t)n, 1 + i * 0.1, NULL), RESPITE_OK);
    }
    assert_int_equal(next(&r, 30), RESPITE_ACTION_WAIT);
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.dropped_capacity, 50);
    assert_int_equal(s.pending, 100);
    respite_batch *b = respite_engine_take(r.engine, 60, NULL);
    assert_int_equal(respite_batch_count(b), 100);
    assert_string_equal(respite_batch_event_text(b, 0, NULL), "50");
    assert_int_equal(respite_engine_settle(r.engine, b, 0, 200, 0, 60, NULL), RESPITE_OK);
    assert_int_equal(qstats(&r).delivered, 100);
    rig_free(&r);
}

static void test_D6_ttl_10_event_still_queued_at_10s_is_dropped(void **state)
{
    (void)state;
    rig r;
    rig_init(&r, "{\"name\":\"t\",\"maximum_capacity\":10,\"event_ttl\":10,\"error_handlers\":[{\"on\":"
                 "\"any_error\",\"strategy\":\"discard\"}]}",
             NULL, gate_of(10, 60, 1, 300), 2, 2, 5);
    put_n(&r, 1, 0);
    assert_int_equal(next(&r, 9.9), RESPITE_ACTION_IDLE);
    assert_int_equal(qstats(&r).pending, 1);
    put_n(&r, 1, 9.9);
    assert_int_equal(next(&r, 10), RESPITE_ACTION_IDLE); /* the first expired: one left */
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.expired, 1);
    assert_int_equal(s.pending, 1);
    rig_free(&r);
}

/* ------------------------------------------------------------ bad input */

static void test_S_bad_input_is_reported(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_engine_next(NULL, 0, &err), -1);
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_string_equal(err.message, "engine is closed");
    assert_null(respite_engine_take(NULL, 0, &err));
    assert_int_equal(respite_engine_settle(NULL, NULL, 0, 200, 0, 0, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_engine_close(NULL, 0, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_engine_unsent(NULL, &err), -1);
    assert_int_equal(respite_engine_is_closing(NULL), -1);
    assert_int_equal(respite_engine_stats_get(NULL, NULL, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_engine_next_event(NULL, NULL, &err), -1);
    respite_engine_free(NULL);
    assert_string_equal(respite_action_name(RESPITE_ACTION_WAIT), "wait");
    assert_null(respite_action_name(4));

    respite_gate *g = gate_of(10, 2, 2, 300);
    respite_queue *q = respite_queue_new(NULL, NULL, NULL);
    respite_error_clear(&err);
    assert_null(respite_engine_new(NULL, g, NULL, &err));
    assert_string_equal(err.message, "queue is closed");
    respite_error_clear(&err);
    assert_null(respite_engine_new(q, NULL, NULL, &err));
    assert_string_equal(err.message, "gate is closed");
    respite_settings *wrong = respite_settings_new("queue", NULL);
    respite_error_clear(&err);
    assert_null(respite_engine_new(q, g, wrong, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "settings must be sender settings (got queue settings)");
    respite_settings_free(wrong);
    respite_queue_free(q);
    respite_gate_free(g);

    rig r;
    rig_init(&r, NULL, NULL, gate_of(10, 2, 2, 300), 1, 1, 5);
    put_n(&r, 2, 0);
    respite_error_clear(&err);
    assert_int_equal(respite_engine_next(r.engine, -1, &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_TIME);
    assert_null(respite_engine_take(r.engine, NAN, &err));
    assert_int_equal(respite_engine_close(r.engine, INFINITY, &err), RESPITE_E_INVALID_TIME);
    respite_batch *b = respite_engine_take(r.engine, 0, NULL);
    assert_non_null(b);
    respite_error_clear(&err);
    assert_int_equal(respite_engine_next(r.engine, 0, &err), -1);
    assert_string_equal(err.message, "a batch is in flight: settle it with respite_engine_settle before asking "
                                     "for the next action");
    respite_error_clear(&err);
    assert_null(respite_engine_take(r.engine, 0, &err));
    assert_string_equal(err.message, "a batch is already in flight: settle it first");
    respite_error_clear(&err);
    assert_int_equal(respite_engine_settle(r.engine, NULL, 0, 200, 0, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "batch must be the one respite_engine_take returned and not yet settled");
    respite_error_clear(&err);
    assert_int_equal(respite_engine_settle(r.engine, b, 0, 42, 0, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "http_status must be an integer from 100 to 599 when the transport did not fail (got 42)");
    respite_error_clear(&err);
    /* The hint is checked by the gate's own rule: O10's words. */
    assert_int_equal(respite_engine_settle(r.engine, b, 0, 503, -1, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got -1)");
    respite_error_clear(&err);
    assert_int_equal(respite_engine_settle(r.engine, b, 0, 503, NAN, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got nan)");
    respite_error_clear(&err);
    assert_int_equal(respite_engine_settle(r.engine, b, 1, 0, INFINITY, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got inf)");
    assert_int_equal(respite_engine_settle(r.engine, b, 0, 503, 0, -3, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(gstats(&r).reported, 0); /* nothing reached the gate */
    assert_int_equal(qstats(&r).in_flight, 1);
    /* Freeing the engine returns the batch in flight to the queue. */
    respite_engine_free(r.engine);
    r.engine = NULL;
    respite_queue_stats s = qstats(&r);
    assert_int_equal(s.in_flight, 0);
    assert_int_equal(s.pending, 2);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_S1_enqueue_never_blocks_and_is_refused_only_by_capacity),
        cmocka_unit_test(test_S1_D5_full_queue_drops_new_evidence),
        cmocka_unit_test(test_S2_sends_at_min_up_to_twice_min),
        cmocka_unit_test(test_S2_explicit_max_wins_over_prefetch_count),
        cmocka_unit_test(test_S3_outcome_goes_to_gate_and_policy),
        cmocka_unit_test(test_S4_pauses_then_drains_queue),
        cmocka_unit_test(test_S4_delay_grows_to_maximum),
        cmocka_unit_test(test_S4_recover_never_waits_forever),
        cmocka_unit_test(test_S5_close_while_paused_sends_nothing_and_reports_unsent),
        cmocka_unit_test(test_S5_close_while_not_paused_drains_below_min),
        cmocka_unit_test(test_S5_close_timeout_ends_the_drain),
        cmocka_unit_test(test_S5_gate_pausing_during_drain_stops_it),
        cmocka_unit_test(test_S5_queue_closed_directly_closes_the_engine),
        cmocka_unit_test(test_D1_2xx_is_one_attempt_and_302_is_delivered),
        cmocka_unit_test(test_D3_any_error_retry_3_always_418_gives_4_attempts),
        cmocka_unit_test(test_D2_418_then_200_is_2_attempts),
        cmocka_unit_test(test_D2_connection_error_then_200_is_2_attempts_under_503_handler),
        cmocka_unit_test(test_D2_no_matching_handler_discards_after_1_attempt),
        cmocka_unit_test(test_D5_capacity_100_with_150_events_while_down_drops_oldest_50),
        cmocka_unit_test(test_D6_ttl_10_event_still_queued_at_10s_is_dropped),
        cmocka_unit_test(test_S_bad_input_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
