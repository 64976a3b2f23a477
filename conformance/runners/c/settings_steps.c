/* Component "settings": every step starts from a fresh bag for the
 * scenario's target (a component or a profile).
 *   set {name: value, ...}  -> {} or {"error"}      (applied in order, then validated)
 *   get "name"              -> {"value": v} or {"error"} */
#include "runner.h"

#include <stdlib.h>
#include <string.h>

typedef struct settings_state {
    char *target;
} settings_state;

static void *settings_open(json_t *scenario, json_t **failure)
{
    const char *target = json_string_value(json_object_get(scenario, "target"));
    if (!target) {
        *failure = observe_runner_error("a settings scenario needs a \"target\"");
        return NULL;
    }
    settings_state *s = calloc(1, sizeof *s);
    s->target = strdup(target);
    return s;
}

static json_t *value_of(const respite_settings *settings, const char *name, respite_error *err)
{
    const respite_setting_info *info = respite_setting_find(respite_settings_component(settings), name);
    if (info && (info->type == RESPITE_SETTING_CHOICE || info->type == RESPITE_SETTING_STRING ||
                 info->type == RESPITE_SETTING_LIST)) {
        const char *text = respite_settings_get_text(settings, name, err);
        return text ? json_string(text) : NULL;
    }
    double number = respite_settings_get_number(settings, name, err);
    if (err->status)
        return NULL;
    if (info && info->type == RESPITE_SETTING_BOOLEAN)
        return json_boolean(number != 0.0);
    if (info && info->type == RESPITE_SETTING_INTEGER)
        return json_integer((json_int_t)number);
    return json_real(number);
}

static json_t *settings_step(void *state, const char *action, json_t *arg, double now)
{
    (void)now;
    settings_state *s = state;
    respite_error err = {0};
    if (strcmp(action, "set") == 0) {
        if (!json_is_object(arg))
            return observe_runner_error("set takes an object of settings");
        respite_settings *settings = settings_from_json(s->target, arg, &err);
        if (!settings)
            return observe_error(&err);
        respite_settings_free(settings);
        return observe_ok();
    }
    if (strcmp(action, "get") == 0) {
        if (!json_is_string(arg))
            return observe_runner_error("get takes a setting's name");
        respite_settings *settings = respite_settings_new(s->target, &err);
        if (!settings)
            return observe_error(&err);
        json_t *value = value_of(settings, json_string_value(arg), &err);
        respite_settings_free(settings);
        return value ? json_pack("{s:o}", "value", value) : observe_error(&err);
    }
    return observe_unknown_action("settings", action);
}

static void settings_close(void *state)
{
    settings_state *s = state;
    free(s->target);
    free(s);
}

const component settings_component = {"settings", settings_open, settings_step, settings_close, NULL, NULL};
