/* respite_retry_run (spec B12-B19): the C retry loop through the gate. Delays
 * are a few milliseconds so the test stays fast. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "../support/test_support.h"
#include "respite.h"

/* A scripted attempt function: answers[i] for attempt i + 1, the last one repeated. */
typedef struct {
    int count;
    const int *outcomes;
    const int *statuses;
    const double *hints;
    int calls;
    int attempt_numbers[16];
} script;

static int scripted_attempt(void *user_data, int attempt, int *http_status, double *retry_after_hint)
{
    script *s = user_data;
    int i = s->calls < s->count ? s->calls : s->count - 1;
    if (s->calls < 16)
        s->attempt_numbers[s->calls] = attempt;
    s->calls++;
    *http_status = s->statuses ? s->statuses[i] : 0;
    *retry_after_hint = s->hints ? s->hints[i] : 0.0;
    return s->outcomes[i];
}

static respite_backoff *make_backoff(int max_attempts, double initial)
{
    respite_settings *s = respite_settings_new("backoff", NULL);
    assert_int_equal(respite_settings_set_number(s, "max_attempts", max_attempts, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "initial_delay_seconds", initial, NULL), RESPITE_OK);
    respite_backoff *b = respite_backoff_new(s, NULL);
    assert_non_null(b);
    respite_settings_free(s);
    return b;
}

static void test_B12_retries_until_success(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(5, 0.001);
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT, RESPITE_OUTCOME_SERVER_ERROR, RESPITE_OUTCOME_SUCCESS};
    const int statuses[] = {0, 503, 200};
    script s = {3, outcomes, statuses, NULL, 0, {0}};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, &last, &made, &err), RESPITE_OK);
    assert_int_equal(err.status, RESPITE_OK);
    assert_int_equal(made, 3);
    assert_int_equal(s.calls, 3);
    assert_int_equal(last, RESPITE_OUTCOME_SUCCESS);
    for (int i = 0; i < 3; i++)
        assert_int_equal(s.attempt_numbers[i], i + 1);
    respite_backoff_free(b);
}

static void test_B14_gives_up_after_max_attempts(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.001);
    const int outcomes[] = {RESPITE_OUTCOME_SERVER_ERROR};
    const int statuses[] = {503};
    script s = {1, outcomes, statuses, NULL, 0, {0}};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, &last, &made, &err), RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed after 3 attempts: last outcome server_error (status 503)");
    assert_int_equal(made, 3);
    assert_int_equal(s.calls, 3);
    assert_int_equal(last, RESPITE_OUTCOME_SERVER_ERROR);
    respite_backoff_free(b);
}

static void test_B14_stops_on_an_outcome_retry_on_does_not_list(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.001);
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT, RESPITE_OUTCOME_REQUEST_ERROR};
    const int statuses[] = {0, 404};
    script s = {2, outcomes, statuses, NULL, 0, {0}};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, &last, &made, &err), RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed with request_error (status 404), which retry_on does not retry");
    assert_int_equal(made, 2);
    assert_int_equal(last, RESPITE_OUTCOME_REQUEST_ERROR);
    respite_backoff_free(b);

    b = make_backoff(1, 0.001); /* a single attempt: "1 attempt" */
    const int transport[] = {RESPITE_OUTCOME_TRANSPORT};
    script t = {1, transport, NULL, NULL, 0, {0}};
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &t, NULL, NULL, &err), RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed after 1 attempt: last outcome transport");
    /* NULL err: the status alone */
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &t, NULL, NULL, NULL), RESPITE_E_TRANSPORT);
    respite_backoff_free(b);
}

static void test_B12_waits_the_back_off_delays_and_hints(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.02); /* waits 0.02 then 0.04 */
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT};
    script s = {1, outcomes, NULL, NULL, 0, {0}};
    double start = respite_now();
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, NULL, NULL, NULL), RESPITE_E_TRANSPORT);
    double elapsed = respite_now() - start;
    assert_true(elapsed >= 0.06 - 1e-3);
    assert_true(elapsed < 2.0);
    respite_backoff_free(b);

    b = make_backoff(2, 0.001);
    const int throttled[] = {RESPITE_OUTCOME_THROTTLED, RESPITE_OUTCOME_SUCCESS};
    const int statuses[] = {429, 200};
    const double hints[] = {0.05, 0};
    script h = {2, throttled, statuses, hints, 0, {0}};
    start = respite_now();
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &h, NULL, NULL, NULL), RESPITE_OK);
    assert_true(respite_now() - start >= 0.05 - 1e-3); /* B7: the hint raised the delay */
    respite_backoff_free(b);
}

