/* Settings by name (spec section 8 and E3-E8): every bound of every setting
 * below / at / above with the exact message, wrong types, NaN and infinity,
 * unknown names and components, profiles, text parsing and cross-rules. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../support/test_support.h"
#include "respite.h"

/* A numeric value for one setting and the exact message, NULL when accepted. */
typedef struct number_case {
    const char *component;
    const char *name;
    double value;
    const char *message;
} number_case;

#define SECONDS_GT0 "a number greater than 0 and at most 86400"
#define BIG "an integer from 0 to 9007199254740991"

static const number_case number_cases[] = {
    /* gate */
    {"gate", "failures_to_enter_recovery", 0, "failures_to_enter_recovery must be an integer from 1 to 1000 (got 0)"},
    {"gate", "failures_to_enter_recovery", 1, NULL},
    {"gate", "failures_to_enter_recovery", 2, NULL},
    {"gate", "failures_to_enter_recovery", 1000, NULL},
    {"gate", "failures_to_enter_recovery", 1001,
     "failures_to_enter_recovery must be an integer from 1 to 1000 (got 1001)"},
    {"gate", "failures_to_enter_recovery", 2.5,
     "failures_to_enter_recovery must be an integer from 1 to 1000 (got 2.5)"},
    {"gate", "failures_window_seconds", 0, "failures_window_seconds must be " SECONDS_GT0 " (got 0)"},
    {"gate", "failures_window_seconds", -1, "failures_window_seconds must be " SECONDS_GT0 " (got -1)"},
    {"gate", "failures_window_seconds", 1e-9, NULL},
    {"gate", "failures_window_seconds", 86400, NULL},
    {"gate", "failures_window_seconds", 86400.001, "failures_window_seconds must be " SECONDS_GT0 " (got 86400.001)"},
    {"gate", "recovery_seconds", -1e300, NULL},
    {"gate", "recovery_seconds", -1, NULL},
    {"gate", "recovery_seconds", 0, NULL},
    {"gate", "recovery_seconds", 86400, NULL},
    {"gate", "recovery_seconds", 86401,
     "recovery_seconds must be a number at most 86400 (0 or less disables the gate) (got 86401)"},
    {"gate", "recovery_multiplier", 0.999, "recovery_multiplier must be a number from 1 to 100 (got 0.999)"},
    {"gate", "recovery_multiplier", 1, NULL},
    {"gate", "recovery_multiplier", 100, NULL},
    {"gate", "recovery_multiplier", 100.5, "recovery_multiplier must be a number from 1 to 100 (got 100.5)"},
    {"gate", "max_recovery_seconds", 0, "max_recovery_seconds must be " SECONDS_GT0 " (got 0)"},
    {"gate", "max_recovery_seconds", 0.001, NULL},
    {"gate", "max_recovery_seconds", 86400, NULL},
    {"gate", "max_recovery_seconds", 90000, "max_recovery_seconds must be " SECONDS_GT0 " (got 90000)"},
    {"gate", "probes", -1, "probes must be an integer from 0 to 1000 (got -1)"},
    {"gate", "probes", 0, NULL},
    {"gate", "probes", 1000, NULL},
    {"gate", "probes", 1001, "probes must be an integer from 0 to 1000 (got 1001)"},
    {"gate", "probe_timeout_seconds", 0, "probe_timeout_seconds must be " SECONDS_GT0 " (got 0)"},
    {"gate", "probe_timeout_seconds", 0.25, NULL},
    {"gate", "probe_timeout_seconds", 86400, NULL},
    {"gate", "probe_timeout_seconds", 2e6, "probe_timeout_seconds must be " SECONDS_GT0 " (got 2000000)"},
    {"gate", "recover_never", -1, "recover_never must be true or false (got -1)"},
    {"gate", "recover_never", 0, NULL},
    {"gate", "recover_never", 1, NULL},
    {"gate", "recover_never", 2, "recover_never must be true or false (got 2)"},
    {"gate", "count_all_failures", 0.5, "count_all_failures must be true or false (got 0.5)"},
    {"gate", "count_all_failures", 1, NULL},
    {"gate", "honour_retry_after", 0, NULL},
    {"gate", "honour_retry_after", 3, "honour_retry_after must be true or false (got 3)"},
    {"gate", "jitter", -0.1, "jitter must be a number from 0 to 1 (got -0.1)"},
    {"gate", "jitter", 0, NULL},
    {"gate", "jitter", 1, NULL},
    {"gate", "jitter", 1.1, "jitter must be a number from 0 to 1 (got 1.1)"},
    {"gate", "seed", -1, "seed must be " BIG " (got -1)"},
    {"gate", "seed", 0, NULL},
    {"gate", "seed", 9007199254740991.0, NULL},
    {"gate", "seed", 9007199254740992.0, "seed must be " BIG " (got 9007199254740992)"},
    {"gate", "seed", 0.5, "seed must be " BIG " (got 0.5)"},
    /* backoff */
    {"backoff", "max_attempts", 0, "max_attempts must be an integer from 1 to 100 (got 0)"},
    {"backoff", "max_attempts", 1, NULL},
    {"backoff", "max_attempts", 100, NULL},
    {"backoff", "max_attempts", 101, "max_attempts must be an integer from 1 to 100 (got 101)"},
    {"backoff", "initial_delay_seconds", 0, "initial_delay_seconds must be " SECONDS_GT0 " (got 0)"},
    {"backoff", "initial_delay_seconds", 0.001, NULL},
    {"backoff", "initial_delay_seconds", 86400, NULL},
    {"backoff", "initial_delay_seconds", 86400.5, "initial_delay_seconds must be " SECONDS_GT0 " (got 86400.5)"},
    {"backoff", "multiplier", 0.5, "multiplier must be a number from 1 to 100 (got 0.5)"},
    {"backoff", "multiplier", 1, NULL},
    {"backoff", "multiplier", 100, NULL},
    {"backoff", "multiplier", 101, "multiplier must be a number from 1 to 100 (got 101)"},
    {"backoff", "max_delay_seconds", 0, "max_delay_seconds must be " SECONDS_GT0 " (got 0)"},
    {"backoff", "max_delay_seconds", 0.5, NULL},
    {"backoff", "max_delay_seconds", 86400, NULL},
    {"backoff", "max_delay_seconds", 86401, "max_delay_seconds must be " SECONDS_GT0 " (got 86401)"},
    {"backoff", "seed", -1, "seed must be " BIG " (got -1)"},
    {"backoff", "seed", 0, NULL},
    {"backoff", "seed", 9007199254740991.0, NULL},
    {"backoff", "seed", 1e16, "seed must be " BIG " (got 10000000000000000)"},
    /* queue */
    {"queue", "max_bytes", -1, "max_bytes must be " BIG " (got -1)"},
    {"queue", "max_bytes", 0, NULL},
    {"queue", "max_bytes", 9007199254740991.0, NULL},
    {"queue", "max_bytes", 9007199254740992.0, "max_bytes must be " BIG " (got 9007199254740992)"},
    /* sender */
    {"sender", "timeout_seconds", 0, "timeout_seconds must be " SECONDS_GT0 " (got 0)"},
    {"sender", "timeout_seconds", 0.001, NULL},
    {"sender", "timeout_seconds", 86400, NULL},
    {"sender", "timeout_seconds", 86400.25, "timeout_seconds must be " SECONDS_GT0 " (got 86400.25)"},
    {"sender", "gzip", 0, NULL},
    {"sender", "gzip", 1, NULL},
    {"sender", "gzip", 2, "gzip must be true or false (got 2)"},
    {"sender", "min_entries_per_message", 0, "min_entries_per_message must be an integer from 1 to 1000000 (got 0)"},
    {"sender", "min_entries_per_message", 1, NULL},
    {"sender", "min_entries_per_message", 1000000, NULL},
    {"sender", "min_entries_per_message", 1000001,
     "min_entries_per_message must be an integer from 1 to 1000000 (got 1000001)"},
    {"sender", "max_entries_per_message", -1, "max_entries_per_message must be an integer from 0 to 1000000 (got -1)"},
    {"sender", "max_entries_per_message", 0, NULL},
    {"sender", "max_entries_per_message", 1000000, NULL},
    {"sender", "max_entries_per_message", 1000001,
     "max_entries_per_message must be an integer from 0 to 1000000 (got 1000001)"},
    {"sender", "close_timeout_seconds", -0.001, "close_timeout_seconds must be a number from 0 to 86400 (got -0.001)"},
    {"sender", "close_timeout_seconds", 0, NULL},
    {"sender", "close_timeout_seconds", 86400, NULL},
    {"sender", "close_timeout_seconds", 86400.5, "close_timeout_seconds must be a number from 0 to 86400 (got 86400.5)"},
    /* client */
    {"client", "timeout_seconds", 0, "timeout_seconds must be " SECONDS_GT0 " (got 0)"},
    {"client", "timeout_seconds", 0.5, NULL},
    {"client", "timeout_seconds", 86400, NULL},
    {"client", "timeout_seconds", 1e5, "timeout_seconds must be " SECONDS_GT0 " (got 100000)"},
};

