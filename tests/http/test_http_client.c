/* The request client (spec section 6, C1-C9) against the fault server. */
#include "http_test_util.h"

#include <pthread.h>

typedef struct client_rig {
    respite_fault_server *server;
    respite_gate *gate;
    respite_backoff *backoff;
    respite_client *client;
} client_rig;

/* gate_pairs: "gate" settings (NULL: cloud_request defaults); client_pairs:
 * "client" settings; backoff_pairs NULL: no back-off. */
static void rig_init(client_rig *r, const char *script, const char *gate_pairs, const char *client_pairs,
                     const char *backoff_pairs)
{
    respite_error err;
    respite_error_clear(&err);
    memset(r, 0, sizeof *r);
    r->server = server_start(script);
    respite_settings *gs = settings_of("gate", gate_pairs);
    r->gate = respite_gate_new(gs, &err);
    respite_settings_free(gs);
    assert_non_null(r->gate);
    if (backoff_pairs) {
        respite_settings *bs = settings_of("backoff", backoff_pairs);
        r->backoff = respite_backoff_new(bs, &err);
        respite_settings_free(bs);
        assert_non_null(r->backoff);
    }
    respite_settings *cs = settings_of("client", client_pairs);
    r->client = respite_client_new(cs, r->gate, r->backoff, &err);
    respite_settings_free(cs);
    if (!r->client)
        fail_msg("client: %s", err.message);
}

static void rig_free(client_rig *r)
{
    respite_client_free(r->client);
    respite_backoff_free(r->backoff);
    respite_gate_free(r->gate);
    respite_fault_server_stop(r->server);
}

static respite_response *get(client_rig *r, respite_error *err)
{
    respite_error_clear(err);
    return respite_client_request(r->client, "GET", respite_fault_server_url(r->server), NULL, NULL, 0, err);
}

/* --------------------------------------------------------------- tests */

typedef struct timeout_call {
    client_rig *rig;
    int outcome;
    double elapsed;
} timeout_call;

static void *call_once(void *arg)
{
    timeout_call *c = arg;
    respite_error err;
    respite_response *resp = get(c->rig, &err);
    c->outcome = resp ? respite_response_outcome(resp) : -1;
    c->elapsed = resp ? respite_response_elapsed_seconds(resp) : -1;
    respite_response_free(resp);
    return NULL;
}

/* C3, G3, seed recovery-period-dotnet: ten timeouts (from ten threads
 * sharing one client) open a recovery period; during it no request reaches
 * the server and every call is refused with the G17 message. */
static void test_ten_timeouts_open_a_recovery_period(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "hang", NULL, "timeout_seconds=0.2", NULL);
    pthread_t threads[10];
    timeout_call calls[10];
    for (int i = 0; i < 10; i++) {
        calls[i] = (timeout_call){&r, -1, -1};
        pthread_create(&threads[i], NULL, call_once, &calls[i]);
    }
    for (int i = 0; i < 10; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < 10; i++) {
        assert_int_equal(calls[i].outcome, RESPITE_OUTCOME_TRANSPORT);
        assert_true(calls[i].elapsed >= 0.19);
    }
    assert_int_equal(respite_gate_get_state(r.gate, respite_now(), NULL), RESPITE_GATE_OPEN);
    int64_t seen = respite_fault_server_requests(r.server);
    assert_true(seen >= 10); /* libcurl does not retry a timeout; reconnects are extra */
    for (int i = 0; i < 50; i++) {
        respite_error err;
        assert_null(get(&r, &err));
        assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
        assert_true(err.retry_after > 50.0 && err.retry_after <= 60.0); /* R 60 from the tenth timeout */
        assert_non_null(strstr(err.message, "sending requests to the service is temporarily restricted due to "
                                            "recent failures; recovery resumes in "));
    }
    sleep_for(0.05);
    assert_int_equal(respite_fault_server_requests(r.server), seen);
    rig_free(&r);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* C1, C3 (seed: 2.5 s before, under 200 ms after): a call to a hanging
 * service waits out the default 2 s timeout; once the gate is open a call
 * returns in well under a millisecond. */
