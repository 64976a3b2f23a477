/* The closed path's entry points start on a 64-byte boundary (gate.c,
 * CLOSED_PATH_ENTRY): one object file makes both libraries, so checking the
 * static copy checks the shared library's layout too. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "respite.h"

static void assert_aligned(const char *name, uintptr_t address)
{
    if (address % 64 != 0)
        fail_msg("%s starts at 0x%jx, %ju bytes past a 64-byte boundary", name, (uintmax_t)address,
                 (uintmax_t)(address % 64));
}

static void test_closed_path_entry_points_start_on_64_bytes(void **state)
{
    (void)state;
    assert_aligned("respite_gate_admit_now", (uintptr_t)&respite_gate_admit_now);
    assert_aligned("respite_gate_report_now", (uintptr_t)&respite_gate_report_now);
    assert_aligned("respite_gate_admit", (uintptr_t)&respite_gate_admit);
    assert_aligned("respite_gate_report", (uintptr_t)&respite_gate_report);
    assert_aligned("respite_gate_check", (uintptr_t)&respite_gate_check);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_closed_path_entry_points_start_on_64_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
