/* G19: a permit released without an outcome (docs/spec.md section 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "respite.h"

/* N 1, R 10, P `probes`, T 5, no jitter: one failure at t=0 opens until 10. */
static respite_gate *opened_gate(int probes)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    assert_non_null(s);
    assert_int_equal(respite_settings_set_number(s, "failures_to_enter_recovery", 1, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "recovery_seconds", 10, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "probes", probes, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(s, "probe_timeout_seconds", 5, &err), RESPITE_OK);
    respite_gate *g = respite_gate_new(s, &err);
    respite_settings_free(s);
    assert_non_null(g);
    int64_t permit = respite_gate_admit(g, 0.0, &err);
    assert_true(permit > 0);
    assert_int_equal(respite_gate_report(g, permit, RESPITE_OUTCOME_TRANSPORT, 0, 0.0, &err), RESPITE_OK);
    return g;
}

static respite_decision check(respite_gate *g, double t)
{
    respite_decision d;
    respite_error err = {0};
    assert_int_equal(respite_gate_check(g, t, &d, &err), RESPITE_OK);
    return d;
}

static respite_gate_stats stats(respite_gate *g)
{
    respite_gate_stats st;
    respite_error err = {0};
    assert_int_equal(respite_gate_stats_get(g, &st, &err), RESPITE_OK);
    return st;
}

/* A released probe frees its slot: the next check is a probe, the timeout
 * no longer runs, and nothing was counted. */
static void test_G19_a_released_probe_lets_the_next_call_probe(void **state)
{
    (void)state;
    respite_gate *g = opened_gate(1);
    respite_decision probe = check(g, 10.0);
    assert_true(probe.allowed && probe.probe);
    assert_false(check(g, 11.0).allowed); /* the one probe is out */
    respite_gate_stats before = stats(g);

    respite_error err = {0};
    assert_int_equal(respite_gate_release(g, probe.permit, 12.0, &err), RESPITE_OK);
    respite_gate_stats after = stats(g);
    assert_int_equal(after.probes_outstanding, 0);
    assert_int_equal(after.reported, before.reported);
    assert_int_equal(after.late, before.late);
    assert_int_equal(after.counted_failures, before.counted_failures);
    assert_int_equal(after.generation, before.generation);
    assert_int_equal(respite_gate_events_pending(g), 2); /* recovery_started, probing: no new one */

    respite_decision next = check(g, 12.5);
    assert_true(next.allowed && next.probe);
    /* Its own timeout counts from 12.5, not the released probe's 10 + 5. */
    assert_int_equal(respite_gate_get_state(g, 16.0, &err), RESPITE_GATE_PROBING);
    assert_int_equal(stats(g).probe_timeouts, 0);
    assert_int_equal(respite_gate_report(g, next.permit, RESPITE_OUTCOME_SUCCESS, 0, 13.0, &err), RESPITE_OK);
    assert_int_equal(respite_gate_get_state(g, 13.0, &err), RESPITE_GATE_CLOSED);
    respite_gate_free(g);
}

/* P 2: releasing the first probe keeps the second outstanding, oldest
 * first (its timeout still runs), and its report still settles the probing. */
static void test_G19_the_other_probes_stay_outstanding(void **state)
{
    (void)state;
    respite_gate *g = opened_gate(2);
    respite_decision first = check(g, 10.0);
    respite_decision second = check(g, 11.0);
    assert_true(first.probe && second.probe);
    respite_error err = {0};
    assert_int_equal(respite_gate_release(g, first.permit, 11.5, &err), RESPITE_OK);
    assert_int_equal(stats(g).probes_outstanding, 1);
    respite_decision third = check(g, 12.0);
    assert_true(third.allowed && third.probe);
    assert_false(check(g, 12.5).allowed);
    /* The oldest outstanding is now the second (admitted at 11): it times out at 16. */
    respite_decision refused = check(g, 13.0);
    assert_false(refused.allowed);
    assert_true(fabs(refused.retry_after - 3.0) < 1e-9);
    /* The second's permit settles the probing, whatever slot it had. */
    assert_int_equal(respite_gate_report(g, second.permit, RESPITE_OUTCOME_SERVER_ERROR, 0, 13.0, &err), RESPITE_OK);
    assert_int_equal(respite_gate_get_state(g, 13.0, &err), RESPITE_GATE_OPEN);
    assert_int_equal(stats(g).counted_failures, 2);
    respite_gate_free(g);
}

/* Closed-state permits, permits of an earlier generation and a second
 * release change nothing; the window keeps its failures. */
static void test_G19_nothing_else_changes(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    assert_int_equal(respite_settings_set_number(s, "failures_to_enter_recovery", 3, &err), RESPITE_OK);
    respite_gate *g = respite_gate_new(s, &err);
    respite_settings_free(s);
    int64_t failed = respite_gate_admit(g, 1.0, &err);
    assert_int_equal(respite_gate_report(g, failed, RESPITE_OUTCOME_SERVER_ERROR, 0, 1.0, &err), RESPITE_OK);
    int64_t permit = respite_gate_admit(g, 2.0, &err);
    respite_gate_stats before = stats(g);
    assert_int_equal(respite_gate_release(g, permit, 2.0, &err), RESPITE_OK);
    assert_int_equal(respite_gate_release(g, permit, 2.0, &err), RESPITE_OK);
    respite_gate_stats after = stats(g);
    assert_int_equal(after.window_failures, 1);
    assert_int_equal(after.reported, before.reported);
    assert_int_equal(after.late, before.late);
    assert_int_equal(after.state, RESPITE_GATE_CLOSED);
    respite_gate_free(g);

    g = opened_gate(1);
    respite_decision probe = check(g, 10.0);
    assert_int_equal(respite_gate_report(g, probe.permit, RESPITE_OUTCOME_SUCCESS, 0, 10.5, &err), RESPITE_OK);
    assert_int_equal(respite_gate_release(g, probe.permit, 11.0, &err), RESPITE_OK); /* settled already */
    assert_int_equal(respite_gate_get_state(g, 11.0, &err), RESPITE_GATE_CLOSED);
    respite_gate_free(g);
}

/* Errors: gate, time, permit (0 included), as for a report. */
static void test_G19_errors(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_int_equal(respite_gate_release(NULL, 2048, 1.0, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "gate is closed");
    respite_gate *g = opened_gate(1);
    assert_int_equal(respite_gate_release(g, 2048, NAN, &err), RESPITE_E_INVALID_TIME);
    assert_int_equal(respite_gate_release(g, 0, 1.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "permit must be a permit this gate handed out (got 0)");
    assert_int_equal(respite_gate_release(g, -5, 1.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_release(g, 2048 * 100, 1.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(respite_gate_release(g, 2048 * 2 + 2, 1.0, &err), RESPITE_E_INVALID_ARGUMENT); /* slot > P */
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_G19_a_released_probe_lets_the_next_call_probe),
        cmocka_unit_test(test_G19_the_other_probes_stay_outstanding),
        cmocka_unit_test(test_G19_nothing_else_changes),
        cmocka_unit_test(test_G19_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
