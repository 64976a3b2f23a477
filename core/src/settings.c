/* Settings by name: every value is checked against its row of the table and
 * rejected, never clamped, with a message naming setting, value and range. */
#define _GNU_SOURCE /* strtod_l: numbers read the same whatever the caller's locale */
#include "retry_on_list.h"
#include "settings_table.h"

#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define SETTINGS_MAX_PER_COMPONENT 16

struct respite_settings {
    const char *component;
    int first; /* index of the component's first row in the table */
    int count;
    double numbers[SETTINGS_MAX_PER_COMPONENT];
    char *texts[SETTINGS_MAX_PER_COMPONENT];
};

int respite_setting_count(void)
{
    return respite_settings_table_size;
}

const respite_setting_info *respite_setting_at(int index)
{
    if (index < 0 || index >= respite_settings_table_size)
        return NULL;
    return &respite_settings_table[index];
}

const respite_setting_info *respite_setting_find(const char *component, const char *name)
{
    if (!component || !name)
        return NULL;
    for (int i = 0; i < respite_settings_table_size; i++) {
        const respite_setting_info *row = &respite_settings_table[i];
        if (strcmp(row->component, component) == 0 && strcmp(row->name, name) == 0)
            return row;
    }
    return NULL;
}

static int is_text_type(int type)
{
    return type == RESPITE_SETTING_CHOICE || type == RESPITE_SETTING_STRING || type == RESPITE_SETTING_LIST;
}

static int component_rows(const char *component, int *first)
{
    int count = 0;
    *first = -1;
    for (int i = 0; i < respite_settings_table_size; i++) {
        if (strcmp(respite_settings_table[i].component, component) == 0) {
            if (*first < 0)
                *first = i;
            count++;
        }
    }
    return count;
}

static int fail_unknown_component(const char *name, respite_error *err)
{
    char accepted[256] = "";
    for (int i = 0; i < respite_components_size; i++) {
        strcat(accepted, respite_components[i]);
        strcat(accepted, ", ");
    }
    for (int i = 0; i < respite_profiles_size; i++) {
        strcat(accepted, respite_profiles[i].name);
        if (i + 1 < respite_profiles_size)
            strcat(accepted, ", ");
    }
    respite_fail(err, RESPITE_E_INVALID_SETTING, "component must be one of %s (got '%s')", accepted,
                 name ? name : "(null)");
    if (err)
        respite_copy_text(err->setting, sizeof err->setting, "component");
    return RESPITE_E_INVALID_SETTING;
}

void respite_settings_free(respite_settings *settings)
{
    if (!settings)
        return;
    for (int i = 0; i < settings->count; i++)
        free(settings->texts[i]);
    free(settings);
}

static respite_settings *settings_for_component(const char *component, respite_error *err)
{
    respite_settings *s = calloc(1, sizeof *s);
    if (!s) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating settings");
        return NULL;
    }
    s->count = component_rows(component, &s->first);
    s->component = respite_settings_table[s->first].component;
    for (int i = 0; i < s->count; i++) {
        const respite_setting_info *row = &respite_settings_table[s->first + i];
        s->numbers[i] = row->default_number;
        if (is_text_type(row->type)) {
            s->texts[i] = strdup(row->default_text ? row->default_text : "");
            if (!s->texts[i]) {
                respite_settings_free(s);
                respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating settings");
                return NULL;
            }
        }
    }
    return s;
}

/* Applies "name=value,name=value" overrides of a profile. */
static int apply_overrides(respite_settings *s, const char *overrides, respite_error *err)
{
    char buf[512];
    respite_copy_text(buf, sizeof buf, overrides);
    for (char *save = NULL, *pair = strtok_r(buf, ",", &save); pair; pair = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(pair, '=');
        if (!eq)
            return respite_fail(err, RESPITE_E_INTERNAL, "malformed profile override '%s'", pair);
        *eq = '\0';
        int rc = respite_settings_set_text(s, pair, eq + 1, err);
        if (rc)
            return rc;
    }
    return RESPITE_OK;
}

respite_settings *respite_settings_new(const char *component_or_profile, respite_error *err)
{
    if (!component_or_profile) {
        fail_unknown_component(NULL, err);
        return NULL;
    }
    for (int i = 0; i < respite_components_size; i++)
        if (strcmp(component_or_profile, respite_components[i]) == 0)
            return settings_for_component(respite_components[i], err);
    for (int i = 0; i < respite_profiles_size; i++) {
        if (strcmp(component_or_profile, respite_profiles[i].name) == 0) {
            respite_settings *s = settings_for_component(respite_profiles[i].component, err);
            if (s && apply_overrides(s, respite_profiles[i].overrides, err)) {
                respite_settings_free(s);
                return NULL;
            }
            return s;
        }
    }
    fail_unknown_component(component_or_profile, err);
    return NULL;
}

