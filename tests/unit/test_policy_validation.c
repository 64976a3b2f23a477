/* Policy validation (spec section 4, P5-P20): every field, every bound at
 * 0 / 1 / max / max+1, Astarte's cases and messages, and reports listing
 * every problem. */
#include "test_policy_util.h"

#define NAME_ACCEPTS "a string of 1 to 128 characters, without line breaks, not starting with '@'"
#define ON_ACCEPTS \
    "\"client_error\", \"server_error\", \"any_error\" or a non-empty array of HTTP error codes from 400 to 599"
#define MSG_CODE "Must be an HTTP error code between 400 and 599"

/* ------------------------------------------------------------ examples */

static void test_seed_simple_policy_in_shipped_syntax_is_valid(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\"name\": \"simple_policy\", \"maximum_capacity\": 100,"
                                     " \"error_handlers\": [{\"on\": \"any_error\", \"strategy\": \"discard\"}]}");
    assert_string_equal(respite_policy_name(p), "simple_policy");
    assert_int_equal(respite_policy_maximum_capacity(p), 100);
    assert_int_equal(respite_policy_retry_times(p), 0);
    respite_policy_free(p);
}

static void test_seed_complex_policy_in_shipped_syntax_is_valid(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\n"
                                     "  \"name\" : \"complex_policy\",\n"
                                     "  \"error_handlers\" : [\n"
                                     "    {\"on\" : \"server_error\", \"strategy\" : \"discard\"},\n"
                                     "    {\"on\" : \"client_error\", \"strategy\" : \"retry\"}\n"
                                     "  ],\n"
                                     "  \"retry_times\" : 5,\n"
                                     "  \"maximum_capacity\" : 100,\n"
                                     "  \"event_ttl\" : 10\n"
                                     "}\n");
    assert_int_equal(respite_policy_retry_times(p), 5);
    assert_int_equal(respite_policy_event_ttl(p), 10);
    assert_int_equal(respite_policy_strategy_for(p, 0, 404, NULL), RESPITE_STRATEGY_RETRY);
    assert_int_equal(respite_policy_strategy_for(p, 0, 500, NULL), RESPITE_STRATEGY_DISCARD);
    respite_policy_free(p);
}

/* The seed's draft texts as written: an empty handler list (allowed by the
 * draft, not by Astarte's code) and the draft's old field names. */
static void test_seed_draft_texts_are_rejected_with_reasons(void **state)
{
    (void)state;
    expect_one_problem("{\"name\" : \"simple_policy\", \"error_handlers\" : [], \"maximum_capacity\" : 100}",
                       "/error_handlers", "must be an array of 1 to 200 handlers (got 0 handlers)");
    expected_problem old_names[] = {
        {"/error_handlers/0/on", "is required and must be " ON_ACCEPTS},
        {"/error_handlers/0/strategy", "is required and must be \"discard\" or \"retry\""},
        {"/error_handlers/0/error_type", "is not a handler field; a handler has the fields on and strategy"},
        {"/error_handlers/0/retreat_strategy", "is not a handler field; a handler has the fields on and strategy"},
    };
    expect_problems("{\"name\":\"complex_policy\",\"maximum_capacity\":100,"
                    "\"error_handlers\":[{\"error_type\":\"server_error\",\"retreat_strategy\":\"none\"}]}",
                    old_names, EXPECT_COUNT(old_names));
}