/* A text value for one setting (set_text) and the exact message, NULL when accepted. */
typedef struct text_case {
    const char *component;
    const char *name;
    const char *value;
    const char *message;
} text_case;

#define JITTER_ACCEPTED "jitter must be one of none, full, equal, decorrelated"
#define RETRY_ON_ACCEPTED                                                                                         \
    "retry_on must be a comma-separated list of outcome names (request_error, throttled, server_error, unusable, " \
    "transport) and HTTP status codes from 400 to 599"

#define INT_NOTATION "max_attempts must be an integer from 1 to 100, in plain decimal notation such as 12"
#define NUMBER_NOTATION "multiplier must be a number from 1 to 100, in plain decimal notation such as 12 or 0.5"
/* 1e320, beyond the largest double, and its first 80 characters (E3) */
#define ZEROS10 "0000000000"
#define ZEROS80 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10
#define HUGE_DIGITS "1" ZEROS80 ZEROS80 ZEROS80 ZEROS80
#define HUGE_SHOWN "1" ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 ZEROS10 "000000000"
#define NAME_ACCEPTED "name must be UTF-8 text of at most 63 bytes, without control characters"
#define HEADER_ACCEPTED(name) name " must be text without line breaks (CR or LF), as it goes into a header"
#define SIXTY_THREE "123456789012345678901234567890123456789012345678901234567890123"
#define E_ACUTE10 "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
#define EIGHTY_E_ACUTE E_ACUTE10 E_ACUTE10 E_ACUTE10 E_ACUTE10 E_ACUTE10 E_ACUTE10 E_ACUTE10 E_ACUTE10
#define EIGHTY_ONE_E_ACUTE EIGHTY_E_ACUTE "\xc3\xa9"

