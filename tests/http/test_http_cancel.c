/* C10: a request cancelled from another thread, against the fault server;
 * G19: its permit is released, not counted. */
#include "http_test_util.h"

#include <pthread.h>

/* A request made on its own thread with a token, timed from the cancel. */
typedef struct cancelled_call {
    respite_client *client;
    const char *url;
    respite_cancel_token *token;
    respite_response *response;
    respite_error err;
    double returned_at;
} cancelled_call;

static void *call_with_token(void *arg)
{
    cancelled_call *c = arg;
    respite_error_clear(&c->err);
    c->response = respite_client_request_with(c->client, "GET", c->url, NULL, NULL, 0, c->token, &c->err);
    c->returned_at = respite_now();
    return NULL;
}

static respite_client *client_of(respite_gate *gate, respite_backoff *backoff, const char *pairs)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *cs = settings_of("client", pairs);
    respite_client *client = respite_client_new(cs, gate, backoff, &err);
    respite_settings_free(cs);
    if (!client)
        fail_msg("client: %s", err.message);
    return client;
}

static respite_cancel_token *token_new(void)
{
    respite_error err;
    respite_error_clear(&err);
    respite_cancel_token *token = respite_cancel_token_new(&err);
    assert_non_null(token);
    return token;
}

/* Starts `n` calls, waits until the server holds `requests` of them (or,
 * with requests 0, `settle` seconds), cancels, joins, and returns the
 * latest return's delay after the cancel. */
static double cancel_after(cancelled_call *calls, int n, respite_fault_server *server, int64_t requests,
                           double settle)
{
    pthread_t threads[8];
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, call_with_token, &calls[i]), 0);
    if (requests > 0)
        assert_true(WAIT_UNTIL(respite_fault_server_requests(server) >= requests, 5.0));
    sleep_for(settle);
    double cancelled_at = respite_now();
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_cancel_token_cancel(calls[0].token, &err), RESPITE_OK);
    double latest = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(threads[i], NULL);
        if (calls[i].returned_at - cancelled_at > latest)
            latest = calls[i].returned_at - cancelled_at;
    }
    return latest;
}

static respite_gate_stats gate_stats(respite_gate *gate)
{
    respite_gate_stats st;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_gate_stats_get(gate, &st, &err), RESPITE_OK);
    return st;
}

/* C10, G19: a hanging transfer ends within 100 ms of the cancel, with
 * `cancelled`; the gate counted nothing (two such calls share one token). */
static void test_C10_a_hanging_request_returns_within_100ms(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("hang for=5");
    respite_gate *gate = gate_with(1, 60);
    respite_client *client = client_of(gate, NULL, "timeout_seconds=10");
    respite_cancel_token *token = token_new();
    cancelled_call calls[2] = {{client, respite_fault_server_url(server), token, NULL, {0}, 0},
                               {client, respite_fault_server_url(server), token, NULL, {0}, 0}};
    double late = cancel_after(calls, 2, server, 2, 0.1);
    if (late >= 0.1)
        fail_msg("returned %.3fs after the cancel", late);
    for (int i = 0; i < 2; i++) {
        assert_null(calls[i].response);
        assert_int_equal(calls[i].err.status, RESPITE_E_CANCELLED);
        assert_string_equal(calls[i].err.message, "the request was cancelled by its caller (after 1 attempt)");
    }
    respite_gate_stats st = gate_stats(gate);
    assert_int_equal(st.admitted, 2);
    assert_int_equal(st.reported, 0);
    assert_int_equal(st.counted_failures, 0);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED); /* N = 1: one counted failure would have opened it */
    assert_int_equal(respite_cancel_token_cancelled(token), 1);
    respite_cancel_token_free(token);
    respite_client_free(client);
    respite_gate_free(gate);
    respite_fault_server_stop(server);
}

/* G19 through the client: a cancelled probe frees the probe slot, so the
 * next call probes (and closes the gate) instead of waiting out T. */
static void test_C10_a_cancelled_probe_lets_the_next_call_probe(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("503; hang for=5; healthy");
    respite_error err;
    respite_settings *gs = settings_of("gate", "failures_to_enter_recovery=1,recovery_seconds=0.1,probe_timeout_seconds=30");
    respite_error_clear(&err);
    respite_gate *gate = respite_gate_new(gs, &err);
    respite_settings_free(gs);
    assert_non_null(gate);
    respite_client *client = client_of(gate, NULL, "timeout_seconds=10");
    respite_response *first = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0,
                                                     &err);
    assert_int_equal(respite_response_status(first), 503);
    respite_response_free(first);
    sleep_for(0.15); /* the pause ended: the next call is the probe */

    respite_cancel_token *token = token_new();
    cancelled_call probe = {client, respite_fault_server_url(server), token, NULL, {0}, 0};
    cancel_after(&probe, 1, server, 2, 0.05);
    assert_int_equal(probe.err.status, RESPITE_E_CANCELLED);
    assert_int_equal(gate_stats(gate).probes_outstanding, 0);

    respite_error_clear(&err);
    respite_response *next = respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0,
                                                    &err);
    if (!next)
        fail_msg("the next call was refused: %s", err.message);
    assert_int_equal(respite_response_status(next), 200);
    respite_response_free(next);
    respite_gate_stats st = gate_stats(gate);
    assert_int_equal(st.state, RESPITE_GATE_CLOSED);
    assert_int_equal(st.probes, 2);
    assert_int_equal(st.probe_timeouts, 0);
    assert_int_equal(st.counted_failures, 1);
    respite_cancel_token_free(token);
    respite_client_free(client);
    respite_gate_free(gate);
    respite_fault_server_stop(server);
}