static void test_edgehog_policy_is_valid(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\"name\":\"edgehog\",\"maximum_capacity\":100,\"retry_times\":3,"
                                     "\"event_ttl\":30,\"error_handlers\":[{\"on\":\"server_error\",\"strategy\":"
                                     "\"retry\"},{\"on\":\"client_error\",\"strategy\":\"discard\"}]}");
    assert_string_equal(respite_policy_name(p), "edgehog");
    assert_int_equal(respite_policy_maximum_capacity(p), 100);
    assert_int_equal(respite_policy_retry_times(p), 3);
    assert_int_equal(respite_policy_event_ttl(p), 30);
    assert_int_equal(respite_policy_prefetch_count(p), 1);
    assert_int_equal(respite_policy_handler_count(p), 2);
    assert_string_equal(respite_policy_handler_on(p, 0), "server_error");
    assert_int_equal(respite_policy_handler_strategy(p, 0), RESPITE_STRATEGY_RETRY);
    assert_string_equal(respite_policy_handler_on(p, 1), "client_error");
    assert_int_equal(respite_policy_handler_strategy(p, 1), RESPITE_STRATEGY_DISCARD);
    assert_null(respite_policy_handler_on(p, 2));
    assert_int_equal(respite_policy_handler_strategy(p, -1), -1);
    respite_policy_free(p);
}

/* ------------------------------------------------------------- P5, P19 */

static void test_P5_document_must_be_an_object(void **state)
{
    (void)state;
    expect_one_problem("42", "", "a policy must be a JSON object (got 42)");
    expect_one_problem("[]", "", "a policy must be a JSON object (got an empty array)");
    expect_one_problem("[1]", "", "a policy must be a JSON object (got an array)");
    expect_one_problem("\"policy\"", "", "a policy must be a JSON object (got \"policy\")");
    expect_one_problem("null", "", "a policy must be a JSON object (got null)");
    expect_one_problem("true", "", "a policy must be a JSON object (got true)");
}

static void test_P19_unknown_fields_are_rejected_with_escaped_pointers(void **state)
{
    (void)state;
    const char *msg = "is not a policy field; the fields are name, maximum_capacity, error_handlers, retry_times, "
                      "event_ttl and prefetch_count";
    expect_one_problem_free(doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"policy_name\":\"x\""), "/policy_name", msg);
    expect_one_problem_free(doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"a/b~c\":1"), "/a~1b~0c", msg);
    expect_one_problem_free(doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"\":1"), "/", msg);
    expected_problem two[] = {{"/handlers", msg}, {"/retry_queues", msg}};
    char *json = doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"handlers\":[],\"retry_queues\":[]");
    expect_problems(json, two, 2);
    free(json);
}

/* ------------------------------------------------------------------ P7 */

static char *repeat(const char *unit, int times)
{
    size_t n = strlen(unit);
    char *out = malloc(n * (size_t)times + 3);
    assert_non_null(out);
    out[0] = '"';
    for (int i = 0; i < times; i++)
        memcpy(out + 1 + n * (size_t)i, unit, n);
    strcpy(out + 1 + n * (size_t)times, "\"");
    return out;
}

static void test_P7_name_length_counts_characters(void **state)
{
    (void)state;
    const char *units[] = {"a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\\u00e9"};
    for (size_t u = 0; u < EXPECT_COUNT(units); u++) {
        char *name1 = repeat(units[u], 1), *name128 = repeat(units[u], 128), *name129 = repeat(units[u], 129);
        expect_valid_free(doc(name1, CAP_OK, HANDLERS_OK, ""));
        expect_valid_free(doc(name128, CAP_OK, HANDLERS_OK, ""));
        expect_one_problem_free(doc(name129, CAP_OK, HANDLERS_OK, ""), "/name",
                                "must be at most 128 characters long (got 129)");
        free(name1);
        free(name128);
        free(name129);
    }
    expect_one_problem_free(doc("\"\"", CAP_OK, HANDLERS_OK, ""), "/name", "must not be empty");
}

