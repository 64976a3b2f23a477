/* The C retry loop (spec B12-B18): every attempt goes through the gate, its
 * outcome is reported with the attempt's permit, and the back-off decides
 * whether and how long to wait before the next one. */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>

static int check_attempt_result(int outcome, int http_status, double hint, respite_error *err)
{
    if (!respite_outcome_name(outcome))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "the attempt function must return a respite_outcome from 0 to 5 (success, request_error, "
                            "throttled, server_error, unusable, transport) or RESPITE_ATTEMPT_CALLERS_OWN (got %d)",
                            outcome);
    if (http_status != 0 && (http_status < 100 || http_status > 599))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "the attempt function must set http_status to 0 (none) or 100 to 599 (got %d)",
                            http_status);
    if (!(hint >= 0.0 && hint <= DBL_MAX)) {
        char text[40];
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "the attempt function must set retry_after_hint to a finite number of seconds, 0 or more (0 for "
                            "none) (got %s)",
                            respite_format_number(hint, text, sizeof text));
    }
    return RESPITE_OK;
}

/* " (status 503)" after a give-up's outcome, "" without a status. */
static void status_suffix(int http_status, char *buf, size_t size)
{
    buf[0] = '\0';
    if (http_status)
        snprintf(buf, size, " (status %d)", http_status);
}

static int fail_gave_up(respite_error *err, const respite_backoff *backoff, int attempt, int outcome,
                        int http_status)
{
    char status_text[24];
    status_suffix(http_status, status_text, sizeof status_text);
    if (attempt >= respite_backoff_max_attempts(backoff))
        return respite_fail(err, RESPITE_E_TRANSPORT, "the call failed after %d attempt%s: last outcome %s%s",
                            attempt, attempt == 1 ? "" : "s", respite_outcome_name(outcome), status_text);
    return respite_fail(err, RESPITE_E_TRANSPORT, "the call failed with %s%s, which retry_on does not retry",
                        respite_outcome_name(outcome), status_text);
}

int respite_retry_gave_up(const respite_backoff *backoff, int attempts, int outcome, int http_status,
                          respite_error *err)
{
    if (!backoff)
        return respite_closed(RESPITE_HANDLE_BACKOFF, err);
    if (!respite_outcome_name(outcome) || outcome == RESPITE_OUTCOME_SUCCESS)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "outcome must be a failure outcome from 1 to 5 (request_error, throttled, server_error, "
                            "unusable, transport) (got %d)",
                            outcome);
    return fail_gave_up(err, backoff, attempts, outcome, http_status);
}

/* The testing switch (B17): read at each decision, so it may be flipped
 * between tests; relaxed, as it orders nothing else. */
static _Atomic int immediate_retries;

void respite_testing_set_immediate_retries(int on)
{
    atomic_store_explicit(&immediate_retries, on != 0, memory_order_relaxed);
}

int respite_testing_immediate_retries(void)
{
    return atomic_load_explicit(&immediate_retries, memory_order_relaxed);
}

static int fail_no_call(respite_error *err)
{
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "call must be a respite_retry_call (got NULL)");
}

int respite_retry_begin(respite_backoff *backoff, respite_retry_call *call, respite_error *err)
{
    if (!backoff)
        return respite_closed(RESPITE_HANDLE_BACKOFF, err);
    if (!call)
        return fail_no_call(err);
    int64_t sequence = respite_backoff_start(backoff, err);
    if (sequence < 0)
        return RESPITE_E_CLOSED;
    *call = (respite_retry_call){.sequence = sequence, .started = respite_now()};
    return RESPITE_OK;
}

/* B16: the retry's attempt would start after max_elapsed_seconds. */
static int fail_elapsed(respite_error *err, int attempt, int outcome, int http_status, double limit)
{
    char status_text[24], limit_text[40];
    status_suffix(http_status, status_text, sizeof status_text);
    return respite_fail(err, RESPITE_E_TRANSPORT,
                        "the call failed after %d attempt%s: the next would start past max_elapsed_seconds (%s); "
                        "last outcome %s%s",
                        attempt, attempt == 1 ? "" : "s", respite_format_number(limit, limit_text, sizeof limit_text),
                        respite_outcome_name(outcome), status_text);
}