static const text_case text_cases[] = {
    {"backoff", "jitter", "none", NULL},
    {"backoff", "jitter", "full", NULL},
    {"backoff", "jitter", "equal", NULL},
    {"backoff", "jitter", "decorrelated", NULL},
    {"backoff", "jitter", "NONE", JITTER_ACCEPTED " (got 'NONE')"},
    {"backoff", "jitter", "", JITTER_ACCEPTED " (got '')"},
    {"backoff", "jitter", "full ", JITTER_ACCEPTED " (got 'full ')"},
    {"backoff", "retry_on", "transport", NULL},
    {"backoff", "retry_on", "429", NULL},
    {"backoff", "retry_on", "400,599", NULL},
    {"backoff", "retry_on", "transport, 429 ,server_error,request_error,unusable,throttled", NULL},
    {"backoff", "retry_on", "success", RETRY_ON_ACCEPTED " (got 'success')"},
    {"backoff", "retry_on", "399", RETRY_ON_ACCEPTED " (got '399')"},
    {"backoff", "retry_on", "600", RETRY_ON_ACCEPTED " (got '600')"},
    {"backoff", "retry_on", "429.0", RETRY_ON_ACCEPTED " (got '429.0')"},
    {"backoff", "retry_on", "transport,timeout", RETRY_ON_ACCEPTED " (got 'transport,timeout')"},
    {"backoff", "retry_on", "", RETRY_ON_ACCEPTED " (got '')"},
    /* an empty item is no item, "," no more a list than "" */
    {"backoff", "retry_on", ",", RETRY_ON_ACCEPTED " (got ',')"},
    {"backoff", "retry_on", " , ", RETRY_ON_ACCEPTED " (got ' , ')"},
    {"backoff", "retry_on", "429,", RETRY_ON_ACCEPTED " (got '429,')"},
    {"backoff", "retry_on", "429,,503", RETRY_ON_ACCEPTED " (got '429,,503')"},
    {"queue", "overflow", "drop_oldest", NULL},
    {"queue", "overflow", "drop_newest", NULL},
    {"queue", "overflow", "drop", "overflow must be one of drop_oldest, drop_newest (got 'drop')"},
    {"sender", "url", "http://localhost:8080/usage", NULL},
    {"sender", "url", "https://cloud.example.com", NULL},
    {"sender", "url", "ftp://example.com", "url must be an http:// or https:// URL (got 'ftp://example.com')"},
    {"sender", "url", "http://", "url must be an http:// or https:// URL (got 'http://')"},
    {"sender", "url", "", "url must be an http:// or https:// URL (got '')"},
    {"sender", "url", "HTTPS://Cloud.example.com/a?b=c", NULL},
    {"sender", "url", "http://example.com/a b", "url must be an http:// or https:// URL (got 'http://example.com/a b')"},
    {"sender", "url", "http://example.com/\r\nX: y", "url must be an http:// or https:// URL (got 'http://example.com/??X: y')"},
    {"sender", "content_type", "text/plain", NULL},
    {"sender", "prefix", "[", NULL},
    {"sender", "separator", "", NULL},
    {"sender", "suffix", "]", NULL},
    {"client", "user_agent", "my-app/1.0", NULL},
    /* text that goes into a header: a line break would inject another one */
    {"client", "user_agent", "my app/1.0 (x; \xc3\xa9)\t", NULL},
    {"client", "user_agent", "respite\r\nX-Injected: yes", HEADER_ACCEPTED("user_agent") " (got 'respite??X-Injected: yes')"},
    {"client", "user_agent", "respite\nX-Injected: yes", HEADER_ACCEPTED("user_agent") " (got 'respite?X-Injected: yes')"},
    {"sender", "content_type", "text/plain\rX-Injected: yes", HEADER_ACCEPTED("content_type") " (got 'text/plain?X-Injected: yes')"},
    {"sender", "content_type", "\n", HEADER_ACCEPTED("content_type") " (got '?')"},
    /* every component's name: UTF-8, no control characters, at most 63 bytes */
    {"gate", "name", "billing", NULL},
    {"backoff", "name", "", NULL},
    {"queue", "name", "usage \xc3\xa9v\xc3\xa9nements \xf0\x9f\x98\x80", NULL},
    {"sender", "name", SIXTY_THREE, NULL},
    {"client", "name", SIXTY_THREE "x", NAME_ACCEPTED " (got '" SIXTY_THREE "x')"},
    {"gate", "name", "bill\ning", NAME_ACCEPTED " (got 'bill?ing')"},
    {"gate", "name", "tab\there", NAME_ACCEPTED " (got 'tab?here')"},
    {"gate", "name", "del\x7f", NAME_ACCEPTED " (got 'del?')"},
    {"gate", "name", "bad\xc3(", NAME_ACCEPTED " (got 'bad?(')"},
    {"gate", "name", "\xed\xa0\x80", NAME_ACCEPTED " (got '??\?')"}, /* a surrogate */
    {"gate", "name", "\xc0\xaf", NAME_ACCEPTED " (got '?\?')"},       /* an overlong '/' */
    /* E3: a shown text is its first 80 characters, not bytes */
    {"backoff", "jitter", EIGHTY_ONE_E_ACUTE, JITTER_ACCEPTED " (got '" EIGHTY_E_ACUTE "')"},
    /* E7: numbers from text are plain decimal notation only */
    {"backoff", "initial_delay_seconds", "2.5", NULL},
    {"backoff", "initial_delay_seconds", "0.001", NULL},
    {"backoff", "initial_delay_seconds", "86400.000", NULL},
    {"backoff", "max_attempts", "10.0", NULL},
    {"backoff", "max_attempts", "007", NULL},
    {"gate", "recovery_seconds", "-5", NULL},
    {"gate", "recovery_seconds", "-0", NULL},
    {"backoff", "max_attempts", "0", "max_attempts must be an integer from 1 to 100 (got 0)"},
    {"backoff", "max_attempts", "-1", "max_attempts must be an integer from 1 to 100 (got -1)"},
    {"backoff", "max_attempts", "2.5", "max_attempts must be an integer from 1 to 100 (got 2.5)"},
    {"backoff", "initial_delay_seconds", "86400.0000001",
     "initial_delay_seconds must be a number greater than 0 and at most 86400 (got 86400.0000001)"},
    {"backoff", "max_attempts", "abc", INT_NOTATION " (got 'abc')"},
    {"backoff", "max_attempts", "", INT_NOTATION " (got '')"},
    {"backoff", "max_attempts", " 5", INT_NOTATION " (got ' 5')"},
    {"backoff", "max_attempts", "5 ", INT_NOTATION " (got '5 ')"},
    {"backoff", "max_attempts", "5\n", INT_NOTATION " (got '5?')"},
    {"backoff", "max_attempts", "+5", INT_NOTATION " (got '+5')"},
    {"backoff", "max_attempts", "--5", INT_NOTATION " (got '--5')"},
    {"backoff", "max_attempts", "0x10", INT_NOTATION " (got '0x10')"},
    {"backoff", "max_attempts", "1e1", INT_NOTATION " (got '1e1')"},
    {"backoff", "max_attempts", "5.", INT_NOTATION " (got '5.')"},
    {"backoff", "max_attempts", "1,5", INT_NOTATION " (got '1,5')"},
    {"backoff", "max_attempts", "\xd9\xa5", INT_NOTATION " (got '\xd9\xa5')"}, /* ARABIC-INDIC DIGIT FIVE */
    {"backoff", "multiplier", "0x1p4", NUMBER_NOTATION " (got '0x1p4')"},
    {"backoff", "multiplier", "1e3", NUMBER_NOTATION " (got '1e3')"},
    {"backoff", "multiplier", "1E1", NUMBER_NOTATION " (got '1E1')"},
    {"backoff", "multiplier", ".5", NUMBER_NOTATION " (got '.5')"},
    {"backoff", "multiplier", "-.5", NUMBER_NOTATION " (got '-.5')"},
    {"backoff", "multiplier", "-", NUMBER_NOTATION " (got '-')"},
    {"backoff", "multiplier", "nan", NUMBER_NOTATION " (got 'nan')"},
    {"backoff", "multiplier", "inf", NUMBER_NOTATION " (got 'inf')"},
    {"backoff", "multiplier", "-inf", NUMBER_NOTATION " (got '-inf')"},
    {"backoff", "multiplier", "infinity", NUMBER_NOTATION " (got 'infinity')"},
    /* more digits than a double holds: the text, not "inf" */
    {"backoff", "multiplier", HUGE_DIGITS, "multiplier must be a number from 1 to 100 (got '" HUGE_SHOWN "')"},
    {"gate", "recover_never", "true", NULL},
    {"gate", "recover_never", "false", NULL},
    {"gate", "recover_never", "1", NULL},
    {"gate", "recover_never", "0", NULL},
    {"gate", "recover_never", "yes", "recover_never must be true or false (got 'yes')"},
    {"gate", "recover_never", "TRUE", "recover_never must be true or false (got 'TRUE')"},
};

