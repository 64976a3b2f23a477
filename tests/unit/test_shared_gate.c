/* A gate shared by a host's processes (docs/spec.md section 9): every test
 * name carries the rule id it checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "respite.h"

static void test_H3_capacity(void **state)
{
    (void)state;
    assert_int_equal(respite_shared_gate_capacity(), RESPITE_SHARED_GATE_SLOTS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_H3_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