static void test_P7_name_rules(void **state)
{
    (void)state;
    expect_one_problem_free(doc(NULL, CAP_OK, HANDLERS_OK, ""), "/name", "is required and must be " NAME_ACCEPTS);
    expect_one_problem_free(doc("42", CAP_OK, HANDLERS_OK, ""), "/name", "must be " NAME_ACCEPTS " (got 42)");
    expect_one_problem_free(doc("null", CAP_OK, HANDLERS_OK, ""), "/name", "must be " NAME_ACCEPTS " (got null)");
    expect_one_problem_free(doc("[\"a\"]", CAP_OK, HANDLERS_OK, ""), "/name", "must be " NAME_ACCEPTS " (got an array)");
    const char *at = "must not start with '@', which marks built-in policies such as @default";
    expect_one_problem_free(doc("\"@default\"", CAP_OK, HANDLERS_OK, ""), "/name", at);
    expect_one_problem_free(doc("\"@\"", CAP_OK, HANDLERS_OK, ""), "/name", at);
    expect_valid_free(doc("\"a@b\"", CAP_OK, HANDLERS_OK, ""));
    expect_valid_free(doc("\" policy with spaces \"", CAP_OK, HANDLERS_OK, ""));
    expect_one_problem_free(doc("\"a\\nb\"", CAP_OK, HANDLERS_OK, ""), "/name", "must not contain a line break");
    expect_one_problem_free(doc("\"a\\r\"", CAP_OK, HANDLERS_OK, ""), "/name", "must not contain a line break");
    expected_problem both[] = {{"/name", "must not contain a line break"}, {"/name", at}};
    char *json = doc("\"@\\n\"", CAP_OK, HANDLERS_OK, "");
    expect_problems(json, both, 2);
    free(json);
}

/* ------------------------------------------------- P6, P8, P16-P18 bounds */

typedef struct integer_field {
    const char *key;
    long max;
    const char *accepts;
    int needs_retry; /* retry_times is only valid beside a retrying handler */
} integer_field;

static const integer_field integer_fields[] = {
    {"maximum_capacity", 1000000, "an integer from 1 to 1000000", 0},
    {"retry_times", 100, "an integer from 1 to 100", 1},
    {"event_ttl", 86400, "an integer number of seconds from 1 to 86400", 0},
    {"prefetch_count", 300, "an integer from 1 to 300", 0},
};

static char *with_value(const integer_field *f, const char *value)
{
    char extra[256];
    int is_capacity = strcmp(f->key, "maximum_capacity") == 0;
    if (is_capacity)
        return doc(NAME_OK, value, HANDLERS_OK, "");
    snprintf(extra, sizeof extra, "\"%s\":%s", f->key, value);
    return doc(NAME_OK, CAP_OK, f->needs_retry ? HANDLERS_RETRY : HANDLERS_OK, extra);
}

static void test_P8_P16_P17_P18_bounds_at_0_1_max_and_max_plus_1(void **state)
{
    (void)state;
    for (size_t i = 0; i < EXPECT_COUNT(integer_fields); i++) {
        const integer_field *f = &integer_fields[i];
        char pointer[64], message[160], value[32];
        snprintf(pointer, sizeof pointer, "/%s", f->key);

        respite_policy *p;
        char *json = with_value(f, "1");
        p = expect_valid(json);
        free(json);
        respite_policy_free(p);

        snprintf(value, sizeof value, "%ld", f->max);
        json = with_value(f, value);
        p = expect_valid(json);
        int got = !strcmp(f->key, "maximum_capacity") ? respite_policy_maximum_capacity(p)
                  : !strcmp(f->key, "retry_times")    ? respite_policy_retry_times(p)
                  : !strcmp(f->key, "event_ttl")      ? respite_policy_event_ttl(p)
                                                      : respite_policy_prefetch_count(p);
        assert_int_equal(got, f->max);
        free(json);
        respite_policy_free(p);

        const char *bad[] = {"0", "-1", "MAXPLUS1", "4294967297", "9223372036854775807", "10.5", "10.0", "1e2",
                             "\"10\"", "true", "null", "[]", "{}"};
        const char *shown[] = {"0", "-1", "MAXPLUS1", "4294967297", "9223372036854775807", "10.5", "10.0", "100.0",
                               "\"10\"", "true", "null", "an empty array", "an object"};
        for (size_t b = 0; b < EXPECT_COUNT(bad); b++) {
            const char *v = bad[b], *s = shown[b];
            char max_plus_1[32];
            snprintf(max_plus_1, sizeof max_plus_1, "%ld", f->max + 1);
            if (strcmp(v, "MAXPLUS1") == 0)
                v = s = max_plus_1;
            snprintf(message, sizeof message, "must be %s (got %s)", f->accepts, s);
            expect_one_problem_free(with_value(f, v), pointer, message);
        }
    }
}