static void test_B12_a_refusing_gate_prevents_every_attempt(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.001);
    respite_gate *g = gate_with(1, 60);
    assert_int_equal(respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0, respite_now(), NULL),
                     RESPITE_OK);
    const int outcomes[] = {RESPITE_OUTCOME_SUCCESS};
    script s = {1, outcomes, NULL, NULL, 0, {0}};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, g, scripted_attempt, &s, &last, &made, &err),
                     RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_true(err.retry_after > 59 && err.retry_after <= 60);
    assert_non_null(strstr(err.message, "sending requests to the service is temporarily restricted due to recent "
                                        "failures; recovery resumes in "));
    assert_int_equal(s.calls, 0); /* no attempt was made */
    assert_int_equal(made, 0);
    assert_int_equal(last, -1);
    respite_gate_free(g);
    respite_backoff_free(b);
}

static void test_B13_each_attempt_is_reported_and_a_trip_stops_the_retries(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(5, 0.001);
    respite_gate *g = gate_with(2, 60); /* opens on the second failure */
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT};
    script s = {1, outcomes, NULL, NULL, 0, {0}};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, g, scripted_attempt, &s, &last, &made, &err),
                     RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(s.calls, 2);
    assert_int_equal(made, 2);
    assert_int_equal(last, RESPITE_OUTCOME_TRANSPORT);
    assert_true(err.retry_after > 59 && err.retry_after <= 60);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.admitted, 2);
    assert_int_equal(stats.reported, 2);
    assert_int_equal(stats.counted_failures, 2);
    assert_int_equal(stats.refused, 1);
    assert_int_equal(stats.trips, 1);
    respite_gate_free(g);
    respite_backoff_free(b);
}

static void test_B13_a_successful_probe_closes_the_gate(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.001);
    respite_gate *g = gate_with(1, 0.02);
    assert_int_equal(respite_gate_report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0, respite_now(), NULL),
                     RESPITE_OK);
    assert_int_equal(respite_gate_get_state(g, respite_now(), NULL), RESPITE_GATE_OPEN);
    struct timespec pause = {0, 40 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const int outcomes[] = {RESPITE_OUTCOME_SUCCESS};
    script s = {1, outcomes, NULL, NULL, 0, {0}};
    assert_int_equal(respite_retry_run(b, g, scripted_attempt, &s, NULL, NULL, NULL), RESPITE_OK);
    /* the attempt was admitted as the probe and its success, reported with
     * the probe's permit, closed the gate (G8) */
    assert_int_equal(respite_gate_get_state(g, respite_now(), NULL), RESPITE_GATE_CLOSED);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.probes, 1);
    assert_int_equal(stats.late, 0);
    respite_gate_free(g);
    respite_backoff_free(b);
}

static void test_B11_bad_attempt_functions(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.001);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, NULL, NULL, NULL, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "fn must be an attempt function (got NULL)");

    const int bad_outcome[] = {7};
    script s = {1, bad_outcome, NULL, NULL, 0, {0}};
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, NULL, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "the attempt function must return a respite_outcome from 0 to 5 (success, "
                                     "request_error, throttled, server_error, unusable, transport) or "
                                     "RESPITE_ATTEMPT_CALLERS_OWN (got 7)");

    const int transport[] = {RESPITE_OUTCOME_TRANSPORT};
    const int bad_status[] = {42};
    script t = {1, transport, bad_status, NULL, 0, {0}};
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &t, NULL, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "the attempt function must set http_status to 0 (none) or 100 to 599 (got 42)");

    const double bad_hint[] = {-2};
    script h = {1, transport, NULL, bad_hint, 0, {0}};
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &h, NULL, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "the attempt function must set retry_after_hint to a finite number of seconds, "
                                     "0 or more (0 for none) (got -2)");
    respite_backoff_free(b);
}