static void assert_rejected(int rc, const respite_error *err, const char *setting, const char *message)
{
    assert_int_equal(rc, RESPITE_E_INVALID_SETTING);
    assert_int_equal(err->status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err->setting, setting);
    assert_string_equal(err->message, message);
}

static void test_E3_every_numeric_bound_with_its_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof number_cases / sizeof number_cases[0]; i++) {
        const number_case *c = &number_cases[i];
        respite_settings *s = new_settings(c->component);
        respite_error err;
        respite_error_clear(&err);
        double before = respite_settings_get_number(s, c->name, NULL);
        int rc = respite_settings_set_number(s, c->name, c->value, &err);
        if (c->message) {
            assert_rejected(rc, &err, c->name, c->message);
            /* E12: rejected, never clamped: the value is unchanged */
            assert_true(respite_settings_get_number(s, c->name, NULL) == before);
        } else {
            if (rc != RESPITE_OK)
                fail_msg("%s.%s = %.17g rejected: %s", c->component, c->name, c->value, err.message);
            assert_true(respite_settings_get_number(s, c->name, NULL) == c->value);
        }
        respite_settings_free(s);
    }
}

static void test_E3_every_text_value_with_its_message(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof text_cases / sizeof text_cases[0]; i++) {
        const text_case *c = &text_cases[i];
        respite_settings *s = new_settings(c->component);
        respite_error err;
        respite_error_clear(&err);
        int rc = respite_settings_set_text(s, c->name, c->value, &err);
        if (c->message) {
            assert_rejected(rc, &err, c->name, c->message);
        } else if (rc != RESPITE_OK) {
            fail_msg("%s.%s = '%s' rejected: %s", c->component, c->name, c->value, err.message);
        }
        respite_settings_free(s);
    }
}

/* Every row of the table, generically: the value at each bound is accepted
 * (or rejected when the bound is exclusive) and the next double beyond it is
 * rejected; so a row added later is covered without editing this test. */
static void test_E3_every_row_at_and_beyond_its_bounds(void **state)
{
    (void)state;
    int numeric_rows = 0;
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        if (row->type != RESPITE_SETTING_INTEGER && row->type != RESPITE_SETTING_NUMBER)
            continue;
        numeric_rows++;
        respite_settings *s = new_settings(row->component);
        respite_error err;
        double below = row->type == RESPITE_SETTING_INTEGER ? row->min - 1 : nextafter(row->min, -INFINITY);
        double above = row->type == RESPITE_SETTING_INTEGER ? row->max + 1 : nextafter(row->max, INFINITY);
        respite_error_clear(&err);
        assert_int_equal(respite_settings_set_number(s, row->name, below, &err), RESPITE_E_INVALID_SETTING);
        assert_non_null(strstr(err.message, row->accepted));
        respite_error_clear(&err);
        assert_int_equal(respite_settings_set_number(s, row->name, row->min, &err),
                         row->min_exclusive ? RESPITE_E_INVALID_SETTING : RESPITE_OK);
        respite_error_clear(&err);
        assert_int_equal(respite_settings_set_number(s, row->name, row->max, &err),
                         row->max_exclusive ? RESPITE_E_INVALID_SETTING : RESPITE_OK);
        respite_error_clear(&err);
        if (above <= 9007199254740992.0 || row->type == RESPITE_SETTING_NUMBER) {
            assert_int_equal(respite_settings_set_number(s, row->name, above, &err), RESPITE_E_INVALID_SETTING);
            assert_string_equal(err.setting, row->name);
        }
        respite_settings_free(s);
    }
    assert_true(numeric_rows >= 20);
}

