/* Component "outcome": classification and which outcomes count.
 *   classify {"status": 404, "usable": true} | {"transport": true} -> {"outcome": name}
 *   counts {"outcome": name, "count_all_failures": false}          -> {"counts": bool}
 *   parse "name"                                                   -> {"outcome": name} */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

static void *outcome_open(json_t *scenario, json_t **failure)
{
    (void)scenario;
    (void)failure;
    static int no_state;
    return &no_state;
}

static json_t *outcome_step(void *state, const char *action, json_t *arg, double now)
{
    (void)state;
    (void)now;
    respite_error err = {0};
    if (strcmp(action, "classify") == 0) {
        if (!json_is_object(arg))
            return observe_runner_error("classify takes an object");
        json_t *status = json_object_get(arg, "status");
        json_t *usable = json_object_get(arg, "usable");
        int outcome = respite_classify(json_is_true(json_object_get(arg, "transport")),
                                       status ? (int)json_integer_value(status) : 0,
                                       usable ? json_is_true(usable) : 1, &err);
        if (outcome < 0)
            return observe_error(&err);
        return json_pack("{s:s}", "outcome", respite_outcome_name(outcome));
    }
    if (strcmp(action, "counts") == 0) {
        int outcome = respite_outcome_from_name(json_string_value(json_object_get(arg, "outcome")), &err);
        if (outcome < 0)
            return observe_error(&err);
        int counts = respite_outcome_counts(outcome, json_is_true(json_object_get(arg, "count_all_failures")));
        return json_pack("{s:b}", "counts", counts);
    }
    if (strcmp(action, "parse") == 0) {
        int outcome = respite_outcome_from_name(json_string_value(arg), &err);
        if (outcome < 0)
            return observe_error(&err);
        return json_pack("{s:s}", "outcome", respite_outcome_name(outcome));
    }
    return observe_unknown_action("outcome", action);
}

static void outcome_close(void *state)
{
    (void)state;
}

const component outcome_component = {"outcome", outcome_open, outcome_step, outcome_close, NULL, NULL};