static void test_P8_maximum_capacity_is_required(void **state)
{
    (void)state;
    expect_one_problem_free(doc(NAME_OK, NULL, HANDLERS_OK, ""), "/maximum_capacity",
                            "is required and must be an integer from 1 to 1000000");
}

static void test_optional_fields_may_be_left_out(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\"name\":\"p\",\"maximum_capacity\":1,\"error_handlers\":" HANDLERS_OK "}");
    assert_int_equal(respite_policy_event_ttl(p), 0);
    assert_int_equal(respite_policy_prefetch_count(p), 1);
    assert_int_equal(respite_policy_retry_times(p), 0);
    respite_policy_free(p);
}

/* ------------------------------------------------------------------ P9 */

static char *handlers_of(int count, int first_code, const char *strategy)
{
    size_t size = (size_t)count * 48 + 8;
    char *out = malloc(size);
    assert_non_null(out);
    int n = snprintf(out, size, "[");
    for (int i = 0; i < count; i++)
        n += snprintf(out + n, size - (size_t)n, "%s{\"on\":[%d],\"strategy\":\"%s\"}", i ? "," : "",
                      first_code + i, strategy);
    snprintf(out + n, size - (size_t)n, "]");
    return out;
}

static void test_P9_error_handlers_count_1_to_200(void **state)
{
    (void)state;
    const char *accepts = "must be an array of 1 to 200 handlers";
    expect_one_problem_free(doc(NAME_OK, CAP_OK, NULL, ""), "/error_handlers", "is required and must be an array of 1 to 200 handlers");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[]", ""), "/error_handlers",
                            "must be an array of 1 to 200 handlers (got 0 handlers)");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "{\"on\":\"any_error\",\"strategy\":\"retry\"}", ""),
                            "/error_handlers", "must be an array of 1 to 200 handlers (got an object)");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "\"any_error\"", ""), "/error_handlers",
                            "must be an array of 1 to 200 handlers (got \"any_error\")");
    (void)accepts;

    char *one = handlers_of(1, 400, "discard");
    expect_valid_free(doc(NAME_OK, CAP_OK, one, ""));
    free(one);

    char *all = handlers_of(200, 400, "discard");
    char *json = doc(NAME_OK, CAP_OK, all, "");
    respite_policy *p = expect_valid(json);
    assert_int_equal(respite_policy_handler_count(p), 200);
    assert_string_equal(respite_policy_handler_on(p, 199), "599");
    respite_policy_free(p);
    free(json);
    free(all);

    /* 201 handlers: the count is reported, and every handler is still read
     * (the 201st repeats 400, so the sets overlap too). */
    char *too_many = handlers_of(201, 400, "discard");
    char *last = strstr(too_many, "[600]");
    assert_non_null(last);
    memcpy(last, "[400]", 5);
    expected_problem problems[] = {
        {"/error_handlers", "must be an array of 1 to 200 handlers (got 201 handlers)"},
        {"/error_handlers", "must all handle distinct errors."},
    };
    json = doc(NAME_OK, CAP_OK, too_many, "");
    expect_problems(json, problems, 2);
    free(json);
    free(too_many);
}

/* ------------------------------------------------------------ P10-P13 */

