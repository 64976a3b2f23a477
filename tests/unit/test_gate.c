/* The recovery gate, rule by rule (docs/spec.md sections 0 and 2): every
 * test name carries the rule id it checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "respite.h"

/* |a - b| <= eps, with the values in the failure message. */
#define assert_double_equal(a, b, eps)                                                  \
    do {                                                                                \
        double a_ = (a), b_ = (b);                                                      \
        if (!(fabs(a_ - b_) <= (eps)))                                                  \
            fail_msg("%s = %.17g, want %.17g", #a, a_, b_);                             \
    } while (0)

/* ------------------------------------------------------------ helpers */

/* A gate from "name", value pairs ended by NULL, on top of a profile. */
static respite_gate *gate_from(const char *profile, ...)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new(profile, &err);
    assert_non_null(s);
    va_list ap;
    va_start(ap, profile);
    for (const char *name = va_arg(ap, const char *); name; name = va_arg(ap, const char *)) {
        double value = va_arg(ap, double);
        if (respite_settings_set_number(s, name, value, &err) != RESPITE_OK)
            fail_msg("setting %s: %s", name, err.message);
    }
    va_end(ap);
    respite_gate *g = respite_gate_new(s, &err);
    if (!g)
        fail_msg("gate_new: %s", err.message);
    respite_settings_free(s);
    return g;
}

#define GATE(...) gate_from("gate", __VA_ARGS__, (const char *)NULL)

static respite_decision check_at(respite_gate *g, double t)
{
    respite_decision d;
    respite_error err = {0};
    assert_int_equal(respite_gate_check(g, t, &d, &err), RESPITE_OK);
    return d;
}

static int allowed_at(respite_gate *g, double t)
{
    return check_at(g, t).allowed;
}

static void report(respite_gate *g, int64_t permit, int outcome, double hint, double t)
{
    respite_error err = {0};
    if (respite_gate_report(g, permit, outcome, hint, t, &err) != RESPITE_OK)
        fail_msg("report: %s", err.message);
}

static void fail_at(respite_gate *g, double t)
{
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, t);
}

static void succeed_at(respite_gate *g, double t)
{
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SUCCESS, 0.0, t);
}

static respite_gate_stats stats_of(respite_gate *g)
{
    respite_gate_stats st;
    assert_int_equal(respite_gate_stats_get(g, &st, NULL), RESPITE_OK);
    return st;
}

static int state_at(respite_gate *g, double t)
{
    return respite_gate_get_state(g, t, NULL);
}

/* Pops the next event and checks its type and time. */
static respite_event expect_event(respite_gate *g, int type, double at)
{
    respite_event ev;
    assert_int_equal(respite_gate_next_event(g, &ev, NULL), 1);
    if (ev.type != type)
        fail_msg("expected event %s, got %s", respite_event_type_name(type), respite_event_type_name(ev.type));
    assert_double_equal(ev.at, at, 1e-12);
    return ev;
}

static void expect_no_event(respite_gate *g)
{
    respite_event ev;
    assert_int_equal(respite_gate_next_event(g, &ev, NULL), 0);
}

/* --------------------------------------------------------------- time */

static void test_T1_fractional_seconds_are_exact(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 0.25);
    fail_at(g, 1.5);
    respite_decision d = check_at(g, 1.625);
    assert_false(d.allowed);
    assert_true(d.retry_after == 0.125); /* binary fractions: exact */
    assert_true(allowed_at(g, 1.75));
    respite_gate_free(g);
}

static void test_T1_now_is_monotonic_seconds(void **state)
{
    (void)state;
    double a = respite_now();
    double b = respite_now();
    assert_true(a > 0.0 && b >= a && b - a < 1.0);
}

static void test_T2_now_equal_until_admits(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0);
    fail_at(g, 5.0);
    respite_decision d = check_at(g, 14.999);
    assert_false(d.allowed);
    assert_double_equal(d.retry_after, 0.001, 1e-9);
    assert_int_equal(state_at(g, 14.999), RESPITE_GATE_OPEN);
    assert_int_equal(state_at(g, 15.0), RESPITE_GATE_PROBING);
    d = check_at(g, 15.0);
    assert_true(d.allowed);
    assert_true(d.probe);
    respite_gate_free(g);
}

/* Where t + pause rounds back to t (spacing 2 at 1e16, 128 at 1e18), the
 * pause and the probe deadline end at the next double: never lost. */
static void test_T2_huge_times_never_lose_a_pause(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 0.5);
    fail_at(g, 1e16);
    respite_decision d = check_at(g, 1e16);
    assert_false(d.allowed);
    assert_true(d.retry_after == 2.0);
    respite_gate_free(g);

    g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 60.0, "probe_timeout_seconds", 30.0);
    const double t = 1e18, next = nextafter(1e18, INFINITY);
    assert_true(t + 60.0 == t && next - t == 128.0);
    fail_at(g, t);
    d = check_at(g, t);
    assert_false(d.allowed);
    assert_true(d.retry_after == 128.0);
    assert_int_equal(state_at(g, t), RESPITE_GATE_OPEN);
    d = check_at(g, next);
    assert_true(d.allowed && d.probe);
    d = check_at(g, next); /* P = 1: the probe's deadline has not passed */
    assert_false(d.allowed);
    assert_true(d.retry_after == 128.0);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.probes, 1);
    assert_int_equal(stats.probe_timeouts, 0);
    respite_gate_free(g);
}

static void expect_invalid_time(int status, respite_error *err, const char *got)
{
    assert_int_equal(status, RESPITE_E_INVALID_TIME);
    assert_int_equal(err->status, RESPITE_E_INVALID_TIME);
    char want[128];
    snprintf(want, sizeof want, "now must be a finite number of seconds, 0 or more (got %s)", got);
    assert_string_equal(err->message, want);
}

static void test_T3_invalid_times_rejected_everywhere(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0);
    const double bad[] = {NAN, -1.0, -0.5, INFINITY, -INFINITY};
    const char *text[] = {"nan", "-1", "-0.5", "inf", "-inf"};
    for (int i = 0; i < 5; i++) {
        respite_error err = {0};
        respite_decision d = {.allowed = 1};
        expect_invalid_time(respite_gate_check(g, bad[i], &d, &err), &err, text[i]);
        assert_false(d.allowed);
        respite_error_clear(&err);
        assert_int_equal(respite_gate_admit(g, bad[i], &err), -1);
        expect_invalid_time(err.status, &err, text[i]);
        respite_error_clear(&err);
        expect_invalid_time(respite_gate_report(g, 0, RESPITE_OUTCOME_SUCCESS, 0.0, bad[i], &err), &err, text[i]);
        respite_error_clear(&err);
        expect_invalid_time(respite_gate_report(g, 0, RESPITE_OUTCOME_TRANSPORT, 0.0, bad[i], &err), &err, text[i]);
        respite_error_clear(&err);
        expect_invalid_time(respite_gate_reset(g, bad[i], &err), &err, text[i]);
        respite_error_clear(&err);
        assert_int_equal(respite_gate_get_state(g, bad[i], &err), -1);
        expect_invalid_time(err.status, &err, text[i]);
        respite_error_clear(&err);
        assert_true(respite_gate_retry_after(g, bad[i], &err) == -1.0);
        expect_invalid_time(err.status, &err, text[i]);
    }
    /* Nothing was counted by the rejected calls. */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.admitted + st.refused + st.reported + st.counted_failures, 0);
    assert_true(allowed_at(g, 0.0)); /* 0 itself is a valid time */
    respite_gate_free(g);
}