static void test_timeout_waits_two_seconds_refusal_is_instant(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "hang", "failures_to_enter_recovery=1", NULL, NULL);
    respite_error err;
    respite_response *resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_TRANSPORT);
    assert_int_equal(respite_response_status(resp), 0);
    assert_true(strlen(respite_response_error(resp)) > 0);
    /* libcurl's millisecond arithmetic can end the timeout up to 1 ms early. */
    assert_true(respite_response_elapsed_seconds(resp) >= 1.99);
    assert_true(respite_response_elapsed_seconds(resp) < 3.0);
    respite_response_free(resp);

    double took[101];
    for (int i = 0; i < 101; i++) {
        double t0 = respite_now();
        respite_response *refused = get(&r, &err);
        took[i] = respite_now() - t0;
        assert_null(refused);
        assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    }
    qsort(took, 101, sizeof took[0], compare_doubles);
    print_message("refused call: median %.1f us, 90th %.1f us\n", took[50] * 1e6, took[90] * 1e6);
    assert_true(took[50] < 0.001);
    assert_true(took[90] < 0.001);
    assert_int_equal(respite_fault_server_requests(r.server), 1);
    rig_free(&r);
}

/* Section 1 (seed which-failures-count-rust): a visitor's 404s never open
 * the gate; ten 503s do. */
static void test_404s_never_open_the_gate_503s_do(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "404 body=\"not found\"", NULL, NULL, NULL);
    respite_error err;
    for (int i = 0; i < 30; i++) {
        respite_response *resp = get(&r, &err);
        assert_non_null(resp);
        assert_int_equal(respite_response_status(resp), 404);
        assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_REQUEST_ERROR);
        assert_string_equal(respite_response_body(resp), "not found");
        respite_response_free(resp);
    }
    assert_int_equal(respite_gate_get_state(r.gate, respite_now(), NULL), RESPITE_GATE_CLOSED);
    server_script(r.server, "503");
    for (int i = 0; i < 10; i++) {
        respite_response *resp = get(&r, &err);
        assert_non_null(resp);
        assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_SERVER_ERROR);
        respite_response_free(resp);
    }
    assert_null(get(&r, &err));
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(respite_fault_server_requests(r.server), 40);
    rig_free(&r);
}

/* C5, B12, B13: retries follow the back-off, each through the gate. */
static void test_retries_follow_the_backoff(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "2*503; 200 body=ok", NULL, NULL, "max_attempts=3,initial_delay_seconds=0.01");
    respite_error err;
    respite_response *resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 200);
    assert_int_equal(respite_response_attempts(resp), 3);
    assert_string_equal(respite_response_body(resp), "ok");
    respite_response_free(resp);
    assert_int_equal(respite_fault_server_requests(r.server), 3);

    /* Out of attempts: the last answer is returned. */
    server_script(r.server, "500");
    resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 500);
    assert_int_equal(respite_response_attempts(resp), 3);
    respite_response_free(resp);
    /* Not in retry_on: one attempt. */
    server_script(r.server, "404");
    resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_attempts(resp), 1);
    respite_response_free(resp);
    assert_int_equal(respite_fault_server_requests(r.server), 7);
    rig_free(&r);

    /* The gate opens during the retries: the next attempt is not made. */
    rig_init(&r, "503", "failures_to_enter_recovery=2", NULL, "max_attempts=5,initial_delay_seconds=0.01");
    assert_null(get(&r, &err));
    assert_int_equal(err.status, RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_int_equal(respite_fault_server_requests(r.server), 2);
    rig_free(&r);

    /* B16, B17: waits of 1 s not waited under the testing switch; the third
     * would start past max_elapsed_seconds 2.5: three attempts, the last
     * answer returned. */
    rig_init(&r, "503", "failures_to_enter_recovery=10", NULL,
             "max_attempts=10,initial_delay_seconds=1,multiplier=1,max_elapsed_seconds=2.5");
    respite_testing_set_immediate_retries(1);
    double started = respite_now();
    resp = get(&r, &err);
    respite_testing_set_immediate_retries(0);
    assert_true(respite_now() - started < 1.0);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 503);
    assert_int_equal(respite_response_attempts(resp), 3);
    respite_response_free(resp);
    rig_free(&r);
}

