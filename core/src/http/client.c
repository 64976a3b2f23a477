/* The request client (spec section 6, C1-C11): one call through a gate,
 * optional retries and a cancel token, connections reused from this
 * process's pool of handles (client_pool.c). */
#include "http_internal.h"
#include "../utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct respite_client {
    respite_gate *gate;       /* held; NULL: no gate */
    respite_backoff *backoff; /* held; NULL: one attempt */
    double timeout;
    size_t max_body; /* C9 */
    char *user_agent;
    /* This process's connections (C7); replaced in a forked child (C11). */
    _Atomic(respite_client_pool *) pool;
};

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_CLIENT, err);
}

static int fail_memory(respite_error *err)
{
    return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a client");
}

respite_client *respite_client_new(const respite_settings *settings, respite_gate *gate, respite_backoff *backoff,
                                   respite_error *err)
{
    if (respite_http_global_init(err) != RESPITE_OK)
        return NULL;
    respite_settings *own = NULL;
    if (settings) {
        if (respite_settings_expect(settings, "client", "settings", err) != RESPITE_OK)
            return NULL;
        if (respite_settings_validate(settings, err) != RESPITE_OK)
            return NULL;
    } else if (!(settings = own = respite_settings_new("client", err))) {
        return NULL;
    }
    respite_client *c = calloc(1, sizeof *c);
    if (!c) {
        respite_settings_free(own);
        fail_memory(err);
        return NULL;
    }
    c->gate = respite_gate_retain(gate);
    c->backoff = respite_backoff_retain(backoff);
    c->timeout = respite_setting_number(settings, RESPITE_SETTING_CLIENT_TIMEOUT_SECONDS);
    c->max_body = (size_t)respite_setting_integer(settings, RESPITE_SETTING_CLIENT_MAX_BODY_BYTES);
    c->user_agent = strdup(respite_setting_text(settings, RESPITE_SETTING_CLIENT_USER_AGENT));
    respite_settings_free(own);
    atomic_init(&c->pool, respite_client_pool_new());
    if (!c->user_agent || !atomic_load(&c->pool)) {
        respite_client_free(c);
        fail_memory(err);
        return NULL;
    }
    return c;
}

void respite_client_free(respite_client *client)
{
    if (!client)
        return;
    respite_client_pool *pool = atomic_load(&client->pool);
    if (pool && respite_client_pool_here(pool))
        respite_client_pool_free(pool); /* C11: a parent's pool is left as it is */
    free(client->user_agent);
    respite_gate_free(client->gate);
    respite_backoff_free(client->backoff);
    free(client);
}

/* This process's pool (C11): in a child forked after the client was made,
 * the first call makes one (the threads of a child race for it once). */
static respite_client_pool *pool_here(respite_client *c)
{
    respite_client_pool *pool = atomic_load_explicit(&c->pool, memory_order_acquire);
    if (respite_client_pool_here(pool))
        return pool;
    respite_client_pool *mine = respite_client_pool_new();
    if (!mine)
        return NULL;
    if (atomic_compare_exchange_strong_explicit(&c->pool, &pool, mine, memory_order_acq_rel, memory_order_acquire))
        return mine;
    respite_client_pool_free(mine); /* another thread of this process made one first */
    return pool;
}

/* C2: the method is an HTTP token such as GET or POST. */
static int method_valid(const char *method)
{
    if (!method || !*method || strlen(method) > 32)
        return 0;
    for (const char *p = method; *p; p++)
        if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '-' || *p == '_'))
            return 0;
    return 1;
}

static int check_arguments(const char *method, const char *url, const char *data, size_t size, respite_error *err)
{
    char got[RESPITE_QUOTED_MAX];
    if (!method_valid(method))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "method must be an HTTP method such as GET or POST (got %s)",
                            respite_quoted(got, method ? method : "(null)"));
    if (!respite_url_valid(url))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "url must be an http:// or https:// URL (got %s)",
                            respite_quoted(got, url ? url : "(null)"));
    if (!data && size > 0)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "data must not be NULL when size is %zu", size);
    return RESPITE_OK;
}

/* One attempt: take a handle, perform, give it back, classify (C3, C4). */
static respite_response *attempt_once(respite_client *c, const char *method, const char *url,
                                      const struct curl_slist *headers, const char *data, size_t size,
                                      respite_cancel_token *cancel, respite_error *err)
{
    respite_response *r = respite_response_new(c->max_body);
    if (r)
        r->body_limit_fails = 1;
    respite_client_pool *pool = r ? pool_here(c) : NULL;
    respite_client_handle h = {NULL, NULL};
    if (!pool || !respite_client_pool_take(pool, &h)) {
        respite_response_free(r);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory making a request");
        return NULL;
    }
    respite_transfer t = {method, url, headers, data, size, c->timeout, c->user_agent, respite_client_pool_share(pool),
                          NULL, 0, cancel};
    int rc = respite_http_perform(h.easy, h.multi, &t, r);
    respite_client_pool_give(pool, h);
    if (rc != RESPITE_OK) {
        respite_response_free(r);
        respite_fail(err, rc, "out of memory reading the answer");
        return NULL;
    }
    r->outcome = respite_classify(r->status == 0, r->status, 1, NULL);
    return r;
}

