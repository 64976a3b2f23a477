/* One HTTP exchange with libcurl, shared by the client and the sender. */
#include "http_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t on_body(char *data, size_t size, size_t count, void *user)
{
    respite_response *r = user;
    size_t n = size * count;
    size_t keep = r->body_size < r->body_limit ? r->body_limit - r->body_size : 0;
    if (r->body_limit_fails && n > keep) {
        r->body_too_long = 1; /* C9: stop reading now, memory stays bounded */
        return 0;
    }
    if (keep > n)
        keep = n;
    if (keep > 0) {
        if (r->body_size + keep + 1 > r->body_cap) {
            size_t cap = r->body_cap * 2;
            while (cap < r->body_size + keep + 1)
                cap *= 2;
            char *grown = realloc(r->body, cap);
            if (!grown) {
                r->out_of_memory = 1;
                return 0; /* abandons the transfer */
            }
            r->body = grown;
            r->body_cap = cap;
        }
        memcpy(r->body + r->body_size, data, keep);
        r->body_size += keep;
        r->body[r->body_size] = '\0';
    }
    return n;
}

static void clear_headers(respite_response *r)
{
    for (size_t i = 0; i < r->header_count; i++) {
        free(r->header_names[i]);
        free(r->header_values[i]);
    }
    r->header_count = 0;
}

static int add_header(respite_response *r, const char *name, size_t name_len, const char *value, size_t value_len)
{
    if (r->header_count == r->header_cap) {
        size_t cap = r->header_cap ? r->header_cap * 2 : 16;
        char **names = realloc(r->header_names, cap * sizeof *names);
        if (!names)
            return -1;
        r->header_names = names;
        char **values = realloc(r->header_values, cap * sizeof *values);
        if (!values)
            return -1;
        r->header_values = values;
        r->header_cap = cap;
    }
    char *n = strndup(name, name_len);
    char *v = strndup(value, value_len);
    if (!n || !v) {
        free(n);
        free(v);
        return -1;
    }
    r->header_names[r->header_count] = n;
    r->header_values[r->header_count] = v;
    r->header_count++;
    return 0;
}

static size_t on_header(char *data, size_t size, size_t count, void *user)
{
    respite_response *r = user;
    size_t n = size * count;
    size_t len = n;
    while (len > 0 && (data[len - 1] == '\r' || data[len - 1] == '\n'))
        len--;
    /* A status line starts a new answer (after 100 Continue or a redirect):
     * only the final answer's headers are kept. */
    if (len >= 5 && strncmp(data, "HTTP/", 5) == 0) {
        clear_headers(r);
        return n;
    }
    const char *colon = memchr(data, ':', len);
    if (!colon || colon == data)
        return n;
    if (r->retry_after_only && !((size_t)(colon - data) == 11 && strncasecmp(data, "Retry-After", 11) == 0))
        return n;
    const char *value = colon + 1;
    size_t value_len = len - (size_t)(value - data);
    while (value_len > 0 && (*value == ' ' || *value == '\t')) {
        value++;
        value_len--;
    }
    while (value_len > 0 && (value[value_len - 1] == ' ' || value[value_len - 1] == '\t'))
        value_len--;
    if (add_header(r, data, (size_t)(colon - data), value, value_len) != 0) {
        r->out_of_memory = 1;
        return 0;
    }
    return n;
}

/* Polled by libcurl during the multi loop too; aborts at the deadline. */
static int on_progress(void *user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    _Atomic long long *abort_at = user;
    long long at = atomic_load(abort_at);
    return at > 0 && respite_http_now_us() >= at;
}

static void set_options(CURL *easy, const respite_transfer *t, respite_response *out)
{
    curl_easy_reset(easy); /* keeps live connections, DNS and TLS session caches */
    curl_easy_setopt(easy, CURLOPT_URL, t->url);
    curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for DNS timeouts */
    curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, respite_http_timeout_ms(t->timeout));
    curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, out->error);
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, out);
    curl_easy_setopt(easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(easy, CURLOPT_HEADERDATA, out);
    if (t->headers)
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, t->headers);
    if (t->user_agent && *t->user_agent)
        curl_easy_setopt(easy, CURLOPT_USERAGENT, t->user_agent);
    if (t->share)
        curl_easy_setopt(easy, CURLOPT_SHARE, t->share);
    if (t->abort_at_us) {
        curl_easy_setopt(easy, CURLOPT_NOPROGRESS, 0L);
        curl_easy_setopt(easy, CURLOPT_XFERINFOFUNCTION, on_progress);
        curl_easy_setopt(easy, CURLOPT_XFERINFODATA, t->abort_at_us);
    }

    const char *method = t->method ? t->method : "GET";
    int has_body = t->size > 0 || (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0 &&
                                   strcmp(method, "DELETE") != 0 && strcmp(method, "OPTIONS") != 0);
    if (strcmp(method, "HEAD") == 0) {
        curl_easy_setopt(easy, CURLOPT_NOBODY, 1L);
    } else if (has_body) {
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->size);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, t->data ? t->data : "");
        if (strcmp(method, "POST") != 0)
            curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    } else if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(easy, CURLOPT_CUSTOMREQUEST, method);
    }
}

