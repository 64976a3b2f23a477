/* C9, C3: the request client reads at most max_body_bytes of an answer and
 * returns by timeout_seconds in wall time, against endless and slow bodies. */
#include "http_test_util.h"

typedef struct limits_rig {
    respite_fault_server *server;
    respite_client *client;
} limits_rig;

static void rig_init(limits_rig *r, const char *script, const char *client_pairs)
{
    respite_error err;
    respite_error_clear(&err);
    r->server = server_start(script);
    respite_settings *cs = settings_of("client", client_pairs);
    r->client = respite_client_new(cs, NULL, NULL, &err);
    respite_settings_free(cs);
    if (!r->client)
        fail_msg("client: %s", err.message);
}

static void rig_free(limits_rig *r)
{
    respite_client_free(r->client);
    respite_fault_server_stop(r->server);
}

static respite_response *get(limits_rig *r)
{
    respite_error err;
    respite_error_clear(&err);
    respite_response *resp =
        respite_client_request(r->client, "GET", respite_fault_server_url(r->server), NULL, NULL, 0, &err);
    if (!resp)
        fail_msg("request: %s", err.message);
    return resp;
}

static void expect_too_long(respite_response *resp, const char *error)
{
    assert_int_equal(respite_response_status(resp), 0);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_TRANSPORT);
    assert_string_equal(respite_response_error(resp), error);
}

static void test_a_body_up_to_the_limit_is_read_one_byte_more_fails(void **state)
{
    (void)state;
    limits_rig r;
    rig_init(&r, "200 length=1000 body=abc; 200 length=1001; 204; 200 body=x", "max_body_bytes=1000");
    respite_response *resp = get(&r);
    assert_int_equal(respite_response_status(resp), 200);
    assert_int_equal(respite_response_body_size(resp), 1000);
    assert_memory_equal(respite_response_body(resp), "abcabc", 6);
    respite_response_free(resp);
    resp = get(&r);
    expect_too_long(resp, "the answer's body is longer than max_body_bytes (1000 bytes)");
    respite_response_free(resp);
    rig_free(&r);

    /* 0: only an empty body is accepted. */
    rig_init(&r, "204; 200 body=x", "max_body_bytes=0");
    resp = get(&r);
    assert_int_equal(respite_response_status(resp), 204);
    respite_response_free(resp);
    resp = get(&r);
    expect_too_long(resp, "the answer's body is longer than max_body_bytes (0 bytes)");
    respite_response_free(resp);
    rig_free(&r);
}

/* The default, 10 MiB, stops an endless body long before the timeout. */
static void test_an_endless_body_stops_at_the_default_limit(void **state)
{
    (void)state;
    limits_rig r;
    rig_init(&r, "200 length=endless", "timeout_seconds=60");
    double start = respite_now();
    respite_response *resp = get(&r);
    double elapsed = respite_now() - start;
    expect_too_long(resp, "the answer's body is longer than max_body_bytes (10485760 bytes)");
    assert_true(elapsed < 20.0); /* far below the 60 s timeout, even under sanitizers */
    respite_response_free(resp);
    rig_free(&r);
}

/* C3: a body that never ends, slowly: the call ends at timeout_seconds. */
static void test_a_slow_endless_body_ends_at_the_timeout(void **state)
{
    (void)state;
    limits_rig r;
    rig_init(&r, "200 length=endless drip=0.02", "timeout_seconds=0.5");
    double start = respite_now();
    respite_response *resp = get(&r);
    double elapsed = respite_now() - start;
    assert_int_equal(respite_response_status(resp), 0);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_TRANSPORT);
    assert_non_null(strstr(respite_response_error(resp), "timed out"));
    assert_true(elapsed >= 0.45 && elapsed < 1.5);
    respite_response_free(resp);
    rig_free(&r);
}

static void test_the_setting_is_checked(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new("client", &err);
    assert_non_null(s);
    assert_true(respite_settings_get_number(s, "max_body_bytes", NULL) == 10485760.0);
    assert_int_equal(respite_settings_set_text(s, "max_body_bytes", "-1", &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "max_body_bytes");
    assert_string_equal(err.message, "max_body_bytes must be an integer from 0 to 9007199254740991 (got -1)");
    respite_settings_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_body_up_to_the_limit_is_read_one_byte_more_fails),
        cmocka_unit_test(test_an_endless_body_stops_at_the_default_limit),
        cmocka_unit_test(test_a_slow_endless_body_ends_at_the_timeout),
        cmocka_unit_test(test_the_setting_is_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
