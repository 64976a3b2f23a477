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
} respite_transfer;

/* Performs t on easy (through multi when not NULL, so another thread can
 * cut it short with curl_multi_wakeup and *abort_at_us) and fills out:
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