static void test_E3_nan_and_infinities_are_rejected_everywhere(void **state)
{
    (void)state;
    const double values[] = {NAN, INFINITY, -INFINITY};
    const char *const texts[] = {"nan", "inf", "-inf"};
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        if (row->type != RESPITE_SETTING_INTEGER && row->type != RESPITE_SETTING_NUMBER &&
            row->type != RESPITE_SETTING_BOOLEAN)
            continue;
        respite_settings *s = new_settings(row->component);
        for (int v = 0; v < 3; v++) {
            respite_error err;
            respite_error_clear(&err);
            char expected[RESPITE_ERROR_MESSAGE_MAX];
            snprintf(expected, sizeof expected, "%s must be %s (got %s)", row->name, row->accepted, texts[v]);
            assert_rejected(respite_settings_set_number(s, row->name, values[v], &err), &err, row->name, expected);
        }
        respite_settings_free(s);
    }
}

/* E7: what an accepted text sets is the nearest double of its digits, and a
 * refused text leaves the value as it was (E12). */
static void test_E7_decimal_text_sets_the_nearest_double(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        const char *text;
        double value;
    } cases[] = {
        {"initial_delay_seconds", "2.5", 2.5},   {"initial_delay_seconds", "0.1", 0.1},
        {"max_delay_seconds", "86400.000", 86400}, {"max_attempts", "007", 7},
        {"max_attempts", "10.0", 10},            {"multiplier", "1.0000000000000002", 1.0000000000000002},
    };
    respite_settings *b = new_settings("backoff");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        assert_int_equal(respite_settings_set_text(b, cases[i].name, cases[i].text, NULL), RESPITE_OK);
        assert_true(respite_settings_get_number(b, cases[i].name, NULL) == cases[i].value);
    }
    assert_int_equal(respite_settings_set_text(b, "max_attempts", "0x10", NULL), RESPITE_E_INVALID_SETTING);
    assert_int_equal(respite_settings_set_text(b, "multiplier", "1e1", NULL), RESPITE_E_INVALID_SETTING);
    assert_true(respite_settings_get_number(b, "max_attempts", NULL) == 10);
    assert_true(respite_settings_get_number(b, "multiplier", NULL) == 1.0000000000000002);
    respite_settings_free(b);
}

static void test_E7_wrong_types(void **state)
{
    (void)state;
    respite_error err;
    respite_settings *b = new_settings("backoff");
    respite_error_clear(&err);
    assert_rejected(respite_settings_set_boolean(b, "max_attempts", 1, &err), &err, "max_attempts",
                    "max_attempts must be an integer from 1 to 100 (got true)");
    assert_rejected(respite_settings_set_boolean(b, "multiplier", 0, &err), &err, "multiplier",
                    "multiplier must be a number from 1 to 100 (got false)");
    assert_rejected(respite_settings_set_text(b, "multiplier", "abc", &err), &err, "multiplier",
                    NUMBER_NOTATION " (got 'abc')");
    assert_rejected(respite_settings_set_number(b, "jitter", 1, &err), &err, "jitter",
                    JITTER_ACCEPTED " (got a number)");
    assert_rejected(respite_settings_set_integer(b, "retry_on", 429, &err), &err, "retry_on",
                    RETRY_ON_ACCEPTED " (got a number)");
    assert_rejected(respite_settings_set_boolean(b, "jitter", 1, &err), &err, "jitter",
                    JITTER_ACCEPTED " (got true)");
    assert_rejected(respite_settings_set_text(b, "jitter", NULL, &err), &err, "jitter",
                    JITTER_ACCEPTED " (got nothing (NULL))");
    assert_rejected(respite_settings_set_integer(b, "seed", INT64_MAX, &err), &err, "seed",
                    "seed must be " BIG " (got 9223372036854775807)");
    assert_rejected(respite_settings_set_integer(b, "seed", INT64_C(9007199254740993), &err), &err, "seed",
                    "seed must be " BIG " (got 9007199254740993)");
    assert_rejected(respite_settings_set_integer(b, "max_attempts", -3, &err), &err, "max_attempts",
                    "max_attempts must be an integer from 1 to 100 (got -3)");
    assert_int_equal(respite_settings_set_integer(b, "max_attempts", 7, &err), RESPITE_OK);
    assert_true(respite_settings_get_number(b, "max_attempts", NULL) == 7);
    /* getters of the wrong kind */
    respite_error_clear(&err);
    assert_true(isnan(respite_settings_get_number(b, "jitter", &err)));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "jitter is text, not a number");
    respite_error_clear(&err);
    assert_null(respite_settings_get_text(b, "multiplier", &err));
    assert_string_equal(err.message, "multiplier is a number, not text");
    respite_settings_free(b);

    respite_settings *s = new_settings("sender");
    assert_rejected(respite_settings_set_number(s, "url", 1, &err), &err, "url",
                    "url must be an http:// or https:// URL (got a number)");
    assert_rejected(respite_settings_set_boolean(s, "content_type", 1, &err), &err, "content_type",
                    HEADER_ACCEPTED("content_type") " (got true)");
    assert_int_equal(respite_settings_set_boolean(s, "gzip", 5, &err), RESPITE_OK); /* any non-zero is true */
    assert_true(respite_settings_get_number(s, "gzip", NULL) == 1.0);
    respite_settings_free(s);
}

static void test_E5_unknown_setting_lists_the_accepted_names(void **state)
{
    (void)state;
    respite_error err;
    respite_settings *b = new_settings("backoff");
    respite_error_clear(&err);
    assert_rejected(respite_settings_set_number(b, "retries", 3, &err), &err, "retries",
                    "retries is not a backoff setting (accepted: max_attempts, initial_delay_seconds, multiplier, "
                    "max_delay_seconds, jitter, retry_on, seed, max_elapsed_seconds, name)");
    /* a gate setting is not a back-off setting */
    assert_rejected(respite_settings_set_number(b, "probes", 3, &err), &err, "probes",
                    "probes is not a backoff setting (accepted: max_attempts, initial_delay_seconds, multiplier, "
                    "max_delay_seconds, jitter, retry_on, seed, max_elapsed_seconds, name)");
    respite_error_clear(&err);
    assert_true(isnan(respite_settings_get_number(b, "Max_Attempts", &err)));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(b, NULL, "1", &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "setting name is NULL");
    respite_settings_free(b);

    respite_settings *g = new_settings("gate");
    respite_error_clear(&err);
    assert_rejected(respite_settings_set_text(g, "window", "5", &err), &err, "window",
                    "window is not a gate setting (accepted: failures_to_enter_recovery, failures_window_seconds, "
                    "recovery_seconds, recovery_multiplier, max_recovery_seconds, probes, probe_timeout_seconds, "
                    "recover_never, count_all_failures, honour_retry_after, jitter, seed, shared_path, name)");
    respite_settings_free(g);
}