static void test_T4_backwards_time_acts_as_latest(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 60.0);
    fail_at(g, 10.0); /* until 70 */
    respite_decision d = check_at(g, 5.0);
    assert_false(d.allowed);
    assert_true(d.retry_after == 60.0); /* as at 10, not 65 */
    d = check_at(g, 30.0);
    assert_true(d.retry_after == 40.0);
    d = check_at(g, 20.0); /* acts as 30 */
    assert_true(d.retry_after == 40.0);
    respite_gate_free(g);
}

static void test_T4_backwards_failure_joins_window_at_latest(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "failures_window_seconds", 10.0, "recovery_seconds",
                           5.0);
    fail_at(g, 20.0);
    fail_at(g, 3.0); /* acts as 20: trips at 20, until 25 */
    assert_int_equal(stats_of(g).trips, 1);
    assert_true(stats_of(g).until == 25.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 20.0);
    respite_gate_free(g);
}

/* -------------------------------------------------------------- gate */

static void test_G1_closed_admits_with_permit(void **state)
{
    (void)state;
    respite_gate *g = gate_from("cloud_request", (const char *)NULL);
    respite_decision d = check_at(g, 0.0);
    assert_int_equal(d.allowed, 1);
    assert_int_equal(d.probe, 0);
    assert_true(d.permit > 0);
    assert_int_equal(d.permit, INT64_C(1) << 11); /* generation 1, slot 0 */
    assert_true(d.retry_after == 0.0);
    assert_int_equal(respite_gate_admit(g, 1.0, NULL), d.permit);
    assert_true(respite_gate_retry_after(g, 1.0, NULL) == 0.0);
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_CLOSED);
    assert_int_equal(stats_of(g).admitted, 2);
    respite_gate_free(g);
}

static void test_G2_entry_exactly_W_old_leaves_window(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "failures_window_seconds", 10.0);
    fail_at(g, 0.0);
    fail_at(g, 10.0); /* 10 - 0 >= 10: the first has left */
    assert_int_equal(stats_of(g).window_failures, 1);
    assert_true(allowed_at(g, 10.0));
    respite_gate_free(g);

    g = GATE("failures_to_enter_recovery", 2.0, "failures_window_seconds", 10.0);
    fail_at(g, 0.0);
    fail_at(g, 9.999); /* still inside */
    assert_false(allowed_at(g, 9.999));
    respite_gate_free(g);
}

static void test_G2_sliding_window_not_a_count_from_the_first(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 3.0, "failures_window_seconds", 10.0);
    fail_at(g, 0.0);
    fail_at(g, 6.0);
    fail_at(g, 11.0); /* 0 has left: {6, 11} */
    assert_int_equal(stats_of(g).window_failures, 2);
    assert_true(allowed_at(g, 11.0));
    fail_at(g, 12.0); /* {6, 11, 12} */
    assert_false(allowed_at(g, 12.0));
    respite_gate_free(g);
}

static void test_G2_window_holds_at_most_N(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 3.0, "failures_window_seconds", 1.0);
    for (int i = 0; i < 100; i++) {
        fail_at(g, i * 0.6);
        assert_true(stats_of(g).window_failures <= 3);
    }
    respite_gate_free(g);
}

static void test_G3_N_minus_1_admits_N_opens(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 5.0, "failures_window_seconds", 100.0, "recovery_seconds",
                           30.0);
    for (int i = 0; i < 4; i++)
        fail_at(g, i);
    assert_true(allowed_at(g, 3.5));
    assert_int_equal(stats_of(g).window_failures, 4);
    fail_at(g, 4.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.window_failures, 0); /* the window empties */
    assert_int_equal(st.generation, 2);
    assert_int_equal(st.trips, 1);
    assert_int_equal(st.state, RESPITE_GATE_OPEN);
    assert_true(st.until == 34.0);
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 4.0);
    assert_int_equal(ev.failures, 5);
    assert_true(ev.window == 100.0);
    assert_true(ev.pause == 30.0);
    assert_false(allowed_at(g, 4.0));
    respite_gate_free(g);
}

static void test_G4_success_does_not_clear_window(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0);
    fail_at(g, 0.0);
    succeed_at(g, 0.0);
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 0.0);
    assert_int_equal(stats_of(g).window_failures, 1);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.0));
    respite_gate_free(g);
}

static void test_G4_request_error_does_not_count_unless_count_all(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0);
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 0.0);
    assert_true(allowed_at(g, 0.0));
    assert_int_equal(stats_of(g).counted_failures, 0);
    respite_gate_free(g);

    g = GATE("failures_to_enter_recovery", 1.0, "count_all_failures", 1.0);
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 0.0);
    assert_false(allowed_at(g, 0.0));
    respite_gate_free(g);
}

static void test_G4_every_counted_outcome_counts(void **state)
{
    (void)state;
    const int counted[] = {RESPITE_OUTCOME_THROTTLED, RESPITE_OUTCOME_SERVER_ERROR, RESPITE_OUTCOME_UNUSABLE,
                           RESPITE_OUTCOME_TRANSPORT};
    for (int i = 0; i < 4; i++) {
        respite_gate *g = GATE("failures_to_enter_recovery", 1.0);
        report(g, RESPITE_NO_PERMIT, counted[i], 0.0, 0.0);
        assert_false(allowed_at(g, 0.0));
        respite_gate_free(g);
    }
}

static void test_G5_refusal_never_extends(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0);
    fail_at(g, 0.0);
    for (int t = 1; t < 10; t++) {
        respite_decision d = check_at(g, t);
        assert_false(d.allowed);
        assert_int_equal(d.permit, 0);
        assert_true(d.retry_after == 10.0 - t);
        assert_int_equal(respite_gate_admit(g, t, NULL), 0);
        assert_true(respite_gate_retry_after(g, t, NULL) == 10.0 - t);
    }
    assert_true(allowed_at(g, 10.0));
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.refused, 18);
    assert_int_equal(st.counted_failures, 1);
    respite_gate_free(g);
}

