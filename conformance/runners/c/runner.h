/* The C conformance runner: reads scenario files, drives the public C API
 * step by step and prints what it observed, one JSON line per scenario.
 * It compares nothing; conformance/run does (see conformance/README.md). */
#ifndef RESPITE_CONFORMANCE_RUNNER_H
#define RESPITE_CONFORMANCE_RUNNER_H

#include "respite.h"

#include <jansson.h>

/* One component of the vocabulary: open makes its handles from the
 * scenario's top-level fields (NULL and *failure set when it cannot),
 * step runs one action at `now` and returns the observation (new ref). */
typedef struct component {
    const char *name;
    void *(*open)(json_t *scenario, json_t **failure);
    json_t *(*step)(void *state, const char *action, json_t *arg, double now);
    void (*close)(void *state);
    /* The gate the component made and has not closed, or NULL (also NULL
     * for components without one): lets `respite simulate` read the gate's
     * state without driving it. */
    respite_gate *(*gate)(void *state);
    /* Selects which of its handles the next steps use (a step's "handle",
     * for a component opened with "handles" > 1): 0, or -1 when there is no
     * such handle. NULL for components with one handle. */
    int (*use_handle)(void *state, json_int_t handle);
} component;

extern const component settings_component;
extern const component outcome_component;
extern const component gate_component;
extern const component backoff_component;
extern const component policy_component;
extern const component delivery_component;

/* ---------------------------------------------------------- scenarios */

/* The component called name ("gate", ...), or NULL when none is (or name is NULL). */
const component *component_named(const char *name);

/* What a step asked for, as run_step read it (for showing the step). */
typedef struct step_parts {
    const char *action; /* "?" when the step names none */
    json_t *arg;        /* NULL when none */
    json_int_t repeat;  /* 1 unless "repeat" says otherwise */
} step_parts;

/* Runs one step on the component: moves *now to its "at", runs its action
 * "repeat" times (stopping at the first error) and returns the last
 * observation (new ref); a malformed step gives a runner error. Fills
 * *parts when not NULL. */
json_t *run_step(const component *c, void *state, json_t *step, double *now, step_parts *parts);

/* ------------------------------------------------------ observations */

/* {"error": {"status", "message", "setting"?, "retry_after"?}} from err. */
json_t *observe_error(const respite_error *err);
/* {"error": {"status": "runner", "message": ...}}: the scenario asked for
 * something this runner cannot do (a bad argument, an unknown action). */
json_t *observe_runner_error(const char *fmt, ...);
/* {"error": ...} for an action the component does not know. */
json_t *observe_unknown_action(const char *component, const char *action);
/* A number as JSON; INFINITY as null (retry_after under recover_never). */
json_t *json_number_or_null(double value);
/* An empty observation: the action succeeded and returns nothing. */
json_t *observe_ok(void);

/* {"type", "at", "line" (respite_event_message), and the figures of that
 * type} (see the README). */
json_t *event_to_json(const respite_event *event);

/* ------------------------------------------------------- arguments */

/* Reads a number from an integer or real; `fallback` when absent. Sets *bad
 * when present but not a number. */
double arg_number(json_t *object, const char *key, double fallback, int *bad);

/* The outcome an argument stands for: a name ("server_error"), or an object
 * {"outcome": name} | {"status": 503, "usable": true} | {"transport": true}.
 * Sets *http_status (0 when none). Returns -1 and fills err on bad input. */
int arg_outcome(json_t *arg, int *http_status, respite_error *err);

/* Reads text naming a double JSON cannot write ("NaN", "Infinity",
 * "-Infinity"; also "nan", "inf", "-inf"): 1 and *value, else 0. */
int special_number(const char *text, double *value);

/* A settings bag for component_or_profile with `values` applied in order
 * (integers with set_integer, reals and {"number": "NaN"} with set_number,
 * booleans with set_boolean, strings with set_text), then validated. NULL and err on the
 * first failure. values may be NULL. */
respite_settings *settings_from_json(const char *component_or_profile, json_t *values, respite_error *err);

#endif