static void test_P10_handler_shape(void **state)
{
    (void)state;
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[\"any_error\"]", ""), "/error_handlers/0",
                            "must be an object with the fields on and strategy (got \"any_error\")");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[{\"on\":\"any_error\",\"strategy\":\"discard\",\"x\":1}]", ""),
                            "/error_handlers/0/x", "is not a handler field; a handler has the fields on and strategy");
    expected_problem missing[] = {
        {"/error_handlers/0/on", "is required and must be " ON_ACCEPTS},
        {"/error_handlers/0/strategy", "is required and must be \"discard\" or \"retry\""},
    };
    char *json = doc(NAME_OK, CAP_OK, "[{}]", "");
    expect_problems(json, missing, 2);
    free(json);
}

static void test_P11_on_values(void **state)
{
    (void)state;
    struct {
        const char *on;
        const char *got;
    } bad[] = {
        {"\"invalid_error\"", "\"invalid_error\""}, {"[]", "an empty array"}, {"\"\"", "\"\""},
        {"404", "404"},                             {"{}", "an object"},      {"null", "null"},
        {"\"CLIENT_ERROR\"", "\"CLIENT_ERROR\""},
    };
    for (size_t i = 0; i < EXPECT_COUNT(bad); i++) {
        char handlers[128], message[256];
        snprintf(handlers, sizeof handlers, "[{\"on\":%s,\"strategy\":\"discard\"}]", bad[i].on);
        snprintf(message, sizeof message, "must be " ON_ACCEPTS " (got %s)", bad[i].got);
        expect_one_problem_free(doc(NAME_OK, CAP_OK, handlers, ""), "/error_handlers/0/on", message);
    }
    const char *good[] = {"\"client_error\"", "\"server_error\"", "\"any_error\"", "[400]", "[599]", "[404,500,418]"};
    for (size_t i = 0; i < EXPECT_COUNT(good); i++) {
        char handlers[128];
        snprintf(handlers, sizeof handlers, "[{\"on\":%s,\"strategy\":\"discard\"}]", good[i]);
        expect_valid_free(doc(NAME_OK, CAP_OK, handlers, ""));
    }
}

static void test_P12_codes_in_an_array(void **state)
{
    (void)state;
    const char *bad[] = {"399", "600", "0", "-404", "\"404\"", "404.0", "4.04e2", "null", "[404]", "true"};
    for (size_t i = 0; i < EXPECT_COUNT(bad); i++) {
        char handlers[128];
        snprintf(handlers, sizeof handlers, "[{\"on\":[404,%s],\"strategy\":\"discard\"}]", bad[i]);
        expect_one_problem_free(doc(NAME_OK, CAP_OK, handlers, ""), "/error_handlers/0/on/1", MSG_CODE);
    }
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[{\"on\":[404,404],\"strategy\":\"discard\"}]", ""),
                            "/error_handlers/0/on/1", "repeats the code 404, already listed in this array");
    expected_problem several[] = {
        {"/error_handlers/0/on/0", MSG_CODE},
        {"/error_handlers/0/on/2", "repeats the code 500, already listed in this array"},
        {"/error_handlers/0/on/3", MSG_CODE},
    };
    char *json = doc(NAME_OK, CAP_OK, "[{\"on\":[399,500,500,600],\"strategy\":\"discard\"}]", "");
    expect_problems(json, several, EXPECT_COUNT(several));
    free(json);
}

static void test_P13_strategy_values(void **state)
{
    (void)state;
    struct {
        const char *strategy;
        const char *got;
    } bad[] = {{"\"none\"", "\"none\""}, {"\"Retry\"", "\"Retry\""}, {"\"\"", "\"\""}, {"1", "1"}, {"null", "null"}};
    for (size_t i = 0; i < EXPECT_COUNT(bad); i++) {
        char handlers[128], message[128];
        snprintf(handlers, sizeof handlers, "[{\"on\":\"any_error\",\"strategy\":%s}]", bad[i].strategy);
        snprintf(message, sizeof message, "must be \"discard\" or \"retry\" (got %s)", bad[i].got);
        expect_one_problem_free(doc(NAME_OK, CAP_OK, handlers, ""), "/error_handlers/0/strategy", message);
    }
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[{\"on\":\"any_error\"}]", ""), "/error_handlers/0/strategy",
                            "is required and must be \"discard\" or \"retry\"");
}

