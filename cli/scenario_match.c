/* The conformance driver's matching rules, in C, for `respite simulate`. */
#include "scenario_match.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOLERANCE 1e-9

static void describe(json_t *value, char *buf, size_t size)
{
    char *text = value ? json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(15)) : NULL;
    const char *shown = text ? text : "nothing";
    if (strlen(shown) > 80)
        snprintf(buf, size, "%.77s...", shown);
    else
        snprintf(buf, size, "%s", shown);
    free(text);
}

static int fail(char *reason, size_t size, const char *path, json_t *expected, json_t *observed)
{
    char e[96], o[96];
    describe(expected, e, sizeof e);
    describe(observed, o, sizeof o);
    snprintf(reason, size, "%s: expected %s, got %s", *path ? path : "/", e, o);
    return 0;
}

static int numbers_close(double expected, double observed)
{
    if (isnan(expected) || isnan(observed))
        return 0;
    return fabs(expected - observed) <= TOLERANCE * fmax(1.0, fabs(expected));
}

static int match_at(json_t *expected, json_t *observed, const char *path, char *reason, size_t size)
{
    char child[512];
    if (json_is_object(expected)) {
        if (!json_is_object(observed))
            return fail(reason, size, path, expected, observed);
        const char *key;
        json_t *value;
        json_object_foreach(expected, key, value) {
            snprintf(child, sizeof child, "%s/%s", path, key);
            json_t *seen = json_object_get(observed, key);
            if (!seen) {
                char e[96];
                describe(value, e, sizeof e);
                snprintf(reason, size, "%s: missing (expected %s)", child, e);
                return 0;
            }
            if (!match_at(value, seen, child, reason, size))
                return 0;
        }
        return 1;
    }
    if (json_is_array(expected)) {
        if (!json_is_array(observed) || json_array_size(observed) != json_array_size(expected))
            return fail(reason, size, path, expected, observed);
        size_t i;
        json_t *value;
        json_array_foreach(expected, i, value) {
            snprintf(child, sizeof child, "%s/%zu", path, i);
            if (!match_at(value, json_array_get(observed, i), child, reason, size))
                return 0;
        }
        return 1;
    }
    if (json_is_number(expected) && json_is_number(observed))
        return numbers_close(json_number_value(expected), json_number_value(observed)) ?
                   1 : fail(reason, size, path, expected, observed);
    /* strings, booleans, null: same type and value */
    return json_equal(expected, observed) ? 1 : fail(reason, size, path, expected, observed);
}

int scenario_match(json_t *expected, json_t *observed, char *reason, size_t size)
{
    return match_at(expected, observed, "", reason, size);
}

int scenario_step_passes(json_t *expect, json_t *observed, char *reason, size_t size)
{
    json_t *error = json_object_get(observed, "error");
    if (error && !(expect && json_object_get(expect, "error"))) {
        char e[96];
        describe(error, e, sizeof e);
        snprintf(reason, size, "unexpected error %s", e);
        return 0;
    }
    if (!expect)
        return 1;
    return scenario_match(expect, observed, reason, size);
}
