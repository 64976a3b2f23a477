/* Settings by name: every value is checked against its row of the table and
 * rejected, never clamped, with a message naming setting, value and range.
 * A bag holds a value for every id of the table (the rows of other
 * components keep their defaults), so reading by id never goes out of it. */
#define _GNU_SOURCE /* strtod_l: numbers read the same whatever the caller's locale */
#include "c_locale.h"
#include "retry_on_list.h"
#include "utf8.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct respite_settings {
    const respite_component *component;
    double numbers[RESPITE_SETTING_COUNT_]; /* numbers, booleans; a choice's word position */
    char *texts[RESPITE_SETTING_COUNT_];    /* text values; NULL: the row's default */
};

int respite_setting_count(void)
{
    return RESPITE_SETTING_COUNT_;
}

const respite_setting_info *respite_setting_at(int index)
{
    if (index < 0 || index >= RESPITE_SETTING_COUNT_)
        return NULL;
    return &respite_settings_table[index];
}

int respite_profile_count(void)
{
    return respite_profiles_size;
}

const char *respite_profile_name(int index)
{
    return index >= 0 && index < respite_profiles_size ? respite_profiles[index].name : NULL;
}

static const respite_component *component_named(const char *name)
{
    for (int i = 0; i < respite_components_size; i++)
        if (strcmp(respite_components[i].name, name) == 0)
            return &respite_components[i];
    return NULL;
}

const respite_setting_info *respite_setting_find(const char *component, const char *name)
{
    const respite_component *c = component && name ? component_named(component) : NULL;
    if (!c)
        return NULL;
    for (int id = c->first; id < c->first + c->count; id++)
        if (strcmp(respite_settings_table[id].name, name) == 0)
            return &respite_settings_table[id];
    return NULL;
}

static int is_text_type(int type)
{
    return type == RESPITE_SETTING_CHOICE || type == RESPITE_SETTING_STRING || type == RESPITE_SETTING_LIST;
}

/* The position of value among a choice row's words ("a|b|c"), or -1. */
static int choice_position(const char *choices, const char *value)
{
    size_t n = strlen(value);
    int position = 0;
    for (const char *p = choices;; position++) {
        const char *bar = strchr(p, '|');
        size_t len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == n && n > 0 && strncmp(p, value, n) == 0)
            return position;
        if (!bar)
            return -1;
        p = bar + 1;
    }
}

/* ------------------------------------------------------------ by id */

/* The id must be one of the settings' component (a bug in the core when
 * not: debug builds stop, release builds read the row's default). */
static const respite_settings *check_id(const respite_settings *s, respite_setting_id id)
{
    assert(id >= 0 && id < RESPITE_SETTING_COUNT_);
    assert(!s || (id >= s->component->first && id < s->component->first + s->component->count));
    (void)id;
    return s;
}

double respite_setting_number(const respite_settings *settings, respite_setting_id id)
{
    const respite_settings *s = check_id(settings, id);
    return s ? s->numbers[id] : respite_settings_table[id].default_number;
}

int64_t respite_setting_integer(const respite_settings *settings, respite_setting_id id)
{
    return (int64_t)respite_setting_number(settings, id); /* whole and within 2^53: checked when set */
}

int respite_setting_flag(const respite_settings *settings, respite_setting_id id)
{
    return respite_setting_number(settings, id) != 0.0;
}

int respite_setting_choice(const respite_settings *settings, respite_setting_id id)
{
    const respite_settings *s = check_id(settings, id);
    if (s)
        return (int)s->numbers[id];
    const respite_setting_info *row = &respite_settings_table[id];
    return choice_position(row->choices, row->default_text);
}

const char *respite_setting_text(const respite_settings *settings, respite_setting_id id)
{
    const respite_settings *s = check_id(settings, id);
    return s && s->texts[id] ? s->texts[id] : respite_settings_table[id].default_text;
}

/* ------------------------------------------------------------ the bag */

static int fail_unknown_component(const char *name, respite_error *err)
{
    char accepted[256] = "";
    for (int i = 0; i < respite_components_size; i++) {
        strcat(accepted, respite_components[i].name);
        strcat(accepted, ", ");
    }
    for (int i = 0; i < respite_profiles_size; i++) {
        strcat(accepted, respite_profiles[i].name);
        if (i + 1 < respite_profiles_size)
            strcat(accepted, ", ");
    }
    char got[RESPITE_QUOTED_MAX];
    return respite_fail_setting(err, "component", "component must be one of %s (got %s)", accepted,
                                respite_quoted(got, name ? name : "(null)"));
}

void respite_settings_free(respite_settings *settings)
{
    if (!settings)
        return;
    for (int id = 0; id < RESPITE_SETTING_COUNT_; id++)
        free(settings->texts[id]);
    free(settings);
}