static void test_G6_in_flight_failures_after_trip_are_late(void **state)
{
    (void)state;
    /* Anchor: N=2, R=60: trip at 0; in-flight F at 5; C at 61 allows. */
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", 60.0);
    int64_t in_flight[5];
    for (int i = 0; i < 5; i++)
        in_flight[i] = respite_gate_admit(g, 0.0, NULL);
    report(g, in_flight[0], RESPITE_OUTCOME_TRANSPORT, 0.0, 0.0);
    report(g, in_flight[1], RESPITE_OUTCOME_TRANSPORT, 0.0, 0.0);
    assert_false(allowed_at(g, 1.0));
    report(g, in_flight[2], RESPITE_OUTCOME_TRANSPORT, 0.0, 5.0);
    report(g, in_flight[3], RESPITE_OUTCOME_SERVER_ERROR, 500.0, 5.0);
    fail_at(g, 5.0); /* no permit while open: ignored too */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.late, 3);
    assert_int_equal(st.counted_failures, 2);
    assert_true(st.until == 60.0);
    assert_true(allowed_at(g, 60.0));
    /* A success from before the trip, while probing: ignored, the probe stays. */
    report(g, in_flight[4], RESPITE_OUTCOME_SUCCESS, 0.0, 61.0);
    assert_int_equal(state_at(g, 61.0), RESPITE_GATE_PROBING);
    assert_int_equal(stats_of(g).late, 4);
    respite_gate_free(g);
}

static void test_G6_late_success_on_fast_path_counted(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0);
    int64_t old = respite_gate_admit(g, 0.0, NULL);
    fail_at(g, 0.0);
    int64_t probe = respite_gate_admit(g, 1.0, NULL);
    report(g, probe, RESPITE_OUTCOME_SUCCESS, 0.0, 1.0);
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_CLOSED);
    report(g, old, RESPITE_OUTCOME_SUCCESS, 0.0, 2.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.reported, 3);
    respite_gate_free(g);
}

static void test_G7_P_probes_at_once_others_refused(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "probes", 3.0,
                           "probe_timeout_seconds", 30.0);
    fail_at(g, 0.0);
    int64_t permits[3];
    for (int i = 0; i < 3; i++) {
        respite_decision d = check_at(g, 10.0 + i);
        assert_true(d.allowed);
        assert_true(d.probe);
        permits[i] = d.permit;
        assert_int_equal(d.permit, (INT64_C(2) << 11) | (i + 1)); /* generation 2, slot i+1 */
    }
    respite_decision d = check_at(g, 13.0);
    assert_false(d.allowed);
    assert_true(d.retry_after == 27.0); /* the oldest probe (10) times out at 40 */
    assert_true(respite_gate_retry_after(g, 13.0, NULL) == 27.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.probes, 3);
    assert_int_equal(st.probes_outstanding, 3);
    assert_int_equal(st.state, RESPITE_GATE_PROBING);
    /* Time passes: the refusal always points at the oldest probe's timeout. */
    d = check_at(g, 39.0);
    assert_false(d.allowed);
    assert_true(d.retry_after == 1.0);
    assert_true(permits[0] != permits[1] && permits[1] != permits[2]);
    respite_gate_free(g);
}

static void test_G7_probing_event_at_pause_end(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0);
    fail_at(g, 2.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 2.0);
    assert_true(check_at(g, 50.0).allowed); /* seen late: the event keeps the pause's end */
    expect_event(g, RESPITE_EVENT_PROBING, 12.0);
    expect_no_event(g);
    respite_gate_free(g);
}

static void test_G8_probe_success_closes_and_resets_delay(void **state)
{
    (void)state;
    respite_gate *g = gate_from("usage_sharing", "failures_to_enter_recovery", 1.0, (const char *)NULL);
    fail_at(g, 0.0); /* pause 2 */
    int64_t p = respite_gate_admit(g, 2.0, NULL);
    report(g, p, RESPITE_OUTCOME_SERVER_ERROR, 0.0, 2.0); /* pause 4 */
    assert_true(stats_of(g).delay == 4.0);
    p = respite_gate_admit(g, 6.0, NULL);
    assert_true(p > 0);
    report(g, p, RESPITE_OUTCOME_SUCCESS, 0.0, 6.5);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED);
    assert_true(st.delay == 2.0);
    assert_int_equal(st.window_failures, 0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    expect_event(g, RESPITE_EVENT_PROBING, 2.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 2.0);
    expect_event(g, RESPITE_EVENT_PROBING, 6.0);
    expect_event(g, RESPITE_EVENT_RECOVERED, 6.5);
    fail_at(g, 7.0); /* back to R */
    assert_true(stats_of(g).until == 9.0);
    respite_gate_free(g);
}

static void test_G8_non_counted_probe_outcome_closes(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0);
    fail_at(g, 0.0);
    int64_t p = respite_gate_admit(g, 1.0, NULL);
    report(g, p, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 1.0);
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_CLOSED);
    respite_gate_free(g);
}

static void test_G8_other_probe_outcomes_after_recovery_are_ordinary(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", 1.0, "probes", 2.0);
    fail_at(g, 0.0);
    fail_at(g, 0.0);
    int64_t a = respite_gate_admit(g, 1.0, NULL);
    int64_t b = respite_gate_admit(g, 1.0, NULL);
    report(g, a, RESPITE_OUTCOME_SUCCESS, 0.0, 1.0);
    report(g, b, RESPITE_OUTCOME_TRANSPORT, 0.0, 1.5); /* closed now: joins the window */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED);
    assert_int_equal(st.window_failures, 1);
    assert_int_equal(st.late, 0);
    respite_gate_free(g);
}

static void test_G8_permitless_report_settles_oldest_probe(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0, "probes", 2.0);
    fail_at(g, 0.0);
    assert_true(check_at(g, 1.0).probe);
    assert_true(check_at(g, 1.5).probe);
    assert_int_equal(stats_of(g).probes_outstanding, 2);
    succeed_at(g, 2.0);
    assert_int_equal(state_at(g, 2.0), RESPITE_GATE_CLOSED);
    succeed_at(g, 2.0); /* closed: a success changes nothing */
    assert_int_equal(stats_of(g).late, 0);
    respite_gate_free(g);
}

