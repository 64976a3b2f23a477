/*
 * respite/backoff.h - retry schedules (behaviour section 3).
 *
 * A back-off is immutable settings plus a key for its generator, so one
 * back-off is safe to share between threads. Jitter is drawn from a
 * counter-based generator keyed by (seed, sequence, retry): each retrying
 * call takes its own sequence number with respite_backoff_start, and the
 * delays of a sequence are a pure function of those, so a seeded run gives
 * the same delays in every language (docs/spec.md writes the formulas out).
 */
#ifndef RESPITE_BACKOFF_H
#define RESPITE_BACKOFF_H

#include "respite/common.h"
#include "respite/gate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_backoff respite_backoff;

typedef enum respite_jitter {
    RESPITE_JITTER_NONE = 0,
    RESPITE_JITTER_FULL = 1,
    RESPITE_JITTER_EQUAL = 2,
    RESPITE_JITTER_DECORRELATED = 3
} respite_jitter;

/* Returned by respite_backoff_next when no further attempt should be made. */
#define RESPITE_RETRY_STOP (-1.0)

/* A back-off from "backoff" settings (NULL: defaults). NULL and err when
 * the settings are invalid. */
RESPITE_API respite_backoff *respite_backoff_new(const respite_settings *settings, respite_error *err);
/* Drops the caller's reference; freed when the last holder (its creator or
 * a client using it) lets go. NULL: no-op. */
RESPITE_API void respite_backoff_free(respite_backoff *backoff);
/* Takes one more reference (released with respite_backoff_free). */
RESPITE_API respite_backoff *respite_backoff_retain(respite_backoff *backoff);

/* A new sequence number for one retrying call (0, 1, 2, ... per back-off;
 * atomic). -1 on error. */
RESPITE_API int64_t respite_backoff_start(respite_backoff *backoff, respite_error *err);

/* Delay in seconds before retry `retry` (1 = the first retry) of `sequence`,
 * with jitter (spec B2-B6), raised to retry_after_hint when that is larger,
 * capped at max_delay_seconds (B7); retry_after_hint 0 = none, otherwise a
 * finite number >= 0. A pure function of (seed, sequence, retry). -1 and
 * err on bad input (B11; NULL backoff: closed "backoff is closed"). */
RESPITE_API double respite_backoff_delay(const respite_backoff *backoff, int64_t sequence, int retry,
                                         double retry_after_hint, respite_error *err);

/* 1 when retry_on lists this outcome's name or this status code (B9), 0 if
 * not (always 0 for success), -1 on error. http_status 0 = none. */
RESPITE_API int respite_backoff_retries_on(const respite_backoff *backoff, int outcome, int http_status,
                                           respite_error *err);

/* After attempt `attempt` (1 = the first) of `sequence` ended with this
 * outcome: the delay before the next attempt, or RESPITE_RETRY_STOP when the
 * outcome is a success, is not in retry_on, or max_attempts is reached.
 * NaN and err on bad input. */
RESPITE_API double respite_backoff_next(const respite_backoff *backoff, int64_t sequence, int attempt, int outcome,
                                        int http_status, double retry_after_hint, respite_error *err);

/* The max_attempts setting (for bindings' loops); -1 for a NULL back-off. */
RESPITE_API int respite_backoff_max_attempts(const respite_backoff *backoff);

/* The error respite_retry_run ends with when it gives up after `attempts`
 * attempts whose last ended with `outcome` (a failure; http_status 0 if
 * none): fills err with transport and the message ("the call failed after
 * 3 attempts: last outcome server_error (status 503)", or "... which
 * retry_on does not retry") and returns RESPITE_E_TRANSPORT. For bindings'
 * own retry loops, so every language says the same. */
RESPITE_API int respite_retry_gave_up(const respite_backoff *backoff, int attempts, int outcome, int http_status,
                                      respite_error *err);

/* One retried call's progress between the core's decisions: filled by
 * respite_retry_begin, updated by respite_retry_decide, read by the caller
 * only for `wait`. A plain value the caller keeps; nothing to free. */
typedef struct respite_retry_call {
    int64_t sequence; /* the back-off's sequence for this call (B10) */
    double started;   /* respite_now() when the first attempt began */
    double skipped;   /* delays not waited under the testing switch, counted as elapsed (B17) */
    double wait;      /* seconds to wait before the next attempt: the delay, or 0 under the testing switch */
} respite_retry_call;

/* Starts one retried call of `backoff` (B10, B16): a new sequence and the
 * clock of max_elapsed_seconds from now. Call it just before the first
 * attempt. RESPITE_OK, or an error (closed back-off, NULL call). */