/* B12-B14: the one decision a binding's retry helper asks between waits. */
static void test_B12_decide_gives_the_delay_or_the_give_up_error(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(3, 0.5);
    respite_error err;
    respite_error_clear(&err);
    respite_retry_call call;
    assert_int_equal(respite_retry_begin(b, &call, &err), RESPITE_OK);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == 0.5);
    assert_true(call.wait == 0.5);
    assert_true(respite_retry_decide(b, &call, 2, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == 1.0);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_THROTTLED, 429, 7.0, &err) == 7.0); /* Retry-After */
    assert_int_equal(err.status, RESPITE_OK);

    assert_true(respite_retry_decide(b, &call, 3, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed after 3 attempts: last outcome server_error (status 503)");

    respite_error_clear(&err);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_REQUEST_ERROR, 404, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed with request_error (status 404), which retry_on does not retry");

    respite_error_clear(&err);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_SUCCESS, 200, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_error_clear(&err);
    assert_true(respite_retry_decide(b, &call, 0, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_error_clear(&err);
    assert_true(respite_retry_decide(b, NULL, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "call must be a respite_retry_call (got NULL)");
    respite_error_clear(&err);
    assert_int_equal(respite_retry_begin(b, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    respite_error_clear(&err);
    assert_true(respite_retry_decide(NULL, &call, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    respite_error_clear(&err);
    assert_int_equal(respite_retry_begin(NULL, &call, &err), RESPITE_E_CLOSED);
    respite_backoff_free(b);
}

static respite_backoff *make_limited_backoff(int max_attempts, double initial, double multiplier, double limit)
{
    respite_settings *s = respite_settings_new("backoff", NULL);
    assert_int_equal(respite_settings_set_number(s, "max_attempts", max_attempts, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "initial_delay_seconds", initial, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "multiplier", multiplier, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "max_elapsed_seconds", limit, NULL), RESPITE_OK);
    respite_backoff *b = respite_backoff_new(s, NULL);
    assert_non_null(b);
    respite_settings_free(s);
    return b;
}

/* B16: a retry whose wait would end past max_elapsed_seconds is not made;
 * the time is counted from respite_retry_begin (the call's clock is moved
 * back here instead of sleeping). B1 and B9 are asked first. */
static void test_B16_max_elapsed_gives_up_before_the_wait_that_would_pass_it(void **state)
{
    (void)state;
    respite_backoff *b = make_limited_backoff(10, 1.0, 1.0, 10.0);
    respite_error err;
    respite_error_clear(&err);
    respite_retry_call call;
    assert_int_equal(respite_retry_begin(b, &call, &err), RESPITE_OK);
    call.started -= 8.5; /* 8.5 s since the first attempt: 8.5 + 1 <= 10 */
    assert_true(respite_retry_decide(b, &call, 2, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == 1.0);
    call.started -= 0.6; /* 9.1 + 1 > 10 */
    assert_true(respite_retry_decide(b, &call, 3, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == -1.0);
    assert_int_equal(err.status, RESPITE_E_TRANSPORT);
    assert_string_equal(err.message, "the call failed after 3 attempts: the next would start past "
                                     "max_elapsed_seconds (10); last outcome server_error (status 503)");
    respite_error_clear(&err);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == -1.0);
    assert_string_equal(err.message, "the call failed after 1 attempt: the next would start past "
                                     "max_elapsed_seconds (10); last outcome transport");
    /* a hint lengthens the wait, so it reaches the limit sooner */
    respite_error_clear(&err);
    assert_int_equal(respite_retry_begin(b, &call, &err), RESPITE_OK);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_THROTTLED, 429, 9.0, &err) == 9.0);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_THROTTLED, 429, 11.0, &err) == -1.0);
    /* B1 first: the last attempt gives up with B14's message */
    respite_error_clear(&err);
    call.started -= 100;
    assert_true(respite_retry_decide(b, &call, 10, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == -1.0);
    assert_string_equal(err.message, "the call failed after 10 attempts: last outcome server_error (status 503)");
    respite_backoff_free(b);

    /* 0: no limit */
    b = make_limited_backoff(3, 1.0, 1.0, 0.0);
    respite_error_clear(&err);
    assert_int_equal(respite_retry_begin(b, &call, &err), RESPITE_OK);
    call.started -= 86400 * 10.0;
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, 0, &err) == 1.0);
    respite_backoff_free(b);
}

/* B16 in respite_retry_run: real sleeps of 30 ms against a 50 ms limit. */
static void test_B16_retry_run_stops_at_the_limit(void **state)
{
    (void)state;
    respite_backoff *b = make_limited_backoff(10, 0.03, 1.0, 0.05);
    const int outcomes[] = {RESPITE_OUTCOME_SERVER_ERROR};
    const int statuses[] = {503};
    script s = {1, outcomes, statuses, NULL, 0, {0}};
    int made = 0;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, NULL, &made, &err), RESPITE_E_TRANSPORT);
    assert_int_equal(made, 2); /* 0.03 <= 0.05; then at least 0.03 + 0.03 > 0.05 */
    assert_string_equal(err.message, "the call failed after 2 attempts: the next would start past "
                                     "max_elapsed_seconds (0.05); last outcome server_error (status 503)");
    respite_backoff_free(b);
}

/* B17: under the testing switch the same attempts and decisions, no waits;
 * skipped delays still count towards max_elapsed_seconds. */
static void test_B17_testing_switch_makes_retries_immediate(void **state)
{
    (void)state;
    respite_backoff *b = make_limited_backoff(5, 1.0, 1.0, 0.0);
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT};
    script s = {1, outcomes, NULL, NULL, 0, {0}};
    int made = 0;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_testing_immediate_retries(), 0);
    respite_testing_set_immediate_retries(7);
    assert_int_equal(respite_testing_immediate_retries(), 1);
    double started = respite_now();
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &s, NULL, &made, &err), RESPITE_E_TRANSPORT);
    assert_true(respite_now() - started < 1.0); /* none of the 4 delays of 1 s waited */
    assert_int_equal(made, 5);
    assert_string_equal(err.message, "the call failed after 5 attempts: last outcome transport");

    respite_retry_call call;
    assert_int_equal(respite_retry_begin(b, &call, &err), RESPITE_OK);
    assert_true(respite_retry_decide(b, &call, 1, RESPITE_OUTCOME_TRANSPORT, 0, 0, &err) == 1.0);
    assert_true(call.wait == 0.0);
    assert_true(call.skipped == 1.0);
    respite_backoff_free(b);

    b = make_limited_backoff(10, 1.0, 1.0, 2.5);
    script t = {1, outcomes, NULL, NULL, 0, {0}};
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, NULL, scripted_attempt, &t, NULL, &made, &err), RESPITE_E_TRANSPORT);
    assert_int_equal(made, 3); /* 1 + 1 <= 2.5 < 1 + 1 + 1, as with real waits */
    assert_string_equal(err.message, "the call failed after 3 attempts: the next would start past "
                                     "max_elapsed_seconds (2.5); last outcome transport");
    respite_testing_set_immediate_retries(0);
    assert_int_equal(respite_testing_immediate_retries(), 0);
    respite_backoff_free(b);
}

