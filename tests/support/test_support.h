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

#include <stdio.h>
#include <string.h>
#include <time.h>

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

/* Settings from "name=value,name=value" (values as text). */
static inline respite_settings *settings_of(const char *component, const char *pairs)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *s = respite_settings_new(component, &err);
    if (!s)
        fail_msg("settings %s: %s", component, err.message);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", pairs ? pairs : "");
    char *save = NULL;
    for (char *pair = strtok_r(buf, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq)
            fail_msg("bad pair %s", pair);
        *eq = '\0';
        if (respite_settings_set_text(s, pair, eq + 1, &err) != RESPITE_OK)
            fail_msg("%s=%s: %s", pair, eq + 1, err.message);
    }
    return s;
}

static inline void sleep_for(double seconds)
{
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
}

#endif /* RESPITE_TEST_SUPPORT_H */
