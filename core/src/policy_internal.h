/* Shared by the policy's source files (policy.c, policy_parse.c,
 * policy_builder.c, problems.c); not part of the public API. */
#ifndef RESPITE_POLICY_INTERNAL_H
#define RESPITE_POLICY_INTERNAL_H

#include "internal.h"

#include <stdatomic.h>

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* strdup, which strict C11 lacks; NULL when out of memory. */
static inline char *policy_copy(const char *text)
{
    size_t size = strlen(text) + 1;
    char *copy = malloc(size);
    return copy ? memcpy(copy, text, size) : NULL;
}

#define POLICY_CODE_FIRST 400
#define POLICY_CODE_LAST 599
#define POLICY_CODE_COUNT (POLICY_CODE_LAST - POLICY_CODE_FIRST + 1)

/* Field bounds (spec P rules). */
#define POLICY_NAME_MAX_CHARS 128
#define POLICY_CAPACITY_MAX 1000000
#define POLICY_HANDLERS_MAX 200
#define POLICY_RETRY_TIMES_MAX 100
#define POLICY_EVENT_TTL_MAX 86400
#define POLICY_PREFETCH_MAX 300

typedef enum policy_on_kind {
    POLICY_ON_CLIENT_ERROR = 0,
    POLICY_ON_SERVER_ERROR = 1,
    POLICY_ON_ANY_ERROR = 2,
    POLICY_ON_CODES = 3
} policy_on_kind;

typedef struct policy_handler {
    int on_kind;   /* a policy_on_kind */
    int strategy;  /* a respite_strategy */
    int code_count;
    int *codes;    /* POLICY_ON_CODES: sorted ascending */
    char *on_text; /* "client_error" ... or "404,500" */
} policy_handler;

struct respite_policy {
    _Atomic int refs; /* holders: the creator, queues, senders */
    char *name;
    int maximum_capacity;
    int retry_times;    /* 0: unset */
    int event_ttl;      /* 0: unset */
    int prefetch_count; /* 0: unset */
    int handler_count;
    policy_handler *handlers;
    signed char strategy_by_code[POLICY_CODE_COUNT]; /* -1: no handler */
};

/* Appends a problem; never fails loudly: past RESPITE_POLICY_MAX_PROBLEMS it
 * only counts, and on allocation failure it marks the list. */
void respite_internal_problems_add(respite_problems *problems, const char *pointer, int line, int column,
                                   const char *fmt, ...)
    RESPITE_PRINTF(5, 6);
/* Problems dropped past the limit, and whether an allocation failed. */
int respite_internal_problems_dropped(const respite_problems *problems);
int respite_internal_problems_out_of_memory(const respite_problems *problems);
void respite_internal_problems_mark_out_of_memory(respite_problems *problems);
/* Copies every problem of src to the end of dst (dst may be NULL). */
int respite_internal_problems_append_all(respite_problems *dst, const respite_problems *src);

/* Builds the policy from a parsed document, or lists its problems in
 * `found` and returns NULL. */
respite_policy *respite_internal_policy_from_document(const json_t *document, respite_problems *found);

/* The end of every make-a-policy call: on success returns policy; on
 * failure copies `found` to `problems` and fills err (invalid_policy with
 * the first problem, or no_memory). Frees `found`. */
respite_policy *respite_internal_policy_finish(respite_policy *policy, respite_problems *found,
                                               respite_problems *problems, respite_error *err);

/* A policy with its name and room for handler_count handlers, every
 * other field unset; NULL when out of memory. */
respite_policy *respite_internal_policy_alloc(const char *name, int handler_count);
/* Fills handler `index` (codes copied and sorted for POLICY_ON_CODES) and
 * the code table; 0, or -1 when out of memory. */
int respite_internal_policy_set_handler(respite_policy *policy, int index, int on_kind, int strategy, const int *codes,
                                        int code_count);

#endif /* RESPITE_POLICY_INTERNAL_H */
