/*
 * respite/http.h - HTTP through the gate, with libcurl (behaviour sections 5
 * and 6). Built as the separate library respite_http (the rest of the core
 * builds without libcurl); link it together with respite.
 *
 * Thread safety: a client is safe to share between threads (each thread
 * gets its own reused connection handle). A sender is safe to share between
 * producer threads; it owns one background thread that sends.
 */
#ifndef RESPITE_HTTP_H
#define RESPITE_HTTP_H

#include "respite/common.h"
#include "respite/gate.h"
#include "respite/backoff.h"
#include "respite/policy.h"
#include "respite/queue.h"
#include "respite/engine.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------- request client */

typedef struct respite_client respite_client;
typedef struct respite_response respite_response;

/* A client from "client" settings (NULL: defaults) calling through `gate`
 * and retrying with `backoff`. The client holds a reference to both (their
 * creators may free theirs at any time); gate NULL = no gate, backoff NULL
 * = one attempt. */
RESPITE_API respite_client *respite_client_new(const respite_settings *settings, respite_gate *gate, respite_backoff *backoff,
                                   respite_error *err);
RESPITE_API void respite_client_free(respite_client *client);

/* One call (section 6). method: "GET", "POST", ...; headers: "Name: value"
 * lines separated by "\n" (may be NULL); data/size: the body (may be NULL/0).
 * Refused by the gate: NULL and err = temporarily_unavailable with
 * err->retry_after, and no network I/O. Otherwise a response, also when the
 * call failed (outcome transport, status 0, respite_response_error says
 * why) or answered with an error status; free it with
 * respite_response_free. The outcome is reported to the gate with the
 * permit, Retry-After of a 429/503 is passed as the hint, and retries follow
 * the back-off, each attempt through the gate. */
RESPITE_API respite_response *respite_client_request(respite_client *client, const char *method, const char *url,
                                                     const char *headers, const char *data, size_t size, respite_error *err);

/* A cancel token (C10): one call (or several) made with it ends soon after
 * respite_cancel_token_cancel, from any thread. Reference-counted: a call
 * in flight holds none, so keep the token until the calls made with it
 * have returned (a binding that hands it to another thread retains it for
 * that thread). Once cancelled it stays cancelled. */
typedef struct respite_cancel_token respite_cancel_token;

RESPITE_API respite_cancel_token *respite_cancel_token_new(respite_error *err);
/* One more reference (freed by one more respite_cancel_token_free); returns token. */
RESPITE_API respite_cancel_token *respite_cancel_token_retain(respite_cancel_token *token);
RESPITE_API void respite_cancel_token_free(respite_cancel_token *token);
/* Cancels every call made with the token, now and later. Thread-safe;
 * a second cancel is a no-op. */
RESPITE_API int respite_cancel_token_cancel(respite_cancel_token *token, respite_error *err);
/* 1 once cancelled, 0 before (and for NULL). */
RESPITE_API int respite_cancel_token_cancelled(const respite_cancel_token *token);

/* respite_client_request that `cancel` (NULL: none) can end (C10): once it
 * is cancelled, the call returns within 100 ms - from the transfer or a
 * sleep between attempts - with NULL and err = cancelled; the attempt in
 * flight is released from the gate without an outcome (G19), so the
 * caller's decision does not count against the service. A token already
 * cancelled: cancelled at once, before the gate is asked. */
RESPITE_API respite_response *respite_client_request_with(respite_client *client, const char *method, const char *url,
                                                          const char *headers, const char *data, size_t size,
                                                          respite_cancel_token *cancel, respite_error *err);

/* The client takes every 2xx/3xx answer as usable (C4). A caller that
 * parses the body and cannot use it reports that here: the gate counts one
 * `unusable` failure (no permit: the current generation) and the
 * response's outcome becomes unusable. Only a success can be reported so
 * (invalid_argument otherwise); a second report of the same response is a
 * no-op. */
RESPITE_API int respite_client_report_unusable(respite_client *client, respite_response *response, respite_error *err);

