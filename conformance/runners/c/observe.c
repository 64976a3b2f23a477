/* Observations and argument parsing shared by every component. */
#include "runner.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

json_t *json_number_or_null(double value)
{
    if (isinf(value) && value > 0)
        return json_null();
    json_t *number = json_real(value);
    return number ? number : json_null(); /* NaN: null too, and a mismatch */
}

json_t *observe_ok(void)
{
    return json_object();
}

json_t *observe_error(const respite_error *err)
{
    json_t *detail = json_object();
    json_object_set_new(detail, "status", json_string(respite_status_name(err->status)));
    json_object_set_new(detail, "message", json_string(err->message));
    if (err->status == RESPITE_E_INVALID_SETTING)
        json_object_set_new(detail, "setting", json_string(err->setting));
    if (err->status == RESPITE_E_TEMPORARILY_UNAVAILABLE)
        json_object_set_new(detail, "retry_after", json_number_or_null(err->retry_after));
    return json_pack("{s:o}", "error", detail);
}

json_t *observe_runner_error(const char *fmt, ...)
{
    char message[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    return json_pack("{s:{s:s,s:s}}", "error", "status", "runner", "message", message);
}

json_t *observe_unknown_action(const char *component, const char *action)
{
    return observe_runner_error("the %s component has no action '%s'", component, action);
}

double arg_number(json_t *object, const char *key, double fallback, int *bad)
{
    json_t *value = json_is_object(object) ? json_object_get(object, key) : NULL;
    if (!value)
        return fallback;
    if (!json_is_number(value)) {
        *bad = 1;
        return fallback;
    }
    return json_number_value(value);
}

static int fail_argument(respite_error *err, const char *message)
{
    err->status = RESPITE_E_INVALID_ARGUMENT;
    snprintf(err->message, sizeof err->message, "%s", message);
    return -1;
}

int arg_outcome(json_t *arg, int *http_status, respite_error *err)
{
    *http_status = 0;
    if (json_is_string(arg))
        return respite_outcome_from_name(json_string_value(arg), err);
    if (!json_is_object(arg))
        return fail_argument(err, "an outcome is a name or an object");
    json_t *name = json_object_get(arg, "outcome");
    if (name) {
        json_t *status = json_object_get(arg, "status");
        if (json_is_integer(status))
            *http_status = (int)json_integer_value(status);
        if (json_is_integer(name)) /* a respite_outcome number, checked by the call it goes to */
            return json_integer_value(name) < INT_MIN || json_integer_value(name) > INT_MAX
                       ? fail_argument(err, "\"outcome\" must fit a C int")
                       : (int)json_integer_value(name);
        if (!json_is_string(name))
            return fail_argument(err, "\"outcome\" must be a name or a number");
        return respite_outcome_from_name(json_string_value(name), err);
    }
    if (json_is_true(json_object_get(arg, "transport")))
        return respite_classify(1, 0, 0, err);
    json_t *status = json_object_get(arg, "status");
    if (!json_is_integer(status))
        return fail_argument(err, "an outcome object needs \"outcome\", \"status\" or \"transport\": true");
    json_t *usable = json_object_get(arg, "usable");
    *http_status = (int)json_integer_value(status);
    return respite_classify(0, *http_status, usable ? json_is_true(usable) : 1, err);
}

int special_number(const char *text, double *value)
{
    char *end;
    *value = strtod(text, &end);
    return *text && !*end && !isfinite(*value);
}

static int set_one(respite_settings *settings, const char *name, json_t *value, respite_error *err)
{
    if (json_is_integer(value))
        return respite_settings_set_integer(settings, name, (int64_t)json_integer_value(value), err);
    if (json_is_real(value))
        return respite_settings_set_number(settings, name, json_real_value(value), err);
    if (json_is_boolean(value))
        return respite_settings_set_boolean(settings, name, json_is_true(value), err);
    if (json_is_string(value) || json_is_null(value)) /* null: no text (E3's "nothing (NULL)") */
        return respite_settings_set_text(settings, name, json_string_value(value), err);
    double special;
    const char *number = json_string_value(json_object_get(value, "number"));
    if (number && special_number(number, &special))
        return respite_settings_set_number(settings, name, special, err);
    return fail_argument(err, "a setting's value must be a number, a boolean, a string or {\"number\": \"NaN\"}");
}

respite_settings *settings_from_json(const char *component_or_profile, json_t *values, respite_error *err)
{
    respite_settings *settings = respite_settings_new(component_or_profile, err);
    if (!settings)
        return NULL;
    const char *name;
    json_t *value;
    json_object_foreach(values, name, value) {
        if (set_one(settings, name, value, err)) {
            respite_settings_free(settings);
            return NULL;
        }
    }
    if (respite_settings_validate(settings, err)) {
        respite_settings_free(settings);
        return NULL;
    }
    return settings;
}