static void test_G9_failed_probe_reopens_with_multiplied_delay_capped(void **state)
{
    (void)state;
    respite_gate *g = gate_from("usage_sharing", "failures_to_enter_recovery", 1.0, "max_recovery_seconds", 5.0,
                                (const char *)NULL);
    const double pauses[] = {2.0, 4.0, 5.0, 5.0};
    double t = 0.0;
    fail_at(g, t);
    for (int i = 0; i < 4; i++) {
        respite_gate_stats st = stats_of(g);
        assert_true(st.until == t + pauses[i]);
        t = st.until;
        assert_false(allowed_at(g, t - 0.001));
        int64_t p = respite_gate_admit(g, t, NULL);
        assert_true(p > 0);
        report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, t);
    }
    assert_int_equal(stats_of(g).trips, 1);
    assert_int_equal(stats_of(g).counted_failures, 5);
    respite_gate_free(g);
}

static void test_G9_multiplier_one_keeps_R(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 400.0, "max_recovery_seconds",
                           300.0);
    fail_at(g, 0.0);
    int64_t p = respite_gate_admit(g, 400.0, NULL);
    report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, 400.0);
    respite_event ev;
    assert_int_equal(respite_gate_next_event(g, &ev, NULL), 1);
    assert_int_equal(respite_gate_next_event(g, &ev, NULL), 1);
    ev = expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 400.0);
    assert_true(ev.pause == 400.0);
    assert_true(stats_of(g).delay == 400.0);
    respite_gate_free(g);
}

static void test_G10_probe_timeout_counts_as_failed_probe(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "recovery_multiplier", 2.0,
                           "probe_timeout_seconds", 30.0);
    fail_at(g, 0.0);
    int64_t lost = respite_gate_admit(g, 10.0, NULL);
    assert_true(lost > 0);
    respite_decision d = check_at(g, 39.5);
    assert_false(d.allowed);
    assert_true(d.retry_after == 0.5);
    d = check_at(g, 40.0); /* timed out at 40: reopened until 40 + 20 */
    assert_false(d.allowed);
    assert_true(d.retry_after == 20.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.probe_timeouts, 1);
    assert_int_equal(st.probes_outstanding, 0);
    assert_true(st.until == 60.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    expect_event(g, RESPITE_EVENT_PROBING, 10.0);
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 40.0);
    assert_true(ev.pause == 20.0);
    /* The lost probe's outcome arriving now is late. */
    report(g, lost, RESPITE_OUTCOME_SUCCESS, 0.0, 41.0);
    assert_int_equal(stats_of(g).late, 1);
    assert_int_equal(state_at(g, 41.0), RESPITE_GATE_OPEN);
    respite_gate_free(g);
}

static void test_G10_timeouts_evaluated_lazily_in_order(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "recovery_multiplier", 2.0,
                           "probe_timeout_seconds", 5.0);
    fail_at(g, 0.0);
    assert_true(check_at(g, 10.0).probe); /* times out at 15, reopens until 35 */
    /* Seen first at 100: 15 timeout, 35 probing. */
    respite_decision d = check_at(g, 100.0);
    assert_true(d.allowed && d.probe);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    expect_event(g, RESPITE_EVENT_PROBING, 10.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 15.0);
    expect_event(g, RESPITE_EVENT_PROBING, 35.0);
    expect_no_event(g);
    /* Seen at 200: the probe admitted at 100 timed out at 105, until 105 + 40,
     * then probing from 145 with nothing outstanding. */
    assert_int_equal(state_at(g, 200.0), RESPITE_GATE_PROBING);
    expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 105.0);
    expect_event(g, RESPITE_EVENT_PROBING, 145.0);
    assert_int_equal(stats_of(g).probe_timeouts, 2);
    respite_gate_free(g);
}

static void test_G11_P0_admits_everyone_and_keeps_delay_until_success(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0, "recovery_multiplier", 2.0,
                           "max_recovery_seconds", 10.0, "probes", 0.0);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.5));
    for (int i = 0; i < 3; i++) {
        respite_decision d = check_at(g, 1.0);
        assert_true(d.allowed);
        assert_false(d.probe);
    }
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_CLOSED);
    fail_at(g, 1.0); /* no success since the pause: multiplied delay */
    assert_true(stats_of(g).until == 3.0);
    assert_true(allowed_at(g, 3.0));
    succeed_at(g, 3.0); /* the first success resets the delay */
    assert_true(stats_of(g).delay == 1.0);
    fail_at(g, 4.0);
    assert_true(stats_of(g).until == 5.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    expect_event(g, RESPITE_EVENT_PROBING, 1.0);
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 1.0);
    assert_true(ev.pause == 2.0);
    expect_event(g, RESPITE_EVENT_PROBING, 3.0);
    expect_event(g, RESPITE_EVENT_RECOVERED, 3.0);
    expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 4.0);
    assert_int_equal(stats_of(g).probes, 0);
    respite_gate_free(g);
}

static void test_G12_R_zero_never_refuses_but_counts(void **state)
{
    (void)state;
    const double rs[] = {0.0, -5.0};
    for (int k = 0; k < 2; k++) {
        respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", rs[k]);
        for (int i = 0; i < 10; i++) {
            assert_true(allowed_at(g, i));
            fail_at(g, i);
        }
        respite_gate_stats st = stats_of(g);
        assert_int_equal(st.admitted, 10);
        assert_int_equal(st.refused, 0);
        assert_int_equal(st.counted_failures, 10);
        assert_int_equal(st.trips, 5);
        assert_int_equal(st.state, RESPITE_GATE_CLOSED);
        assert_int_equal(st.generation, 1);
        expect_no_event(g);
        respite_gate_free(g);
    }
}

static void test_G13_recover_never_refuses_until_reset(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recover_never", 1.0);
    fail_at(g, 0.0);
    respite_decision d = check_at(g, 1e9);
    assert_false(d.allowed);
    assert_true(isinf(d.retry_after) && d.retry_after > 0);
    assert_true(isinf(respite_gate_retry_after(g, 1e12, NULL)));
    assert_int_equal(state_at(g, 1e12), RESPITE_GATE_OPEN);
    assert_true(isinf(stats_of(g).until));
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    assert_true(isinf(ev.pause));
    assert_int_equal(respite_gate_reset(g, 1e12, NULL), RESPITE_OK);
    assert_true(allowed_at(g, 1e12));
    respite_gate_free(g);
}

