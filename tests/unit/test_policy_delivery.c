/* What a valid policy decides (spec D1-D3, D7, D8), canonical JSON (P22)
 * and the builder (P21), which must report what the JSON path reports. */
#include "test_policy_util.h"

#define EDGEHOG                                                                                                   \
    "{\"name\":\"edgehog\",\"maximum_capacity\":100,\"retry_times\":3,\"event_ttl\":30,\"error_handlers\":["      \
    "{\"on\":\"server_error\",\"strategy\":\"retry\"},{\"on\":\"client_error\",\"strategy\":\"discard\"}]}"

static int strategy(const respite_policy *p, int transport_failed, int status)
{
    respite_error err = {0};
    int s = respite_policy_strategy_for(p, transport_failed, status, &err);
    assert_int_equal(err.status, RESPITE_OK);
    return s;
}

static void test_D2_each_handler_kind(void **state)
{
    (void)state;
    respite_policy *p = expect_valid(EDGEHOG);
    for (int code = 400; code <= 499; code++)
        assert_int_equal(strategy(p, 0, code), RESPITE_STRATEGY_DISCARD);
    for (int code = 500; code <= 599; code++)
        assert_int_equal(strategy(p, 0, code), RESPITE_STRATEGY_RETRY);
    respite_policy_free(p);

    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"retry_times\":1,\"error_handlers\":"
                     "[{\"on\":\"any_error\",\"strategy\":\"retry\"}]}");
    for (int code = 400; code <= 599; code++)
        assert_int_equal(strategy(p, 0, code), RESPITE_STRATEGY_RETRY);
    respite_policy_free(p);

    /* client_error retry + server_error discard is valid and works. */
    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"retry_times\":1,\"error_handlers\":"
                     "[{\"on\":\"client_error\",\"strategy\":\"retry\"},{\"on\":\"server_error\",\"strategy\":"
                     "\"discard\"}]}");
    assert_int_equal(strategy(p, 0, 400), RESPITE_STRATEGY_RETRY);
    assert_int_equal(strategy(p, 0, 499), RESPITE_STRATEGY_RETRY);
    assert_int_equal(strategy(p, 0, 500), RESPITE_STRATEGY_DISCARD);
    respite_policy_free(p);
}

static void test_D2_codes_and_no_matching_handler(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\"name\":\"teapot\",\"maximum_capacity\":1,\"retry_times\":2,\"error_handlers\":"
                                     "[{\"on\":[418],\"strategy\":\"retry\"},{\"on\":[404,410],\"strategy\":"
                                     "\"discard\"}]}");
    assert_int_equal(strategy(p, 0, 418), RESPITE_STRATEGY_RETRY);
    assert_int_equal(strategy(p, 0, 404), RESPITE_STRATEGY_DISCARD);
    assert_int_equal(strategy(p, 0, 410), RESPITE_STRATEGY_DISCARD);
    /* No handler covers these: discarded. */
    assert_int_equal(strategy(p, 0, 500), RESPITE_STRATEGY_DISCARD);
    assert_int_equal(strategy(p, 0, 417), RESPITE_STRATEGY_DISCARD);
    assert_int_equal(strategy(p, 0, 419), RESPITE_STRATEGY_DISCARD);
    /* A transport failure is 503, which no handler covers here. */
    assert_int_equal(strategy(p, 1, 0), RESPITE_STRATEGY_DISCARD);
    respite_policy_free(p);
}

static void test_D2_transport_failure_matches_as_503(void **state)
{
    (void)state;
    respite_policy *p = expect_valid(EDGEHOG);
    assert_int_equal(strategy(p, 1, 0), RESPITE_STRATEGY_RETRY);
    assert_int_equal(strategy(p, 1, 404), RESPITE_STRATEGY_RETRY); /* the status is ignored */
    assert_int_equal(strategy(p, 1, -7), RESPITE_STRATEGY_RETRY);
    respite_policy_free(p);

    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"retry_times\":1,\"error_handlers\":"
                     "[{\"on\":[503],\"strategy\":\"retry\"}]}");
    assert_int_equal(strategy(p, 1, 0), RESPITE_STRATEGY_RETRY);
    respite_policy_free(p);

    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"retry_times\":1,\"error_handlers\":"
                     "[{\"on\":[502,504],\"strategy\":\"retry\"}]}");
    assert_int_equal(strategy(p, 1, 0), RESPITE_STRATEGY_DISCARD);
    respite_policy_free(p);
}