static respite_settings *settings_for_component(const respite_component *component, respite_error *err)
{
    respite_settings *s = calloc(1, sizeof *s);
    if (!s) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating settings");
        return NULL;
    }
    s->component = component;
    for (int id = 0; id < RESPITE_SETTING_COUNT_; id++) {
        const respite_setting_info *row = &respite_settings_table[id];
        s->numbers[id] = row->type == RESPITE_SETTING_CHOICE ? choice_position(row->choices, row->default_text)
                                                             : row->default_number;
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
    const respite_component *component = component_named(component_or_profile);
    if (component)
        return settings_for_component(component, err);
    for (int i = 0; i < respite_profiles_size; i++) {
        if (strcmp(component_or_profile, respite_profiles[i].name) == 0) {
            respite_settings *s = settings_for_component(component_named(respite_profiles[i].component), err);
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
    return settings ? settings->component->name : NULL;
}

/* The id of name among the settings' rows, in *id: RESPITE_OK, or closed /
 * invalid_argument / invalid_setting (E5, E9). */
static int find_row(const respite_settings *s, const char *name, int *id, respite_error *err)
{
    if (!s)
        return respite_closed(RESPITE_HANDLE_SETTINGS, err);
    if (!name)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "setting name is NULL");
    const respite_component *c = s->component;
    for (int i = c->first; i < c->first + c->count; i++) {
        if (strcmp(respite_settings_table[i].name, name) == 0) {
            *id = i;
            return RESPITE_OK;
        }
    }
    char accepted[RESPITE_ERROR_MESSAGE_MAX - 96] = "";
    size_t used = 0;
    for (int i = c->first; i < c->first + c->count; i++) {
        const char *row_name = respite_settings_table[i].name;
        size_t n = strlen(row_name);
        if (used + n + 3 >= sizeof accepted)
            break;
        if (i > c->first) {
            memcpy(accepted + used, ", ", 2);
            used += 2;
        }
        memcpy(accepted + used, row_name, n + 1);
        used += n;
    }
    char shown[RESPITE_QUOTED_MAX];
    respite_utf8_printable(shown, sizeof shown, name, strlen(name), RESPITE_QUOTED_CHARS, "", '?');
    return respite_fail_setting(err, name, "%s is not a %s setting (accepted: %s)", shown, c->name, accepted);
}

/* ------------------------------------------------------------ setters */

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

static int set_number_at(respite_settings *s, int id, double value, respite_error *err)
{
    const respite_setting_info *row = &respite_settings_table[id];
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
    s->numbers[id] = value;
    return RESPITE_OK;
}

int respite_settings_set_number(respite_settings *settings, const char *name, double value, respite_error *err)
{
    int id, status = find_row(settings, name, &id, err);
    return status != RESPITE_OK ? status : set_number_at(settings, id, value, err);
}

int respite_settings_set_integer(respite_settings *settings, const char *name, int64_t value, respite_error *err)
{
    int id, status = find_row(settings, name, &id, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[id];
    /* Integers beyond 2^53 are outside every integer range; compare exactly. */
    if (row->type == RESPITE_SETTING_INTEGER && (double)value > row->max) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)value);
        return fail_value(err, row, text);
    }
    return set_number_at(settings, id, (double)value, err);
}

int respite_settings_set_boolean(respite_settings *settings, const char *name, int value, respite_error *err)
{
    int id, status = find_row(settings, name, &id, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[id];
    if (row->type != RESPITE_SETTING_BOOLEAN)
        return fail_value(err, row, value ? "true" : "false");
    settings->numbers[id] = value ? 1.0 : 0.0;
    return RESPITE_OK;
}

/* Plain decimal notation (E7): an optional '-', digits, and optionally '.'
 * and digits; nothing else (no '+', spaces, exponent, hex, nan or inf).
 * 0 when the text is not that. The value is the nearest double, read with
 * '.' as the decimal point whatever the process's locale (a JVM sets it). */
int respite_parse_decimal(const char *text, double *out)
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
    locale_t c = respite_c_locale();
    *out = c ? strtod_l(text, NULL, c) : strtod(text, NULL);
    return 1;
}

/* url: what its accepted text says, an http:// or https:// URL. */
/* name: it goes into one-line log lines and messages in every language. */
static int name_valid(const char *value)
{
    size_t n = strlen(value);
    if (n >= RESPITE_NAME_MAX || respite_utf8_length(value, n) < 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f)
            return 0;
    return 1;
}

static int fail_text(respite_error *err, const respite_setting_info *row, const char *value)
{
    char got[RESPITE_QUOTED_MAX];
    return fail_value(err, row, respite_quoted(got, value));
}

/* A text for a numeric setting that is not plain decimal notation: the
 * message says which notation is read (E7). */
