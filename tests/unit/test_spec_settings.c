/* docs/spec.md section 8 restates the core's settings table: every row of
 * every component (name, type, default, accepted text, meaning) and the
 * profiles. This test parses the markdown and compares; on a mismatch it
 * prints the tables as they should read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"
#include "spec_table_util.h"

#define MAX_ROWS 128

static const char *const type_names[] = {"integer", "number", "boolean", "choice", "string", "list"};

typedef struct spec_row {
    char component[32];
    char cells[5][CELL_MAX]; /* setting, type, default, accepted, meaning */
} spec_row;

static spec_row rows[MAX_ROWS];
static int row_count;

typedef struct spec_profile {
    char name[32];
    char component[32];
    char overrides[CELL_MAX];
} spec_profile;

static spec_profile profiles[8];
static int profile_count;

/* Reads section 8 of the spec into rows[] and profiles[]. */
static int load_spec(void)
{
    FILE *f = fopen(SPEC_PATH, "r");
    if (!f)
        return 0;
    char line[2048];
    int in_section = 0;
    char component[32] = "";
    int in_profiles = 0;
    row_count = profile_count = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "## ", 3) == 0) {
            in_section = strncmp(line, "## 8. Settings", 14) == 0;
            continue;
        }
        if (!in_section)
            continue;
        if (strncmp(line, "### ", 4) == 0) {
            component[0] = '\0';
            in_profiles = strstr(line, "Profiles") != NULL;
            const char *tick = strchr(line, '`');
            const char *end = tick ? strchr(tick + 1, '`') : NULL;
            if (tick && end && !in_profiles)
                snprintf(component, sizeof component, "%.*s", (int)(end - tick - 1), tick + 1);
            continue;
        }
        if (strncmp(line, "| `", 3) != 0)
            continue;
        char cells[6][CELL_MAX];
        int n = split_cells(line, cells, 6);
        if (in_profiles && n == 3 && profile_count < 8) {
            spec_profile *p = &profiles[profile_count++];
            unquote_code(cells[0]);
            unquote_code(cells[1]);
            snprintf(p->name, sizeof p->name, "%.31s", cells[0]);
            snprintf(p->component, sizeof p->component, "%.31s", cells[1]);
            snprintf(p->overrides, sizeof p->overrides, "%s", cells[2]);
        } else if (component[0] && row_count < MAX_ROWS) {
            assert_int_equal(n, 5);
            spec_row *r = &rows[row_count++];
            snprintf(r->component, sizeof r->component, "%s", component);
            for (int i = 0; i < 5; i++)
                memcpy(r->cells[i], cells[i], CELL_MAX);
            unquote_code(r->cells[0]);
        }
    }
    fclose(f);
    return 1;
}

/* The default as the spec writes it: `10`, `0.5`, `false`, `"none"`. */
static void format_default(const respite_setting_info *row, char *buf, size_t size)
{
    if (row->type == RESPITE_SETTING_BOOLEAN) {
        snprintf(buf, size, "`%s`", row->default_number != 0 ? "true" : "false");
    } else if (row->default_text) {
        size_t used = 0;
        used += (size_t)snprintf(buf + used, size - used, "`\"");
        for (const char *p = row->default_text; *p && used + 4 < size; p++) {
            if (*p == '\n')
                used += (size_t)snprintf(buf + used, size - used, "\\n");
            else if (*p == '"' || *p == '\\')
                used += (size_t)snprintf(buf + used, size - used, "\\%c", *p);
            else
                buf[used++] = *p;
        }
        snprintf(buf + used, size - used, "\"`");
    } else if (row->default_number == floor(row->default_number) && fabs(row->default_number) < 1e15) {
        snprintf(buf, size, "`%.0f`", row->default_number); /* "60", never "6e+01" */
    } else {
        /* shortest text that reads back, as %.17g may not be */
        for (int precision = 1; precision <= 17; precision++) {
            snprintf(buf, size, "`%.*g`", precision, row->default_number);
            if (strtod(buf + 1, NULL) == row->default_number)
                break;
        }
    }
}

