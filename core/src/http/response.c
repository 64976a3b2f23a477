/* The answer to one request: status, outcome, headers and body. */
#include "http_internal.h"

#include <stdlib.h>
#include <strings.h>

respite_response *respite_response_new(size_t body_limit)
{
    respite_response *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->body = calloc(1, 1);
    if (!r->body) {
        free(r);
        return NULL;
    }
    r->body_cap = 1;
    r->body_limit = body_limit;
    r->outcome = RESPITE_OUTCOME_TRANSPORT;
    return r;
}

void respite_response_reset(respite_response *r)
{
    for (size_t i = 0; i < r->header_count; i++) {
        free(r->header_names[i]);
        free(r->header_values[i]);
    }
    r->header_count = 0;
    r->status = 0;
    r->outcome = RESPITE_OUTCOME_TRANSPORT;
    r->reported_unusable = 0;
    r->body_size = 0;
    r->body_too_long = 0;
    r->body[0] = '\0';
    r->out_of_memory = 0;
    r->error[0] = '\0';
    r->retry_after = 0.0;
    r->attempts = 0;
    r->elapsed = 0.0;
}

void respite_response_free(respite_response *response)
{
    if (!response)
        return;
    for (size_t i = 0; i < response->header_count; i++) {
        free(response->header_names[i]);
        free(response->header_values[i]);
    }
    free(response->header_names);
    free(response->header_values);
    free(response->body);
    free(response);
}

int respite_response_status(const respite_response *response)
{
    return response ? response->status : 0;
}

int respite_response_outcome(const respite_response *response)
{
    return response ? response->outcome : RESPITE_OUTCOME_TRANSPORT;
}

const char *respite_response_body(const respite_response *response)
{
    return response ? response->body : "";
}

int64_t respite_response_body_size(const respite_response *response)
{
    return response ? (int64_t)response->body_size : 0;
}

const char *respite_response_header(const respite_response *response, const char *name)
{
    if (!response || !name)
        return NULL;
    /* The last one wins when a header is repeated. */
    for (size_t i = response->header_count; i > 0; i--)
        if (strcasecmp(response->header_names[i - 1], name) == 0)
            return response->header_values[i - 1];
    return NULL;
}

const char *respite_response_error(const respite_response *response)
{
    return response ? response->error : "";
}

double respite_response_retry_after(const respite_response *response)
{
    return response ? response->retry_after : 0.0;
}

int respite_response_attempts(const respite_response *response)
{
    return response ? response->attempts : 0;
}

double respite_response_elapsed_seconds(const respite_response *response)
{
    return response ? response->elapsed : 0.0;
}
