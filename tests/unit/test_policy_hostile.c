/* Hostile and malformed policy documents (spec P1-P4): each gives a clear
 * status and problem, never a crash or a leak (the ASan run checks leaks). */
#include "test_policy_util.h"

static char *filled(size_t length, char c)
{
    char *text = malloc(length + 1);
    assert_non_null(text);
    memset(text, c, length);
    text[length] = '\0';
    return text;
}

static void expect_syntax(const char *json, int line, int column, const char *message)
{
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    assert_null(respite_policy_from_json(json, problems, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
    if (respite_problems_count(problems) != 1 || strcmp(respite_problems_message(problems, 0), message) != 0)
        print_problems(problems);
    assert_int_equal(respite_problems_count(problems), 1);
    assert_string_equal(respite_problems_pointer(problems, 0), "");
    assert_string_equal(respite_problems_message(problems, 0), message);
    assert_string_equal(err.message, message);
    assert_int_equal(respite_problems_line(problems, 0), line);
    assert_int_equal(respite_problems_column(problems, 0), column);
    respite_problems_free(problems);
}

static void test_P1_size_limit(void **state)
{
    (void)state;
    /* 10 MB string: rejected by size before parsing. */
    char *big = filled(10 * 1024 * 1024, 'a');
    memcpy(big, "{\"name\":\"", 9);
    memcpy(big + strlen(big) - 2, "\"}", 2);
    expect_one_problem(big, "", "the document is longer than 1048576 bytes; at most 1048576 bytes are accepted");
    free(big);

    /* Exactly 1 MiB is read (padding is white space); one byte more is not. */
    const char *valid = "{\"name\":\"p\",\"maximum_capacity\":1,\"error_handlers\":" HANDLERS_OK "}";
    char *padded = filled(RESPITE_POLICY_MAX_BYTES, ' ');
    memcpy(padded, valid, strlen(valid));
    respite_policy_free(expect_valid(padded));
    free(padded);
    padded = filled(RESPITE_POLICY_MAX_BYTES + 1, ' ');
    memcpy(padded, valid, strlen(valid));
    expect_one_problem(padded, "", "the document is longer than 1048576 bytes; at most 1048576 bytes are accepted");
    free(padded);
}

static void test_P2_empty_documents(void **state)
{
    (void)state;
    expect_one_problem("", "", "the document is empty; a policy is a JSON object");
    expect_one_problem(" \n\t\r ", "", "the document is empty; a policy is a JSON object");
    respite_error err = {0};
    assert_null(respite_policy_from_json_n("{}", 0, NULL, &err));
    assert_string_equal(err.message, "the document is empty; a policy is a JSON object");
}

static void test_P3_nesting_depth(void **state)
{
    (void)state;
    const char *msg33 = "the document nests arrays and objects more than 32 levels deep (at line 1, column 33); "
                        "a policy needs 4";
    char *deep = filled(100000, '[');
    expect_syntax(deep, 1, 33, msg33);
    free(deep);

    /* 100000 levels of {"a": ... */
    size_t n = 100000;
    deep = malloc(n * 5 + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(deep + i * 5, "{\"a\":", 5);
    deep[n * 5] = '\0';
    expect_syntax(deep, 1, 5 * 32 + 1, "the document nests arrays and objects more than 32 levels deep (at line 1, "
                                       "column 161); a policy needs 4");
    free(deep);

    /* 32 levels are parsed (and rejected for what they are), 33 are not. */
    char exact[80] = "";
    for (int i = 0; i < 32; i++)
        strcat(exact, "[");
    for (int i = 0; i < 32; i++)
        strcat(exact, "]");
    expect_one_problem(exact, "", "a policy must be a JSON object (got an array)");
    char over[80] = "[";
    strcat(over, exact);
    expect_syntax(over, 1, 33, msg33);

    /* Brackets inside strings (with escaped quotes) do not count. */
    char *name = filled(1000, '[');
    name[0] = '"';
    name[1] = '\\';
    name[2] = '"';
    name[999] = '"';
    char *json = doc(name, CAP_OK, HANDLERS_OK, "");
    expect_one_problem(json, "/name", "must be at most 128 characters long (got 997)");
    free(json);
    free(name);

    /* On a later line. */
    expect_syntax("{\n\"x\":\n [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[", 3, 33,
                  "the document nests arrays and objects more than 32 levels deep (at line 3, column 33); "
                  "a policy needs 4");
}

static void test_P4_syntax_errors_have_line_and_column(void **state)
{
    (void)state;
    expect_syntax("{\n  \"name\": \"p\",\n  \"maximum_capacity\": 1,,\n}", 3, 25,
                  "invalid JSON at line 3, column 25: string or '}' expected near ','");
    expect_syntax("{\"name\": \"p\"", 1, 12, "invalid JSON at line 1, column 12: '}' expected near end of file");
    expect_syntax("{} x", 1, 4, "invalid JSON at line 1, column 4: end of file expected near 'x'");
    expect_syntax("{'name': 'p'}", 1, 2, "invalid JSON at line 1, column 2: string or '}' expected near '''");
    expect_syntax("{\"a\":1,}", 1, 8, "invalid JSON at line 1, column 8: string or '}' expected near '}'");
    expect_syntax("// comment\n{}", 1, 1, "invalid JSON at line 1, column 1: invalid token near '/'");
    /* The seed's complex example misses a comma. */
    expect_syntax("{\n \"error_type\" : \"client_error\"\n \"retreat_strategy\" : \"retry\"\n}", 3, 19,
                  "invalid JSON at line 3, column 19: '}' expected near '\"retreat_strategy\"'");
}

static void test_P4_duplicate_keys(void **state)
{
    (void)state;
    expect_syntax("{\"name\":\"a\",\"name\":\"b\"}", 1, 18,
                  "invalid JSON at line 1, column 18: duplicate object key near '\"name\"'");
    expect_syntax("{\"name\":\"p\",\"maximum_capacity\":1,\"error_handlers\":[{\"on\":\"any_error\",\"on\":\"x\"}]}", 1,
                  73, "invalid JSON at line 1, column 73: duplicate object key near '\"on\"'");
}

static void test_P4_huge_numbers(void **state)
{
    (void)state;
    expect_syntax("{\"maximum_capacity\": 99999999999999999999}", 1, 41,
                  "invalid JSON at line 1, column 41: too big integer near '99999999999999999999'");
    expect_syntax("{\"maximum_capacity\": -99999999999999999999}", 1, 42,
                  "invalid JSON at line 1, column 42: too big negative integer");
    expect_syntax("{\"maximum_capacity\": 1e400}", 1, 26,
                  "invalid JSON at line 1, column 26: real number overflow near '1e400'");
    /* Fits in 64 bits, not in the field. */
    expect_one_problem_free(doc(NAME_OK, "9223372036854775807", HANDLERS_OK, ""), "/maximum_capacity",
                            "must be an integer from 1 to 1000000 (got 9223372036854775807)");
    expect_one_problem_free(doc(NAME_OK, "-9223372036854775808", HANDLERS_OK, ""), "/maximum_capacity",
                            "must be an integer from 1 to 1000000 (got -9223372036854775808)");
    expect_one_problem_free(doc(NAME_OK, "1e-400", HANDLERS_OK, ""), "/maximum_capacity",
                            "must be an integer from 1 to 1000000 (got 0.0)");
    expect_one_problem_free(doc(NAME_OK, "1E3", HANDLERS_OK, ""), "/maximum_capacity",
                            "must be an integer from 1 to 1000000 (got 1000.0)");
}

static void test_P4_text_that_is_not_utf8(void **state)
{
    (void)state;
    const char *cases[] = {
        "{\"name\":\"\xff\"}",                 /* not a UTF-8 byte */
        "{\"name\":\"\xc0\xaf\"}",             /* overlong '/' */
        "{\"name\":\"\xed\xa0\x80\"}",         /* an encoded surrogate */
        "{\"name\":\"\xe2\x82\"}",             /* cut short */
        "{\"na\xfe\":1}",                      /* in a key */
        "\xef\xbb\xbf{}",                      /* a byte-order mark is not JSON */
    };
    for (size_t i = 0; i < EXPECT_COUNT(cases); i++) {
        respite_error err = {0};
        respite_problems *problems = respite_problems_new(&err);
        assert_null(respite_policy_from_json(cases[i], problems, &err));
        assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
        assert_int_equal(respite_problems_count(problems), 1);
        assert_string_equal(respite_problems_pointer(problems, 0), "");
        assert_true(strncmp(respite_problems_message(problems, 0), "invalid JSON at line 1, column ", 31) == 0);
        assert_int_equal(respite_problems_line(problems, 0), 1);
        /* Messages themselves are always UTF-8 without control characters
         * (the byte-order mark is a character, U+FEFF). */
        for (const unsigned char *c = (const unsigned char *)err.message; *c; c++) {
            assert_true(*c >= 0x20 && *c != 0x7f);
            assert_true(*c != 0xff && *c != 0xfe && *c != 0xc0 && !(*c == 0xed && c[1] == 0xa0));
        }
        respite_problems_free(problems);
    }
    expect_syntax("{\"name\":\"\xff\"}", 1, 9,
                  "invalid JSON at line 1, column 9: the text is not valid UTF-8 (unable to decode byte 0xff near "
                  "'\"')");
}

static void test_P4_escapes_nul_and_surrogates(void **state)
{
    (void)state;
    expect_syntax("{\"name\":\"a\\u0000b\"}", 1, 18,
                  "invalid JSON at line 1, column 18: a string contains \\u0000, which is not accepted");
    respite_error err = {0};
    assert_null(respite_policy_from_json("{\"name\":\"\\ud800\"}", NULL, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
    assert_true(strncmp(err.message, "invalid JSON at line 1, column ", 31) == 0);
    /* A NUL byte inside the given length. */
    const char with_nul[] = "{\"name\":\"a\0b\"}";
    assert_null(respite_policy_from_json_n(with_nul, sizeof with_nul - 1, NULL, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
    /* A surrogate pair is a character. */
    respite_policy *p = expect_valid("{\"name\":\"\\ud83d\\ude00\",\"maximum_capacity\":1,\"error_handlers\":" HANDLERS_OK "}");
    assert_string_equal(respite_policy_name(p), "\xf0\x9f\x98\x80");
    respite_policy_free(p);
}

static void test_P4_null_document(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    assert_null(respite_policy_from_json(NULL, problems, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "json is NULL; a policy is the text of a JSON object");
    assert_int_equal(respite_problems_count(problems), 0);
    assert_null(respite_policy_from_json_n(NULL, 5, problems, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    respite_problems_free(problems);
}

/* Every prefix of a valid document is rejected cleanly. */
static void test_P4_every_truncation_is_rejected(void **state)
{
    (void)state;
    const char *valid = "{\"name\":\"edgehog\",\"maximum_capacity\":100,\"retry_times\":3,\"event_ttl\":30,"
                        "\"error_handlers\":[{\"on\":[500,503],\"strategy\":\"retry\"},"
                        "{\"on\":\"client_error\",\"strategy\":\"discard\"}]}";
    size_t length = strlen(valid);
    for (size_t n = 0; n < length; n++) {
        respite_error err = {0};
        respite_problems *problems = respite_problems_new(&err);
        assert_null(respite_policy_from_json_n(valid, n, problems, &err));
        assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
        assert_int_equal(respite_problems_count(problems), 1);
        respite_problems_free(problems);
    }
    respite_policy_free(expect_valid(valid));
}

static void test_null_handles(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_int_equal(respite_problems_clear(NULL, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "problems is closed");
    assert_int_equal(respite_problems_count(NULL), 0);
    assert_null(respite_problems_pointer(NULL, 0));
    assert_null(respite_problems_message(NULL, 0));
    assert_int_equal(respite_problems_line(NULL, 0), 0);
    assert_int_equal(respite_problems_column(NULL, 0), 0);
    respite_problems_free(NULL);

    respite_problems *problems = respite_problems_new(&err);
    assert_null(respite_problems_pointer(problems, 0));
    assert_null(respite_problems_message(problems, -1));
    respite_problems_free(problems);

    respite_error_clear(&err);
    assert_int_equal(respite_policy_strategy_for(NULL, 0, 500, &err), -1);
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_string_equal(err.message, "policy is closed");
    respite_error_clear(&err);
    assert_null(respite_policy_to_json(NULL, &err));
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    assert_string_equal(err.message, "policy is closed");
    assert_null(respite_policy_name(NULL));
    assert_int_equal(respite_policy_maximum_capacity(NULL), 0);
    assert_int_equal(respite_policy_retry_times(NULL), 0);
    assert_int_equal(respite_policy_event_ttl(NULL), 0);
    assert_int_equal(respite_policy_prefetch_count(NULL), 0);
    assert_int_equal(respite_policy_handler_count(NULL), 0);
    assert_null(respite_policy_handler_on(NULL, 0));
    assert_int_equal(respite_policy_handler_strategy(NULL, 0), -1);
    respite_policy_free(NULL);
    respite_free_string(NULL);

    respite_error_clear(&err);
    assert_int_equal(respite_policy_builder_add_handler(NULL, "any_error", "retry", &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "policy builder is closed");
    assert_int_equal(respite_policy_builder_set_retry_times(NULL, 1, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_policy_builder_set_event_ttl(NULL, 1, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_policy_builder_set_prefetch_count(NULL, 1, &err), RESPITE_E_CLOSED);
    respite_error_clear(&err);
    assert_null(respite_policy_builder_build(NULL, NULL, &err));
    assert_int_equal(err.status, RESPITE_E_CLOSED);
    respite_policy_builder_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_P1_size_limit),
        cmocka_unit_test(test_P2_empty_documents),
        cmocka_unit_test(test_P3_nesting_depth),
        cmocka_unit_test(test_P4_syntax_errors_have_line_and_column),
        cmocka_unit_test(test_P4_duplicate_keys),
        cmocka_unit_test(test_P4_huge_numbers),
        cmocka_unit_test(test_P4_text_that_is_not_utf8),
        cmocka_unit_test(test_P4_escapes_nul_and_surrogates),
        cmocka_unit_test(test_P4_null_document),
        cmocka_unit_test(test_P4_every_truncation_is_rejected),
        cmocka_unit_test(test_null_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