static void test_D1_successes_are_not_failures(void **state)
{
    (void)state;
    respite_policy *p = expect_valid(EDGEHOG);
    const int statuses[] = {200, 204, 302, 399, 100, 0, -1, 600, 1000};
    for (size_t i = 0; i < EXPECT_COUNT(statuses); i++) {
        respite_error err = {0};
        assert_int_equal(respite_policy_strategy_for(p, 0, statuses[i], &err), -1);
        assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
        char expected[160];
        snprintf(expected, sizeof expected,
                 "http_status must be an HTTP error code from 400 to 599 when transport_failed is 0 (got %d)",
                 statuses[i]);
        assert_string_equal(err.message, expected);
    }
    assert_int_equal(respite_policy_strategy_for(p, 0, 200, NULL), -1);
    respite_policy_free(p);
}

static void test_D3_retry_times_is_the_number_of_resends(void **state)
{
    (void)state;
    respite_policy *p = expect_valid(EDGEHOG);
    assert_int_equal(respite_policy_retry_times(p), 3); /* 4 attempts in all */
    respite_policy_free(p);
    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"error_handlers\":" HANDLERS_OK "}");
    assert_int_equal(respite_policy_retry_times(p), 0);
    respite_policy_free(p);
}

static void test_D7_prefetch_count(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"error_handlers\":" HANDLERS_OK "}");
    assert_int_equal(respite_policy_prefetch_count(p), 1);
    respite_policy_free(p);
    p = expect_valid("{\"name\":\"a\",\"maximum_capacity\":1,\"prefetch_count\":300,\"error_handlers\":" HANDLERS_OK "}");
    assert_int_equal(respite_policy_prefetch_count(p), 300);
    respite_policy_free(p);
}

static void test_D8_default_policy(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_policy *p = respite_policy_default(&err);
    assert_non_null(p);
    assert_string_equal(respite_policy_name(p), "@default");
    assert_int_equal(respite_policy_maximum_capacity(p), 1000);
    assert_int_equal(respite_policy_retry_times(p), 0);
    assert_int_equal(respite_policy_event_ttl(p), 0);
    assert_int_equal(respite_policy_prefetch_count(p), 1);
    assert_int_equal(respite_policy_handler_count(p), 1);
    assert_string_equal(respite_policy_handler_on(p, 0), "any_error");
    for (int code = 400; code <= 599; code++)
        assert_int_equal(strategy(p, 0, code), RESPITE_STRATEGY_DISCARD);
    assert_int_equal(strategy(p, 1, 0), RESPITE_STRATEGY_DISCARD);
    char *text = respite_policy_to_json(p, &err);
    assert_string_equal(text, "{\"name\":\"@default\",\"maximum_capacity\":1000,\"error_handlers\":[{\"on\":"
                              "\"any_error\",\"strategy\":\"discard\"}]}");
    respite_free_string(text);
    respite_policy_free(p);
    assert_string_equal(respite_strategy_name(RESPITE_STRATEGY_DISCARD), "discard");
    assert_string_equal(respite_strategy_name(RESPITE_STRATEGY_RETRY), "retry");
    assert_null(respite_strategy_name(2));
    assert_null(respite_strategy_name(-1));
}

static void test_P22_canonical_json_round_trips(void **state)
{
    (void)state;
    respite_policy *p = expect_valid("{ \"event_ttl\" : 30, \"prefetch_count\": 5,\n \"error_handlers\": [\n"
                                     "  {\"strategy\": \"retry\", \"on\": [503, 500, 502]},\n"
                                     "  {\"strategy\": \"discard\", \"on\": \"client_error\"}],\n"
                                     " \"retry_times\": 3, \"maximum_capacity\": 100, \"name\": \"caf\\u00e9\" }");
    const char *canonical = "{\"name\":\"caf\xc3\xa9\",\"maximum_capacity\":100,\"error_handlers\":[{\"on\":[500,502,"
                            "503],\"strategy\":\"retry\"},{\"on\":\"client_error\",\"strategy\":\"discard\"}],"
                            "\"retry_times\":3,\"event_ttl\":30,\"prefetch_count\":5}";
    respite_error err = {0};
    char *text = respite_policy_to_json(p, &err);
    assert_string_equal(text, canonical);
    assert_string_equal(respite_policy_handler_on(p, 0), "500,502,503");
    respite_policy *again = expect_valid(text);
    char *text2 = respite_policy_to_json(again, &err);
    assert_string_equal(text2, canonical);
    respite_free_string(text);
    respite_free_string(text2);
    respite_policy_free(again);
    respite_policy_free(p);
}

