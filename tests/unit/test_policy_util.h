/* Helpers shared by the policy tests (test_policy_*.c). */
#ifndef TEST_POLICY_UTIL_H
#define TEST_POLICY_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

typedef struct expected_problem {
    const char *pointer;
    const char *message;
} expected_problem;

#define EXPECT_COUNT(array) (sizeof(array) / sizeof((array)[0]))

/* The document {name, maximum_capacity, error_handlers, extra...}; a NULL
 * part is left out. Valid by default: doc(NAME_OK, CAP_OK, HANDLERS_OK, ""). */
#define NAME_OK "\"p\""
#define CAP_OK "10"
#define HANDLERS_OK "[{\"on\":\"any_error\",\"strategy\":\"discard\"}]"
#define HANDLERS_RETRY "[{\"on\":\"any_error\",\"strategy\":\"retry\"}]"

static inline char *doc(const char *name, const char *capacity, const char *handlers, const char *extra)
{
    size_t size = 64 + (name ? strlen(name) : 0) + (capacity ? strlen(capacity) : 0) +
                  (handlers ? strlen(handlers) : 0) + strlen(extra);
    char *text = malloc(size);
    assert_non_null(text);
    int n = snprintf(text, size, "{");
    const char *sep = "";
    if (name)
        n += snprintf(text + n, size - (size_t)n, "%s\"name\":%s", sep, name), sep = ",";
    if (capacity)
        n += snprintf(text + n, size - (size_t)n, "%s\"maximum_capacity\":%s", sep, capacity), sep = ",";
    if (handlers)
        n += snprintf(text + n, size - (size_t)n, "%s\"error_handlers\":%s", sep, handlers), sep = ",";
    if (extra[0])
        n += snprintf(text + n, size - (size_t)n, "%s%s", sep, extra);
    snprintf(text + n, size - (size_t)n, "}");
    return text;
}

static inline void print_problems(const respite_problems *problems)
{
    for (int i = 0; i < respite_problems_count(problems); i++)
        print_message("  problem %d: [%s] %s\n", i, respite_problems_pointer(problems, i),
                      respite_problems_message(problems, i));
}

/* Asserts the document is rejected with exactly these problems, in order,
 * and that the error's message is the first one plus the count. */
static inline void expect_problems(const char *json, const expected_problem *expected, size_t count)
{
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    assert_non_null(problems);
    respite_policy *policy = respite_policy_from_json(json, problems, &err);
    if (policy || respite_problems_count(problems) != (int)count) {
        print_message("document: %.300s\n", json);
        print_problems(problems);
    }
    assert_null(policy);
    assert_int_equal(err.status, RESPITE_E_INVALID_POLICY);
    assert_int_equal(respite_problems_count(problems), (int)count);
    for (size_t i = 0; i < count; i++) {
        assert_string_equal(respite_problems_pointer(problems, (int)i), expected[i].pointer);
        assert_string_equal(respite_problems_message(problems, (int)i), expected[i].message);
    }
    char first[RESPITE_ERROR_MESSAGE_MAX * 2];
    int n = snprintf(first, sizeof first, "%s%s%s", expected[0].pointer, expected[0].pointer[0] ? ": " : "",
                     expected[0].message);
    if (count == 2)
        snprintf(first + n, sizeof first - (size_t)n, " (and 1 more problem)");
    else if (count > 2)
        snprintf(first + n, sizeof first - (size_t)n, " (and %d more problems)", (int)count - 1);
    if (strlen(first) < RESPITE_ERROR_MESSAGE_MAX)
        assert_string_equal(err.message, first);
    respite_problems_free(problems);
}

static inline void expect_one_problem(const char *json, const char *pointer, const char *message)
{
    expected_problem expected[] = {{pointer, message}};
    expect_problems(json, expected, 1);
}

/* The same, taking ownership of a doc() result. */
static inline void expect_one_problem_free(char *json, const char *pointer, const char *message)
{
    expect_one_problem(json, pointer, message);
    free(json);
}

static inline respite_policy *expect_valid(const char *json)
{
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    respite_policy *policy = respite_policy_from_json(json, problems, &err);
    if (!policy) {
        print_message("document: %.300s\nerror: %s\n", json, err.message);
        print_problems(problems);
    }
    assert_non_null(policy);
    assert_int_equal(err.status, RESPITE_OK);
    assert_int_equal(respite_problems_count(problems), 0);
    respite_problems_free(problems);
    return policy;
}

static inline void expect_valid_free(char *json)
{
    respite_policy_free(expect_valid(json));
    free(json);
}

#endif /* TEST_POLICY_UTIL_H */