/* C10: the caller's cancel, after `attempts` attempts. */
static int fail_cancelled(int attempts, respite_error *err)
{
    return respite_fail(err, RESPITE_E_CANCELLED, "the request was cancelled by its caller (after %d attempt%s)",
                        attempts, attempts == 1 ? "" : "s");
}

respite_response *respite_client_request(respite_client *client, const char *method, const char *url,
                                         const char *headers, const char *data, size_t size, respite_error *err)
{
    return respite_client_request_with(client, method, url, headers, data, size, NULL, err);
}

respite_response *respite_client_request_with(respite_client *client, const char *method, const char *url,
                                              const char *headers, const char *data, size_t size,
                                              respite_cancel_token *cancel, respite_error *err)
{
    if (!client)
        return fail_closed(err), NULL;
    if (check_arguments(method, url, data, size, err) != RESPITE_OK)
        return NULL;
    if (respite_cancel_token_cancelled(cancel))
        return fail_cancelled(0, err), NULL;
    double start = respite_now();
    struct curl_slist *list = NULL;
    respite_response *last = NULL;
    respite_retry_call call = {0};
    if (respite_http_parse_header_lines(headers, &list, err) != RESPITE_OK)
        goto fail;
    /* No 100-continue round trip before a body: it costs up to a second. */
    struct curl_slist *grown = curl_slist_append(list, "Expect:");
    if (!grown) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying headers");
        goto fail;
    }
    list = grown;
    if (client->backoff && respite_retry_begin(client->backoff, &call, err) != RESPITE_OK)
        goto fail;

    for (int attempt = 1;; attempt++) {
        /* C1: every attempt goes through the gate; a refusal does no I/O. */
        int64_t permit = RESPITE_NO_PERMIT;
        if (client->gate) {
            respite_decision decision;
            if (respite_gate_check(client->gate, respite_now(), &decision, err) != RESPITE_OK)
                goto fail;
            if (!decision.allowed) {
                respite_refusal_error(decision.retry_after, err);
                goto fail;
            }
            permit = decision.permit;
        }
        respite_response *r = attempt_once(client, method, url, list, data, size, cancel, err);
        if (r && respite_cancel_token_cancelled(cancel)) {
            /* G19: the caller's decision says nothing about the service. */
            respite_response_free(r);
            if (client->gate)
                respite_gate_release(client->gate, permit, respite_now(), NULL);
            fail_cancelled(attempt, err);
            goto fail;
        }
        if (!r) {
            if (client->gate) /* the permit must not stay out as a lost probe */
                respite_gate_report(client->gate, permit, RESPITE_OUTCOME_TRANSPORT, 0.0, respite_now(), NULL);
            goto fail;
        }
        r->attempts = attempt;
        respite_response_free(last);
        last = r;
        if (client->gate &&
            respite_gate_report(client->gate, permit, r->outcome, r->retry_after, respite_now(), err) != RESPITE_OK)
            goto fail;
        if (!client->backoff || r->outcome == RESPITE_OUTCOME_SUCCESS)
            break;
        /* B14, B16: a give-up ends the loop with the last response (C5) */
        respite_error decided = {0};
        if (respite_retry_decide(client->backoff, &call, attempt, r->outcome, r->status, r->retry_after,
                                 &decided) < 0) {
            if (decided.status == RESPITE_E_TRANSPORT)
                break;
            if (err)
                *err = decided;
            goto fail;
        }
        /* 0 under the testing switch (B17); a cancel cuts it short (C10) */
        if (respite_cancel_sleep(cancel, call.wait)) {
            fail_cancelled(attempt, err);
            goto fail;
        }
    }
    curl_slist_free_all(list);
    last->elapsed = respite_now() - start;
    return last;
fail:
    curl_slist_free_all(list);
    respite_response_free(last);
    return NULL;
}

int respite_client_report_unusable(respite_client *client, respite_response *response, respite_error *err)
{
    if (!client)
        return fail_closed(err);
    if (!response)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "response must not be NULL");
    if (response->reported_unusable)
        return RESPITE_OK;
    if (response->outcome != RESPITE_OUTCOME_SUCCESS)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "only a success can be reported unusable (the response's outcome is %s)",
                            respite_outcome_name(response->outcome));
    if (client->gate) {
        int rc = respite_gate_report(client->gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_UNUSABLE, 0.0, respite_now(),
                                     err);
        if (rc != RESPITE_OK)
            return rc;
    }
    response->outcome = RESPITE_OUTCOME_UNUSABLE;
    response->reported_unusable = 1;
    return RESPITE_OK;
}