/* ---------------------------------------------------------------- P21 */

typedef struct builder_case {
    const char *name;             /* builder arguments */
    int capacity;
    const char *on[3];
    const char *strategy[3];
    int handlers;
    int retry_times, event_ttl, prefetch_count; /* -999: not set */
    const char *json;             /* the document they stand for */
} builder_case;

#define UNSET -999

static const builder_case builder_cases[] = {
    {"edgehog", 100, {"server_error", "client_error"}, {"retry", "discard"}, 2, 3, 30, UNSET, EDGEHOG},
    {"p", 1, {"404, 500"}, {"retry"}, 1, 1, UNSET, 300,
     "{\"name\":\"p\",\"maximum_capacity\":1,\"error_handlers\":[{\"on\":[404,500],\"strategy\":\"retry\"}],"
     "\"retry_times\":1,\"prefetch_count\":300}"},
    {"p", 1, {"418"}, {"discard"}, 1, UNSET, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":1,\"error_handlers\":[{\"on\":[418],\"strategy\":\"discard\"}]}"},
    {"", 0, {"any_error"}, {"discard"}, 1, UNSET, UNSET, UNSET,
     "{\"name\":\"\",\"maximum_capacity\":0,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"discard\"}]}"},
    {NULL, 1000001, {"any_error"}, {"discard"}, 1, UNSET, 0, 301,
     "{\"maximum_capacity\":1000001,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"discard\"}],"
     "\"event_ttl\":0,\"prefetch_count\":301}"},
    {"@x", 5, {NULL}, {NULL}, 0, UNSET, 86401, UNSET,
     "{\"name\":\"@x\",\"maximum_capacity\":5,\"error_handlers\":[],\"event_ttl\":86401}"},
    {"p", 5, {"invalid_error", "", "404,404"}, {"none", "retry", "discard"}, 3, UNSET, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"invalid_error\",\"strategy\":\"none\"},"
     "{\"on\":\"\",\"strategy\":\"retry\"},{\"on\":[404,404],\"strategy\":\"discard\"}]}"},
    {"p", 5, {"399,600", "404,abc", "500,"}, {"discard", "discard", "discard"}, 3, UNSET, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":[399,600],\"strategy\":\"discard\"},"
     "{\"on\":[404,\"abc\"],\"strategy\":\"discard\"},{\"on\":[500,\"\"],\"strategy\":\"discard\"}]}"},
    {"p", 5, {NULL, "any_error"}, {"retry", NULL}, 2, UNSET, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"strategy\":\"retry\"},{\"on\":\"any_error\"}]}"},
    {"p", 5, {"any_error", "server_error"}, {"discard", "discard"}, 2, 0, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"discard\"},"
     "{\"on\":\"server_error\",\"strategy\":\"discard\"}],\"retry_times\":0}"},
    {"p", 5, {"client_error", "404,500"}, {"retry", "discard"}, 2, 101, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"client_error\",\"strategy\":\"retry\"},"
     "{\"on\":[404,500],\"strategy\":\"discard\"}],\"retry_times\":101}"},
    {"p", 5, {"client_error"}, {"retry"}, 1, UNSET, UNSET, UNSET,
     "{\"name\":\"p\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"client_error\",\"strategy\":\"retry\"}]}"},
    {"a\nb", 5, {"99999999999999999999"}, {"discard"}, 1, UNSET, UNSET, UNSET,
     "{\"name\":\"a\\nb\",\"maximum_capacity\":5,\"error_handlers\":[{\"on\":\"99999999999999999999\","
     "\"strategy\":\"discard\"}]}"},
};

static respite_policy *build_case(const builder_case *c, respite_problems *problems, respite_error *err)
{
    respite_policy_builder *b = respite_policy_builder_new(c->name, c->capacity, err);
    assert_non_null(b);
    for (int i = 0; i < c->handlers; i++)
        assert_int_equal(respite_policy_builder_add_handler(b, c->on[i], c->strategy[i], err), RESPITE_OK);
    if (c->retry_times != UNSET)
        assert_int_equal(respite_policy_builder_set_retry_times(b, c->retry_times, err), RESPITE_OK);
    if (c->event_ttl != UNSET)
        assert_int_equal(respite_policy_builder_set_event_ttl(b, c->event_ttl, err), RESPITE_OK);
    if (c->prefetch_count != UNSET)
        assert_int_equal(respite_policy_builder_set_prefetch_count(b, c->prefetch_count, err), RESPITE_OK);
    respite_policy *p = respite_policy_builder_build(b, problems, err);
    respite_policy_builder_free(b);
    return p;
}

