/* The status table (spec section 7, E1): codes, stable names, descriptions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "respite.h"

static void test_E1_every_code_has_its_stable_name_and_text(void **state)
{
    (void)state;
    static const struct {
        int code;
        const char *name;
        const char *text;
    } expected[] = {
        {RESPITE_OK, "ok", "success"},
        {RESPITE_E_INVALID_ARGUMENT, "invalid_argument", "an argument is invalid"},
        {RESPITE_E_INVALID_SETTING, "invalid_setting", "a setting is unknown or not accepted"},
        {RESPITE_E_INVALID_TIME, "invalid_time", "a time is negative, NaN or infinite"},
        {RESPITE_E_TEMPORARILY_UNAVAILABLE, "temporarily_unavailable",
         "calls to the service are temporarily restricted due to recent failures"},
        {RESPITE_E_INVALID_POLICY, "invalid_policy", "the delivery policy is not valid"},
        {RESPITE_E_QUEUE_FULL, "queue_full", "the queue is full"},
        {RESPITE_E_TOO_LARGE, "too_large", "the payload is larger than the queue accepts"},
        {RESPITE_E_CLOSED, "closed", "the handle is closed"},
        {RESPITE_E_NO_MEMORY, "no_memory", "out of memory"},
        {RESPITE_E_TRANSPORT, "transport", "the HTTP call did not complete"},
        {RESPITE_E_INTERNAL, "internal", "internal error"},
        {RESPITE_E_STORAGE, "storage", "the queue's file could not be opened, read or written"},
        {RESPITE_E_CANCELLED, "cancelled", "the call was cancelled by its caller"},
    };
    size_t n = sizeof expected / sizeof expected[0];
    assert_int_equal(respite_status_count(), (int)n);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(expected[i].code, (int)i); /* codes are dense and stable */
        assert_string_equal(respite_status_name(expected[i].code), expected[i].name);
        assert_string_equal(respite_strerror(expected[i].code), expected[i].text);
    }
}

static void test_E1_codes_outside_the_table(void **state)
{
    (void)state;
    assert_string_equal(respite_status_name(-1), "unknown");
    assert_string_equal(respite_status_name(respite_status_count()), "unknown");
    assert_string_equal(respite_status_name(1000000), "unknown");
    assert_string_equal(respite_strerror(-1), "unknown status");
    assert_string_equal(respite_strerror(respite_status_count()), "unknown status");
}

static void test_E1_names_are_unique_lower_case_words(void **state)
{
    (void)state;
    for (int i = 0; i < respite_status_count(); i++) {
        const char *name = respite_status_name(i);
        for (const char *p = name; *p; p++)
            assert_true((*p >= 'a' && *p <= 'z') || *p == '_');
        for (int j = 0; j < i; j++)
            assert_string_not_equal(name, respite_status_name(j));
    }
}

static void test_E2_error_clear_empties_everything(void **state)
{
    (void)state;
    respite_error err;
    memset(&err, 'x', sizeof err);
    err.retry_after = 5.0;
    respite_error_clear(&err);
    assert_int_equal(err.status, RESPITE_OK);
    assert_string_equal(err.setting, "");
    assert_string_equal(err.message, "");
    assert_true(err.retry_after == 0.0);
    respite_error_clear(NULL); /* a no-op, not a crash */
}

static void test_E2_success_leaves_err_untouched(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    strcpy(err.message, "earlier message");
    respite_settings *s = respite_settings_new("backoff", &err);
    assert_non_null(s);
    assert_int_equal(respite_settings_set_number(s, "max_attempts", 5, &err), RESPITE_OK);
    assert_string_equal(err.message, "earlier message");
    assert_int_equal(err.status, RESPITE_OK);
    respite_settings_free(s);
}

/* E9: the closed error a binding asks for by kind has the words the core
 * gives for a NULL handle of that kind. */
static void test_E9_closed_by_kind_has_the_core_words(void **state)
{
    (void)state;
    respite_error by_kind = {0}, by_null = {0};
    assert_int_equal(respite_closed(RESPITE_HANDLE_GATE, &by_kind), RESPITE_E_CLOSED);
    assert_int_equal(respite_gate_reset(NULL, 0.0, &by_null), RESPITE_E_CLOSED);
    assert_string_equal(by_kind.message, by_null.message);
    assert_int_equal(respite_closed(RESPITE_HANDLE_QUEUE, &by_kind), RESPITE_E_CLOSED);
    assert_int_equal(respite_queue_close(NULL, &by_null), RESPITE_E_CLOSED);
    assert_string_equal(by_kind.message, by_null.message);
    assert_int_equal(respite_closed(RESPITE_HANDLE_ENGINE, &by_kind), RESPITE_E_CLOSED);
    assert_int_equal(respite_engine_close(NULL, 0.0, &by_null), RESPITE_E_CLOSED);
    assert_string_equal(by_kind.message, by_null.message);
    assert_int_equal(respite_closed(RESPITE_HANDLE_RESPONSE, &by_kind), RESPITE_E_CLOSED);
    assert_string_equal(by_kind.message, "response is closed");
    assert_int_equal(respite_closed(RESPITE_HANDLE_CANCEL_TOKEN, &by_kind), RESPITE_E_CLOSED);
    assert_string_equal(by_kind.message, "cancel token is closed");
    assert_int_equal(respite_closed(RESPITE_HANDLE_POLICY_BUILDER, NULL), RESPITE_E_CLOSED);
}