/* C10: a sleep between attempts is cut short too. */
static void test_C10_a_retry_sleep_is_cut_short(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("down");
    respite_error err;
    respite_error_clear(&err);
    respite_settings *bs = settings_of("backoff", "initial_delay_seconds=5,max_attempts=3,jitter=none");
    respite_backoff *backoff = respite_backoff_new(bs, &err);
    respite_settings_free(bs);
    if (!backoff)
        fail_msg("backoff: %s", err.message);
    respite_client *client = client_of(NULL, backoff, "timeout_seconds=2");
    respite_cancel_token *token = token_new();
    cancelled_call call = {client, respite_fault_server_url(server), token, NULL, {0}, 0};
    double late = cancel_after(&call, 1, server, 1, 0.2);
    if (late >= 0.1)
        fail_msg("returned %.3fs after the cancel", late);
    assert_int_equal(call.err.status, RESPITE_E_CANCELLED);
    assert_string_equal(call.err.message, "the request was cancelled by its caller (after 1 attempt)");
    assert_int_equal(respite_fault_server_requests(server), 1);
    respite_cancel_token_free(token);
    respite_client_free(client);
    respite_backoff_free(backoff);
    respite_fault_server_stop(server);
}

/* C10: a token cancelled before the call: no gate check, no request. */
static void test_C10_an_already_cancelled_token_sends_nothing(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_gate *gate = gate_with(1, 60);
    respite_client *client = client_of(gate, NULL, NULL);
    respite_cancel_token *token = token_new();
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_cancel_token_cancel(token, &err), RESPITE_OK);
    assert_int_equal(respite_cancel_token_cancel(token, &err), RESPITE_OK); /* a no-op */
    respite_response *r = respite_client_request_with(client, "GET", respite_fault_server_url(server), NULL, NULL, 0,
                                                      token, &err);
    assert_null(r);
    assert_int_equal(err.status, RESPITE_E_CANCELLED);
    assert_string_equal(err.message, "the request was cancelled by its caller (after 0 attempts)");
    assert_int_equal(respite_fault_server_requests(server), 0);
    assert_int_equal(gate_stats(gate).admitted, 0);
    /* Arguments are still checked first (C2). */
    respite_error_clear(&err);
    assert_null(respite_client_request_with(client, "GE T", respite_fault_server_url(server), NULL, NULL, 0, token,
                                            &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_cancel_token_free(token);
    respite_client_free(client);
    respite_gate_free(gate);
    respite_fault_server_stop(server);
}

/* C10: without a cancel the token changes nothing; a NULL token is none;
 * retain/free count references; cancel(NULL) is `closed`. */
static void test_C10_an_uncancelled_token_and_references(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_client *client = client_of(NULL, NULL, NULL);
    respite_cancel_token *token = token_new();
    assert_ptr_equal(respite_cancel_token_retain(token), token);
    respite_cancel_token_free(token); /* one reference left */
    respite_error err;
    respite_error_clear(&err);
    for (int i = 0; i < 2; i++) {
        respite_response *r = respite_client_request_with(client, "GET", respite_fault_server_url(server), NULL, NULL,
                                                          0, i ? NULL : token, &err);
        assert_non_null(r);
        assert_int_equal(respite_response_status(r), 200);
        respite_response_free(r);
    }
    assert_int_equal(respite_cancel_token_cancelled(token), 0);
    assert_int_equal(respite_cancel_token_cancelled(NULL), 0);
    assert_int_equal(respite_cancel_token_cancel(NULL, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "cancel token is closed");
    respite_cancel_token_free(token);
    respite_cancel_token_free(NULL);
    respite_client_free(client);
    respite_fault_server_stop(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_C10_a_hanging_request_returns_within_100ms),
        cmocka_unit_test(test_C10_a_cancelled_probe_lets_the_next_call_probe),
        cmocka_unit_test(test_C10_a_retry_sleep_is_cut_short),
        cmocka_unit_test(test_C10_an_already_cancelled_token_sends_nothing),
        cmocka_unit_test(test_C10_an_uncancelled_token_and_references),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