double respite_retry_decide(const respite_backoff *backoff, respite_retry_call *call, int attempt, int outcome,
                            int http_status, double retry_after_hint, respite_error *err)
{
    if (backoff && !call)
        return fail_no_call(err), -1.0;
    if (outcome == RESPITE_OUTCOME_SUCCESS)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "outcome must be a failure outcome from 1 to 5 (request_error, throttled, server_error, "
                            "unusable, transport) (got 0)"), -1.0;
    double delay = respite_backoff_next(backoff, call ? call->sequence : 0, attempt, outcome, http_status,
                                        retry_after_hint, err);
    if (isnan(delay))
        return -1.0;
    if (delay == RESPITE_RETRY_STOP)
        return fail_gave_up(err, backoff, attempt, outcome, http_status), -1.0;
    double limit = respite_backoff_max_elapsed(backoff);
    if (limit > 0 && respite_now() - call->started + call->skipped + delay > limit)
        return fail_elapsed(err, attempt, outcome, http_status, limit), -1.0;
    int immediate = respite_testing_immediate_retries();
    call->wait = immediate ? 0.0 : delay;
    if (immediate)
        call->skipped += delay;
    return delay;
}

/* B19: the hook ended the call with rc (not RESPITE_OK): its own error
 * when it filled one, else the core's; a value that is no status is the
 * hook's mistake. */
static int hook_stopped(int rc, const respite_error *said, int attempt, int outcome, int http_status,
                        respite_error *err)
{
    if (rc <= RESPITE_OK || rc >= respite_status_count())
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "the before-wait hook must return RESPITE_OK or a respite_status from 1 to %d (got %d)",
                            respite_status_count() - 1, rc);
    if (said->status == rc && said->message[0]) {
        *err = *said;
        return rc;
    }
    char status_text[24];
    status_suffix(http_status, status_text, sizeof status_text);
    return respite_fail(err, rc, "the before-wait hook ended the call after attempt %d: last outcome %s%s", attempt,
                        respite_outcome_name(outcome), status_text);
}

int respite_retry_run(respite_backoff *backoff, respite_gate *gate, respite_attempt_fn fn, void *user_data,
                      int *last_outcome, int *attempts_made, respite_error *err)
{
    return respite_retry_run_with_hook(backoff, gate, fn, user_data, NULL, NULL, last_outcome, attempts_made, err);
}

int respite_retry_run_with_hook(respite_backoff *backoff, respite_gate *gate, respite_attempt_fn fn, void *user_data,
                                respite_before_wait_fn before_wait, void *hook_data, int *last_outcome,
                                int *attempts_made, respite_error *err)
{
    if (attempts_made)
        *attempts_made = 0;
    if (!backoff)
        return respite_closed(RESPITE_HANDLE_BACKOFF, err);
    if (!fn)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "fn must be an attempt function (got NULL)");
    respite_error local;
    if (!err) /* the status of a failed step is read back from here */
        err = &local;
    respite_retry_call call;
    if (respite_retry_begin(backoff, &call, err))
        return err->status;
    for (int attempt = 1;; attempt++) {
        int64_t permit = RESPITE_NO_PERMIT;
        if (gate && (permit = respite_gate_admit(gate, respite_now(), err)) <= 0)
            return err->status; /* refused (with retry_after) or failed */
        int http_status = 0;
        double hint = 0.0;
        int outcome = fn(user_data, attempt, &http_status, &hint);
        if (attempts_made)
            *attempts_made = attempt;
        int own = outcome == RESPITE_ATTEMPT_CALLERS_OWN; /* B18: told as request_error, not retried */
        int rc = own ? RESPITE_OK : check_attempt_result(outcome, http_status, hint, err);
        if (rc)
            return rc;
        if (last_outcome)
            *last_outcome = outcome;
        if (gate && (rc = respite_gate_report(gate, permit, own ? RESPITE_OUTCOME_REQUEST_ERROR : outcome,
                                              own ? 0.0 : hint, respite_now(), err)) != RESPITE_OK)
            return rc;
        if (own || outcome == RESPITE_OUTCOME_SUCCESS)
            return RESPITE_OK;
        double delay = respite_retry_decide(backoff, &call, attempt, outcome, http_status, hint, err);
        if (delay < 0)
            return err->status;
        if (before_wait) {
            respite_error said;
            respite_error_clear(&said);
            rc = before_wait(hook_data, attempt, delay, outcome, http_status, &said);
            if (rc != RESPITE_OK)
                return hook_stopped(rc, &said, attempt, outcome, http_status, err);
        }
        respite_sleep_seconds(call.wait);
    }
}