static int fail_notation(respite_error *err, const respite_setting_info *row, const char *value)
{
    char got[RESPITE_QUOTED_MAX];
    return respite_fail_setting(err, row->name, "%s must be %s, in plain decimal notation such as %s (got %s)",
                                row->name, row->accepted, row->type == RESPITE_SETTING_INTEGER ? "12" : "12 or 0.5",
                                respite_quoted(got, value));
}

/* Checks a text value of a choice, string or list row; the choice's word
 * position in *position. */
static int text_valid(int id, const char *value, int *position)
{
    switch (respite_setting_formats[id]) {
    case RESPITE_TEXT_CHOICE:
        return (*position = choice_position(respite_settings_table[id].choices, value)) >= 0;
    case RESPITE_TEXT_LIST:
        return respite_retry_on_list_parse(value, NULL);
    case RESPITE_TEXT_HEADER: /* a line break would start another header (injection) */
        return !strpbrk(value, "\r\n");
    case RESPITE_TEXT_HEADER_NAME:
        return !*value || respite_header_name_valid(value);
    case RESPITE_TEXT_URL:
        return respite_url_valid(value);
    case RESPITE_TEXT_NAME:
        return name_valid(value);
    default:
        return 1;
    }
}

int respite_settings_set_text(respite_settings *settings, const char *name, const char *value, respite_error *err)
{
    int id, status = find_row(settings, name, &id, err);
    if (status != RESPITE_OK)
        return status;
    const respite_setting_info *row = &respite_settings_table[id];
    if (!value)
        return fail_value(err, row, "nothing (NULL)");
    double number;
    switch (row->type) {
    case RESPITE_SETTING_INTEGER:
    case RESPITE_SETTING_NUMBER:
        if (!respite_parse_decimal(value, &number))
            return fail_notation(err, row, value);
        if (!isfinite(number)) /* more digits than a double holds: show them, not "inf" */
            return fail_text(err, row, value);
        return set_number_at(settings, id, number, err);
    case RESPITE_SETTING_BOOLEAN:
        if (strcmp(value, "true") == 0 || strcmp(value, "1") == 0)
            number = 1.0;
        else if (strcmp(value, "false") == 0 || strcmp(value, "0") == 0)
            number = 0.0;
        else
            return fail_text(err, row, value);
        settings->numbers[id] = number;
        return RESPITE_OK;
    default:
        break;
    }
    int position = 0;
    if (!text_valid(id, value, &position))
        return fail_text(err, row, value);
    char *copy = strdup(value);
    if (!copy)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying %s", row->name);
    free(settings->texts[id]);
    settings->texts[id] = copy;
    settings->numbers[id] = position;
    return RESPITE_OK;
}

/* ------------------------------------------------------------ getters */

double respite_settings_get_number(const respite_settings *settings, const char *name, respite_error *err)
{
    int id;
    if (find_row(settings, name, &id, err) != RESPITE_OK)
        return NAN;
    if (is_text_type(respite_settings_table[id].type)) {
        respite_fail_setting(err, name, "%s is text, not a number", name);
        return NAN;
    }
    return settings->numbers[id];
}

const char *respite_settings_get_text(const respite_settings *settings, const char *name, respite_error *err)
{
    int id;
    if (find_row(settings, name, &id, err) != RESPITE_OK)
        return NULL;
    if (!is_text_type(respite_settings_table[id].type)) {
        respite_fail_setting(err, name, "%s is a number, not text", name);
        return NULL;
    }
    return respite_setting_text(settings, id);
}

/* ------------------------------------------------------------ cross rules */

int respite_settings_validate(const respite_settings *settings, respite_error *err)
{
    if (!settings)
        return respite_closed(RESPITE_HANDLE_SETTINGS, err);
    char a[40], b[40];
    if (settings->component->first == RESPITE_SETTING_FIRST_GATE) {
        double r = respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_SECONDS);
        double rmax = respite_setting_number(settings, RESPITE_SETTING_GATE_MAX_RECOVERY_SECONDS);
        if (respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_MULTIPLIER) > 1.0 && rmax < r)
            return respite_fail_setting(err, "max_recovery_seconds",
                                        "max_recovery_seconds must be at least recovery_seconds (%s) when "
                                        "recovery_multiplier is more than 1 (got %s)",
                                        respite_format_number(r, a,
                                                              sizeof a), respite_format_number(rmax, b, sizeof b));
    } else if (settings->component->first == RESPITE_SETTING_FIRST_BACKOFF) {
        double initial = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_INITIAL_DELAY_SECONDS);
        double max = respite_setting_number(settings, RESPITE_SETTING_BACKOFF_MAX_DELAY_SECONDS);
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
    if (!settings || strcmp(settings->component->name, component) == 0)
        return RESPITE_OK;
    return respite_fail_setting(err, "component", "%s must be %s settings (got %s settings)", argument, component,
                                settings->component->name);
}