static void test_G14_reset_closes_with_R_and_new_generation(void **state)
{
    (void)state;
    respite_gate *g = gate_from("usage_sharing", "failures_to_enter_recovery", 2.0, (const char *)NULL);
    int64_t before = respite_gate_admit(g, 0.0, NULL);
    fail_at(g, 0.0);
    fail_at(g, 0.0);
    int64_t p = respite_gate_admit(g, 2.0, NULL);
    report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, 2.0); /* delay 4 */
    assert_int_equal(respite_gate_reset(g, 3.0, NULL), RESPITE_OK);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED);
    assert_true(st.delay == 2.0);
    assert_int_equal(st.window_failures, 0);
    assert_int_equal(st.generation, 4);
    assert_int_equal(st.trips, 1); /* statistics survive a reset */
    report(g, before, RESPITE_OUTCOME_TRANSPORT, 0.0, 3.0);
    assert_int_equal(stats_of(g).late, 1);
    assert_int_equal(stats_of(g).window_failures, 0);
    fail_at(g, 3.0);
    assert_int_equal(stats_of(g).window_failures, 1);
    respite_event ev;
    while (respite_gate_next_event(g, &ev, NULL) == 1 && ev.type != RESPITE_EVENT_RESET) {
    }
    assert_int_equal(ev.type, RESPITE_EVENT_RESET);
    assert_true(ev.at == 3.0);
    respite_gate_free(g);
}

static void test_G15_retry_after_hint_lengthens_pause_within_cap(void **state)
{
    (void)state;
    struct {
        double r, rmax, hint, honour, pause;
    } cases[] = {
        {10, 300, 120, 1, 120},  /* hint longer than R */
        {10, 300, 5, 1, 10},     /* shorter: the pause stays */
        {10, 300, 1000, 1, 300}, /* capped at Rmax */
        {500, 300, 1000, 1, 500}, /* cap is max(Rmax, R) */
        {10, 300, 120, 0, 10},   /* not honoured */
        {10, 300, 0, 1, 10},     /* 0: no hint */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", cases[i].r,
                               "max_recovery_seconds", cases[i].rmax, "honour_retry_after", cases[i].honour);
        report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_THROTTLED, cases[i].hint, 1.0);
        respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 1.0);
        if (ev.pause != cases[i].pause)
            fail_msg("case %zu: pause %g, want %g", i, ev.pause, cases[i].pause);
        assert_true(stats_of(g).until == 1.0 + cases[i].pause);
        assert_true(stats_of(g).delay == cases[i].r); /* the hint does not change the delay */
        respite_gate_free(g);
    }
}

static void test_G15_hint_on_failed_probe_and_not_on_window_failures(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", 10.0);
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_THROTTLED, 100.0, 0.0); /* does not open: no effect */
    fail_at(g, 0.0);
    assert_true(stats_of(g).until == 10.0);
    int64_t p = respite_gate_admit(g, 10.0, NULL);
    report(g, p, RESPITE_OUTCOME_SERVER_ERROR, 45.0, 10.0);
    assert_true(stats_of(g).until == 55.0);
    respite_gate_free(g);
}

static void test_G16_seeded_jitter_is_reproducible(void **state)
{
    (void)state;
    /* SplitMix64 from seed 42: u1 = 0.7415648787718233, u2 = 0.1599103928769201 */
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "jitter", 0.5, "seed", 42.0);
    fail_at(g, 0.0);
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 0.0);
    assert_true(ev.pause == 10.0 * (1.0 - 0.5 * 0.7415648787718233));
    assert_true(ev.pause == 6.292175606140884);
    double t = stats_of(g).until;
    int64_t p = respite_gate_admit(g, t, NULL);
    report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, t);
    expect_event(g, RESPITE_EVENT_PROBING, t);
    ev = expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, t);
    assert_true(ev.pause == 9.2004480356154);
    respite_gate_free(g);
}

static void test_G16_jitter_zero_is_exact_and_pauses_stay_in_range(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "jitter", 0.0);
    fail_at(g, 0.0);
    assert_true(stats_of(g).until == 10.0);
    respite_gate_free(g);
    /* OS-seeded (seed 0): within (R * (1 - jitter), R]. */
    g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "jitter", 1.0);
    double t = 0.0;
    fail_at(g, t);
    for (int i = 0; i < 50; i++) {
        double until = stats_of(g).until;
        assert_true(until - t > 0.0 && until - t <= 10.0);
        t = until;
        int64_t p = respite_gate_admit(g, t, NULL);
        report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, t);
    }
    respite_gate_free(g);
}

static void test_G17_refusal_message_exact(void **state)
{
    (void)state;
    char buf[256];
    size_t n = respite_refusal_message(12.34, buf, sizeof buf);
    assert_string_equal(buf, "sending requests to the service is temporarily restricted due to recent failures; "
                             "recovery resumes in 12.3s");
    assert_int_equal(n, strlen(buf));
    respite_refusal_message(0.04, buf, sizeof buf);
    assert_string_equal(buf, "sending requests to the service is temporarily restricted due to recent failures; "
                             "recovery resumes in 0.0s");
    respite_refusal_message(INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "sending requests to the service is temporarily restricted due to recent failures; "
                             "recovery resumes only after a reset");
    /* Like snprintf: a short buffer is terminated and the full length returned. */
    char small[8];
    n = respite_refusal_message(12.34, small, sizeof small);
    assert_string_equal(small, "sending");
    assert_int_equal(n, strlen("sending requests to the service is temporarily restricted due to recent failures; "
                               "recovery resumes in 12.3s"));
    assert_int_equal(respite_refusal_message(1.0, NULL, 0), n - 1);

    respite_error err = {0};
    assert_int_equal(respite_refusal_error(59.96, &err), RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_true(err.retry_after == 59.96);
    assert_string_equal(err.message, "sending requests to the service is temporarily restricted due to recent "
                                     "failures; recovery resumes in 60.0s");
    assert_string_equal(respite_status_name(err.status), "temporarily_unavailable");
    assert_int_equal(respite_refusal_error(1.0, NULL), RESPITE_E_TEMPORARILY_UNAVAILABLE);
}

static void test_G17_refusal_from_gate_matches_message(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 20.0);
    fail_at(g, 0.0);
    respite_decision d = check_at(g, 7.66);
    respite_error err = {0};
    respite_refusal_error(d.retry_after, &err);
    assert_string_equal(err.message, "sending requests to the service is temporarily restricted due to recent "
                                     "failures; recovery resumes in 12.3s");
    respite_gate_free(g);
}

