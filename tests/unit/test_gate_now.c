/* respite_gate_admit_now / respite_gate_report_now: the same answers as
 * admit/report at respite_now(), without a clock read on the closed path. */
#include <string.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "../support/test_support.h"
#include "respite.h"

static void test_G1_admit_now_admits_while_closed(void **state)
{
    (void)state;
    respite_gate *g = gate_with(2, 60);
    int64_t permit = respite_gate_admit_now(g, NULL);
    assert_true(permit > 0);
    assert_int_equal(respite_gate_report_now(g, permit, RESPITE_OUTCOME_SUCCESS, 0, NULL), RESPITE_OK);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.admitted, 1);
    assert_int_equal(stats.reported, 1);
    assert_int_equal(stats.counted_failures, 0);
    respite_gate_free(g);
}

static void test_G3_G5_failures_reported_now_open_the_gate(void **state)
{
    (void)state;
    respite_gate *g = gate_with(2, 60);
    for (int i = 0; i < 2; i++) {
        int64_t permit = respite_gate_admit_now(g, NULL);
        assert_true(permit > 0);
        assert_int_equal(respite_gate_report_now(g, permit, RESPITE_OUTCOME_TRANSPORT, 0, NULL), RESPITE_OK);
    }
    respite_error err = {0};
    assert_int_equal(respite_gate_admit_now(g, &err), 0);
    /* One call answers: the refusal comes with its retry_after and message. */
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_true(err.retry_after > 59.0 && err.retry_after <= 60.0);
    assert_non_null(strstr(err.message, "temporarily restricted due to recent failures"));
    double wait = respite_gate_retry_after(g, respite_now(), NULL);
    assert_true(wait > 59.0 && wait <= err.retry_after);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.trips, 1);
    assert_int_equal(stats.refused, 1);
    respite_gate_free(g);
}

static void test_E9_now_variants_on_a_closed_handle(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_int_equal(respite_gate_admit_now(NULL, &err), -1);
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    err.status = 0;
    assert_int_equal(respite_gate_report_now(NULL, 0, RESPITE_OUTCOME_SUCCESS, 0, &err), RESPITE_E_CLOSED);
}

static void test_E_report_now_checks_its_arguments(void **state)
{
    (void)state;
    respite_gate *g = gate_with(2, 60);
    respite_error err = {0};
    assert_int_equal(respite_gate_report_now(g, 0, 42, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    err.status = 0;
    assert_int_equal(respite_gate_report_now(g, 0, RESPITE_OUTCOME_SUCCESS, NAN, &err), RESPITE_E_INVALID_ARGUMENT);
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_G1_admit_now_admits_while_closed),
        cmocka_unit_test(test_G3_G5_failures_reported_now_open_the_gate),
        cmocka_unit_test(test_E9_now_variants_on_a_closed_handle),
        cmocka_unit_test(test_E_report_now_checks_its_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