/* The multi loop: like curl_easy_perform, but another thread can end it
 * (curl_multi_wakeup) and *abort_at_us and the cancel token are looked at
 * on every turn. */
static CURLcode perform_multi(CURL *easy, CURLM *multi, const respite_transfer *t)
{
    if (curl_multi_add_handle(multi, easy) != CURLM_OK)
        return CURLE_FAILED_INIT;
    respite_cancel_waiter waiter = {multi, NULL};
    if (t->cancel)
        respite_cancel_attach(t->cancel, &waiter);
    CURLcode result = CURLE_OK;
    int running = 1;
    while (running) {
        if (curl_multi_perform(multi, &running) != CURLM_OK) {
            result = CURLE_FAILED_INIT;
            break;
        }
        if (!running)
            break;
        long long at = t->abort_at_us ? atomic_load(t->abort_at_us) : 0;
        long long now = respite_http_now_us();
        if ((at > 0 && now >= at) || respite_cancel_token_cancelled(t->cancel)) {
            result = CURLE_ABORTED_BY_CALLBACK;
            break;
        }
        int wait_ms = 1000;
        if (at > 0 && (at - now) / 1000 + 1 < wait_ms)
            wait_ms = (int)((at - now) / 1000 + 1);
        curl_multi_poll(multi, NULL, 0, wait_ms, NULL);
    }
    if (!running) {
        int left;
        CURLMsg *msg;
        while ((msg = curl_multi_info_read(multi, &left)))
            if (msg->msg == CURLMSG_DONE && msg->easy_handle == easy)
                result = msg->data.result;
    }
    if (t->cancel)
        respite_cancel_detach(t->cancel, &waiter);
    curl_multi_remove_handle(multi, easy);
    return result;
}

int respite_http_perform(CURL *easy, CURLM *multi, const respite_transfer *t, respite_response *out)
{
    out->error[0] = '\0';
    if (t->same_as_last) {
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, out->error);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, out);
        curl_easy_setopt(easy, CURLOPT_HEADERDATA, out);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)t->size);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, t->data ? t->data : "");
    } else {
        set_options(easy, t, out);
    }
    CURLcode rc = multi ? perform_multi(easy, multi, t) : curl_easy_perform(easy);
    if (out->out_of_memory)
        return RESPITE_E_NO_MEMORY;
    long status = 0;
    if (rc == CURLE_OK)
        curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    if (rc != CURLE_OK || status < 100 || status > 599) {
        /* Did not complete (or no HTTP answer at all): transport. */
        out->status = 0;
        if (rc == CURLE_ABORTED_BY_CALLBACK && respite_cancel_token_cancelled(t->cancel))
            respite_copy_text(out->error, sizeof out->error, "the request was cancelled by its caller");
        else if (rc == CURLE_ABORTED_BY_CALLBACK)
            respite_copy_text(out->error, sizeof out->error, "the send was abandoned: the sender is closing");
        else if (out->body_too_long)
            snprintf(out->error, sizeof out->error, "the answer's body is longer than max_body_bytes (%zu bytes)",
                     out->body_limit);
        else if (out->error[0] == '\0')
            respite_copy_text(out->error, sizeof out->error,
                              rc != CURLE_OK ? curl_easy_strerror(rc) : "the answer had no HTTP status");
        out->retry_after = 0.0;
        return RESPITE_OK;
    }
    out->status = (int)status;
    out->error[0] = '\0';
    out->retry_after = 0.0;
    if (respite_http_status_has_hint((int)status))
        out->retry_after = respite_http_parse_retry_after(respite_response_header(out, "Retry-After"), time(NULL));
    return RESPITE_OK;
}