static void test_G18_event_figures(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 3.0, "failures_window_seconds", 50.0, "recovery_seconds",
                           7.0, "recovery_multiplier", 3.0, "max_recovery_seconds", 100.0);
    fail_at(g, 1.0);
    fail_at(g, 2.0);
    fail_at(g, 3.0);
    int64_t p = respite_gate_admit(g, 10.0, NULL);
    report(g, p, RESPITE_OUTCOME_TRANSPORT, 0.0, 11.0);
    p = respite_gate_admit(g, 32.0, NULL);
    report(g, p, RESPITE_OUTCOME_SUCCESS, 0.0, 33.0);
    respite_gate_reset(g, 40.0, NULL);
    respite_event ev = expect_event(g, RESPITE_EVENT_RECOVERY_STARTED, 3.0);
    assert_int_equal(ev.failures, 3);
    assert_true(ev.window == 50.0);
    assert_true(ev.pause == 7.0);
    ev = expect_event(g, RESPITE_EVENT_PROBING, 10.0);
    assert_true(ev.pause == 0.0 && ev.failures == 0);
    ev = expect_event(g, RESPITE_EVENT_RECOVERY_EXTENDED, 11.0);
    assert_true(ev.pause == 21.0);
    expect_event(g, RESPITE_EVENT_PROBING, 32.0);
    expect_event(g, RESPITE_EVENT_RECOVERED, 33.0);
    expect_event(g, RESPITE_EVENT_RESET, 40.0);
    expect_no_event(g);
    assert_true(respite_event_is_warning(RESPITE_EVENT_RECOVERY_STARTED));
    assert_true(respite_event_is_warning(RESPITE_EVENT_RECOVERY_EXTENDED));
    assert_false(respite_event_is_warning(RESPITE_EVENT_RECOVERED));
    respite_gate_free(g);
}

static void test_G18_ring_of_64_drops_oldest_and_counts(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0);
    for (int i = 0; i < 70; i++)
        respite_gate_reset(g, i, NULL);
    assert_int_equal(stats_of(g).events_dropped, 6);
    respite_event ev;
    int taken = 0;
    assert_int_equal(respite_gate_events_pending(g), 64);
    while (respite_gate_next_event(g, &ev, NULL) == 1) {
        assert_true(ev.at == 6.0 + taken); /* the oldest six are gone */
        taken++;
        assert_int_equal(respite_gate_events_pending(g), 64 - taken);
    }
    assert_int_equal(taken, 64);
    assert_int_equal(respite_gate_events_pending(NULL), 0);
    respite_gate_free(g);
}

struct seen_events {
    int count;
    int types[8];
};

static void record_event(const respite_event *ev, void *user_data)
{
    struct seen_events *seen = user_data;
    if (seen->count < 8)
        seen->types[seen->count] = ev->type;
    seen->count++;
}

static void test_G18_callback_sees_every_event(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0);
    struct seen_events seen = {0};
    assert_int_equal(respite_gate_set_event_callback(g, record_event, &seen, NULL), RESPITE_OK);
    fail_at(g, 0.0);
    int64_t p = respite_gate_admit(g, 1.0, NULL);
    report(g, p, RESPITE_OUTCOME_SUCCESS, 0.0, 1.0);
    assert_int_equal(seen.count, 3);
    assert_int_equal(seen.types[0], RESPITE_EVENT_RECOVERY_STARTED);
    assert_int_equal(seen.types[1], RESPITE_EVENT_PROBING);
    assert_int_equal(seen.types[2], RESPITE_EVENT_RECOVERED);
    respite_gate_set_event_callback(g, NULL, NULL, NULL);
    respite_gate_reset(g, 2.0, NULL);
    assert_int_equal(seen.count, 3);
    respite_gate_free(g);
}

/* ------------------------------------------------ anchors (51Degrees) */

static void test_G3_anchor_N5_four_failures_then_refused(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 5.0, "failures_window_seconds", 100.0, "recovery_seconds",
                           100.0);
    for (int i = 0; i < 4; i++) {
        fail_at(g, 0.0);
        assert_true(allowed_at(g, 0.0));
    }
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.0));
    respite_gate_free(g);
}

static void test_G2_anchor_N3_W1_window_slides(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 3.0, "failures_window_seconds", 1.0);
    fail_at(g, 0.0);
    fail_at(g, 0.0);
    assert_true(allowed_at(g, 0.0));
    fail_at(g, 1.3);
    fail_at(g, 1.3);
    assert_true(allowed_at(g, 1.3));
    fail_at(g, 1.3);
    assert_false(allowed_at(g, 1.3));
    respite_gate_free(g);
}

static void test_T2_anchor_N1_R03_refused_until_03(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 0.3);
    fail_at(g, 0.0);
    for (int i = 0; i <= 20; i++) {
        double t = i * 0.05;
        respite_decision d = check_at(g, t);
        if (d.allowed != (t >= 0.3))
            fail_msg("at %.17g allowed=%d", t, d.allowed);
        if (d.allowed)
            report(g, d.permit, RESPITE_OUTCOME_SUCCESS, 0.0, t);
    }
    respite_gate_free(g);
}

static void test_G9_anchor_exponential_half_second(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 0.5, "recovery_multiplier", 2.0,
                           "max_recovery_seconds", 10.0);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.2));
    assert_true(allowed_at(g, 0.7));
    fail_at(g, 0.7); /* the probe fails: pause 1.0, until 1.7 */
    assert_false(allowed_at(g, 1.4));
    assert_true(allowed_at(g, 1.8));
    respite_gate_free(g);
}

static void test_G9_anchor_exponential_capped_at_2(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0, "recovery_multiplier", 10.0,
                           "max_recovery_seconds", 2.0);
    fail_at(g, 0.0);
    assert_true(allowed_at(g, 1.1));
    fail_at(g, 1.1); /* pause min(10, 2) = 2: until 3.1 */
    assert_false(allowed_at(g, 3.0));
    assert_true(allowed_at(g, 3.2));
    respite_gate_free(g);
}

static void test_G11_anchor_N2_R10_failure_after_pause(void **state)
{
    (void)state;
    /* .NET (all traffic after the pause) = respite with probes 0: refuse, allow, allow. */
    respite_gate *g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", 10.0, "probes", 0.0);
    fail_at(g, 0.0);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.0));
    assert_true(allowed_at(g, 11.0));
    fail_at(g, 11.0);
    assert_true(allowed_at(g, 11.0));
    respite_gate_free(g);
    /* respite's default (one probe): the failure is the probe's, so refuse, allow, refuse. */
    g = GATE("failures_to_enter_recovery", 2.0, "recovery_seconds", 10.0);
    fail_at(g, 0.0);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 0.0));
    assert_true(allowed_at(g, 11.0));
    fail_at(g, 11.0);
    assert_false(allowed_at(g, 11.0));
    respite_gate_free(g);
}

static void test_G13_anchor_no_recovery(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recover_never", 1.0);
    fail_at(g, 0.0);
    assert_false(allowed_at(g, 3600.0));
    respite_gate_reset(g, 3600.0, NULL);
    assert_true(allowed_at(g, 3600.0));
    respite_gate_free(g);
}

static void test_G12_anchor_R_negative_many_failures(void **state)
{
    (void)state;
    respite_gate *g = GATE("recovery_seconds", -1.0, "failures_to_enter_recovery", 1.0);
    for (int i = 0; i < 1000; i++) {
        fail_at(g, i * 0.01);
        assert_true(allowed_at(g, i * 0.01));
    }
    respite_gate_free(g);
}

