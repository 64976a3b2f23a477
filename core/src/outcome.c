/* Outcomes of one call and which of them count against the service. */
#include "internal.h"
#include "utf8.h"

#include <string.h>

static const char *const outcome_names[RESPITE_OUTCOME_COUNT] = {
    "success", "request_error", "throttled", "server_error", "unusable", "transport",
};

const char *respite_outcome_name(int outcome)
{
    if (outcome < 0 || outcome >= RESPITE_OUTCOME_COUNT)
        return NULL;
    return outcome_names[outcome];
}

int respite_outcome_from_name(const char *name, respite_error *err)
{
    for (int i = 0; name && i < RESPITE_OUTCOME_COUNT; i++)
        if (strcmp(name, outcome_names[i]) == 0)
            return i;
    char got[RESPITE_QUOTED_MAX];
    respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                 "outcome must be one of success, request_error, throttled, server_error, unusable, "
                 "transport (got %s)",
                 respite_quoted(got, name ? name : "(null)"));
    return -1;
}

int respite_outcome_check(int outcome, respite_error *err)
{
    if (outcome >= 0 && outcome < RESPITE_OUTCOME_COUNT)
        return outcome;
    respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                 "outcome must be a respite_outcome from 0 to 5 (success, request_error, throttled, server_error, "
                 "unusable, transport) (got %d)",
                 outcome);
    return -1;
}

int respite_classify(int transport_failed, int http_status, int body_usable, respite_error *err)
{
    if (transport_failed)
        return RESPITE_OUTCOME_TRANSPORT;
    if (http_status < 100 || http_status > 599) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                     "http_status must be an integer from 100 to 599 when the transport did not fail (got %d)",
                     http_status);
        return -1;
    }
    if (http_status < 200)
        return RESPITE_OUTCOME_UNUSABLE;
    if (http_status < 400)
        return body_usable ? RESPITE_OUTCOME_SUCCESS : RESPITE_OUTCOME_UNUSABLE;
    if (http_status == 429)
        return RESPITE_OUTCOME_THROTTLED;
    if (http_status < 500)
        return RESPITE_OUTCOME_REQUEST_ERROR;
    return RESPITE_OUTCOME_SERVER_ERROR;
}

int respite_outcome_counts(int outcome, int count_all_failures)
{
    if (outcome < 0 || outcome >= RESPITE_OUTCOME_COUNT)
        return -1;
    if (outcome == RESPITE_OUTCOME_SUCCESS)
        return 0;
    if (outcome == RESPITE_OUTCOME_REQUEST_ERROR)
        return count_all_failures ? 1 : 0;
    return 1;
}