/* 1 when s is valid UTF-8 (shortest forms, no surrogates). */
static int valid_utf8(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        int len = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
        if (len == 0 || (len == 2 && *p < 0xC2) || (len == 3 && *p == 0xE0 && p[1] < 0xA0) ||
            (len == 3 && *p == 0xED && p[1] >= 0xA0) || (len == 4 && (*p > 0xF4 || (*p == 0xF0 && p[1] < 0x90))))
            return 0;
        for (int i = 1; i < len; i++)
            if ((p[i] & 0xC0) != 0x80)
                return 0;
        p += len;
    }
    return 1;
}

/* E3, E5: a name the caller gave is shown by characters, never cut inside
 * one, with bytes that are not UTF-8 as '?'; err->setting too. */
static void test_E5_unknown_names_are_shown_as_valid_text(void **state)
{
    (void)state;
    respite_error err;
    respite_settings *b = new_settings("backoff");
    char name[256] = "a";
    for (int i = 0; i < 50; i++)
        strcat(name, "\xc3\xa9");
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(b, name, "1", &err), RESPITE_E_INVALID_SETTING);
    char expected[512];
    snprintf(expected, sizeof expected, "%s is not a backoff setting (accepted: max_attempts, "
             "initial_delay_seconds, multiplier, max_delay_seconds, jitter, retry_on, seed, max_elapsed_seconds, name)", name);
    assert_string_equal(err.message, expected);
    assert_int_equal(strncmp(err.setting, name, 63), 0); /* 'a' and 31 of the 50: 63 bytes */
    assert_int_equal(strlen(err.setting), 63);
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_number(b, "x\xffy\n", 1, &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "x?y?");
    assert_int_equal(strncmp(err.message, "x?y? is not a backoff setting", 29), 0);
    /* four-byte characters: the first 80 shown whole */
    respite_settings *s = new_settings("sender");
    char emoji[400] = "";
    for (int i = 0; i < 90; i++)
        strcat(emoji, "\xf0\x9f\x98\x80");
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(s, emoji, "1", &err), RESPITE_E_INVALID_SETTING);
    assert_true(valid_utf8(err.message));
    assert_true(valid_utf8(err.setting));
    assert_int_equal(strncmp(err.message, emoji, 80 * 4), 0);
    assert_int_equal(strncmp(err.message + 80 * 4, " is not a sender setting", 24), 0);
    respite_error_clear(&err);
    assert_null(respite_settings_new(emoji, &err));
    assert_true(valid_utf8(err.message));
    respite_settings_free(s);
    respite_settings_free(b);
}

/* Item 21: a valid retry_on list of any length is accepted. */
static void test_E3_retry_on_of_any_length(void **state)
{
    (void)state;
    char list[1024] = "transport";
    for (int code = 400; code <= 599; code++)
        snprintf(list + strlen(list), sizeof list - strlen(list), ", %d", code);
    assert_true(strlen(list) > 512);
    respite_settings *b = new_settings("backoff");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(b, "retry_on", list, &err), RESPITE_OK);
    assert_string_equal(respite_settings_get_text(b, "retry_on", NULL), list);
    respite_backoff *backoff = respite_backoff_new(b, &err);
    assert_non_null(backoff);
    respite_backoff_free(backoff);
    respite_settings_free(b);
}

static void test_E6_unknown_component(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_null(respite_settings_new("gates", &err));
    assert_rejected(err.status, &err, "component",
                    "component must be one of gate, backoff, queue, sender, client, fleet, cloud_request, usage_sharing "
                    "(got 'gates')");
    respite_error_clear(&err);
    assert_null(respite_settings_new(NULL, &err));
    assert_rejected(err.status, &err, "component",
                    "component must be one of gate, backoff, queue, sender, client, fleet, cloud_request, usage_sharing "
                    "(got '(null)')");
    assert_null(respite_settings_new("", NULL));
}

static void test_E9_null_settings_is_closed(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_number(NULL, "probes", 1, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "settings is closed");
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_text(NULL, "probes", "1", &err), RESPITE_E_CLOSED);
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_boolean(NULL, "probes", 1, &err), RESPITE_E_CLOSED);
    respite_error_clear(&err);
    assert_int_equal(respite_settings_set_integer(NULL, "probes", 1, &err), RESPITE_E_CLOSED);
    respite_error_clear(&err);
    assert_true(isnan(respite_settings_get_number(NULL, "probes", &err)));
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_null(respite_settings_get_text(NULL, "url", NULL));
    assert_int_equal(respite_settings_validate(NULL, &err), RESPITE_E_CLOSED);
    assert_null(respite_settings_component(NULL));
    respite_settings_free(NULL); /* a no-op */
}

/* E2: the status a call returns is the same whether err is NULL or not. */
static void test_E2_status_does_not_depend_on_err(void **state)
{
    (void)state;
    respite_settings *b = new_settings("backoff");
    for (int with_err = 0; with_err < 2; with_err++) {
        respite_error err;
        respite_error *e = with_err ? &err : NULL;
        assert_int_equal(respite_settings_set_number(NULL, "seed", 1, e), RESPITE_E_CLOSED);
        assert_int_equal(respite_settings_set_integer(NULL, "seed", 1, e), RESPITE_E_CLOSED);
        assert_int_equal(respite_settings_set_boolean(NULL, "seed", 1, e), RESPITE_E_CLOSED);
        assert_int_equal(respite_settings_set_text(NULL, "seed", "1", e), RESPITE_E_CLOSED);
        assert_int_equal(respite_settings_set_number(b, NULL, 1, e), RESPITE_E_INVALID_ARGUMENT);
        assert_int_equal(respite_settings_set_integer(b, NULL, 1, e), RESPITE_E_INVALID_ARGUMENT);
        assert_int_equal(respite_settings_set_boolean(b, NULL, 1, e), RESPITE_E_INVALID_ARGUMENT);
        assert_int_equal(respite_settings_set_text(b, NULL, "1", e), RESPITE_E_INVALID_ARGUMENT);
        assert_int_equal(respite_settings_set_number(b, "retries", 1, e), RESPITE_E_INVALID_SETTING);
        assert_int_equal(respite_settings_set_text(b, "max_attempts", "0x10", e), RESPITE_E_INVALID_SETTING);
        assert_int_equal(respite_settings_validate(NULL, e), RESPITE_E_CLOSED);
    }
    respite_settings_free(b);
}

