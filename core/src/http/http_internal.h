/* Shared by the HTTP module's source files; not part of the public API. */
#ifndef RESPITE_HTTP_INTERNAL_H
#define RESPITE_HTTP_INTERNAL_H

#include "../internal.h"
#include "respite/http.h"

#include <curl/curl.h>
#include <stdatomic.h>
#include <time.h>

/* curl_global_init exactly once per process (it is not thread-safe). */
int respite_http_global_init(respite_error *err);

/* This process's fork generation (fork_watch.c): a handle made with another
 * value belongs to the process that forked this one (S15, C11). */
unsigned respite_http_fork_generation(void);

/* --------------------------------------------------------- client pool */

/* An easy handle driven by its own multi handle (which holds its
 * connections), so another thread can wake the transfer (C10). */
typedef struct respite_client_handle {
    CURL *easy;
    CURLM *multi;
} respite_client_handle;

/* A client's idle handles and shared DNS/TLS caches, in the process that
 * made it (client_pool.c). NULL: no memory. */
typedef struct respite_client_pool respite_client_pool;
respite_client_pool *respite_client_pool_new(void);
void respite_client_pool_free(respite_client_pool *pool);
/* 1 when the pool was made in this process (not inherited through fork). */
int respite_client_pool_here(const respite_client_pool *pool);
CURLSH *respite_client_pool_share(respite_client_pool *pool);
/* An idle handle, or a new one; 0 when out of memory. */
int respite_client_pool_take(respite_client_pool *pool, respite_client_handle *out);
/* Back to the pool, its connections open. */
void respite_client_pool_give(respite_client_pool *pool, respite_client_handle handle);

/* ------------------------------------------------------------ response */

struct respite_response {
    int status;          /* 0: the transport failed */
    int outcome;         /* a respite_outcome */
    int reported_unusable;
    char *body;          /* always NUL-terminated */
    size_t body_size;
    size_t body_cap;
    size_t body_limit;   /* bytes kept; the rest is read and dropped, */
    int body_limit_fails; /* or, when 1, fails the transfer (the client's max_body_bytes) */
    int body_too_long;
    char **header_names; /* the final answer's headers, in order */
    char **header_values;
    size_t header_count;
    size_t header_cap;
    int out_of_memory;
    int retry_after_only; /* keep no header but Retry-After (the sender) */
    char error[CURL_ERROR_SIZE];
    double retry_after;  /* hint of a 429/503, 0 when none */
    int attempts;
    double elapsed;
};

/* An empty response that keeps at most body_limit body bytes. NULL: no memory. */
respite_response *respite_response_new(size_t body_limit);
/* Empties a response for reuse (keeps its buffers). */
void respite_response_reset(respite_response *response);

/* ---------------------------------------------------------- cancel token */

/* A transfer in flight on a token: a cancel wakes its multi handle. */
typedef struct respite_cancel_waiter {
    CURLM *multi;
    struct respite_cancel_waiter *next;
} respite_cancel_waiter;

void respite_cancel_attach(respite_cancel_token *token, respite_cancel_waiter *waiter);
void respite_cancel_detach(respite_cancel_token *token, respite_cancel_waiter *waiter);

/* Sleeps `seconds` (at most a day) or until the token is cancelled (NULL:
 * the whole time); 1 when it was cancelled. */
int respite_cancel_sleep(respite_cancel_token *token, double seconds);

/* -------------------------------------------------------------- transfer */

/* One HTTP exchange on an easy handle. */
typedef struct respite_transfer {
    const char *method;
    const char *url;
    const struct curl_slist *headers;
    const char *data;   /* may be NULL when size is 0 */
    size_t size;
    double timeout;     /* seconds */
    const char *user_agent;
    CURLSH *share;      /* may be NULL */
    /* Only with a multi handle: when > 0, the transfer is abandoned once
     * the monotonic clock in microseconds reaches it (close's deadline). */
    _Atomic long long *abort_at_us;
    /* 1: the handle already holds every option of an earlier transfer with
     * the same method, URL, headers and settings; only the body is set
     * (the sender: saves a curl_easy_reset and a dozen options per batch). */
    int same_as_last;
    /* Only with a multi handle: when cancelled, the transfer is abandoned
     * (C10); may be NULL. */
    respite_cancel_token *cancel;
} respite_transfer;

/* Performs t on easy (through multi when not NULL, so another thread can
 * cut it short with curl_multi_wakeup and *abort_at_us or t->cancel) and fills out:
 * status (0 when the transport failed, with out->error), headers, body and
 * the Retry-After hint of a 429/503. Returns RESPITE_OK, or no_memory. */
int respite_http_perform(CURL *easy, CURLM *multi, const respite_transfer *t, respite_response *out);

/* The longest Retry-After hint (C6): a day, the longest pause or delay any
 * setting allows; a longer value gives this. */
#define RESPITE_RETRY_AFTER_MAX_SECONDS 86400.0

/* Seconds a Retry-After value asks for: decimal delay-seconds or an
 * HTTP-date (compared with wall_now, the only use of the wall clock: the
 * header is wall-clock time), at most RESPITE_RETRY_AFTER_MAX_SECONDS.
 * 0 when absent, malformed or in the past. */
double respite_http_parse_retry_after(const char *value, time_t wall_now);
/* C6: only 429 and 503 answers carry a Retry-After hint. */
int respite_http_status_has_hint(int http_status);

/* Appends "Name: value" lines (separated by "\n", "\r\n" accepted) to
 * *list. invalid_argument naming the line when one is not a header. */
int respite_http_parse_header_lines(const char *lines, struct curl_slist **list, respite_error *err);

/* Seconds as CURLOPT_TIMEOUT_MS (at least 1 ms). */
long respite_http_timeout_ms(double seconds);

/* Monotonic clock in microseconds. */
long long respite_http_now_us(void);

/* respite_sleep_seconds, capped at a day. */
void respite_http_sleep(double seconds);

/* CLOCK_MONOTONIC `seconds` from now (0 to a day), for a timed wait on a
 * condition variable made with that clock. */
struct timespec respite_http_deadline_in(double seconds);

/* ------------------------------------------------------------ batch body */

/* A growable byte buffer. */
typedef struct respite_buffer {
    char *data;
    size_t size;
    size_t cap;
} respite_buffer;

int respite_buffer_reserve(respite_buffer *b, size_t extra);
int respite_buffer_append(respite_buffer *b, const char *data, size_t size);
void respite_buffer_free(respite_buffer *b);

/* Writes prefix, the batch's events joined by separator, and suffix into
 * out (emptied first). RESPITE_OK or no_memory. */
int respite_batch_body(const respite_batch *batch, const char *prefix, const char *separator, const char *suffix,
                       respite_buffer *out, respite_error *err);
/* S16: "<name>: <id>,<id>,..." of the batch's events, in batch order. */
int respite_batch_ids_header(const respite_batch *batch, const char *name, respite_buffer *out, respite_error *err);

/* gzip (RFC 1952) of in into out (emptied first). RESPITE_OK, no_memory or
 * internal. */
int respite_gzip(const char *in, size_t size, respite_buffer *out, respite_error *err);

#endif
