/* Outcomes (spec section 1, O rules): names, classification, which count. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "respite.h"

static void test_O1_names_round_trip(void **state)
{
    (void)state;
    static const char *const names[] = {"success", "request_error", "throttled", "server_error", "unusable",
                                        "transport"};
    assert_int_equal(RESPITE_OUTCOME_COUNT, 6);
    for (int i = 0; i < RESPITE_OUTCOME_COUNT; i++) {
        assert_string_equal(respite_outcome_name(i), names[i]);
        assert_int_equal(respite_outcome_from_name(names[i], NULL), i);
    }
    assert_int_equal(RESPITE_OUTCOME_SUCCESS, 0);
    assert_int_equal(RESPITE_OUTCOME_TRANSPORT, 5);
    assert_null(respite_outcome_name(-1));
    assert_null(respite_outcome_name(6));
}

static void test_O1_unknown_name_lists_the_accepted_names(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_outcome_from_name("timeout", &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "outcome must be one of success, request_error, throttled, server_error, "
                                     "unusable, transport (got 'timeout')");
    respite_error_clear(&err);
    assert_int_equal(respite_outcome_from_name("Success", &err), -1); /* names are case-sensitive */
    assert_int_equal(respite_outcome_from_name(NULL, &err), -1);
    assert_string_equal(err.message, "outcome must be one of success, request_error, throttled, server_error, "
                                     "unusable, transport (got '(null)')");
}

static void test_O1_a_number_that_is_not_an_outcome(void **state)
{
    (void)state;
    respite_error err;
    for (int i = 0; i < RESPITE_OUTCOME_COUNT; i++)
        assert_int_equal(respite_outcome_check(i, NULL), i);
    respite_error_clear(&err);
    assert_int_equal(respite_outcome_check(9, &err), -1);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "outcome must be a respite_outcome from 0 to 5 (success, request_error, "
                                     "throttled, server_error, unusable, transport) (got 9)");
    assert_int_equal(respite_outcome_check(-1, NULL), -1);
    assert_int_equal(respite_outcome_check(6, NULL), -1);
}

static int classify(int transport_failed, int status, int usable)
{
    return respite_classify(transport_failed, status, usable, NULL);
}

static void test_O2_transport_failure_whatever_the_status(void **state)
{
    (void)state;
    assert_int_equal(classify(1, 0, 0), RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(classify(1, 200, 1), RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(classify(1, 503, 0), RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(classify(1, 999, 0), RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(classify(-1, -5, 0), RESPITE_OUTCOME_TRANSPORT);
}

static void test_O3_informational_is_unusable(void **state)
{
    (void)state;
    assert_int_equal(classify(0, 100, 1), RESPITE_OUTCOME_UNUSABLE);
    assert_int_equal(classify(0, 199, 1), RESPITE_OUTCOME_UNUSABLE);
    assert_int_equal(classify(0, 150, 0), RESPITE_OUTCOME_UNUSABLE);
}

static void test_O4_2xx_3xx_success_or_unusable(void **state)
{
    (void)state;
    int codes[] = {200, 204, 299, 300, 304, 399};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_equal(classify(0, codes[i], 1), RESPITE_OUTCOME_SUCCESS);
        assert_int_equal(classify(0, codes[i], 0), RESPITE_OUTCOME_UNUSABLE);
    }
}

static void test_O5_429_is_throttled(void **state)
{
    (void)state;
    assert_int_equal(classify(0, 429, 1), RESPITE_OUTCOME_THROTTLED);
    assert_int_equal(classify(0, 429, 0), RESPITE_OUTCOME_THROTTLED);
}

static void test_O6_other_4xx_is_request_error(void **state)
{
    (void)state;
    int codes[] = {400, 404, 408, 413, 428, 430, 499};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_equal(classify(0, codes[i], 1), RESPITE_OUTCOME_REQUEST_ERROR);
        assert_int_equal(classify(0, codes[i], 0), RESPITE_OUTCOME_REQUEST_ERROR); /* body_usable is ignored */
    }
}

static void test_O7_5xx_is_server_error(void **state)
{
    (void)state;
    int codes[] = {500, 502, 503, 504, 599};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        assert_int_equal(classify(0, codes[i], 1), RESPITE_OUTCOME_SERVER_ERROR);
        assert_int_equal(classify(0, codes[i], 0), RESPITE_OUTCOME_SERVER_ERROR);
    }
}

static void test_O8_status_outside_100_599_is_rejected(void **state)
{
    (void)state;
    int codes[] = {99, 600, 0, -1, 1000};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        respite_error err;
        respite_error_clear(&err);
        assert_int_equal(respite_classify(0, codes[i], 1, &err), -1);
        assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    }
    respite_error err;
    respite_error_clear(&err);
    respite_classify(0, 99, 1, &err);
    assert_string_equal(err.message,
                        "http_status must be an integer from 100 to 599 when the transport did not fail (got 99)");
    respite_classify(0, 600, 0, &err);
    assert_string_equal(err.message,
                        "http_status must be an integer from 100 to 599 when the transport did not fail (got 600)");
    assert_int_equal(respite_classify(0, 600, 0, NULL), -1); /* NULL err is allowed */
}

static void test_O9_which_outcomes_count(void **state)
{
    (void)state;
    static const int counts[RESPITE_OUTCOME_COUNT] = {0, 0, 1, 1, 1, 1};
    for (int i = 0; i < RESPITE_OUTCOME_COUNT; i++) {
        assert_int_equal(respite_outcome_counts(i, 0), counts[i]);
        assert_int_equal(respite_outcome_counts(i, 1), i == RESPITE_OUTCOME_SUCCESS ? 0 : 1);
    }
    assert_int_equal(respite_outcome_counts(RESPITE_OUTCOME_REQUEST_ERROR, 7), 1); /* any non-zero flag */
    assert_int_equal(respite_outcome_counts(-1, 0), -1);
    assert_int_equal(respite_outcome_counts(6, 1), -1);
}

static void test_O9_classified_boundaries_and_counting(void **state)
{
    (void)state;
    /* status -> counts without / with count_all_failures (body usable) */
    static const struct {
        int status, counts, counts_all;
    } cases[] = {
        {100, 1, 1}, {199, 1, 1}, {200, 0, 0}, {399, 0, 0}, {400, 0, 1}, {428, 0, 1},
        {429, 1, 1}, {430, 0, 1}, {499, 0, 1}, {500, 1, 1}, {599, 1, 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int outcome = classify(0, cases[i].status, 1);
        assert_int_equal(respite_outcome_counts(outcome, 0), cases[i].counts);
        assert_int_equal(respite_outcome_counts(outcome, 1), cases[i].counts_all);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_O1_names_round_trip),
        cmocka_unit_test(test_O1_unknown_name_lists_the_accepted_names),
        cmocka_unit_test(test_O1_a_number_that_is_not_an_outcome),
        cmocka_unit_test(test_O2_transport_failure_whatever_the_status),
        cmocka_unit_test(test_O3_informational_is_unusable),
        cmocka_unit_test(test_O4_2xx_3xx_success_or_unusable),
        cmocka_unit_test(test_O5_429_is_throttled),
        cmocka_unit_test(test_O6_other_4xx_is_request_error),
        cmocka_unit_test(test_O7_5xx_is_server_error),
        cmocka_unit_test(test_O8_status_outside_100_599_is_rejected),
        cmocka_unit_test(test_O9_which_outcomes_count),
        cmocka_unit_test(test_O9_classified_boundaries_and_counting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