/* ---------------------------------------------------------------- P14 */

static void test_P14_overlapping_handlers(void **state)
{
    (void)state;
    const char *overlapping[] = {
        "[{\"on\":\"any_error\",\"strategy\":\"discard\"},{\"on\":\"server_error\",\"strategy\":\"discard\"}]",
        "[{\"on\":[401,402,403,404],\"strategy\":\"discard\"},{\"on\":[404,500],\"strategy\":\"discard\"}]",
        "[{\"on\":\"client_error\",\"strategy\":\"discard\"},{\"on\":[404,500],\"strategy\":\"discard\"}]",
        "[{\"on\":\"server_error\",\"strategy\":\"discard\"},{\"on\":\"server_error\",\"strategy\":\"discard\"}]",
        "[{\"on\":[599],\"strategy\":\"discard\"},{\"on\":\"any_error\",\"strategy\":\"discard\"}]",
    };
    for (size_t i = 0; i < EXPECT_COUNT(overlapping); i++)
        expect_one_problem_free(doc(NAME_OK, CAP_OK, overlapping[i], ""), "/error_handlers",
                                "must all handle distinct errors.");
    /* Reported once, however many handlers overlap. */
    expect_one_problem_free(doc(NAME_OK, CAP_OK,
                                "[{\"on\":\"any_error\",\"strategy\":\"discard\"},{\"on\":[400],\"strategy\":"
                                "\"discard\"},{\"on\":[500],\"strategy\":\"discard\"}]",
                                ""),
                            "/error_handlers", "must all handle distinct errors.");
    /* Disjoint sets are fine, including the whole range split three ways. */
    expect_valid_free(doc(NAME_OK, CAP_OK,
                          "[{\"on\":\"client_error\",\"strategy\":\"retry\"},{\"on\":\"server_error\",\"strategy\":"
                          "\"discard\"}]",
                          "\"retry_times\":1"));
    expect_valid_free(doc(NAME_OK, CAP_OK,
                          "[{\"on\":[404],\"strategy\":\"retry\"},{\"on\":\"server_error\",\"strategy\":\"discard\"},"
                          "{\"on\":[400,401],\"strategy\":\"discard\"}]",
                          "\"retry_times\":2"));
    /* An invalid "on" does not take part. */
    expect_one_problem_free(doc(NAME_OK, CAP_OK,
                                "[{\"on\":\"any_error\",\"strategy\":\"discard\"},{\"on\":[404,600],\"strategy\":"
                                "\"discard\"}]",
                                ""),
                            "/error_handlers/1/on/1", MSG_CODE);
}

/* ---------------------------------------------------------------- P15 */

static void test_P15_retry_times_goes_with_retrying(void **state)
{
    (void)state;
    expect_one_problem_free(doc(NAME_OK, CAP_OK, HANDLERS_RETRY, ""), "/retry_times",
                            "must be set if some events are to be retried.");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"retry_times\":3"), "/retry_times",
                            "must not be set if all errors are discarded.");
    expected_problem both[] = {
        {"/retry_times", "must be an integer from 1 to 100 (got 0)"},
        {"/retry_times", "must not be set if all errors are discarded."},
    };
    char *json = doc(NAME_OK, CAP_OK, HANDLERS_OK, "\"retry_times\":0");
    expect_problems(json, both, 2);
    free(json);
    /* Not judged when the handlers could not be read. */
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "[{\"on\":\"any_error\",\"strategy\":\"none\"}]", "\"retry_times\":3"),
                            "/error_handlers/0/strategy", "must be \"discard\" or \"retry\" (got \"none\")");
    expect_one_problem_free(doc(NAME_OK, CAP_OK, "5", "\"retry_times\":3"), "/error_handlers",
                            "must be an array of 1 to 200 handlers (got 5)");
    /* A retrying handler with a bad "on" still needs retry_times. */
    expected_problem bad_on[] = {
        {"/error_handlers/0/on", "must be " ON_ACCEPTS " (got \"x\")"},
        {"/retry_times", "must be set if some events are to be retried."},
    };
    json = doc(NAME_OK, CAP_OK, "[{\"on\":\"x\",\"strategy\":\"retry\"}]", "");
    expect_problems(json, bad_on, 2);
    free(json);
}