const char *respite_settings_component(const respite_settings *settings)
{
    return settings ? settings->component : NULL;
}

/* The index of name within the settings' rows, in *index: RESPITE_OK, or
 * closed / invalid_argument / invalid_setting (E5, E9). */
static int find_row(const respite_settings *s, const char *name, int *index, respite_error *err)
{
    if (!s)
        return respite_fail(err, RESPITE_E_CLOSED, "settings is closed");
    if (!name)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "setting name is NULL");
    for (int i = 0; i < s->count; i++) {
        if (strcmp(respite_settings_table[s->first + i].name, name) == 0) {
            *index = i;
            return RESPITE_OK;
        }
    }
    char accepted[RESPITE_ERROR_MESSAGE_MAX - 96] = "";
    size_t used = 0;
    for (int i = 0; i < s->count; i++) {
        const char *row_name = respite_settings_table[s->first + i].name;
        size_t n = strlen(row_name);
        if (used + n + 3 >= sizeof accepted)
            break;
        if (i > 0) {
            memcpy(accepted + used, ", ", 2);
            used += 2;
        }
        memcpy(accepted + used, row_name, n + 1);
        used += n;
    }
    return respite_fail_setting(err, name, "%.60s is not a %s setting (accepted: %s)", name, s->component, accepted);
}

static int fail_value(respite_error *err, const respite_setting_info *row, const char *got)
{
    return respite_fail_setting(err, row->name, "%s must be %s (got %s)", row->name, row->accepted, got);
}

static int fail_number(respite_error *err, const respite_setting_info *row, double value)
{
    char text[40];
    return fail_value(err, row, respite_format_number(value, text, sizeof text));
}

static int in_range(const respite_setting_info *row, double value)
{
    if (!isfinite(value))
        return 0;
    if (row->min_exclusive ? !(value > row->min) : !(value >= row->min))
        return 0;
    if (row->max_exclusive ? !(value < row->max) : !(value <= row->max))
        return 0;
    return 1;
}

int respite_settings_set_number(respite_settings *settings, const char *name, double value, respite_error *err)
{
    int i, status = find_row(settings, name, &i, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    switch (row->type) {
    case RESPITE_SETTING_INTEGER:
        if (!in_range(row, value) || value != floor(value))
            return fail_number(err, row, value);
        break;
    case RESPITE_SETTING_NUMBER:
        if (!in_range(row, value))
            return fail_number(err, row, value);
        break;
    case RESPITE_SETTING_BOOLEAN:
        if (value != 0.0 && value != 1.0)
            return fail_number(err, row, value);
        break;
    default:
        return fail_value(err, row, "a number");
    }
    settings->numbers[i] = value;
    return RESPITE_OK;
}

int respite_settings_set_integer(respite_settings *settings, const char *name, int64_t value, respite_error *err)
{
    int i, status = find_row(settings, name, &i, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    /* Integers beyond 2^53 are outside every integer range; compare exactly. */
    if (row->type == RESPITE_SETTING_INTEGER && (double)value > row->max) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)value);
        return fail_value(err, row, text);
    }
    return respite_settings_set_number(settings, name, (double)value, err);
}

int respite_settings_set_boolean(respite_settings *settings, const char *name, int value, respite_error *err)
{
    int i, status = find_row(settings, name, &i, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    if (row->type != RESPITE_SETTING_BOOLEAN)
        return fail_value(err, row, value ? "true" : "false");
    settings->numbers[i] = value ? 1.0 : 0.0;
    return RESPITE_OK;
}

static locale_t c_locale;
static pthread_once_t c_locale_once = PTHREAD_ONCE_INIT;

static void make_c_locale(void)
{
    c_locale = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
}

/* Plain decimal notation (E7): an optional '-', digits, and optionally '.'
 * and digits; nothing else (no '+', spaces, exponent, hex, nan or inf).
 * 0 when the text is not that. The value is the nearest double, read with
 * '.' as the decimal point whatever the process's locale (a JVM sets it). */
static int parse_decimal(const char *text, double *out)
{
    static const char digits[] = "0123456789";
    const char *p = text + (*text == '-');
    size_t whole = strspn(p, digits);
    if (whole == 0)
        return 0;
    p += whole;
    if (*p == '.') {
        size_t fraction = strspn(p + 1, digits);
        if (fraction == 0)
            return 0;
        p += 1 + fraction;
    }
    if (*p != '\0')
        return 0;
    pthread_once(&c_locale_once, make_c_locale);
    *out = c_locale ? strtod_l(text, NULL, c_locale) : strtod(text, NULL);
    return 1;
}

static int choice_allowed(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && n > 0 && strncmp(p, value, n) == 0)
            return 1;
        if (!bar)
            break;
        p = bar + 1;
    }
    return 0;
}