static void test_defaults_are_the_table_defaults(void **state)
{
    (void)state;
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        respite_settings *s = new_settings(row->component);
        assert_string_equal(respite_settings_component(s), row->component);
        if (row->default_text)
            assert_string_equal(respite_settings_get_text(s, row->name, NULL), row->default_text);
        else
            assert_true(respite_settings_get_number(s, row->name, NULL) == row->default_number);
        respite_settings_free(s);
    }
    /* and those are behaviour.md's figures */
    respite_settings *b = new_settings("backoff");
    assert_true(respite_settings_get_number(b, "max_attempts", NULL) == 3);
    assert_true(respite_settings_get_number(b, "initial_delay_seconds", NULL) == 0.5);
    assert_true(respite_settings_get_number(b, "multiplier", NULL) == 2.0);
    assert_true(respite_settings_get_number(b, "max_delay_seconds", NULL) == 30.0);
    assert_string_equal(respite_settings_get_text(b, "jitter", NULL), "none");
    assert_string_equal(respite_settings_get_text(b, "retry_on", NULL), "transport,408,429,500,502,503,504");
    assert_true(respite_settings_get_number(b, "seed", NULL) == 0);
    respite_settings_free(b);
}

/* Every default is a value its own row accepts (settings_table.c checks
 * the integer ones at compile time too). The sender's url is the one
 * exception: "" means not set yet, and respite_sender_new refuses it. */
static void test_every_default_is_accepted_by_its_row(void **state)
{
    (void)state;
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        respite_settings *s = new_settings(row->component);
        respite_error err;
        respite_error_clear(&err);
        int rc;
        if (strcmp(row->component, "sender") == 0 && strcmp(row->name, "url") == 0)
            rc = respite_settings_set_text(s, row->name, "http://localhost/", &err);
        else if (row->default_text)
            rc = respite_settings_set_text(s, row->name, row->default_text, &err);
        else
            rc = respite_settings_set_number(s, row->name, row->default_number, &err);
        if (rc != RESPITE_OK)
            fail_msg("%s.%s: its default is refused: %s", row->component, row->name, err.message);
        respite_settings_free(s);
    }
}

static void test_profiles(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        double cloud, usage;
    } values[] = {
        {"failures_to_enter_recovery", 10, 10}, {"failures_window_seconds", 100, 100},
        {"recovery_seconds", 60, 2},            {"recovery_multiplier", 1, 2},
        {"max_recovery_seconds", 300, 300},     {"probes", 1, 1},
        {"probe_timeout_seconds", 30, 30},      {"recover_never", 0, 0},
        {"count_all_failures", 0, 0},           {"honour_retry_after", 1, 1},
        {"jitter", 0, 0},                       {"seed", 0, 0},
    };
    respite_settings *cloud = new_settings("cloud_request");
    respite_settings *usage = new_settings("usage_sharing");
    respite_settings *gate = new_settings("gate");
    assert_string_equal(respite_settings_component(cloud), "gate");
    assert_string_equal(respite_settings_component(usage), "gate");
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        assert_true(respite_settings_get_number(cloud, values[i].name, NULL) == values[i].cloud);
        assert_true(respite_settings_get_number(gate, values[i].name, NULL) == values[i].cloud);
        assert_true(respite_settings_get_number(usage, values[i].name, NULL) == values[i].usage);
    }
    assert_int_equal(respite_settings_validate(usage, NULL), RESPITE_OK);
    /* a profile's settings are ordinary gate settings afterwards */
    assert_int_equal(respite_settings_set_number(usage, "recovery_seconds", 5, NULL), RESPITE_OK);
    respite_settings_free(cloud);
    respite_settings_free(usage);
    respite_settings_free(gate);
}