RESPITE_API int respite_retry_begin(respite_backoff *backoff, respite_retry_call *call, respite_error *err);

/* The one retry decision (B12-B18) every binding's retry helper asks after
 * a failed attempt of `call`: attempt `attempt` (1 = the first) ended with
 * the failure `outcome` (http_status 0 if none, retry_after_hint 0 if
 * none). Returns the delay in seconds before the next attempt (>= 0, with
 * jitter and Retry-After as respite_backoff_next) and sets call->wait to
 * what the caller waits (the delay, or 0 under the testing switch, B17);
 * or -1 with err filled when the call gives up — transport with the
 * message of respite_retry_gave_up, or of max_elapsed_seconds (B16) — or
 * on bad input (a success outcome is invalid_argument). A binding raises
 * that error and only waits call->wait between decisions. */
RESPITE_API double respite_retry_decide(const respite_backoff *backoff, respite_retry_call *call, int attempt,
                                        int outcome, int http_status, double retry_after_hint, respite_error *err);

/* The testing switch (B17), process-wide: non-zero makes every retry
 * immediate (call->wait is 0; respite_retry_run does not sleep) with the
 * same attempts, delays and decisions; the delays not waited count as
 * elapsed for max_elapsed_seconds. For test suites, never production. */
RESPITE_API void respite_testing_set_immediate_retries(int on);
/* 1 while the testing switch is on, else 0. */
RESPITE_API int respite_testing_immediate_retries(void);

/* Returned by an attempt function for the caller's own failure (B18): the
 * attempt is reported to the gate as request_error, no retry is made, and
 * respite_retry_run returns RESPITE_OK with *last_outcome set to this value
 * (the caller holds its own error). */
#define RESPITE_ATTEMPT_CALLERS_OWN (-1)

/* One attempt of a retried call, for respite_retry_run: performs the call
 * and returns its outcome (a respite_outcome) or RESPITE_ATTEMPT_CALLERS_OWN,
 * setting *http_status (0 if none) and *retry_after_hint (0 if none). */
typedef int (*respite_attempt_fn)(void *user_data, int attempt, int *http_status, double *retry_after_hint);

/* Runs fn with retries (C helper; bindings write the same loop over
 * respite_retry_decide; spec B12-B18; with B19's hook:
 * respite_retry_run_with_hook). Before every attempt it asks `gate`
 * (may be NULL) and reports the attempt's outcome with the permit; while
 * the gate refuses no attempt is made and RESPITE_E_TEMPORARILY_UNAVAILABLE
 * is returned with err->retry_after and the refusal message. Sleeps with
 * nanosleep between attempts (not under the testing switch, B17). Returns
 * RESPITE_OK when an attempt succeeded or fn returned
 * RESPITE_ATTEMPT_CALLERS_OWN (B18); when the back-off stops,
 * RESPITE_E_TRANSPORT with a message naming the last outcome (B14, B16).
 * *last_outcome (last outcome fn returned) and *attempts_made (times fn
 * was called) may be NULL. Blocks the calling thread; the
 * back-off and gate may be shared with other threads meanwhile. */
RESPITE_API int respite_retry_run(respite_backoff *backoff, respite_gate *gate, respite_attempt_fn fn, void *user_data,
                                  int *last_outcome, int *attempts_made, respite_error *err);

/* The hook before each wait (B19), for respite_retry_run_with_hook: called
 * after every decision to retry, before the wait, with the attempt that
 * failed (1 = the first), the delay before the next one (the back-off's,
 * also under the testing switch, B17) and the failure (outcome, http_status
 * 0 if none). Returns RESPITE_OK to go on. Any other respite_status ends the
 * call there - no wait, no further attempt - and the run returns it, with
 * err as the hook filled it (status and message; when the hook leaves err
 * alone, the core's "the before-wait hook ended the call after attempt 2:
 * last outcome server_error (status 503)"). A value that is not a
 * respite_status ends the call with invalid_argument. err is never NULL. */
typedef int (*respite_before_wait_fn)(void *hook_data, int attempt, double delay, int outcome, int http_status,
                                      respite_error *err);

/* respite_retry_run with a hook before each wait (B19); before_wait NULL:
 * none (exactly respite_retry_run). */
RESPITE_API int respite_retry_run_with_hook(respite_backoff *backoff, respite_gate *gate, respite_attempt_fn fn,
                                            void *user_data, respite_before_wait_fn before_wait, void *hook_data,
                                            int *last_outcome, int *attempts_made, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_BACKOFF_H */