/* url: what its accepted text says, an http:// or https:// URL. */
static int url_valid(const char *value)
{
    size_t n = strlen(value);
    return (n > 7 && strncasecmp(value, "http://", 7) == 0) || (n > 8 && strncasecmp(value, "https://", 8) == 0);
}

static int fail_text(respite_error *err, const respite_setting_info *row, const char *value)
{
    char got[96];
    snprintf(got, sizeof got, "'%.80s'", value);
    return fail_value(err, row, got);
}

/* A text for a numeric setting that is not plain decimal notation: the
 * message says which notation is read (E7). */
static int fail_notation(respite_error *err, const respite_setting_info *row, const char *value)
{
    return respite_fail_setting(err, row->name, "%s must be %s, in plain decimal notation such as %s (got '%.80s')",
                                row->name, row->accepted, row->type == RESPITE_SETTING_INTEGER ? "12" : "12 or 0.5",
                                value);
}

int respite_settings_set_text(respite_settings *settings, const char *name, const char *value, respite_error *err)
{
    int i, status = find_row(settings, name, &i, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    if (!value)
        return fail_value(err, row, "nothing (NULL)");
    double number;
    switch (row->type) {
    case RESPITE_SETTING_INTEGER:
    case RESPITE_SETTING_NUMBER:
        if (!parse_decimal(value, &number))
            return fail_notation(err, row, value);
        if (!isfinite(number)) /* more digits than a double holds: show them, not "inf" */
            return fail_text(err, row, value);
        return respite_settings_set_number(settings, name, number, err);
    case RESPITE_SETTING_BOOLEAN:
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
            return respite_settings_set_boolean(settings, name, 1, err);
        if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
            return respite_settings_set_boolean(settings, name, 0, err);
        return fail_text(err, row, value);
    case RESPITE_SETTING_CHOICE:
        if (!choice_allowed(row->choices, value))
            return fail_text(err, row, value);
        break;
    case RESPITE_SETTING_LIST:
        if (!respite_retry_on_list_parse(value, NULL))
            return fail_text(err, row, value);
        break;
    case RESPITE_SETTING_STRING:
        if (strcmp(row->name, "url") == 0 && !url_valid(value))
            return fail_text(err, row, value);
        break;
    default:
        break;
    }
    char *copy = strdup(value);
    if (!copy)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying %s", row->name);
    free(settings->texts[i]);
    settings->texts[i] = copy;
    return RESPITE_OK;
}

double respite_settings_get_number(const respite_settings *settings, const char *name, respite_error *err)
{
    int i;
    if (find_row(settings, name, &i, err) != RESPITE_OK)
        return NAN;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    if (is_text_type(row->type)) {
        respite_fail_setting(err, name, "%s is text, not a number", name);
        return NAN;
    }
    return settings->numbers[i];
}

const char *respite_settings_get_text(const respite_settings *settings, const char *name, respite_error *err)
{
    int i;
    if (find_row(settings, name, &i, err) != RESPITE_OK)
        return NULL;
    const respite_setting_info *row = &respite_settings_table[settings->first + i];
    if (!is_text_type(row->type)) {
        respite_fail_setting(err, name, "%s is a number, not text", name);
        return NULL;
    }
    return settings->texts[i];
}

static double number_of(const respite_settings *s, const char *name)
{
    return respite_settings_get_number(s, name, NULL);
}

int respite_settings_validate(const respite_settings *settings, respite_error *err)
{
    if (!settings)
        return respite_fail(err, RESPITE_E_CLOSED, "settings is closed");
    char a[40], b[40];
    if (strcmp(settings->component, "gate") == 0) {
        double r = number_of(settings, "recovery_seconds");
        double rmax = number_of(settings, "max_recovery_seconds");
        if (number_of(settings, "recovery_multiplier") > 1.0 && rmax < r)
            return respite_fail_setting(err, "max_recovery_seconds",
                                        "max_recovery_seconds must be at least recovery_seconds (%s) when "
                                        "recovery_multiplier is more than 1 (got %s)",
                                        respite_format_number(r, a, sizeof a), respite_format_number(rmax, b, sizeof b));
    } else if (strcmp(settings->component, "backoff") == 0) {
        double initial = number_of(settings, "initial_delay_seconds");
        double max = number_of(settings, "max_delay_seconds");
        if (max < initial)
            return respite_fail_setting(err, "max_delay_seconds",
                                        "max_delay_seconds must be at least initial_delay_seconds (%s) (got %s)",
                                        respite_format_number(initial, a, sizeof a),
                                        respite_format_number(max, b, sizeof b));
    }
    return RESPITE_OK;
}

int respite_settings_expect(const respite_settings *settings, const char *component, const char *argument,
                            respite_error *err)
{
    if (!settings || strcmp(settings->component, component) == 0)
        return RESPITE_OK;
    return respite_fail_setting(err, "component", "%s must be %s settings (got %s settings)", argument, component,
                                settings->component);
}
