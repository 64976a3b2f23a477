/* The request client (spec section 6, C1-C9): one call through a gate,
 * optional retries, connections reused from a pool of easy handles. */
#include "http_internal.h"
#include "../utf8.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct respite_client {
    respite_gate *gate;       /* held; NULL: no gate */
    respite_backoff *backoff; /* held; NULL: one attempt */
    double timeout;
    size_t max_body; /* C9 */
    char *user_agent;

    /* DNS and TLS sessions are shared by every handle of the client. */
    CURLSH *share;
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];

    /* Idle easy handles: each keeps its connections open, so a thread
     * that takes one back reuses them (C7). */
    pthread_mutex_t pool_lock;
    CURL **idle;
    size_t idle_count;
    size_t idle_cap;
};

static int fail_closed(respite_error *err)
{
    return respite_fail(err, RESPITE_E_CLOSED, "client is closed");
}

static void share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *user)
{
    (void)easy;
    (void)access;
    respite_client *c = user;
    pthread_mutex_lock(&c->share_locks[data]);
}

static void share_unlock(CURL *easy, curl_lock_data data, void *user)
{
    (void)easy;
    respite_client *c = user;
    pthread_mutex_unlock(&c->share_locks[data]);
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
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a client");
        return NULL;
    }
    c->gate = respite_gate_retain(gate);
    c->backoff = respite_backoff_retain(backoff);
    c->timeout = respite_setting_number(settings, RESPITE_SETTING_CLIENT_TIMEOUT_SECONDS);
    c->max_body = (size_t)respite_setting_integer(settings, RESPITE_SETTING_CLIENT_MAX_BODY_BYTES);
    c->user_agent = strdup(respite_setting_text(settings, RESPITE_SETTING_CLIENT_USER_AGENT));
    respite_settings_free(own);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&c->share_locks[i], NULL);
    pthread_mutex_init(&c->pool_lock, NULL);
    c->share = curl_share_init();
    if (!c->user_agent || !c->share) {
        respite_client_free(c);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a client");
        return NULL;
    }
    curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    return c;
}

void respite_client_free(respite_client *client)
{
    if (!client)
        return;
    for (size_t i = 0; i < client->idle_count; i++)
        curl_easy_cleanup(client->idle[i]);
    free(client->idle);
    if (client->share)
        curl_share_cleanup(client->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&client->share_locks[i]);
    pthread_mutex_destroy(&client->pool_lock);
    free(client->user_agent);
    respite_gate_free(client->gate);
    respite_backoff_free(client->backoff);
    free(client);
}

static CURL *pool_take(respite_client *c)
{
    CURL *easy = NULL;
    pthread_mutex_lock(&c->pool_lock);
    if (c->idle_count > 0)
        easy = c->idle[--c->idle_count];
    pthread_mutex_unlock(&c->pool_lock);
    return easy ? easy : curl_easy_init();
}

static void pool_give(respite_client *c, CURL *easy)
{
    pthread_mutex_lock(&c->pool_lock);
    if (c->idle_count == c->idle_cap) {
        size_t cap = c->idle_cap ? c->idle_cap * 2 : 4;
        CURL **grown = realloc(c->idle, cap * sizeof *grown);
        if (!grown) {
            pthread_mutex_unlock(&c->pool_lock);
            curl_easy_cleanup(easy);
            return;
        }
        c->idle = grown;
        c->idle_cap = cap;
    }
    c->idle[c->idle_count++] = easy;
    pthread_mutex_unlock(&c->pool_lock);
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
                                      respite_error *err)
{
    respite_response *r = respite_response_new(c->max_body);
    if (r)
        r->body_limit_fails = 1;
    CURL *easy = r ? pool_take(c) : NULL;
    if (!easy) {
        respite_response_free(r);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory making a request");
        return NULL;
    }
    respite_transfer t = {method, url, headers, data, size, c->timeout, c->user_agent, c->share, NULL, 0};
    int rc = respite_http_perform(easy, NULL, &t, r);
    pool_give(c, easy);
    if (rc != RESPITE_OK) {
        respite_response_free(r);
        respite_fail(err, rc, "out of memory reading the answer");
        return NULL;
    }
    r->outcome = respite_classify(r->status == 0, r->status, 1, NULL);
    return r;
}

respite_response *respite_client_request(respite_client *client, const char *method, const char *url,
                                         const char *headers, const char *data, size_t size, respite_error *err)
{
    if (!client)
        return fail_closed(err), NULL;
    if (check_arguments(method, url, data, size, err) != RESPITE_OK)
        return NULL;
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
        respite_response *r = attempt_once(client, method, url, list, data, size, err);
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
        respite_http_sleep(call.wait); /* 0 under the testing switch (B17) */
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