/* Statistics: successes are reports of `success` (late ones too); pauses
 * are the times the gate opened - a trip, a failed probe (G9), a timed-out
 * probe (G10) - and not a G12 trip, which never opens it. */
static void test_stats_successes_and_pauses(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 10.0, "probe_timeout_seconds", 5.0);
    int64_t permit = check_at(g, 0.0).permit;
    succeed_at(g, 0.0);
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 0.0);
    fail_at(g, 0.0); /* trip: pause 1 */
    report(g, permit, RESPITE_OUTCOME_SUCCESS, 0.0, 1.0); /* late (G6), still a success */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.reported, 4);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.successes, 2);
    assert_int_equal(st.pauses, 1);
    assert_true(check_at(g, 10.0).probe);
    fail_at(g, 10.0); /* G9: pause 2 */
    assert_true(check_at(g, 20.0).probe);
    assert_false(allowed_at(g, 25.0)); /* G10 at 25: pause 3 */
    st = stats_of(g);
    assert_int_equal(st.pauses, 3);
    assert_int_equal(st.trips, 1);
    assert_int_equal(st.successes, 2);
    assert_true(check_at(g, 35.0).probe);
    succeed_at(g, 35.0); /* G8 */
    st = stats_of(g);
    assert_int_equal(st.successes, 3);
    assert_int_equal(st.pauses, 3);
    respite_gate_free(g);

    g = GATE("recovery_seconds", 0.0, "failures_to_enter_recovery", 1.0);
    fail_at(g, 0.0);
    fail_at(g, 1.0);
    st = stats_of(g);
    assert_int_equal(st.trips, 2);
    assert_int_equal(st.pauses, 0);
    respite_gate_free(g);
}

/* --------------------------------------------------------- bad input */

static void test_G1_null_gate_is_closed_everywhere(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_decision d;
    respite_gate_stats st;
    respite_event ev;
#define EXPECT_CLOSED(call)                                        \
    do {                                                           \
        respite_error_clear(&err);                                 \
        call;                                                      \
        assert_int_equal(err.status, RESPITE_E_CLOSED);            \
        assert_string_equal(err.message, "gate is closed");        \
    } while (0)
    EXPECT_CLOSED(assert_int_equal(respite_gate_check(NULL, 0.0, &d, &err), RESPITE_E_CLOSED));
    EXPECT_CLOSED(assert_int_equal(respite_gate_admit(NULL, 0.0, &err), -1));
    EXPECT_CLOSED(assert_true(respite_gate_retry_after(NULL, 0.0, &err) == -1.0));
    EXPECT_CLOSED(assert_int_equal(respite_gate_report(NULL, 0, 0, 0.0, 0.0, &err), RESPITE_E_CLOSED));
    EXPECT_CLOSED(assert_int_equal(respite_gate_reset(NULL, 0.0, &err), RESPITE_E_CLOSED));
    EXPECT_CLOSED(assert_int_equal(respite_gate_get_state(NULL, 0.0, &err), -1));
    EXPECT_CLOSED(assert_int_equal(respite_gate_stats_get(NULL, &st, &err), RESPITE_E_CLOSED));
    EXPECT_CLOSED(assert_int_equal(respite_gate_next_event(NULL, &ev, &err), -1));
    EXPECT_CLOSED(assert_int_equal(respite_gate_set_event_callback(NULL, NULL, NULL, &err), RESPITE_E_CLOSED));
    EXPECT_CLOSED(assert_int_equal(respite_gate_check(NULL, NAN, NULL, &err), RESPITE_E_CLOSED));
#undef EXPECT_CLOSED
    respite_gate_free(NULL);
    /* NULL err is allowed everywhere. */
    assert_int_equal(respite_gate_admit(NULL, 0.0, NULL), -1);
}

static void test_G4_bad_outcome_hint_and_permit_rejected(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "probes", 2.0);
    respite_error err = {0};
    assert_int_equal(respite_gate_report(g, 0, 6, 0.0, 0.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "outcome must be a respite_outcome from 0 to 5 (success, request_error, "
                                     "throttled, server_error, unusable, transport) (got 6)");
    assert_int_equal(respite_gate_report(g, 0, -1, 0.0, 0.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_report(g, 0, RESPITE_OUTCOME_THROTTLED, -1.0, 0.0, &err),
                     RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got -1)");
    assert_int_equal(respite_gate_report(g, 0, RESPITE_OUTCOME_THROTTLED, NAN, 0.0, &err),
                     RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_report(g, 0, RESPITE_OUTCOME_THROTTLED, INFINITY, 0.0, &err),
                     RESPITE_E_INVALID_ARGUMENT);
    const int64_t bad_permits[] = {-1, 5, (INT64_C(1) << 11) | 3, INT64_C(2) << 11, INT64_MAX};
    for (int i = 0; i < 5; i++) {
        respite_error_clear(&err);
        assert_int_equal(respite_gate_report(g, bad_permits[i], RESPITE_OUTCOME_SUCCESS, 0.0, 0.0, &err),
                         RESPITE_E_INVALID_ARGUMENT);
        char want[160];
        snprintf(want, sizeof want, "permit must be 0 (no permit) or a permit this gate handed out (got %lld)",
                 (long long)bad_permits[i]);
        assert_string_equal(err.message, want);
    }
    respite_decision d;
    respite_error_clear(&err);
    assert_int_equal(respite_gate_check(g, 0.0, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_stats_get(g, NULL, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_next_event(g, NULL, &err), -1);
    /* Nothing bad was counted, and the gate still works. */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.reported, 0);
    assert_int_equal(st.counted_failures, 0);
    assert_int_equal(respite_gate_check(g, 0.0, &d, &err), RESPITE_OK);
    assert_true(d.allowed);
    respite_gate_free(g);
}

static void test_G3_settings_checked_at_new(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    respite_settings_set_number(s, "recovery_multiplier", 2.0, &err);
    respite_settings_set_number(s, "recovery_seconds", 400.0, &err);
    assert_null(respite_gate_new(s, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "max_recovery_seconds");
    respite_settings_free(s);

    s = respite_settings_new("backoff", &err);
    respite_error_clear(&err);
    assert_null(respite_gate_new(s, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "component");
    assert_non_null(strstr(err.message, "settings must be gate settings (got backoff settings)"));
    respite_settings_free(s);

    respite_gate *g = respite_gate_new(NULL, &err); /* cloud_request defaults */
    assert_non_null(g);
    respite_gate_stats st = stats_of(g);
    assert_true(st.delay == 60.0);
    assert_int_equal(st.generation, 1);
    for (int i = 0; i < 9; i++)
        fail_at(g, i);
    assert_true(allowed_at(g, 9.0));
    fail_at(g, 9.0);
    assert_false(allowed_at(g, 9.0));
    assert_true(stats_of(g).until == 69.0);
    respite_gate_free(g);

    assert_string_equal(respite_gate_state_name(RESPITE_GATE_CLOSED), "closed");
    assert_string_equal(respite_gate_state_name(RESPITE_GATE_OPEN), "open");
    assert_string_equal(respite_gate_state_name(RESPITE_GATE_PROBING), "probing");
    assert_null(respite_gate_state_name(3));
}

static void test_G7_probe_reported_twice_is_ignored(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0, "probes", 2.0);
    fail_at(g, 0.0);
    int64_t a = respite_gate_admit(g, 1.0, NULL);
    int64_t b = respite_gate_admit(g, 1.0, NULL);
    assert_int_equal(respite_gate_admit(g, 1.0, NULL), 0);
    report(g, b, RESPITE_OUTCOME_REQUEST_ERROR, 0.0, 1.0); /* closes */
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_CLOSED);
    (void)a;
    respite_gate_free(g);

    g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0, "probes", 2.0, "probe_timeout_seconds",
             100.0);
    fail_at(g, 0.0);
    a = respite_gate_admit(g, 1.0, NULL);
    b = respite_gate_admit(g, 2.0, NULL);
    /* A permitless outcome settles the oldest (a); a's own report then finds no probe. */
    report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, 3.0); /* reopens: b is now late too */
    report(g, a, RESPITE_OUTCOME_TRANSPORT, 0.0, 3.0);
    report(g, b, RESPITE_OUTCOME_TRANSPORT, 0.0, 3.0);
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.late, 2);
    assert_int_equal(st.counted_failures, 2);
    assert_true(st.until == 4.0);
    respite_gate_free(g);
}

