/* respite-conformance-c < SCENARIOS
 *
 * Reads normalised scenarios from stdin, one JSON line each (conformance/run
 * writes them; `conformance/run --normalised` prints them), and prints one
 * JSON line per scenario:
 *   {"id": ..., "steps": [observation, ...]}   or   {"id": ..., "error": {error observation}}
 * Exit status 0 when every line was read, 2 when one was not JSON. */
#include "runner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *run_scenario(json_t *scenario)
{
    json_t *result = json_object();
    json_object_set(result, "id", json_object_get(scenario, "id"));
    const char *name = json_string_value(json_object_get(scenario, "component"));
    const component *c = component_named(name);
    json_t *failure = NULL;
    void *state = c ? c->open(scenario, &failure) : NULL;
    if (!state) {
        if (!c)
            failure = observe_runner_error("unknown component '%s'", name ? name : "");
        json_object_set(result, "error", json_object_get(failure, "error")); /* the error observation's object */
        json_decref(failure);
        return result;
    }
    json_t *observed = json_array();
    double now = 0.0;
    size_t i;
    json_t *step;
    json_array_foreach(json_object_get(scenario, "steps"), i, step) {
        json_array_append_new(observed, run_step(c, state, step, &now, NULL));
    }
    c->close(state);
    json_object_set_new(result, "steps", observed);
    return result;
}

int main(void)
{
    int status = 0;
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) > 0) {
        json_error_t parse_error;
        json_t *scenario = json_loads(line, JSON_REJECT_DUPLICATES, &parse_error);
        json_t *result;
        if (!scenario) {
            result = json_pack("{s:s,s:o}", "id", "?", "error", observe_runner_error("%s", parse_error.text));
            status = 2;
        } else {
            result = run_scenario(scenario);
        }
        char *text = json_dumps(result, JSON_COMPACT | JSON_REAL_PRECISION(17));
        printf("%s\n", text);
        fflush(stdout);
        free(text);
        json_decref(result);
        json_decref(scenario);
    }
    free(line);
    return status;
}
