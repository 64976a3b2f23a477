/* Component "policy": validation and the strategy for a failed attempt.
 *   validate {"document": value} | {"text": "raw JSON", "pad": n?} | {"hex": "bytes in hex"}
 *        -> {"valid": true, "policy": canonical, "fields": {...}}
 *         | {"valid": false, "message", "problems": [...]}
 *   build {"name", "maximum_capacity", "handlers": [{"on", "strategy"}], "retry_times"?,
 *          "event_ttl"?, "prefetch_count"?}                    -> as validate (builder path)
 *   default                                                    -> as validate (@default)
 *   strategy {"status": 503} | {"transport": true}  -> {"strategy": name} (last valid policy) */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct policy_state {
    respite_policy *policy; /* the last valid policy */
} policy_state;

static void *policy_open(json_t *scenario, json_t **failure)
{
    (void)scenario;
    (void)failure;
    return calloc(1, sizeof(policy_state));
}

static json_t *problems_to_json(const respite_problems *problems)
{
    json_t *list = json_array();
    for (int i = 0; i < respite_problems_count(problems); i++) {
        json_t *p = json_pack("{s:s,s:s}", "pointer", respite_problems_pointer(problems, i), "message",
                              respite_problems_message(problems, i));
        if (respite_problems_line(problems, i) > 0) {
            json_object_set_new(p, "line", json_integer(respite_problems_line(problems, i)));
            json_object_set_new(p, "column", json_integer(respite_problems_column(problems, i)));
        }
        json_array_append_new(list, p);
    }
    return list;
}

/* Keeps a made policy and describes it, or describes why there is none. */
static json_t *outcome_of_making(policy_state *s, respite_policy *made, respite_problems *problems,
                                 const respite_error *err)
{
    if (!made) {
        if (err->status != RESPITE_E_INVALID_POLICY)
            return observe_error(err);
        return json_pack("{s:b,s:s,s:o}", "valid", 0, "message", err->message, "problems",
                         problems_to_json(problems));
    }
    respite_policy_free(s->policy);
    s->policy = made;
    respite_error to_json_err = {0};
    char *text = respite_policy_to_json(made, &to_json_err);
    if (!text)
        return observe_error(&to_json_err);
    json_error_t parse_error;
    json_t *canonical = json_loads(text, 0, &parse_error);
    respite_free_string(text);
    if (!canonical)
        return observe_runner_error("respite_policy_to_json gave JSON that does not parse: %s", parse_error.text);
    json_t *fields = json_pack("{s:s,s:i,s:i,s:i,s:i}", "name", respite_policy_name(made), "maximum_capacity",
                               respite_policy_maximum_capacity(made), "retry_times", respite_policy_retry_times(made),
                               "event_ttl", respite_policy_event_ttl(made), "prefetch_count",
                               respite_policy_prefetch_count(made));
    return json_pack("{s:b,s:o,s:o}", "valid", 1, "policy", canonical, "fields", fields);
}

static json_t *validate(policy_state *s, json_t *arg)
{
    respite_error err = {0};
    json_t *text = json_object_get(arg, "text");
    json_t *document = json_object_get(arg, "document");
    char *owned = NULL;
    size_t length;
    const char *json;
    json_int_t pad = json_integer_value(json_object_get(arg, "pad"));
    if (json_is_string(text) && pad > 0) {
        /* the text followed by `pad` spaces: large documents without large files */
        length = json_string_length(text) + (size_t)pad;
        owned = malloc(length + 1);
        memcpy(owned, json_string_value(text), json_string_length(text));
        memset(owned + json_string_length(text), ' ', (size_t)pad);
        owned[length] = '\0';
        json = owned;
    } else if (json_is_string(text)) {
        json = json_string_value(text);
        length = json_string_length(text);
    } else if (json_is_string(json_object_get(arg, "hex"))) {
        /* bytes JSON text cannot carry (not UTF-8), written in hex */
        const char *hex = json_string_value(json_object_get(arg, "hex"));
        length = strlen(hex) / 2;
        owned = malloc(length + 1);
        for (size_t i = 0; i < length; i++) {
            unsigned byte;
            if (sscanf(hex + 2 * i, "%2x", &byte) != 1) {
                free(owned);
                return observe_runner_error("hex must be pairs of hexadecimal digits");
            }
            owned[i] = (char)byte;
        }
        owned[length] = '\0';
        json = owned;
    } else if (document) {
        owned = json_dumps(document, JSON_ENCODE_ANY | JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        json = owned;
        length = strlen(owned);
    } else {
        return observe_runner_error("validate takes {\"document\": value}, {\"text\": string} or {\"hex\": string}");
    }
    respite_problems *problems = respite_problems_new(&err);
    respite_policy *made = respite_policy_from_json_n(json, length, problems, &err);
    json_t *observed = outcome_of_making(s, made, problems, &err);
    respite_problems_free(problems);
    free(owned);
    return observed;
}

static int optional_int(respite_policy_builder *b, json_t *arg, const char *key,
                        int (*set)(respite_policy_builder *, int, respite_error *), respite_error *err)
{
    json_t *value = json_object_get(arg, key);
    return value ? set(b, (int)json_integer_value(value), err) : RESPITE_OK;
}

static json_t *build(policy_state *s, json_t *arg)
{
    respite_error err = {0};
    respite_policy_builder *b =
        respite_policy_builder_new(json_string_value(json_object_get(arg, "name")),
                                   (int)json_integer_value(json_object_get(arg, "maximum_capacity")), &err);
    if (!b)
        return observe_error(&err);
    size_t i;
    json_t *handler;
    json_array_foreach(json_object_get(arg, "handlers"), i, handler) {
        if (respite_policy_builder_add_handler(b, json_string_value(json_object_get(handler, "on")),
                                               json_string_value(json_object_get(handler, "strategy")), &err))
            break;
    }
    if (!err.status)
        optional_int(b, arg, "retry_times", respite_policy_builder_set_retry_times, &err);
    if (!err.status)
        optional_int(b, arg, "event_ttl", respite_policy_builder_set_event_ttl, &err);
    if (!err.status)
        optional_int(b, arg, "prefetch_count", respite_policy_builder_set_prefetch_count, &err);
    json_t *observed;
    if (err.status) {
        observed = observe_error(&err);
    } else {
        respite_problems *problems = respite_problems_new(&err);
        respite_policy *made = respite_policy_builder_build(b, problems, &err);
        observed = outcome_of_making(s, made, problems, &err);
        respite_problems_free(problems);
    }
    respite_policy_builder_free(b);
    return observed;
}

static json_t *policy_step(void *state, const char *action, json_t *arg, double now)
{
    (void)now;
    policy_state *s = state;
    respite_error err = {0};
    if (strcmp(action, "validate") == 0)
        return validate(s, arg);
    if (strcmp(action, "build") == 0)
        return build(s, arg);
    if (strcmp(action, "default") == 0)
        return outcome_of_making(s, respite_policy_default(&err), NULL, &err);
    if (strcmp(action, "strategy") == 0) {
        json_t *status = json_object_get(arg, "status");
        int strategy = respite_policy_strategy_for(s->policy, json_is_true(json_object_get(arg, "transport")),
                                                   status ? (int)json_integer_value(status) : 0, &err);
        return strategy < 0 ? observe_error(&err) : json_pack("{s:s}", "strategy", respite_strategy_name(strategy));
    }
    return observe_unknown_action("policy", action);
}

static void policy_close(void *state)
{
    policy_state *s = state;
    respite_policy_free(s->policy);
    free(s);
}

const component policy_component = {"policy", policy_open, policy_step, policy_close, NULL, NULL};
