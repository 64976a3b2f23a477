/* Delivery policies once validated (spec D1-D3, D7, D8): accessors, the
 * handler lookup of D2, the built-in @default policy and canonical JSON.
 * A policy never changes after it is made, so it is shared without locks. */
#include "policy_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const on_kind_names[] = {"client_error", "server_error", "any_error"};
static const char *const strategy_names[] = {"discard", "retry"};

const char *respite_strategy_name(int strategy)
{
    if (strategy < 0 || strategy > RESPITE_STRATEGY_RETRY)
        return NULL;
    return strategy_names[strategy];
}

respite_policy *respite_internal_policy_alloc(const char *name, int handler_count)
{
    respite_policy *policy = calloc(1, sizeof *policy);
    if (!policy)
        return NULL;
    atomic_init(&policy->refs, 1);
    policy->name = policy_copy(name);
    policy->handlers = calloc(handler_count > 0 ? (size_t)handler_count : 1, sizeof *policy->handlers);
    if (!policy->name || !policy->handlers) {
        free(policy->name);
        free(policy->handlers);
        free(policy);
        return NULL;
    }
    policy->handler_count = handler_count;
    memset(policy->strategy_by_code, -1, sizeof policy->strategy_by_code);
    return policy;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int respite_internal_policy_set_handler(respite_policy *policy, int index, int on_kind, int strategy, const int *codes,
                                        int code_count)
{
    policy_handler *h = &policy->handlers[index];
    h->on_kind = on_kind;
    h->strategy = strategy;
    int first = POLICY_CODE_FIRST, last = POLICY_CODE_LAST;
    if (on_kind == POLICY_ON_CLIENT_ERROR)
        last = 499;
    else if (on_kind == POLICY_ON_SERVER_ERROR)
        first = 500;
    if (on_kind != POLICY_ON_CODES) {
        h->on_text = policy_copy(on_kind_names[on_kind]);
        if (!h->on_text)
            return -1;
        for (int code = first; code <= last; code++)
            policy->strategy_by_code[code - POLICY_CODE_FIRST] = (signed char)strategy;
        return 0;
    }
    h->codes = malloc((size_t)code_count * sizeof *h->codes);
    h->on_text = malloc((size_t)code_count * 4 + 1); /* "404," per code */
    if (!h->codes || !h->on_text)
        return -1;
    memcpy(h->codes, codes, (size_t)code_count * sizeof *codes);
    qsort(h->codes, (size_t)code_count, sizeof *h->codes, compare_ints);
    h->code_count = code_count;
    char *out = h->on_text;
    for (int i = 0; i < code_count; i++) {
        out += sprintf(out, i ? ",%d" : "%d", h->codes[i]);
        policy->strategy_by_code[h->codes[i] - POLICY_CODE_FIRST] = (signed char)strategy;
    }
    return 0;
}

const respite_policy *respite_policy_retain(const respite_policy *policy)
{
    if (policy)
        atomic_fetch_add_explicit(&((respite_policy *)policy)->refs, 1, memory_order_relaxed);
    return policy;
}

void respite_policy_free(respite_policy *policy)
{
    if (!policy || atomic_fetch_sub_explicit(&policy->refs, 1, memory_order_acq_rel) != 1)
        return;
    for (int i = 0; i < policy->handler_count; i++) {
        free(policy->handlers[i].codes);
        free(policy->handlers[i].on_text);
    }
    free(policy->handlers);
    free(policy->name);
    free(policy);
}

respite_policy *respite_policy_default(respite_error *err)
{
    respite_policy *policy = respite_internal_policy_alloc("@default", 1);
    if (policy) {
        policy->maximum_capacity = 1000;
        if (respite_internal_policy_set_handler(policy, 0, POLICY_ON_ANY_ERROR, RESPITE_STRATEGY_DISCARD, NULL, 0) == 0)
            return policy;
        respite_policy_free(policy);
    }
    respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory making the @default policy");
    return NULL;
}

const char *respite_policy_name(const respite_policy *policy)
{
    return policy ? policy->name : NULL;
}

int respite_policy_maximum_capacity(const respite_policy *policy)
{
    return policy ? policy->maximum_capacity : 0;
}

int respite_policy_retry_times(const respite_policy *policy)
{
    return policy ? policy->retry_times : 0;
}

int respite_policy_event_ttl(const respite_policy *policy)
{
    return policy ? policy->event_ttl : 0;
}

int respite_policy_prefetch_count(const respite_policy *policy)
{
    if (!policy)
        return 0;
    return policy->prefetch_count ? policy->prefetch_count : 1;
}

int respite_policy_has_prefetch_count(const respite_policy *policy)
{
    return policy && policy->prefetch_count ? 1 : 0;
}

int respite_policy_handler_count(const respite_policy *policy)
{
    return policy ? policy->handler_count : 0;
}

const char *respite_policy_handler_on(const respite_policy *policy, int index)
{
    if (!policy || index < 0 || index >= policy->handler_count)
        return NULL;
    return policy->handlers[index].on_text;
}

int respite_policy_handler_strategy(const respite_policy *policy, int index)
{
    if (!policy || index < 0 || index >= policy->handler_count)
        return -1;
    return policy->handlers[index].strategy;
}

int respite_policy_find_strategy(const respite_policy *policy, int transport_failed, int http_status, int *strategy,
                                 respite_error *err)
{
    if (!policy)
        return respite_closed(RESPITE_HANDLE_POLICY, err);
    /* D2: a request that did not complete is matched as 503, as Astarte does. */
    int code = transport_failed ? 503 : http_status;
    if (code < POLICY_CODE_FIRST || code > POLICY_CODE_LAST)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "http_status must be an HTTP error code from 400 to 599 when transport_failed is 0 "
                            "(got %d)",
                            http_status);
    int found = policy->strategy_by_code[code - POLICY_CODE_FIRST];
    *strategy = found < 0 ? RESPITE_STRATEGY_DISCARD : found;
    return RESPITE_OK;
}