/* C6, G15: Retry-After of a 429/503, seconds or HTTP-date, is the hint. */
static void test_retry_after_is_read_and_honoured(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "503 retry_after=7", "failures_to_enter_recovery=1,recovery_seconds=1", NULL, NULL);
    respite_error err;
    respite_response *resp = get(&r, &err);
    assert_non_null(resp);
    assert_true(respite_response_retry_after(resp) == 7.0);
    assert_string_equal(respite_response_header(resp, "retry-after"), "7");
    respite_response_free(resp);
    double wait = respite_gate_retry_after(r.gate, respite_now(), NULL);
    assert_true(wait > 6.5 && wait <= 7.0); /* G15: max(R = 1, hint 7) */
    rig_free(&r);

    /* An HTTP-date 30 seconds ahead. */
    char script[128], date[64];
    time_t when = time(NULL) + 30;
    struct tm tm;
    gmtime_r(&when, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
    snprintf(script, sizeof script, "429 \"retry_after=%s\"; 500 retry_after=9", date);
    rig_init(&r, script, NULL, NULL, NULL);
    resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_THROTTLED);
    assert_true(respite_response_retry_after(resp) >= 28.0 && respite_response_retry_after(resp) <= 31.0);
    respite_response_free(resp);
    /* Only 429 and 503 carry the hint. */
    resp = get(&r, &err);
    assert_non_null(resp);
    assert_true(respite_response_retry_after(resp) == 0.0);
    respite_response_free(resp);
    rig_free(&r);
}

/* C2: method, headers and body go out; status, headers and body come back. */
static void test_request_and_answer_round_trip(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "201 body=hello header=X-Answer:42", NULL, "user_agent=respite-test", NULL);
    respite_error err;
    respite_error_clear(&err);
    respite_response *resp = respite_client_request(r.client, "PUT", respite_fault_server_url(r.server),
                                                    "X-One: 1\r\nX-Two: two words\n", "abc", 3, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 201);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_SUCCESS);
    assert_string_equal(respite_response_body(resp), "hello");
    assert_int_equal(respite_response_body_size(resp), 5);
    assert_string_equal(respite_response_header(resp, "x-answer"), "42");
    assert_null(respite_response_header(resp, "X-Missing"));
    assert_string_equal(respite_response_error(resp), "");
    assert_int_equal(respite_response_attempts(resp), 1);
    respite_response_free(resp);

    respite_fault_record rec;
    assert_int_equal(respite_fault_server_record(r.server, 0, &rec), 0);
    assert_string_equal(rec.method, "PUT");
    assert_string_equal(rec.body, "abc");
    expect_header(&rec, "x-one", "1");
    expect_header(&rec, "X-Two", "two words");
    expect_header(&rec, "User-Agent", "respite-test");
    respite_fault_record_clear(&rec);

    /* Connections are reused: many calls, one client, still correct. */
    for (int i = 0; i < 20; i++) {
        resp = get(&r, &err);
        assert_non_null(resp);
        assert_int_equal(respite_response_status(resp), 201);
        respite_response_free(resp);
    }
    rig_free(&r);
}

/* C3: resets and closed connections are transport failures; a garbage
 * body on a 200 is the caller's to judge (C4). */
