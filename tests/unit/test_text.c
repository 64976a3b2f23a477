/* E15: text a binding passes with its length is refused when it holds a
 * NUL byte, never cut at it. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "respite.h"

static void test_E15_text_without_nul_is_accepted(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_text_check("probes", 6, "name", &err), RESPITE_OK);
    assert_int_equal(respite_text_check("", 0, "name", &err), RESPITE_OK);
    assert_int_equal(respite_text_check("ab\0", 2, "name", &err), RESPITE_OK); /* the terminator is not the text */
    assert_int_equal(respite_text_check(NULL, 0, "name", &err), RESPITE_OK);  /* NULL is the callee's to judge */
    assert_int_equal(err.status, RESPITE_OK);
}

static void test_E15_a_nul_inside_is_refused_in_the_cores_words(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_text_check("5\0junk", 6, "value", &err), RESPITE_E_INVALID_ARGUMENT);
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "value must be text without NUL bytes (got '5?junk')");
    assert_int_equal(respite_text_check("\0", 1, "name", NULL), RESPITE_E_INVALID_ARGUMENT); /* E2: err may be NULL */
    char long_text[100];
    memset(long_text, 'a', sizeof long_text);
    long_text[50] = '\0';
    assert_int_equal(respite_text_check(long_text, sizeof long_text, "url", &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "url must be text without NUL bytes (got 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...')");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_E15_text_without_nul_is_accepted),
        cmocka_unit_test(test_E15_a_nul_inside_is_refused_in_the_cores_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
