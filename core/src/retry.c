/* The C retry loop (spec B12-B14): every attempt goes through the gate, its
 * outcome is reported with the attempt's permit, and the back-off decides
 * whether and how long to wait before the next one. */
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

static int check_attempt_result(int outcome, int http_status, double hint, respite_error *err)
{
    if (!respite_outcome_name(outcome))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "the attempt function must return a respite_outcome from 0 to 5 (success, request_error, "
                            "throttled, server_error, unusable, transport) (got %d)",
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

static int fail_gave_up(respite_error *err, const respite_backoff *backoff, int attempt, int outcome,
                        int http_status)
{
    char status_text[24] = "";
    if (http_status)
        snprintf(status_text, sizeof status_text, " (status %d)", http_status);
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
        return respite_fail(err, RESPITE_E_CLOSED, "backoff is closed");
    if (!respite_outcome_name(outcome) || outcome == RESPITE_OUTCOME_SUCCESS)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "outcome must be a failure outcome from 1 to 5 (request_error, throttled, server_error, "
                            "unusable, transport) (got %d)",
                            outcome);
    return fail_gave_up(err, backoff, attempts, outcome, http_status);
}

double respite_retry_decide(const respite_backoff *backoff, int64_t sequence, int attempt, int outcome,
                            int http_status, double retry_after_hint, respite_error *err)
{
    if (outcome == RESPITE_OUTCOME_SUCCESS)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "outcome must be a failure outcome from 1 to 5 (request_error, throttled, server_error, "
                            "unusable, transport) (got 0)"), -1.0;
    double delay = respite_backoff_next(backoff, sequence, attempt, outcome, http_status, retry_after_hint, err);
    if (isnan(delay))
        return -1.0;
    if (delay == RESPITE_RETRY_STOP)
        return fail_gave_up(err, backoff, attempt, outcome, http_status), -1.0;
    return delay;
}

int respite_retry_run(respite_backoff *backoff, respite_gate *gate, respite_attempt_fn fn, void *user_data,
                      int *last_outcome, int *attempts_made, respite_error *err)
{
    if (attempts_made)
        *attempts_made = 0;
    if (!backoff)
        return respite_fail(err, RESPITE_E_CLOSED, "backoff is closed");
    if (!fn)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "fn must be an attempt function (got NULL)");
    respite_error local;
    if (!err) /* the status of a failed step is read back from here */
        err = &local;
    int64_t sequence = respite_backoff_start(backoff, err);
    if (sequence < 0)
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
        int rc = check_attempt_result(outcome, http_status, hint, err);
        if (rc)
            return rc;
        if (last_outcome)
            *last_outcome = outcome;
        if (gate && (rc = respite_gate_report(gate, permit, outcome, hint, respite_now(), err)) != RESPITE_OK)
            return rc;
        if (outcome == RESPITE_OUTCOME_SUCCESS)
            return RESPITE_OK;
        double delay = respite_retry_decide(backoff, sequence, attempt, outcome, http_status, hint, err);
        if (delay < 0)
            return err->status;
        respite_sleep_seconds(delay);
    }
}