static void test_E8_cross_rules(void **state)
{
    (void)state;
    respite_error err;
    respite_settings *g = new_settings("gate");
    assert_int_equal(respite_settings_set_number(g, "recovery_seconds", 400, NULL), RESPITE_OK);
    /* multiplier 1: max_recovery_seconds below recovery_seconds is fine */
    assert_int_equal(respite_settings_validate(g, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_number(g, "recovery_multiplier", 1.5, NULL), RESPITE_OK);
    respite_error_clear(&err);
    assert_rejected(respite_settings_validate(g, &err), &err, "max_recovery_seconds",
                    "max_recovery_seconds must be at least recovery_seconds (400) when recovery_multiplier is more "
                    "than 1 (got 300)");
    assert_int_equal(respite_settings_set_number(g, "max_recovery_seconds", 400, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_validate(g, NULL), RESPITE_OK); /* equal is accepted */
    assert_int_equal(respite_settings_set_number(g, "recovery_seconds", -5, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_validate(g, NULL), RESPITE_OK);
    respite_settings_free(g);

    respite_settings *b = new_settings("backoff");
    assert_int_equal(respite_settings_set_number(b, "initial_delay_seconds", 30, NULL), RESPITE_OK);
    assert_int_equal(respite_settings_validate(b, NULL), RESPITE_OK); /* equal is accepted */
    assert_int_equal(respite_settings_set_number(b, "initial_delay_seconds", 30.5, NULL), RESPITE_OK);
    respite_error_clear(&err);
    assert_rejected(respite_settings_validate(b, &err), &err, "max_delay_seconds",
                    "max_delay_seconds must be at least initial_delay_seconds (30.5) (got 30)");
    /* and respite_backoff_new applies it */
    respite_error_clear(&err);
    assert_null(respite_backoff_new(b, &err));
    assert_string_equal(err.message, "max_delay_seconds must be at least initial_delay_seconds (30.5) (got 30)");
    respite_settings_free(b);
}

static void test_profiles_are_listed(void **state)
{
    (void)state;
    assert_int_equal(respite_profile_count(), 2);
    assert_string_equal(respite_profile_name(0), "cloud_request");
    assert_string_equal(respite_profile_name(1), "usage_sharing");
    assert_null(respite_profile_name(2));
    assert_null(respite_profile_name(-1));
    for (int i = 0; i < respite_profile_count(); i++) {
        respite_settings *s = respite_settings_new(respite_profile_name(i), NULL);
        assert_non_null(s);
        respite_settings_free(s);
    }
}

static void test_setting_info_lookup(void **state)
{
    (void)state;
    const respite_setting_info *row = respite_setting_find("gate", "failures_to_enter_recovery");
    assert_non_null(row);
    assert_string_equal(row->component, "gate");
    assert_int_equal(row->type, RESPITE_SETTING_INTEGER);
    assert_true(row->default_number == 10 && row->min == 1 && row->max == 1000);
    assert_false(row->min_exclusive || row->max_exclusive);
    assert_string_equal(row->accepted, "an integer from 1 to 1000");
    assert_non_null(row->doc);

    row = respite_setting_find("backoff", "jitter");
    assert_int_equal(row->type, RESPITE_SETTING_CHOICE);
    assert_string_equal(row->choices, "none|full|equal|decorrelated");
    assert_string_equal(row->default_text, "none");
    row = respite_setting_find("backoff", "initial_delay_seconds");
    assert_int_equal(row->type, RESPITE_SETTING_NUMBER);
    assert_true(row->min_exclusive && row->min == 0 && row->max == 86400);
    /* the same name in two components is two rows */
    assert_ptr_not_equal(respite_setting_find("gate", "seed"), respite_setting_find("backoff", "seed"));
    assert_ptr_not_equal(respite_setting_find("sender", "timeout_seconds"),
                         respite_setting_find("client", "timeout_seconds"));
    assert_true(respite_setting_find("sender", "timeout_seconds")->default_number == 5.0);
    assert_true(respite_setting_find("client", "timeout_seconds")->default_number == 2.0);

    assert_null(respite_setting_find("gate", "max_attempts"));
    assert_null(respite_setting_find("nope", "seed"));
    assert_null(respite_setting_find(NULL, "seed"));
    assert_null(respite_setting_find("gate", NULL));
    assert_null(respite_setting_at(-1));
    assert_null(respite_setting_at(respite_setting_count()));
    assert_non_null(respite_setting_at(respite_setting_count() - 1));
    assert_ptr_equal(respite_setting_at(0), respite_setting_find("gate", "failures_to_enter_recovery"));
}

/* A component's rows are one run of the table, and every row is well
 * formed for the docs and the bindings. */
static void test_table_is_well_formed(void **state)
{
    (void)state;
    static const char *const components[] = {"gate", "backoff", "queue", "sender", "client", "fleet"};
    int total = 0;
    for (int c = 0; c < 6; c++) {
        int first = -1, last = -1, count = 0;
        for (int i = 0; i < respite_setting_count(); i++) {
            if (strcmp(respite_setting_at(i)->component, components[c]) == 0) {
                if (first < 0)
                    first = i;
                last = i;
                count++;
            }
        }
        assert_true(count >= 2); /* its settings and its name */
        assert_int_equal(last - first + 1, count);
        total += count;
    }
    assert_int_equal(total, respite_setting_count());
    for (int i = 0; i < respite_setting_count(); i++) {
        const respite_setting_info *row = respite_setting_at(i);
        assert_non_null(row->accepted);
        assert_non_null(row->doc);
        assert_null(strchr(row->doc, '|')); /* they go into markdown tables */
        assert_null(strchr(row->accepted, '|'));
        for (int j = 0; j < i; j++)
            if (strcmp(respite_setting_at(j)->component, row->component) == 0)
                assert_string_not_equal(respite_setting_at(j)->name, row->name);
        int text = row->type == RESPITE_SETTING_CHOICE || row->type == RESPITE_SETTING_STRING ||
                   row->type == RESPITE_SETTING_LIST;
        assert_int_equal(row->default_text != NULL, text);
        assert_int_equal(row->choices != NULL, row->type == RESPITE_SETTING_CHOICE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_E3_every_numeric_bound_with_its_message),
        cmocka_unit_test(test_E3_every_text_value_with_its_message),
        cmocka_unit_test(test_E3_every_row_at_and_beyond_its_bounds),
        cmocka_unit_test(test_E3_nan_and_infinities_are_rejected_everywhere),
        cmocka_unit_test(test_E7_decimal_text_sets_the_nearest_double),
        cmocka_unit_test(test_E7_wrong_types),
        cmocka_unit_test(test_E5_unknown_setting_lists_the_accepted_names),
        cmocka_unit_test(test_E5_unknown_names_are_shown_as_valid_text),
        cmocka_unit_test(test_E3_retry_on_of_any_length),
        cmocka_unit_test(test_E6_unknown_component),
        cmocka_unit_test(test_E9_null_settings_is_closed),
        cmocka_unit_test(test_E2_status_does_not_depend_on_err),
        cmocka_unit_test(test_defaults_are_the_table_defaults),
        cmocka_unit_test(test_every_default_is_accepted_by_its_row),
        cmocka_unit_test(test_profiles),
        cmocka_unit_test(test_E8_cross_rules),
        cmocka_unit_test(test_setting_info_lookup),
        cmocka_unit_test(test_profiles_are_listed),
        cmocka_unit_test(test_table_is_well_formed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