/* E9: every kind in the one table says "<noun> is closed" with the closed
 * code; a kind added to RESPITE_HANDLE_MAP is checked here with no edit. */
static void test_E9_closed_names_every_kind_of_the_table(void **state)
{
    (void)state;
    static const struct {
        respite_handle_kind kind;
        const char *message;
    } kinds[] = {
#define KIND_EXPECTED_(suffix, noun) {RESPITE_HANDLE_##suffix, noun " is closed"},
        RESPITE_HANDLE_MAP(KIND_EXPECTED_)
#undef KIND_EXPECTED_
    };
    assert_int_equal(sizeof kinds / sizeof kinds[0], RESPITE_HANDLE_COUNT_);
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        respite_error err = {0};
        assert_int_equal((int)kinds[i].kind, (int)i);
        assert_int_equal(respite_closed(kinds[i].kind, &err), RESPITE_E_CLOSED);
        assert_int_equal(err.status, RESPITE_E_CLOSED);
        assert_string_equal(err.message, kinds[i].message);
        assert_string_equal(err.setting, "");
    }
}

/* E9: a NULL handle of every kind the core library takes says what
 * respite_closed says for that kind (the HTTP and fleet kinds: tests/http,
 * tests/fleet). `failed` is whether the call answered its failure value. */
static void expect_closed_words(respite_handle_kind kind, int failed, respite_error *by_null)
{
    respite_error by_kind = {0};
    assert_int_equal(respite_closed(kind, &by_kind), RESPITE_E_CLOSED);
    assert_true(failed);
    assert_int_equal(by_null->status, RESPITE_E_CLOSED);
    assert_string_equal(by_null->message, by_kind.message);
    respite_error_clear(by_null);
}

static void test_E9_null_handles_say_the_table_words(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metric_sample sample;
    respite_fast_path fast;
    expect_closed_words(RESPITE_HANDLE_SETTINGS, respite_settings_validate(NULL, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_GATE, respite_gate_fast_path(NULL, &fast, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_BACKOFF, respite_backoff_start(NULL, &err) < 0, &err);
    expect_closed_words(RESPITE_HANDLE_BACKOFF,
                        respite_retry_gave_up(NULL, 1, RESPITE_OUTCOME_SERVER_ERROR, 503, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_PROBLEMS, respite_problems_clear(NULL, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_POLICY, respite_policy_strategy_for(NULL, 0, 503, &err) < 0, &err);
    expect_closed_words(RESPITE_HANDLE_POLICY, respite_policy_to_json(NULL, &err) == NULL, &err);
    expect_closed_words(RESPITE_HANDLE_POLICY_BUILDER,
                        respite_policy_builder_set_retry_times(NULL, 1, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_BATCH,
                        respite_batch_settle(NULL, 0, RESPITE_DISPOSITION_DELIVERED, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_BATCH, respite_batch_event_text(NULL, 0, &err) == NULL, &err);
    expect_closed_words(RESPITE_HANDLE_METRICS, respite_metrics_sample(NULL, 0, &sample, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_METRICS, respite_metrics_render(NULL, &err) == NULL, &err);
    expect_closed_words(RESPITE_HANDLE_METRICS, respite_metrics_add_gate(NULL, NULL, &err) != RESPITE_OK, &err);
    expect_closed_words(RESPITE_HANDLE_QUEUE, respite_engine_new(NULL, NULL, NULL, &err) == NULL, &err);
    expect_closed_words(RESPITE_HANDLE_ENGINE, respite_engine_close(NULL, 0.0, &err) != RESPITE_OK, &err);
}

static void test_E9_closed_refuses_an_unknown_kind(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_int_equal(respite_closed((respite_handle_kind)RESPITE_HANDLE_COUNT_, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kind must be a handle kind 0 to 14 (got 15)");
    assert_int_equal(respite_closed((respite_handle_kind)-1, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "kind must be a handle kind 0 to 14 (got -1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_E1_every_code_has_its_stable_name_and_text),
        cmocka_unit_test(test_E1_codes_outside_the_table),
        cmocka_unit_test(test_E1_names_are_unique_lower_case_words),
        cmocka_unit_test(test_E2_error_clear_empties_everything),
        cmocka_unit_test(test_E2_success_leaves_err_untouched),
        cmocka_unit_test(test_E9_closed_by_kind_has_the_core_words),
        cmocka_unit_test(test_E9_closed_refuses_an_unknown_kind),
        cmocka_unit_test(test_E9_closed_names_every_kind_of_the_table),
        cmocka_unit_test(test_E9_null_handles_say_the_table_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
