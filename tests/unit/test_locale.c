/* Issue 14 item 8: numbers in messages and in settings' text read the same
 * under a comma-decimal locale (de_DE.UTF-8, made by
 * scripts/setup.d/locale.sh) as under "C" (E4, E7, G17). A JVM sets the
 * process's locale from the environment; so may any application. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "respite.h"

#define REFUSAL "sending requests to the service is temporarily restricted due to recent failures; "

static int comma_locale(void **state)
{
    (void)state;
    if (!setlocale(LC_ALL, "de_DE.UTF-8"))
        fail_msg("the de_DE.UTF-8 locale is missing: run scripts/setup.d/locale.sh");
    char text[16];
    snprintf(text, sizeof text, "%.1f", 12.34);
    assert_string_equal(text, "12,3"); /* the locale really writes a comma */
    return 0;
}

static int c_locale(void **state)
{
    (void)state;
    setlocale(LC_ALL, "C");
    return 0;
}

static void test_G17_the_refusal_writes_a_point(void **state)
{
    (void)state;
    char buf[256];
    respite_refusal_message(12.34, buf, sizeof buf);
    assert_string_equal(buf, REFUSAL "recovery resumes in 12.3s");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_refusal_error(59.96, &err), RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_string_equal(err.message, REFUSAL "recovery resumes in 60.0s");
}

static void test_E7_text_numbers_read_a_point_not_a_comma(void **state)
{
    (void)state;
    respite_settings *s = respite_settings_new("backoff", NULL);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(s, "initial_delay_seconds", "2.5", &err), RESPITE_OK);
    assert_true(respite_settings_get_number(s, "initial_delay_seconds", NULL) == 2.5);
    assert_int_equal(respite_settings_set_text(s, "initial_delay_seconds", "2,5", &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "initial_delay_seconds must be a number greater than 0 and at most 86400, in "
                                     "plain decimal notation such as 12 or 0.5 (got '2,5')");
    respite_settings_free(s);
}

static void test_E4_numbers_in_messages_write_a_point(void **state)
{
    (void)state;
    respite_settings *s = respite_settings_new("backoff", NULL);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_number(s, "multiplier", 100.5, &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "multiplier must be a number from 1 to 100 (got 100.5)");
    assert_int_equal(respite_settings_set_number(s, "multiplier", 1.5e-10, &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "multiplier must be a number from 1 to 100 (got 1.5e-10)");
    respite_settings_free(s);
    respite_event e = {0};
    e.type = RESPITE_EVENT_RECOVERY_STARTED;
    e.failures = 3;
    e.window = 0.5;
    e.pause = 0.30000000000000004;
    char line[128];
    respite_event_message(&e, line, sizeof line);
    assert_string_equal(line, "recovery started: 3 failures within 0.5s; requests paused for 0.3s");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_G17_the_refusal_writes_a_point),
        cmocka_unit_test(test_E7_text_numbers_read_a_point_not_a_comma),
        cmocka_unit_test(test_E4_numbers_in_messages_write_a_point),
    };
    return cmocka_run_group_tests(tests, comma_locale, c_locale);
}