static void test_P21_builder_reports_what_json_reports(void **state)
{
    (void)state;
    for (size_t i = 0; i < EXPECT_COUNT(builder_cases); i++) {
        const builder_case *c = &builder_cases[i];
        respite_error from_builder = {0}, from_json = {0};
        respite_problems *built = respite_problems_new(NULL), *parsed = respite_problems_new(NULL);
        respite_policy *a = build_case(c, built, &from_builder);
        respite_policy *b = respite_policy_from_json(c->json, parsed, &from_json);
        if (respite_problems_count(built) != respite_problems_count(parsed)) {
            print_problems(built);
            print_problems(parsed);
        }
        assert_int_equal(a != NULL, b != NULL);
        assert_int_equal(from_builder.status, from_json.status);
        assert_string_equal(from_builder.message, from_json.message);
        assert_int_equal(respite_problems_count(built), respite_problems_count(parsed));
        for (int k = 0; k < respite_problems_count(built); k++) {
            assert_string_equal(respite_problems_pointer(built, k), respite_problems_pointer(parsed, k));
            assert_string_equal(respite_problems_message(built, k), respite_problems_message(parsed, k));
        }
        if (a) {
            char *ta = respite_policy_to_json(a, NULL), *tb = respite_policy_to_json(b, NULL);
            assert_string_equal(ta, tb);
            respite_free_string(ta);
            respite_free_string(tb);
        }
        respite_policy_free(a);
        respite_policy_free(b);
        respite_problems_free(built);
        respite_problems_free(parsed);
    }
}

static void test_P21_builder_cases_include_valid_and_invalid(void **state)
{
    (void)state;
    /* Guards the table above: it must hold both kinds. */
    int valid = 0, invalid = 0;
    for (size_t i = 0; i < EXPECT_COUNT(builder_cases); i++) {
        respite_policy *p = respite_policy_from_json(builder_cases[i].json, NULL, NULL);
        valid += p != NULL;
        invalid += p == NULL;
        respite_policy_free(p);
    }
    assert_true(valid >= 3);
    assert_true(invalid >= 8);
}

static void test_P21_builder_name_that_is_not_utf8(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_problems *problems = respite_problems_new(&err);
    respite_policy_builder *b = respite_policy_builder_new("caf\xe9", 10, &err);
    respite_policy_builder_add_handler(b, "any_error", "d\xff", &err);
    assert_null(respite_policy_builder_build(b, problems, &err));
    assert_int_equal(respite_problems_count(problems), 2);
    assert_string_equal(respite_problems_message(problems, 0), "must be valid UTF-8 text");
    assert_string_equal(respite_problems_message(problems, 1), "must be \"discard\" or \"retry\" (got \"d?\")");
    assert_string_equal(err.message, "/name: must be valid UTF-8 text (and 1 more problem)");
    /* The builder stays usable after build. */
    respite_policy_builder_free(b);
    b = respite_policy_builder_new("ok", 10, &err);
    respite_policy_builder_add_handler(b, "any_error", "discard", &err);
    respite_policy *p1 = respite_policy_builder_build(b, NULL, &err);
    respite_policy *p2 = respite_policy_builder_build(b, NULL, &err);
    assert_non_null(p1);
    assert_non_null(p2);
    respite_policy_free(p1);
    respite_policy_free(p2);
    respite_policy_builder_free(b);
    respite_problems_free(problems);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_D2_each_handler_kind),
        cmocka_unit_test(test_D2_codes_and_no_matching_handler),
        cmocka_unit_test(test_D2_transport_failure_matches_as_503),
        cmocka_unit_test(test_D1_successes_are_not_failures),
        cmocka_unit_test(test_D3_retry_times_is_the_number_of_resends),
        cmocka_unit_test(test_D7_prefetch_count),
        cmocka_unit_test(test_D8_default_policy),
        cmocka_unit_test(test_P22_canonical_json_round_trips),
        cmocka_unit_test(test_P21_builder_reports_what_json_reports),
        cmocka_unit_test(test_P21_builder_cases_include_valid_and_invalid),
        cmocka_unit_test(test_P21_builder_name_that_is_not_utf8),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