/* B18: the caller's own failure is reported as request_error (counted only
 * with count_all_failures), never retried; the loop returns ok at once. */
static void test_B18_callers_own_failure_is_not_retried_nor_counted(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(5, 0.001);
    respite_settings *gs = respite_settings_new("gate", NULL);
    assert_int_equal(respite_settings_set_number(gs, "failures_to_enter_recovery", 1, NULL), RESPITE_OK);
    respite_gate *g = respite_gate_new(gs, NULL);
    assert_non_null(g);
    const int outcomes[] = {RESPITE_ATTEMPT_CALLERS_OWN};
    const int statuses[] = {503}; /* ignored with the caller's own failure */
    script s = {1, outcomes, statuses, NULL, 0, {0}};
    int last = 0, made = 0;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run(b, g, scripted_attempt, &s, &last, &made, &err), RESPITE_OK);
    assert_int_equal(made, 1);
    assert_int_equal(last, RESPITE_ATTEMPT_CALLERS_OWN);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.reported, 1);
    assert_int_equal(stats.counted_failures, 0);
    assert_int_equal(respite_gate_get_state(g, respite_now(), NULL), RESPITE_GATE_CLOSED);
    respite_gate_free(g);

    assert_int_equal(respite_settings_set_boolean(gs, "count_all_failures", 1, NULL), RESPITE_OK);
    g = respite_gate_new(gs, NULL);
    script t = {1, outcomes, NULL, NULL, 0, {0}};
    assert_int_equal(respite_retry_run(b, g, scripted_attempt, &t, &last, &made, &err), RESPITE_OK);
    assert_int_equal(respite_gate_get_state(g, respite_now(), NULL), RESPITE_GATE_OPEN);
    respite_gate_free(g);
    respite_settings_free(gs);
    respite_backoff_free(b);
}