RESPITE_API void respite_response_free(respite_response *response);
RESPITE_API int respite_response_status(const respite_response *response);      /* 0 when the transport failed */
RESPITE_API int respite_response_outcome(const respite_response *response);     /* a respite_outcome */
RESPITE_API const char *respite_response_body(const respite_response *response); /* NUL-terminated; "" when none */
RESPITE_API int64_t respite_response_body_size(const respite_response *response);
/* The value of a response header (case-insensitive name), or NULL. */
RESPITE_API const char *respite_response_header(const respite_response *response, const char *name);
RESPITE_API const char *respite_response_error(const respite_response *response); /* transport error text, "" otherwise */
RESPITE_API double respite_response_retry_after(const respite_response *response); /* Retry-After seconds, 0 when none */
/* The Retry-After hint of an answer as the client reads it (C6): seconds
 * from now, capped at a day; 0 unless http_status is 429 or 503, and 0 when
 * the value is NULL, malformed or not in the future. For bindings that wrap
 * another HTTP library. Surrounding blanks are ignored. */
RESPITE_API double respite_retry_after_seconds(int http_status, const char *header_value);
RESPITE_API int respite_response_attempts(const respite_response *response);       /* attempts made, retries included */
RESPITE_API double respite_response_elapsed_seconds(const respite_response *response);

/* ------------------------------------------------------------------ sender */

typedef struct respite_sender respite_sender;

typedef struct respite_sender_stats {
    respite_queue_stats queue;   /* D9 accounting */
    respite_engine_stats engine; /* sends, probes, failures */
    respite_gate_stats gate;
    int64_t requests;            /* HTTP requests made (probes included) */
    int64_t bytes_sent;          /* request body bytes, after gzip */
    int paused;                  /* 1 while the gate refuses */
    int closed;                  /* 1 after close */
} respite_sender_stats;

/* A sender (section 5): "sender" settings (url required), gate settings
 * (NULL: usage_sharing profile), queue settings (NULL: defaults) and a
 * policy (NULL: @default; the sender holds a reference, the caller may free
 * its own). Starts its thread. Every event it logs has the sender's name
 * as its source. */
RESPITE_API respite_sender *respite_sender_new(const respite_settings *sender_settings, const respite_settings *gate_settings,
                                   const respite_settings *queue_settings, const respite_policy *policy,
                                   respite_error *err);
/* Closes (if not closed) and frees. */
RESPITE_API void respite_sender_free(respite_sender *sender);
/* The sender's `name` setting ("" when unset); NULL for NULL. */
RESPITE_API const char *respite_sender_name(const respite_sender *sender);

/* Adds a header to every later request ("Name", "value"): name an HTTP
 * token, value without line breaks (invalid_argument otherwise). */
RESPITE_API int respite_sender_add_header(respite_sender *sender, const char *name, const char *value, respite_error *err);

/* Queues one event (S1): never waits for the network, whatever the gate's
 * state; refused only by capacity (queue_full with drop_newest), size
 * (too_large) or after close (closed). */
RESPITE_API int respite_sender_enqueue(respite_sender *sender, const char *data, size_t size, respite_error *err);

/* S11: sends what is queued, even below min_entries_per_message, and waits
 * up to timeout_seconds (0-86400) until nothing is pending or in flight.
 * Returns RESPITE_OK then, RESPITE_E_TEMPORARILY_UNAVAILABLE at once while
 * the gate is open (err->retry_after; the events stay queued), or
 * RESPITE_E_TRANSPORT when the time ran out; closed after close. */
RESPITE_API int respite_sender_flush(respite_sender *sender, double timeout_seconds, respite_error *err);

/* S5, S12: while paused returns at once and sends nothing (a probe in
 * flight is abandoned); otherwise drains within close_timeout_seconds (a
 * send still in flight then is abandoned; an abandoned send counts as a
 * transport failure). Returns the number of events not sent (also an
 * unsent_at_close event when > 0), -1 on error. A second close returns the
 * same count. */
RESPITE_API int64_t respite_sender_close(respite_sender *sender, respite_error *err);

RESPITE_API int respite_sender_stats_get(respite_sender *sender, respite_sender_stats *out, respite_error *err);

/* Events of the sender and its gate (G18, S6), in the order they happened:
 * the gate's transitions, send_failed (http_status, 0 for transport; detail:
 * the start of the body or the transport error) and unsent_at_close. A ring
 * of 256: when full the oldest is dropped. 1 and *out filled, 0 when none
 * is waiting, -1 on error. */
RESPITE_API int respite_sender_next_event(respite_sender *sender, respite_event *out, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_HTTP_H */
