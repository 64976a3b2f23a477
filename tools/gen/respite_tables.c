/*
 * respite_tables - prints the core's tables as one JSON document on stdout,
 * read through the public API only, for tools/gen/generate.py.
 *
 * Every binding's exception classes, enumerations and settings accessors are
 * generated from this output, so the output is the contract: keys are stable,
 * rows come in the core's order (codes ascending), and numbers print exactly
 * (integers as integers, doubles with 17 significant digits).
 */

#include <respite.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enumerations whose name function answers NULL past the last value; no
 * core enumeration comes close to this many values. */
#define ENUM_LIMIT 256

static void print_string(const char *text)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", stdout); break;
        case '\\': fputs("\\\\", stdout); break;
        case '\n': fputs("\\n", stdout); break;
        case '\r': fputs("\\r", stdout); break;
        case '\t': fputs("\\t", stdout); break;
        default:
            if (*p < 0x20)
                printf("\\u%04x", *p);
            else
                putchar(*p);
        }
    }
    putchar('"');
}

static void print_number(double value)
{
    if (value == floor(value) && fabs(value) <= 9007199254740992.0)
        printf("%.0f", value);
    else
        printf("%.17g", value);
}

static const char *type_name(int type)
{
    switch (type) {
    case RESPITE_SETTING_INTEGER: return "integer";
    case RESPITE_SETTING_NUMBER: return "number";
    case RESPITE_SETTING_BOOLEAN: return "boolean";
    case RESPITE_SETTING_CHOICE: return "choice";
    case RESPITE_SETTING_STRING: return "string";
    case RESPITE_SETTING_LIST: return "list";
    default: return NULL;
    }
}

static int is_numeric(int type)
{
    return type == RESPITE_SETTING_INTEGER || type == RESPITE_SETTING_NUMBER || type == RESPITE_SETTING_BOOLEAN;
}

/* A value of a setting's type: integer, number, true/false or text. */
static void print_value(int type, double number, const char *text)
{
    if (type == RESPITE_SETTING_BOOLEAN)
        fputs(number != 0 ? "true" : "false", stdout);
    else if (type == RESPITE_SETTING_INTEGER || type == RESPITE_SETTING_NUMBER)
        print_number(number);
    else
        print_string(text ? text : "");
}

/* "a|b|c" as ["a", "b", "c"]. */
static void print_words(const char *words)
{
    putchar('[');
    const char *start = words;
    for (int first = 1; start; first = 0) {
        const char *bar = strchr(start, '|');
        size_t length = bar ? (size_t)(bar - start) : strlen(start);
        char word[128];
        if (length >= sizeof word) {
            fprintf(stderr, "respite_tables: choice word too long in '%s'\n", words);
            exit(1);
        }
        memcpy(word, start, length);
        word[length] = '\0';
        printf("%s", first ? "" : ", ");
        print_string(word);
        start = bar ? bar + 1 : NULL;
    }
    putchar(']');
}

/* "key": ["name0", "name1", ...] for an enumeration's name function. */
static void print_enum(const char *key, const char *(*name_of)(int))
{
    printf("  \"%s\": [", key);
    for (int i = 0; i < ENUM_LIMIT && name_of(i); i++) {
        printf("%s", i ? ", " : "");
        print_string(name_of(i));
    }
    printf("],\n");
}

static void print_statuses(void)
{
    printf("  \"statuses\": [\n");
    for (int code = 0; code < respite_status_count(); code++) {
        printf("    {\"code\": %d, \"name\": ", code);
        print_string(respite_status_name(code));
        printf(", \"description\": ");
        print_string(respite_strerror(code));
        printf("}%s\n", code + 1 < respite_status_count() ? "," : "");
    }
    printf("  ],\n");
}

static void print_outcomes(void)
{
    printf("  \"outcomes\": [\n");
    for (int code = 0; code < RESPITE_OUTCOME_COUNT; code++) {
        printf("    {\"code\": %d, \"name\": ", code);
        print_string(respite_outcome_name(code));
        printf(", \"counts\": %s}%s\n", respite_outcome_counts(code, 0) == 1 ? "true" : "false",
               code + 1 < RESPITE_OUTCOME_COUNT ? "," : "");
    }
    printf("  ],\n");
}

static void print_event_types(void)
{
    printf("  \"event_types\": [\n");
    for (int code = 0; code < RESPITE_EVENT_TYPE_COUNT; code++) {
        printf("    {\"code\": %d, \"name\": ", code);
        print_string(respite_event_type_name(code));
        printf(", \"warning\": %s}%s\n", respite_event_is_warning(code) == 1 ? "true" : "false",
               code + 1 < RESPITE_EVENT_TYPE_COUNT ? "," : "");
    }
    printf("  ],\n");
}

