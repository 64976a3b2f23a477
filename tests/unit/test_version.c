/* The version: macros, string and the library's own answer agree. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>

#include "respite.h"

static void test_the_library_reports_the_headers_version(void **state)
{
    (void)state;
    assert_string_equal(respite_version(), RESPITE_VERSION_STRING);
}

static void test_the_string_is_major_minor_patch(void **state)
{
    (void)state;
    char expected[32];
    snprintf(expected, sizeof expected, "%d.%d.%d", RESPITE_VERSION_MAJOR, RESPITE_VERSION_MINOR,
             RESPITE_VERSION_PATCH);
    assert_string_equal(RESPITE_VERSION_STRING, expected);
    assert_int_equal(RESPITE_VERSION_NUMBER,
                     RESPITE_VERSION_MAJOR * 10000 + RESPITE_VERSION_MINOR * 100 + RESPITE_VERSION_PATCH);
}

static void test_cmake_project_version_is_the_headers(void **state)
{
    (void)state;
    assert_string_equal(RESPITE_PROJECT_VERSION, RESPITE_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_library_reports_the_headers_version),
        cmocka_unit_test(test_the_string_is_major_minor_patch),
        cmocka_unit_test(test_cmake_project_version_is_the_headers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
