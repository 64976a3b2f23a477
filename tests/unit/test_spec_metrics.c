/* docs/spec.md section 12 restates the core's metrics table (M2): every
 * family's name, type, unit, labels and help, in the core's order. This
 * test parses the markdown and compares; on a mismatch it prints the rows
 * as they should read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "respite.h"
#include "spec_table_util.h"

static void print_expected(void)
{
    fprintf(stderr, "docs/spec.md section 12 should list:\n| metric | type | unit | labels | help |\n|---|---|---|---|---|\n");
    for (int i = 0; i < respite_metric_family_count(); i++) {
        respite_metric_family f;
        respite_metric_family_get(i, &f, NULL);
        fprintf(stderr, "| `%s` | %s | %s | `%s` | %s |\n", f.name, f.type, f.unit, f.labels, f.help);
    }
}

static void test_M2_spec_lists_the_core_table(void **state)
{
    (void)state;
    FILE *file = fopen(SPEC_PATH, "r");
    assert_non_null(file);
    char line[2048];
    int in_section = 0, rows = 0, mismatches = 0;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "## ", 3) == 0) {
            in_section = strncmp(line, "## 12. Metrics", 14) == 0;
            continue;
        }
        if (!in_section || strncmp(line, "| `", 3) != 0)
            continue;
        char cells[6][CELL_MAX];
        int n = split_cells(line, cells, 6);
        respite_metric_family f;
        if (n != 5 || respite_metric_family_get(rows, &f, NULL) != RESPITE_OK) {
            fprintf(stderr, "row %d: %s", rows + 1, line);
            mismatches++;
            rows++;
            continue;
        }
        unquote_code(cells[0]);
        unquote_code(cells[3]);
        const char *want[5] = {f.name, f.type, f.unit, f.labels, f.help};
        for (int c = 0; c < 5; c++) {
            if (strcmp(cells[c], want[c]) != 0) {
                fprintf(stderr, "row %d column %d: spec says '%s', the core '%s'\n", rows + 1, c + 1, cells[c],
                        want[c]);
                mismatches++;
            }
        }
        rows++;
    }
    fclose(file);
    if (rows != respite_metric_family_count()) {
        fprintf(stderr, "spec lists %d metrics, the core %d\n", rows, respite_metric_family_count());
        mismatches++;
    }
    if (mismatches)
        print_expected();
    assert_int_equal(mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_M2_spec_lists_the_core_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