static void print_expected_tables(void)
{
    printf("\n----- section 8 tables as they should read -----\n");
    const char *component = "";
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        if (strcmp(row->component, component) != 0) {
            component = row->component;
            printf("\n### Component `%s`\n\n| setting | type | default | accepted | meaning |\n|---|---|---|---|---|\n",
                   component);
        }
        char def[CELL_MAX];
        format_default(row, def, sizeof def);
        printf("| `%s` | %s | %s | %s | %s |\n", row->name, type_names[row->type], def, row->accepted, row->doc);
    }
    printf("----- end -----\n");
}

static void test_spec_settings_tables_match_the_core(void **state)
{
    (void)state;
    if (!load_spec())
        fail_msg("cannot read %s", SPEC_PATH);
    int mismatches = 0;
    if (row_count != respite_setting_count()) {
        printf("spec has %d setting rows, the core %d\n", row_count, respite_setting_count());
        mismatches++;
    }
    for (int i = 0; i < respite_setting_count() && i < row_count; i++) {
        const respite_setting_info *row = respite_setting_at(i);
        const spec_row *r = &rows[i];
        char def[CELL_MAX];
        format_default(row, def, sizeof def);
        const char *expected[5] = {row->name, type_names[row->type], def, row->accepted, row->doc};
        if (strcmp(r->component, row->component) != 0) {
            printf("row %d: component '%s' in the spec, '%s' in the core\n", i, r->component, row->component);
            mismatches++;
        }
        for (int c = 0; c < 5; c++) {
            if (strcmp(r->cells[c], expected[c]) != 0) {
                printf("%s.%s column %d: spec '%s', core '%s'\n", row->component, row->name, c, r->cells[c],
                       expected[c]);
                mismatches++;
            }
        }
        /* the number written is the number meant */
        if (row->type == RESPITE_SETTING_INTEGER || row->type == RESPITE_SETTING_NUMBER) {
            char copy[CELL_MAX];
            snprintf(copy, sizeof copy, "%s", r->cells[2]);
            unquote_code(copy);
            if (strtod(copy, NULL) != row->default_number) {
                printf("%s.%s: default %s is not %.17g\n", row->component, row->name, copy, row->default_number);
                mismatches++;
            }
        }
    }
    if (mismatches)
        print_expected_tables();
    assert_int_equal(mismatches, 0);
}

/* Each profile row: `name` | `component` | `a=1`, `b=2` ... (or "none").
 * Checked through the public API: the listed values, and the component's
 * defaults for everything not listed. */
static void test_spec_profiles_match_the_core(void **state)
{
    (void)state;
    if (!load_spec())
        fail_msg("cannot read %s", SPEC_PATH);
    assert_int_equal(profile_count, 2);
    for (int p = 0; p < profile_count; p++) {
        respite_error err;
        respite_error_clear(&err);
        respite_settings *s = respite_settings_new(profiles[p].name, &err);
        if (!s)
            fail_msg("profile %s: %s", profiles[p].name, err.message);
        assert_string_equal(respite_settings_component(s), profiles[p].component);
        int listed[MAX_ROWS] = {0};
        char overrides[CELL_MAX];
        snprintf(overrides, sizeof overrides, "%s", profiles[p].overrides);
        for (char *save = NULL, *item = strtok_r(overrides, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
            trim(item);
            unquote_code(item);
            if (strcmp(item, "none") == 0)
                continue;
            char *eq = strchr(item, '=');
            assert_non_null(eq);
            *eq = '\0';
            const respite_setting_info *row = respite_setting_find(profiles[p].component, item);
            if (!row)
                fail_msg("profile %s lists unknown setting %s", profiles[p].name, item);
            listed[row - respite_setting_at(0)] = 1;
            if (respite_settings_get_number(s, item, NULL) != strtod(eq + 1, NULL))
                fail_msg("profile %s: %s is %.17g, the spec says %s", profiles[p].name, item,
                         respite_settings_get_number(s, item, NULL), eq + 1);
        }
        for (int i = 0; i < respite_setting_count(); i++) {
            const respite_setting_info *row = respite_setting_at(i);
            if (strcmp(row->component, profiles[p].component) != 0 || listed[i] || row->default_text)
                continue;
            if (respite_settings_get_number(s, row->name, NULL) != row->default_number)
                fail_msg("profile %s changes %s, which the spec does not list", profiles[p].name, row->name);
        }
        respite_settings_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_settings_tables_match_the_core),
        cmocka_unit_test(test_spec_profiles_match_the_core),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