/* B19: the hook before each wait. */
typedef struct {
    int calls;
    int attempts[8], outcomes[8], statuses[8];
    double delays[8];
    int64_t reported[8]; /* the gate's reported count when called (B13: before the hook) */
    respite_gate *gate;
    int stop_at;         /* 0: never; else the attempt after which it returns `status` */
    int status;
    const char *message; /* filled into err when stopping; NULL: err left alone */
} hook_log;

static int logging_hook(void *hook_data, int attempt, double delay, int outcome, int http_status, respite_error *err)
{
    hook_log *h = hook_data;
    assert_non_null(err);
    assert_int_equal(err->status, RESPITE_OK);
    if (h->calls < 8) {
        h->attempts[h->calls] = attempt;
        h->delays[h->calls] = delay;
        h->outcomes[h->calls] = outcome;
        h->statuses[h->calls] = http_status;
        respite_gate_stats st = {0};
        if (h->gate)
            assert_int_equal(respite_gate_stats_get(h->gate, &st, NULL), RESPITE_OK);
        h->reported[h->calls] = st.reported;
    }
    h->calls++;
    if (attempt != h->stop_at)
        return RESPITE_OK;
    if (h->message) {
        err->status = h->status;
        snprintf(err->message, sizeof err->message, "%s", h->message);
    }
    return h->status;
}

static void test_B19_hook_called_before_each_wait(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(5, 0.001); /* delays 0.001, 0.002, ... (multiplier 2, no jitter) */
    respite_gate *g = respite_gate_new(NULL, NULL);
    const int outcomes[] = {RESPITE_OUTCOME_TRANSPORT, RESPITE_OUTCOME_SERVER_ERROR, RESPITE_OUTCOME_SUCCESS};
    const int statuses[] = {0, 503, 200};
    script s = {3, outcomes, statuses, NULL, 0, {0}};
    hook_log h = {.gate = g};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run_with_hook(b, g, scripted_attempt, &s, logging_hook, &h, &last, &made, &err),
                     RESPITE_OK);
    assert_int_equal(made, 3);
    assert_int_equal(h.calls, 2); /* after each decision to retry; not after the success */
    assert_int_equal(h.attempts[0], 1);
    assert_int_equal(h.attempts[1], 2);
    assert_true(h.delays[0] == 0.001 && h.delays[1] == 0.002);
    assert_int_equal(h.outcomes[0], RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(h.statuses[0], 0);
    assert_int_equal(h.outcomes[1], RESPITE_OUTCOME_SERVER_ERROR);
    assert_int_equal(h.statuses[1], 503);
    assert_int_equal(h.reported[0], 1); /* the attempt was reported before the hook */
    assert_int_equal(h.reported[1], 2);
    respite_gate_free(g);
    respite_backoff_free(b);

    /* No hook after the attempt that gives up; NULL hook: as respite_retry_run. */
    b = make_backoff(2, 0.001);
    script t = {1, outcomes, NULL, NULL, 0, {0}};
    hook_log once = {0};
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &t, logging_hook, &once, NULL, &made, &err),
                     RESPITE_E_TRANSPORT);
    assert_int_equal(made, 2);
    assert_int_equal(once.calls, 1);
    assert_string_equal(err.message, "the call failed after 2 attempts: last outcome transport");
    script u = {1, outcomes, NULL, NULL, 0, {0}};
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &u, NULL, NULL, NULL, &made, NULL),
                     RESPITE_E_TRANSPORT);
    assert_int_equal(made, 2);
    respite_backoff_free(b);

    /* B17: the same calls with the same delays, none waited. */
    b = make_backoff(3, 1.0);
    respite_testing_set_immediate_retries(1);
    script v = {1, outcomes, NULL, NULL, 0, {0}};
    hook_log fast = {0};
    double started = respite_now();
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &v, logging_hook, &fast, NULL, &made, &err),
                     RESPITE_E_TRANSPORT);
    respite_testing_set_immediate_retries(0);
    assert_true(respite_now() - started < 1.0);
    assert_int_equal(fast.calls, 2);
    assert_true(fast.delays[0] == 1.0 && fast.delays[1] == 2.0);
    respite_backoff_free(b);
}

