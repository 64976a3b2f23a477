/* Policies made without JSON: the builder records what it is given as the
 * JSON document it stands for, and build validates that document, so both
 * paths give the same problems with the same pointers and messages. */
#include "policy_internal.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct respite_policy_builder {
    json_t *document;
    json_t *handlers;
};

static int closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_POLICY_BUILDER, err);
}

static int out_of_memory(respite_error *err)
{
    return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory building a policy");
}

respite_policy_builder *respite_policy_builder_new(const char *name, int maximum_capacity, respite_error *err)
{
    respite_policy_builder *builder = calloc(1, sizeof *builder);
    if (builder) {
        builder->document = json_object();
        builder->handlers = json_array();
        /* The text is checked at build (a name that is not UTF-8 is a
         * problem there), hence _nocheck. */
        if (builder->document && builder->handlers &&
            (!name || json_object_set_new(builder->document, "name", json_string_nocheck(name)) == 0) &&
            json_object_set_new(builder->document, "maximum_capacity", json_integer(maximum_capacity)) == 0 &&
            json_object_set(builder->document, "error_handlers", builder->handlers) == 0)
            return builder;
        respite_policy_builder_free(builder);
    }
    out_of_memory(err);
    return NULL;
}

void respite_policy_builder_free(respite_policy_builder *builder)
{
    if (!builder)
        return;
    json_decref(builder->handlers);
    json_decref(builder->document);
    free(builder);
}

/* A piece of on_text as JSON: an integer when it is one, else the text. */
static json_t *code_value(const char *start, size_t length)
{
    while (length && isspace((unsigned char)*start))
        start++, length--;
    while (length && isspace((unsigned char)start[length - 1]))
        length--;
    char text[32];
    if (length > 0 && length < sizeof text) {
        memcpy(text, start, length);
        text[length] = '\0';
        char *end;
        errno = 0;
        long long value = strtoll(text, &end, 10);
        if (*end == '\0' && errno == 0 && (isdigit((unsigned char)text[0]) || text[0] == '-' || text[0] == '+'))
            return json_integer(value);
    }
    return json_stringn_nocheck(start, length);
}

/* "404,500" stands for [404, 500]; one integer for [404]; other text for
 * the string itself, so "client_error" and "invalid_error" read as in JSON. */
static json_t *on_value(const char *text)
{
    int is_list = strchr(text, ',') != NULL;
    if (!is_list) {
        json_t *single = code_value(text, strlen(text));
        if (!json_is_integer(single))
            return single;
        json_decref(single);
    }
    json_t *codes = json_array();
    const char *start = text;
    for (;;) {
        const char *comma = strchr(start, ',');
        size_t length = comma ? (size_t)(comma - start) : strlen(start);
        if (!codes || json_array_append_new(codes, code_value(start, length)) != 0) {
            json_decref(codes);
            return NULL;
        }
        if (!comma)
            return codes;
        start = comma + 1;
    }
}

int respite_policy_builder_add_handler(respite_policy_builder *builder, const char *on_text,
                                       const char *strategy_text, respite_error *err)
{
    if (!builder)
        return closed(err);
    json_t *handler = json_object();
    if (!handler)
        return out_of_memory(err);
    int failed = 0;
    if (on_text) {
        json_t *on = on_value(on_text);
        failed |= !on || json_object_set_new(handler, "on", on) != 0;
    }
    if (strategy_text)
        failed |= json_object_set_new(handler, "strategy", json_string_nocheck(strategy_text)) != 0;
    if (failed || json_array_append_new(builder->handlers, handler) != 0) {
        if (failed)
            json_decref(handler);
        return out_of_memory(err);
    }
    return RESPITE_OK;
}

static int set_integer(respite_policy_builder *builder, const char *key, int value, respite_error *err)
{
    if (!builder)
        return closed(err);
    if (json_object_set_new(builder->document, key, json_integer(value)) != 0)
        return out_of_memory(err);
    return RESPITE_OK;
}

int respite_policy_builder_set_retry_times(respite_policy_builder *builder, int retry_times, respite_error *err)
{
    return set_integer(builder, "retry_times", retry_times, err);
}

int respite_policy_builder_set_event_ttl(respite_policy_builder *builder, int event_ttl, respite_error *err)
{
    return set_integer(builder, "event_ttl", event_ttl, err);
}

int respite_policy_builder_set_prefetch_count(respite_policy_builder *builder, int prefetch_count,
                                              respite_error *err)
{
    return set_integer(builder, "prefetch_count", prefetch_count, err);
}

respite_policy *respite_policy_builder_build(const respite_policy_builder *builder, respite_problems *problems,
                                             respite_error *err)
{
    if (!builder) {
        closed(err);
        return NULL;
    }
    respite_problems *found = respite_problems_new(err);
    if (!found)
        return NULL;
    return respite_internal_policy_finish(respite_internal_policy_from_document(builder->document, found), found,
                                          problems, err);
}