static void test_G7_open_without_probe_outstanding_permitless_is_late(void **state)
{
    (void)state;
    respite_gate *g = GATE("failures_to_enter_recovery", 1.0, "recovery_seconds", 1.0);
    fail_at(g, 0.0);
    assert_int_equal(state_at(g, 1.0), RESPITE_GATE_PROBING);
    fail_at(g, 1.0); /* probing, no probe outstanding: nothing awaits it */
    respite_gate_stats st = stats_of(g);
    assert_int_equal(st.late, 1);
    assert_int_equal(st.state, RESPITE_GATE_PROBING);
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_T1_fractional_seconds_are_exact),
        cmocka_unit_test(test_T1_now_is_monotonic_seconds),
        cmocka_unit_test(test_T2_now_equal_until_admits),
        cmocka_unit_test(test_T2_huge_times_never_lose_a_pause),
        cmocka_unit_test(test_T3_invalid_times_rejected_everywhere),
        cmocka_unit_test(test_T4_backwards_time_acts_as_latest),
        cmocka_unit_test(test_T4_backwards_failure_joins_window_at_latest),
        cmocka_unit_test(test_G1_closed_admits_with_permit),
        cmocka_unit_test(test_G2_entry_exactly_W_old_leaves_window),
        cmocka_unit_test(test_G2_sliding_window_not_a_count_from_the_first),
        cmocka_unit_test(test_G2_window_holds_at_most_N),
        cmocka_unit_test(test_G3_N_minus_1_admits_N_opens),
        cmocka_unit_test(test_G4_success_does_not_clear_window),
        cmocka_unit_test(test_G4_request_error_does_not_count_unless_count_all),
        cmocka_unit_test(test_G4_every_counted_outcome_counts),
        cmocka_unit_test(test_G5_refusal_never_extends),
        cmocka_unit_test(test_G6_in_flight_failures_after_trip_are_late),
        cmocka_unit_test(test_G6_late_success_on_fast_path_counted),
        cmocka_unit_test(test_G7_P_probes_at_once_others_refused),
        cmocka_unit_test(test_G7_probing_event_at_pause_end),
        cmocka_unit_test(test_G7_probe_reported_twice_is_ignored),
        cmocka_unit_test(test_G7_open_without_probe_outstanding_permitless_is_late),
        cmocka_unit_test(test_G8_probe_success_closes_and_resets_delay),
        cmocka_unit_test(test_G8_non_counted_probe_outcome_closes),
        cmocka_unit_test(test_G8_other_probe_outcomes_after_recovery_are_ordinary),
        cmocka_unit_test(test_G8_permitless_report_settles_oldest_probe),
        cmocka_unit_test(test_G9_failed_probe_reopens_with_multiplied_delay_capped),
        cmocka_unit_test(test_G9_multiplier_one_keeps_R),
        cmocka_unit_test(test_G10_probe_timeout_counts_as_failed_probe),
        cmocka_unit_test(test_G10_timeouts_evaluated_lazily_in_order),
        cmocka_unit_test(test_G11_P0_admits_everyone_and_keeps_delay_until_success),
        cmocka_unit_test(test_G12_R_zero_never_refuses_but_counts),
        cmocka_unit_test(test_G13_recover_never_refuses_until_reset),
        cmocka_unit_test(test_G14_reset_closes_with_R_and_new_generation),
        cmocka_unit_test(test_G15_retry_after_hint_lengthens_pause_within_cap),
        cmocka_unit_test(test_G15_hint_on_failed_probe_and_not_on_window_failures),
        cmocka_unit_test(test_G16_seeded_jitter_is_reproducible),
        cmocka_unit_test(test_G16_jitter_zero_is_exact_and_pauses_stay_in_range),
        cmocka_unit_test(test_G17_refusal_message_exact),
        cmocka_unit_test(test_G17_refusal_from_gate_matches_message),
        cmocka_unit_test(test_G18_event_figures),
        cmocka_unit_test(test_G18_ring_of_64_drops_oldest_and_counts),
        cmocka_unit_test(test_G18_callback_sees_every_event),
        cmocka_unit_test(test_G3_anchor_N5_four_failures_then_refused),
        cmocka_unit_test(test_G2_anchor_N3_W1_window_slides),
        cmocka_unit_test(test_T2_anchor_N1_R03_refused_until_03),
        cmocka_unit_test(test_G9_anchor_exponential_half_second),
        cmocka_unit_test(test_G9_anchor_exponential_capped_at_2),
        cmocka_unit_test(test_G11_anchor_N2_R10_failure_after_pause),
        cmocka_unit_test(test_G13_anchor_no_recovery),
        cmocka_unit_test(test_G12_anchor_R_negative_many_failures),
        cmocka_unit_test(test_stats_successes_and_pauses),
        cmocka_unit_test(test_G1_null_gate_is_closed_everywhere),
        cmocka_unit_test(test_G4_bad_outcome_hint_and_permit_rejected),
        cmocka_unit_test(test_G3_settings_checked_at_new),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