/* B19: an error from the hook ends the call with it: no wait, no further attempt. */
static void test_B19_hook_error_ends_the_call(void **state)
{
    (void)state;
    respite_backoff *b = make_backoff(5, 10.0); /* a wait would last 10 s */
    const int outcomes[] = {RESPITE_OUTCOME_SERVER_ERROR};
    const int statuses[] = {503};
    script s = {1, outcomes, statuses, NULL, 0, {0}};
    hook_log h = {.stop_at = 1, .status = RESPITE_E_CANCELLED, .message = "shutting down"};
    int last = -1, made = -1;
    respite_error err;
    respite_error_clear(&err);
    double started = respite_now();
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &s, logging_hook, &h, &last, &made, &err),
                     RESPITE_E_CANCELLED);
    assert_true(respite_now() - started < 1.0);
    assert_int_equal(made, 1);
    assert_int_equal(s.calls, 1);
    assert_int_equal(last, RESPITE_OUTCOME_SERVER_ERROR);
    assert_int_equal(err.status, RESPITE_E_CANCELLED);
    assert_string_equal(err.message, "shutting down"); /* the hook's own error */

    /* A status without a message: the core's message. */
    respite_backoff_free(b);
    b = make_backoff(5, 0.001);
    script t = {1, outcomes, statuses, NULL, 0, {0}};
    hook_log quiet = {.stop_at = 2, .status = RESPITE_E_TRANSPORT};
    respite_error_clear(&err);
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &t, logging_hook, &quiet, NULL, &made, &err),
                     RESPITE_E_TRANSPORT);
    assert_int_equal(made, 2);
    assert_int_equal(quiet.calls, 2);
    assert_string_equal(err.message, "the before-wait hook ended the call after attempt 2: last outcome server_error "
                                     "(status 503)");
    /* err NULL: the status still comes back. */
    script u = {1, outcomes, statuses, NULL, 0, {0}};
    quiet.calls = 0;
    assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &u, logging_hook, &quiet, NULL, &made, NULL),
                     RESPITE_E_TRANSPORT);
    assert_int_equal(made, 2);

    /* A value that is no status is the hook's mistake. */
    const int bad[] = {99, -1, RESPITE_STATUS_COUNT_};
    for (int i = 0; i < 3; i++) {
        script w = {1, outcomes, statuses, NULL, 0, {0}};
        hook_log wrong = {.stop_at = 1, .status = bad[i]};
        respite_error_clear(&err);
        assert_int_equal(respite_retry_run_with_hook(b, NULL, scripted_attempt, &w, logging_hook, &wrong, NULL, &made,
                                                     &err),
                         RESPITE_E_INVALID_ARGUMENT);
        assert_int_equal(made, 1);
        char want[160];
        snprintf(want, sizeof want,
                 "the before-wait hook must return RESPITE_OK or a respite_status from 1 to 13 (got %d)", bad[i]);
        assert_string_equal(err.message, want);
    }
    respite_backoff_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_B12_retries_until_success),
        cmocka_unit_test(test_B14_gives_up_after_max_attempts),
        cmocka_unit_test(test_B14_stops_on_an_outcome_retry_on_does_not_list),
        cmocka_unit_test(test_B12_waits_the_back_off_delays_and_hints),
        cmocka_unit_test(test_B12_a_refusing_gate_prevents_every_attempt),
        cmocka_unit_test(test_B13_each_attempt_is_reported_and_a_trip_stops_the_retries),
        cmocka_unit_test(test_B13_a_successful_probe_closes_the_gate),
        cmocka_unit_test(test_B11_bad_attempt_functions),
        cmocka_unit_test(test_B12_decide_gives_the_delay_or_the_give_up_error),
        cmocka_unit_test(test_B16_max_elapsed_gives_up_before_the_wait_that_would_pass_it),
        cmocka_unit_test(test_B16_retry_run_stops_at_the_limit),
        cmocka_unit_test(test_B17_testing_switch_makes_retries_immediate),
        cmocka_unit_test(test_B18_callers_own_failure_is_not_retried_nor_counted),
        cmocka_unit_test(test_B19_hook_called_before_each_wait),
        cmocka_unit_test(test_B19_hook_error_ends_the_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
