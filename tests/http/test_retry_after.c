/* C6: Retry-After is decimal delay-seconds or an HTTP-date, capped at a
 * day; the parser alone, then through the client against the fault server. */
#include "http_test_util.h"

#include "../../core/src/http/http_internal.h"

static const time_t now_wall = 1800000000; /* 2027-01-15 */

static double parse(const char *value)
{
    return respite_http_parse_retry_after(value, now_wall);
}

static void test_delay_seconds_are_decimal_only(void **state)
{
    (void)state;
    assert_true(parse("7") == 7.0);
    assert_true(parse("0.5") == 0.5);
    assert_true(parse("120") == 120.0);
    /* Hexadecimal, exponents, signs, white space and words are no hint. */
    const char *malformed[] = {"0x10", "0x1p4", "1e3", "1E3", " 5",  "5 ",  "\t5", "+5",  "-5", "5.",
                               ".5",   "5,5",   "nan", "inf", "5s",  "",    "0",   "0.0", "1_0"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        if (parse(malformed[i]) != 0.0)
            fail_msg("Retry-After '%s' gave %g, not 0 (no hint)", malformed[i], parse(malformed[i]));
    assert_true(parse(NULL) == 0.0);
}

static void test_huge_hints_are_capped_in_both_forms(void **state)
{
    (void)state;
    assert_true(parse("86400") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(parse("86401") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(parse("1000000001") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(parse("99999999999999999999999999999999") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    char digits[400]; /* beyond a double's range: still the cap */
    memset(digits, '9', sizeof digits - 1);
    digits[sizeof digits - 1] = '\0';
    assert_true(parse(digits) == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(parse("Fri, 31 Dec 9999 23:59:59 GMT") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    /* A date inside the cap: seconds from the wall clock; past: none. */
    assert_true(parse("Fri, 15 Jan 2027 08:01:00 GMT") == 60.0); /* now_wall is 08:00:00 */
    assert_true(parse("Sun, 06 Nov 1994 08:49:37 GMT") == 0.0);
    assert_true(parse("Friday, 31-Dec-99 23:59:59 GMT") == 0.0); /* 1999 */
    assert_true(parse("not a date") == 0.0);
}

static double hint_from_server(const char *script)
{
    respite_fault_server *server = server_start(script);
    respite_error err;
    respite_error_clear(&err);
    respite_client *client = respite_client_new(NULL, NULL, NULL, &err);
    assert_non_null(client);
    respite_response *resp =
        respite_client_request(client, "GET", respite_fault_server_url(server), NULL, NULL, 0, &err);
    if (!resp)
        fail_msg("request: %s", err.message);
    assert_int_equal(respite_response_status(resp), 503);
    double hint = respite_response_retry_after(resp);
    respite_response_free(resp);
    respite_client_free(client);
    respite_fault_server_stop(server);
    return hint;
}

static void test_the_public_parser_ignores_surrounding_blanks(void **state)
{
    (void)state;
    assert_true(respite_retry_after_seconds(503, " 7\t") == 7.0);
    assert_true(respite_retry_after_seconds(503, "0.5") == 0.5);
    assert_true(respite_retry_after_seconds(503, "5s") == 0.0);
    assert_true(respite_retry_after_seconds(503, "") == 0.0);
    assert_true(respite_retry_after_seconds(503, NULL) == 0.0);
    assert_true(respite_retry_after_seconds(503, "99999999") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    double in_future = respite_retry_after_seconds(503, "Fri, 31 Dec 9999 23:59:59 GMT ");
    assert_true(in_future == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(respite_retry_after_seconds(429, "7") == 7.0);
    assert_true(respite_retry_after_seconds(500, "7") == 0.0); /* C6: 429 and 503 only */
    assert_true(respite_retry_after_seconds(200, "7") == 0.0);
    assert_true(respite_retry_after_seconds(503, "Sun, 06 Nov 1994 08:49:37 GMT") == 0.0);
}

static void test_the_client_reads_the_header_by_the_same_rule(void **state)
{
    (void)state;
    assert_true(hint_from_server("503 retry_after=0x10") == 0.0);
    assert_true(hint_from_server("503 retry_after=1e3") == 0.0);
    assert_true(hint_from_server("503 retry_after=5000000000") == RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(hint_from_server("503 \"retry_after=Fri, 31 Dec 9999 23:59:59 GMT\"") ==
                RESPITE_RETRY_AFTER_MAX_SECONDS);
    assert_true(hint_from_server("503 retry_after=3") == 3.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_delay_seconds_are_decimal_only),
        cmocka_unit_test(test_huge_hints_are_capped_in_both_forms),
        cmocka_unit_test(test_the_public_parser_ignores_surrounding_blanks),
        cmocka_unit_test(test_the_client_reads_the_header_by_the_same_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
