/*
 * respite/policy.h - delivery policies (docs/spec.md section 4, rules P1-P22,
 * D1-D3, D7, D8): what happens to an event whose delivery failed.
 *
 * A policy is Astarte's trigger delivery policy:
 *   {"name": "edgehog", "maximum_capacity": 100, "retry_times": 3, "event_ttl": 30,
 *    "error_handlers": [{"on": "server_error", "strategy": "retry"},
 *                       {"on": "client_error", "strategy": "discard"}]}
 * It is made from JSON (respite_policy_from_json) or a builder, validated
 * once, and immutable afterwards: a policy is safe to share between threads
 * without locks. Validation lists EVERY problem, each with a JSON pointer.
 *
 * Problems and builders are not thread-safe; use one per thread.
 */
#ifndef RESPITE_POLICY_H
#define RESPITE_POLICY_H

#include "respite/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_policy respite_policy;                 /* immutable once made; safe to share */
typedef struct respite_problems respite_problems;             /* the list of validation problems */
typedef struct respite_policy_builder respite_policy_builder; /* a policy made without JSON */

typedef enum respite_strategy {
    RESPITE_STRATEGY_DISCARD = 0,
    RESPITE_STRATEGY_RETRY = 1
} respite_strategy;

/* Limits that protect the parser (P1, P3) and bound the report (P20). */
#define RESPITE_POLICY_MAX_BYTES 1048576
#define RESPITE_POLICY_MAX_DEPTH 32
#define RESPITE_POLICY_MAX_PROBLEMS 1000

/* ------------------------------------------------------------- problems */

RESPITE_API respite_problems *respite_problems_new(respite_error *err);
RESPITE_API void respite_problems_free(respite_problems *problems);
/* Removes every problem (err: closed for NULL). */
RESPITE_API int respite_problems_clear(respite_problems *problems, respite_error *err);
/* Number of problems; 0 for NULL. */
RESPITE_API int respite_problems_count(const respite_problems *problems);
/* Problem `index` (0-based): its JSON pointer ("" for the whole document,
 * "/error_handlers/0/on"), its message, and for a syntax error the line and
 * column jansson reports (0 otherwise). NULL / 0 when out of range. */
RESPITE_API const char *respite_problems_pointer(const respite_problems *problems, int index);
RESPITE_API const char *respite_problems_message(const respite_problems *problems, int index);
RESPITE_API int respite_problems_line(const respite_problems *problems, int index);
RESPITE_API int respite_problems_column(const respite_problems *problems, int index);

/* --------------------------------------------------------------- policy */

/* Parses and validates a NUL-terminated JSON document. On failure returns
 * NULL with err = invalid_policy whose message is the first problem
 * ("<pointer>: <message>", or only "<message>" for the whole document) plus
 * " (and N more problems)"; every problem is appended to `problems` when it
 * is not NULL. A NULL json gives invalid_argument. */
RESPITE_API respite_policy *respite_policy_from_json(const char *json, respite_problems *problems, respite_error *err);
/* As respite_policy_from_json for `length` bytes that need no terminator
 * (a NUL byte inside them is a syntax error). */
RESPITE_API respite_policy *respite_policy_from_json_n(const char *json, size_t length, respite_problems *problems,
                                                       respite_error *err);
/* D8: the built-in "@default" policy: any_error -> discard, capacity 1000. */
RESPITE_API respite_policy *respite_policy_default(respite_error *err);
/* Drops the caller's reference; the policy is freed when its last holder
 * (its creator, a queue or a sender using it) lets go. NULL: no-op. */
RESPITE_API void respite_policy_free(respite_policy *policy);
/* Takes one more reference (released with respite_policy_free); returns
 * policy. Policies are immutable, so holders share one. */
RESPITE_API const respite_policy *respite_policy_retain(const respite_policy *policy);

/* Accessors; NULL / 0 for a NULL policy. */
RESPITE_API const char *respite_policy_name(const respite_policy *policy);
RESPITE_API int respite_policy_maximum_capacity(const respite_policy *policy);
RESPITE_API int respite_policy_retry_times(const respite_policy *policy);    /* 0 when nothing retries */
RESPITE_API int respite_policy_event_ttl(const respite_policy *policy);      /* seconds; 0 when unset */
RESPITE_API int respite_policy_prefetch_count(const respite_policy *policy); /* 1 when unset (D7) */
/* 1 when the policy sets prefetch_count itself, 0 when unset (or NULL). */
RESPITE_API int respite_policy_has_prefetch_count(const respite_policy *policy);
RESPITE_API int respite_policy_handler_count(const respite_policy *policy);
/* Handler `index`: its "on" as text ("client_error", "server_error",
 * "any_error" or codes as "404,500"), and its strategy (-1 / NULL when out
 * of range). The text stays valid while the policy lives. */
RESPITE_API const char *respite_policy_handler_on(const respite_policy *policy, int index);
RESPITE_API int respite_policy_handler_strategy(const respite_policy *policy, int index);

/* D2: the strategy for a failed attempt. A transport failure
 * (transport_failed != 0, http_status ignored) matches as 503; a status no
 * handler covers gives discard. When transport_failed is 0, a status outside
 * 400-599 gives -1 and err invalid_argument (D1: 2xx/3xx are deliveries,
 * not failures). NULL policy: -1, closed. */
RESPITE_API int respite_policy_strategy_for(const respite_policy *policy, int transport_failed, int http_status,
                                            respite_error *err);

/* "discard" / "retry"; NULL for a value that is not a strategy. */
RESPITE_API const char *respite_strategy_name(int strategy);

/* The policy as canonical JSON: compact, keys in the order name,
 * maximum_capacity, error_handlers, retry_times, event_ttl, prefetch_count
 * (unset ones left out), codes sorted. Reads back as an equal policy.
 * Free with respite_free_string. NULL and err on failure. */
RESPITE_API char *respite_policy_to_json(const respite_policy *policy, respite_error *err);
/* Frees text returned by respite; NULL is a no-op. */
RESPITE_API void respite_free_string(char *text);

/* -------------------------------------------------------------- builder */

/* A policy without JSON. Setters record values without checking them;
 * build validates with exactly the rules and messages of the JSON path, the
 * pointers naming the JSON field the value stands for. name may be NULL
 * (reported as missing at build). */
RESPITE_API respite_policy_builder *respite_policy_builder_new(const char *name, int maximum_capacity, respite_error *err);
RESPITE_API void respite_policy_builder_free(respite_policy_builder *builder);
/* on_text: "client_error", "server_error", "any_error" or comma-separated
 * codes ("404,500", spaces allowed); strategy_text: "discard" or "retry".
 * Appends handler number respite_policy_handler_count-style, in call order. */
RESPITE_API int respite_policy_builder_add_handler(respite_policy_builder *builder, const char *on_text,
                                                   const char *strategy_text, respite_error *err);
RESPITE_API int respite_policy_builder_set_retry_times(respite_policy_builder *builder, int retry_times, respite_error *err);
RESPITE_API int respite_policy_builder_set_event_ttl(respite_policy_builder *builder, int event_ttl, respite_error *err);
RESPITE_API int respite_policy_builder_set_prefetch_count(respite_policy_builder *builder, int prefetch_count,
                                                          respite_error *err);
/* Validates and makes the policy (the builder stays usable); as
 * respite_policy_from_json on failure. */
RESPITE_API respite_policy *respite_policy_builder_build(const respite_policy_builder *builder, respite_problems *problems,
                                                         respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_POLICY_H */
