/* Small helpers more than one test file needs: handles made in one call
 * that fail the test (with the core's message) when they cannot be made. */
#ifndef RESPITE_TEST_SUPPORT_H
#define RESPITE_TEST_SUPPORT_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "respite.h"

/* Settings for a component or profile. */
static inline respite_settings *new_settings(const char *component)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new(component, &err);
    if (!s)
        fail_msg("respite_settings_new(%s): %s", component, err.message);
    return s;
}

/* The policy a JSON document describes. */
static inline respite_policy *policy_from(const char *json)
{
    respite_error err;
    respite_error_clear(&err);
    respite_policy *p = respite_policy_from_json(json, NULL, &err);
    if (!p)
        fail_msg("policy %s: %s", json, err.message);
    return p;
}

/* A "gate" profile gate that opens after `failures` counted failures for
 * `recovery_seconds`. */
static inline respite_gate *gate_with(int failures, double recovery_seconds)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new("gate", &err);
    if (!s || respite_settings_set_number(s, "failures_to_enter_recovery", failures, &err) != RESPITE_OK ||
        respite_settings_set_number(s, "recovery_seconds", recovery_seconds, &err) != RESPITE_OK)
        fail_msg("gate settings: %s", err.message);
    respite_gate *g = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!g)
        fail_msg("respite_gate_new: %s", err.message);
    return g;
}

#endif /* RESPITE_TEST_SUPPORT_H */