static void print_setting(const respite_setting_info *row)
{
    const char *type = type_name(row->type);
    if (!type) {
        fprintf(stderr, "respite_tables: %s.%s has unknown type %d\n", row->component, row->name, row->type);
        exit(1);
    }
    printf("    {\"component\": ");
    print_string(row->component);
    printf(", \"name\": ");
    print_string(row->name);
    printf(", \"type\": \"%s\",\n     \"default\": ", type);
    print_value(row->type, row->default_number, row->default_text);
    if (row->type == RESPITE_SETTING_INTEGER || row->type == RESPITE_SETTING_NUMBER) {
        printf(", \"min\": ");
        print_number(row->min);
        printf(", \"max\": ");
        print_number(row->max);
    } else {
        printf(", \"min\": null, \"max\": null");
    }
    printf(", \"min_exclusive\": %s, \"max_exclusive\": %s, \"choices\": ", row->min_exclusive ? "true" : "false",
           row->max_exclusive ? "true" : "false");
    if (row->choices)
        print_words(row->choices);
    else
        printf("null");
    printf(",\n     \"accepted\": ");
    print_string(row->accepted);
    printf(", \"doc\": ");
    print_string(row->doc);
    printf("}");
}

static void print_settings(void)
{
    int count = respite_setting_count();
    printf("  \"settings\": [\n");
    for (int i = 0; i < count; i++) {
        print_setting(respite_setting_at(i));
        printf("%s\n", i + 1 < count ? "," : "");
    }
    printf("  ],\n");
}

/* Components in the order the table first names them. */
static int component_seen_before(int index)
{
    const char *component = respite_setting_at(index)->component;
    for (int i = 0; i < index; i++)
        if (strcmp(respite_setting_at(i)->component, component) == 0)
            return 1;
    return 0;
}

static void print_components(void)
{
    printf("  \"components\": [");
    for (int i = 0, first = 1; i < respite_setting_count(); i++) {
        if (component_seen_before(i))
            continue;
        printf("%s", first ? "" : ", ");
        print_string(respite_setting_at(i)->component);
        first = 0;
    }
    printf("],\n");
}

/* One profile: its component and the value of each of that component's
 * settings under it. */
static void print_profile(const char *name)
{
    respite_error err;
    respite_error_clear(&err);
    respite_settings *settings = respite_settings_new(name, &err);
    if (!settings) {
        fprintf(stderr, "respite_tables: profile %s: %s\n", name, err.message);
        exit(1);
    }
    const char *component = respite_settings_component(settings);
    printf("    {\"name\": ");
    print_string(name);
    printf(", \"component\": ");
    print_string(component);
    printf(", \"defaults\": {");
    for (int i = 0, first = 1; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        if (strcmp(row->component, component) != 0)
            continue;
        printf("%s", first ? "" : ", ");
        print_string(row->name);
        printf(": ");
        if (is_numeric(row->type))
            print_value(row->type, respite_settings_get_number(settings, row->name, &err), NULL);
        else
            print_value(row->type, 0, respite_settings_get_text(settings, row->name, &err));
        first = 0;
    }
    printf("}}");
    respite_settings_free(settings);
    if (err.status != RESPITE_OK) {
        fprintf(stderr, "respite_tables: profile %s: %s\n", name, err.message);
        exit(1);
    }
}

static void print_profiles(void)
{
    printf("  \"profiles\": [\n");
    for (int i = 0; i < respite_profile_count(); i++) {
        printf("%s", i ? ",\n" : "");
        print_profile(respite_profile_name(i));
    }
    printf("\n  ]\n");
}

static const char *choices_of(const char *component, const char *name)
{
    const respite_setting_info *row = respite_setting_find(component, name);
    if (!row || !row->choices) {
        fprintf(stderr, "respite_tables: %s.%s is not a choice setting\n", component, name);
        exit(1);
    }
    return row->choices;
}

int main(void)
{
    printf("{\n");
    print_statuses();
    print_outcomes();
    print_event_types();
    print_enum("gate_states", respite_gate_state_name);
    print_enum("strategies", respite_strategy_name);
    print_enum("dispositions", respite_disposition_name);
    print_enum("actions", respite_action_name);
    /* respite_jitter and respite_overflow are the values of these choice
     * settings, in the same order; the core has no name function for them. */
    printf("  \"jitters\": ");
    print_words(choices_of("backoff", "jitter"));
    printf(",\n  \"overflows\": ");
    print_words(choices_of("queue", "overflow"));
    printf(",\n");
    print_components();
    print_settings();
    print_profiles();
    printf("}\n");
    return ferror(stdout) ? 1 : 0;
}