static void test_broken_answers(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "reset; close; garbage", "failures_to_enter_recovery=3", NULL, NULL);
    respite_error err;
    for (int i = 0; i < 2; i++) {
        respite_response *resp = get(&r, &err);
        assert_non_null(resp);
        assert_int_equal(respite_response_status(resp), 0);
        assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_TRANSPORT);
        assert_true(strlen(respite_response_error(resp)) > 0);
        respite_response_free(resp);
    }
    respite_response *resp = get(&r, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 200);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_SUCCESS);
    assert_int_equal(respite_response_body_size(resp), 64);
    /* C4: the caller finds it unusable: the third counted failure opens the gate. */
    respite_error_clear(&err);
    assert_int_equal(respite_client_report_unusable(r.client, resp, &err), RESPITE_OK);
    assert_int_equal(respite_response_outcome(resp), RESPITE_OUTCOME_UNUSABLE);
    assert_int_equal(respite_client_report_unusable(r.client, resp, &err), RESPITE_OK); /* once only */
    respite_response_free(resp);
    assert_int_equal(respite_gate_get_state(r.gate, respite_now(), NULL), RESPITE_GATE_OPEN);
    rig_free(&r);

    rig_init(&r, "404", NULL, NULL, NULL);
    resp = get(&r, &err);
    respite_error_clear(&err);
    assert_int_equal(respite_client_report_unusable(r.client, resp, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "only a success can be reported unusable (the response's outcome is "
                                     "request_error)");
    respite_response_free(resp);
    rig_free(&r);
}

/* C8: bad input is rejected with a message, never a crash, and no I/O. */
static void test_bad_input(void **state)
{
    (void)state;
    client_rig r;
    rig_init(&r, "200", NULL, NULL, NULL);
    respite_error err;
    const char *url = respite_fault_server_url(r.server);

    respite_error_clear(&err);
    assert_null(respite_client_request(NULL, "GET", url, NULL, NULL, 0, &err));
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_string_equal(err.message, "client is closed");

    respite_error_clear(&err);
    assert_null(respite_client_request(r.client, "GET", "ftp://example.com/", NULL, NULL, 0, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "url must be an http:// or https:// URL (got 'ftp://example.com/')");

    /* C2: a url curl would refuse is refused before the gate is asked. */
    respite_error_clear(&err);
    assert_null(respite_client_request(r.client, "GET", "http://example.com/a b\r\nX: y", NULL, NULL, 0, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "url must be an http:// or https:// URL (got 'http://example.com/a b??X: y')");

    respite_error_clear(&err);
    assert_null(respite_client_request(r.client, "GE T", url, NULL, NULL, 0, &err));
    assert_string_equal(err.message, "method must be an HTTP method such as GET or POST (got 'GE T')");

    respite_error_clear(&err);
    assert_null(respite_client_request(r.client, "GET", url, "X-Good: 1\nno colon here", NULL, 0, &err));
    assert_string_equal(err.message,
                        "headers must be \"Name: value\" lines separated by \\n (line 2 is \"no colon here\")");

    respite_error_clear(&err);
    assert_null(respite_client_request(r.client, "POST", url, NULL, NULL, 3, &err));
    assert_string_equal(err.message, "data must not be NULL when size is 3");
    assert_int_equal(respite_fault_server_requests(r.server), 0);

    respite_settings *wrong = respite_settings_new("sender", &err);
    respite_error_clear(&err);
    assert_null(respite_client_new(wrong, NULL, NULL, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "settings must be client settings (got sender settings)");
    respite_settings_free(wrong);

    /* No gate, no back-off: a plain call. */
    respite_client *plain = respite_client_new(NULL, NULL, NULL, &err);
    assert_non_null(plain);
    respite_error_clear(&err);
    respite_response *resp = respite_client_request(plain, "POST", url, NULL, "x", 1, &err);
    assert_non_null(resp);
    assert_int_equal(respite_response_status(resp), 200);
    respite_response_free(resp);
    respite_client_free(plain);
    respite_client_free(NULL);
    respite_response_free(NULL);
    rig_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_timeouts_open_a_recovery_period),
        cmocka_unit_test(test_timeout_waits_two_seconds_refusal_is_instant),
        cmocka_unit_test(test_404s_never_open_the_gate_503s_do),
        cmocka_unit_test(test_retries_follow_the_backoff),
        cmocka_unit_test(test_retry_after_is_read_and_honoured),
        cmocka_unit_test(test_request_and_answer_round_trip),
        cmocka_unit_test(test_broken_answers),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