/* ---------------------------------------------------------------- P20 */

static void test_P20_every_problem_is_listed_in_order(void **state)
{
    (void)state;
    expected_problem all[] = {
        {"/name", "must not start with '@', which marks built-in policies such as @default"},
        {"/maximum_capacity", "must be an integer from 1 to 1000000 (got 0)"},
        {"/error_handlers/0/on/1", "repeats the code 404, already listed in this array"},
        {"/error_handlers/1/strategy", "must be \"discard\" or \"retry\" (got \"none\")"},
        {"/error_handlers/2/on", "must be " ON_ACCEPTS " (got \"invalid_error\")"},
        {"/error_handlers/2/extra", "is not a handler field; a handler has the fields on and strategy"},
        {"/error_handlers", "must all handle distinct errors."},
        {"/retry_times", "must be set if some events are to be retried."},
        {"/event_ttl", "must be an integer number of seconds from 1 to 86400 (got 86401)"},
        {"/prefetch_count", "must be an integer from 1 to 300 (got 10.5)"},
        {"/zz", "is not a policy field; the fields are name, maximum_capacity, error_handlers, retry_times, event_ttl "
                "and prefetch_count"},
        {"/aa", "is not a policy field; the fields are name, maximum_capacity, error_handlers, retry_times, event_ttl "
                "and prefetch_count"},
    };
    expect_problems("{\"zz\":1,\"prefetch_count\":10.5,\"event_ttl\":86401,\"name\":\"@x\",\"maximum_capacity\":0,"
                    "\"error_handlers\":[{\"on\":[404,404],\"strategy\":\"retry\"},{\"on\":\"any_error\","
                    "\"strategy\":\"none\"},{\"on\":\"invalid_error\",\"strategy\":\"discard\",\"extra\":0},"
                    "{\"on\":[500],\"strategy\":\"discard\"}],\"aa\":2}",
                    all, EXPECT_COUNT(all));
}

static void test_P20_problems_are_appended_and_null_list_is_fine(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    const char *bad = "{\"name\":\"\",\"maximum_capacity\":0,\"error_handlers\":" HANDLERS_OK "}";
    assert_null(respite_policy_from_json(bad, problems, &err));
    assert_null(respite_policy_from_json(bad, problems, &err));
    assert_int_equal(respite_problems_count(problems), 4);
    assert_string_equal(respite_problems_pointer(problems, 2), "/name");
    assert_int_equal(respite_problems_clear(problems, &err), RESPITE_OK);
    assert_int_equal(respite_problems_count(problems), 0);
    respite_problems_free(problems);

    respite_error err2 = {0};
    assert_null(respite_policy_from_json(bad, NULL, &err2));
    assert_int_equal(err2.status, RESPITE_E_INVALID_POLICY);
    assert_string_equal(err2.message, "/name: must not be empty (and 1 more problem)");
    assert_null(respite_policy_from_json(bad, NULL, NULL)); /* no err either */
}

static void test_P20_at_most_1000_problems_then_a_summary(void **state)
{
    (void)state;
    size_t size = 1500 * 5 + 200;
    char *codes = malloc(size);
    assert_non_null(codes);
    int n = sprintf(codes, "[{\"on\":[");
    for (int i = 0; i < 1500; i++)
        n += sprintf(codes + n, "%s700", i ? "," : "");
    sprintf(codes + n, "],\"strategy\":\"discard\"}]");
    char *json = doc(NAME_OK, CAP_OK, codes, "");
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    assert_null(respite_policy_from_json(json, problems, &err));
    assert_int_equal(respite_problems_count(problems), 1001);
    assert_string_equal(respite_problems_pointer(problems, 999), "/error_handlers/0/on/999");
    assert_string_equal(respite_problems_pointer(problems, 1000), "");
    assert_string_equal(respite_problems_message(problems, 1000), "too many problems: 500 more were found and not listed");
    assert_string_equal(err.message, "/error_handlers/0/on/0: " MSG_CODE " (and 1499 more problems)");
    respite_problems_free(problems);
    free(json);
    free(codes);
}

