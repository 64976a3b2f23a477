/* What every reader of a scenario shares (the runner's main and `respite
 * simulate`): which component it names and how one step runs, so both read
 * scenarios exactly alike. */
#include "runner.h"

#include <string.h>

static const component *const components[] = {
    &settings_component, &outcome_component, &gate_component,
    &backoff_component,  &policy_component,  &delivery_component,
};

const component *component_named(const char *name)
{
    for (size_t i = 0; name && i < sizeof components / sizeof components[0]; i++)
        if (strcmp(components[i]->name, name) == 0)
            return components[i];
    return NULL;
}

/* Keys of a step that are not its action. */
static int is_step_modifier(const char *key)
{
    return strcmp(key, "at") == 0 || strcmp(key, "repeat") == 0 || strcmp(key, "expect") == 0 ||
           strcmp(key, "comment") == 0 || strcmp(key, "handle") == 0;
}

/* A step's "at": a number, or a string naming a double JSON cannot write
 * ("nan"/"inf"/"-inf" in a scenario, "NaN"/"Infinity"/"-Infinity" from
 * the driver; strtod reads both). 0 when it is neither. */
static int step_time(json_t *at, double *now)
{
    if (json_is_number(at))
        *now = json_number_value(at);
    else if (!json_is_string(at) || !special_number(json_string_value(at), now))
        return 0;
    return 1;
}

json_t *run_step(const component *c, void *state, json_t *step, double *now, step_parts *parts)
{
    json_t *repeat_value = json_object_get(step, "repeat");
    json_int_t repeat = json_is_integer(repeat_value) ? json_integer_value(repeat_value) : 1;
    step_parts seen = {"?", NULL, repeat};
    const char *key, *action = NULL;
    json_t *value;
    json_t *observed = NULL;
    json_object_foreach(step, key, value) {
        if (is_step_modifier(key))
            continue;
        if (action) {
            observed = observe_runner_error("a step has one action (got '%s' and '%s')", action, key);
            goto done;
        }
        action = seen.action = key;
        seen.arg = value;
    }
    if (!action) {
        observed = observe_runner_error("a step needs an action");
        goto done;
    }
    json_t *at = json_object_get(step, "at");
    if (at && !step_time(at, now)) {
        observed = observe_runner_error("\"at\" must be a number, \"nan\", \"inf\" or \"-inf\"");
        goto done;
    }
    json_t *handle = json_object_get(step, "handle");
    if (handle) {
        json_int_t h = json_is_integer(handle) ? json_integer_value(handle) : -1;
        if (h < 0 || (c->use_handle ? c->use_handle(state, h) : h) != 0) {
            observed = observe_runner_error("\"handle\" must be the index of one of the %s's handles", c->name);
            goto done;
        }
    }
    for (json_int_t i = 0; i < repeat; i++) {
        json_decref(observed);
        observed = c->step(state, action, seen.arg, *now);
        if (json_object_get(observed, "error"))
            break; /* a repeated action stops at its first error */
    }
done:
    if (parts)
        *parts = seen;
    return observed;
}