int respite_policy_strategy_for(const respite_policy *policy, int transport_failed, int http_status,
                                respite_error *err)
{
    int strategy = -1;
    if (respite_policy_find_strategy(policy, transport_failed, http_status, &strategy, err) != RESPITE_OK)
        return -1;
    return strategy;
}

static int add_integer(json_t *object, const char *key, int value)
{
    return json_object_set_new(object, key, json_integer(value));
}

static json_t *handler_to_json(const policy_handler *h)
{
    json_t *on;
    if (h->on_kind == POLICY_ON_CODES) {
        on = json_array();
        for (int i = 0; on && i < h->code_count; i++)
            if (json_array_append_new(on, json_integer(h->codes[i])) != 0) {
                json_decref(on);
                on = NULL;
            }
    } else {
        on = json_string(h->on_text);
    }
    json_t *handler = json_object();
    if (!handler || json_object_set_new(handler, "on", on) != 0 ||
        json_object_set_new(handler, "strategy", json_string(strategy_names[h->strategy])) != 0) {
        json_decref(handler);
        return NULL;
    }
    return handler;
}

char *respite_policy_to_json(const respite_policy *policy, respite_error *err)
{
    if (!policy)
        return respite_closed(RESPITE_HANDLE_POLICY, err), NULL;
    json_t *document = json_object();
    json_t *handlers = json_array();
    int failed = !document || !handlers;
    if (!failed) {
        failed |= json_object_set_new(document, "name", json_string(policy->name)) != 0;
        failed |= add_integer(document, "maximum_capacity", policy->maximum_capacity) != 0;
        for (int i = 0; i < policy->handler_count; i++)
            failed |= json_array_append_new(handlers, handler_to_json(&policy->handlers[i])) != 0;
        failed |= json_object_set(document, "error_handlers", handlers) != 0;
        if (policy->retry_times)
            failed |= add_integer(document, "retry_times", policy->retry_times) != 0;
        if (policy->event_ttl)
            failed |= add_integer(document, "event_ttl", policy->event_ttl) != 0;
        if (policy->prefetch_count)
            failed |= add_integer(document, "prefetch_count", policy->prefetch_count) != 0;
    }
    char *text = failed ? NULL : json_dumps(document, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(handlers);
    json_decref(document);
    if (!text)
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory writing the policy as JSON");
    return text;
}

void respite_free_string(char *text)
{
    free(text); /* jansson allocates with malloc unless told otherwise */
}

/* Cuts text to fit size bytes without splitting a UTF-8 character. */
static void copy_utf8(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80)
            n--;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

respite_policy *respite_internal_policy_finish(respite_policy *policy, respite_problems *found,
                                               respite_problems *problems, respite_error *err)
{
    if (policy) {
        respite_problems_free(found);
        return policy;
    }
    int count = respite_problems_count(found);
    if (!found || respite_internal_problems_out_of_memory(found) || count == 0 ||
        respite_internal_problems_append_all(problems, found) != RESPITE_OK) {
        respite_problems_free(found);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory validating the policy");
        return NULL;
    }
    if (err) {
        /* "<pointer>: <message> (and N more problems)"; the first part is
         * shortened to fit, the count is always kept. */
        const char *pointer = respite_problems_pointer(found, 0);
        const char *message = respite_problems_message(found, 0);
        int more = count - 1 + respite_internal_problems_dropped(found);
        char suffix[64] = "";
        if (more > 0)
            snprintf(suffix, sizeof suffix, " (and %d more problem%s)", more, more == 1 ? "" : "s");
        size_t room = sizeof err->message - strlen(suffix);
        size_t pointer_room = strlen(pointer) + 3 < room ? strlen(pointer) + 3 : room;
        char *out = err->message;
        if (pointer[0]) {
            copy_utf8(out, pointer_room - 2, pointer);
            strcat(out, ": ");
        } else {
            out[0] = '\0';
        }
        size_t used = strlen(out);
        copy_utf8(out + used, room - used, message);
        strcat(out, suffix);
        err->status = RESPITE_E_INVALID_POLICY;
        err->setting[0] = '\0';
        err->retry_after = 0.0;
    }
    respite_problems_free(found);
    return NULL;
}