static void test_P20_long_first_problem_is_shortened_but_keeps_the_count(void **state)
{
    (void)state;
    /* A 2000-character unknown key of two-byte characters. */
    char *key = repeat("\xc3\xa9", 2000);
    size_t size = strlen(key) + 16;
    char *extra = malloc(size);
    snprintf(extra, size, "%s:1", key);
    char *json = doc(NAME_OK, CAP_OK, HANDLERS_OK, extra);
    respite_error err = {0};
    assert_null(respite_policy_from_json(json, NULL, &err));
    size_t len = strlen(err.message);
    assert_true(len < RESPITE_ERROR_MESSAGE_MAX);
    assert_true(len > 400);
    assert_memory_equal(err.message, "/\xc3\xa9", 3);
    /* Still valid UTF-8: every cut falls between characters. */
    for (size_t i = 1; i + 1 < len; i++)
        if ((unsigned char)err.message[i] == 0xc3)
            assert_int_equal((unsigned char)err.message[i + 1], 0xa9);
    free(json);
    free(extra);
    free(key);

    /* With a second problem the count survives the cut. */
    key = repeat("x", 3000);
    size = strlen(key) * 2 + 32;
    extra = malloc(size);
    snprintf(extra, size, "%s:1,\"y\":2", key);
    json = doc(NAME_OK, CAP_OK, HANDLERS_OK, extra);
    assert_null(respite_policy_from_json(json, NULL, &err));
    len = strlen(err.message);
    assert_true(len <= RESPITE_ERROR_MESSAGE_MAX - 1);
    const char *suffix = " (and 1 more problem)";
    assert_string_equal(err.message + len - strlen(suffix), suffix);
    free(json);
    free(extra);
    free(key);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_simple_policy_in_shipped_syntax_is_valid),
        cmocka_unit_test(test_seed_complex_policy_in_shipped_syntax_is_valid),
        cmocka_unit_test(test_seed_draft_texts_are_rejected_with_reasons),
        cmocka_unit_test(test_edgehog_policy_is_valid),
        cmocka_unit_test(test_P5_document_must_be_an_object),
        cmocka_unit_test(test_P19_unknown_fields_are_rejected_with_escaped_pointers),
        cmocka_unit_test(test_P7_name_length_counts_characters),
        cmocka_unit_test(test_P7_name_rules),
        cmocka_unit_test(test_P8_P16_P17_P18_bounds_at_0_1_max_and_max_plus_1),
        cmocka_unit_test(test_P8_maximum_capacity_is_required),
        cmocka_unit_test(test_optional_fields_may_be_left_out),
        cmocka_unit_test(test_P9_error_handlers_count_1_to_200),
        cmocka_unit_test(test_P10_handler_shape),
        cmocka_unit_test(test_P11_on_values),
        cmocka_unit_test(test_P12_codes_in_an_array),
        cmocka_unit_test(test_P13_strategy_values),
        cmocka_unit_test(test_P14_overlapping_handlers),
        cmocka_unit_test(test_P15_retry_times_goes_with_retrying),
        cmocka_unit_test(test_P20_every_problem_is_listed_in_order),
        cmocka_unit_test(test_P20_problems_are_appended_and_null_list_is_fine),
        cmocka_unit_test(test_P20_at_most_1000_problems_then_a_summary),
        cmocka_unit_test(test_P20_long_first_problem_is_shortened_but_keeps_the_count),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
