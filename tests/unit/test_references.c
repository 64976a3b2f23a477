/* Handles that use other handles hold references to them (boundary rule 5):
 * a binding frees its own objects in any order and nothing dangles. Run
 * under ASan/valgrind by the sanitizer step, which is what proves it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "respite.h"

static const char retry_policy[] =
    "{\"name\":\"p\",\"maximum_capacity\":10,\"retry_times\":2,"
    "\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"retry\"}]}";

static void test_engine_outlives_the_queue_gate_and_policy_it_uses(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_policy *policy = respite_policy_from_json(retry_policy, NULL, &err);
    assert_non_null(policy);
    respite_queue *queue = respite_queue_new(policy, NULL, &err);
    respite_gate *gate = respite_gate_new(NULL, &err);
    respite_settings *sender = respite_settings_new("sender", &err);
    assert_int_equal(respite_settings_set_integer(sender, "min_entries_per_message", 1, &err), RESPITE_OK);
    respite_engine *engine = respite_engine_new(queue, gate, sender, &err);
    assert_non_null(engine);
    respite_settings_free(sender);
    assert_ptr_equal(respite_queue_policy(queue), policy);

    assert_int_equal(respite_queue_enqueue(queue, "e1", 2, 0.0, &err), RESPITE_OK);
    /* The creators let go first; the engine still works on what it holds. */
    respite_policy_free(policy);
    respite_queue_free(queue);
    respite_gate_free(gate);

    assert_int_equal(respite_engine_next(engine, 0.0, &err), RESPITE_ACTION_SEND);
    respite_batch *batch = respite_engine_take(engine, 0.0, &err);
    assert_non_null(batch);
    assert_int_equal(respite_engine_settle(engine, batch, 0, 503, 0, 0.0, &err), RESPITE_OK);
    respite_engine_free(engine); /* the last holder: frees queue, gate and policy */
}

static void test_a_retained_handle_needs_one_free_per_reference(void **state)
{
    (void)state;
    respite_gate *gate = respite_gate_new(NULL, NULL);
    assert_ptr_equal(respite_gate_retain(gate), gate);
    respite_gate_free(gate);
    assert_true(respite_gate_admit(gate, 0.0, NULL) > 0); /* still alive: one reference left */
    respite_gate_free(gate);
    assert_null(respite_gate_retain(NULL));

    respite_backoff *backoff = respite_backoff_new(NULL, NULL);
    assert_ptr_equal(respite_backoff_retain(backoff), backoff);
    respite_backoff_free(backoff);
    assert_true(respite_backoff_start(backoff, NULL) >= 0);
    respite_backoff_free(backoff);

    respite_policy *policy = respite_policy_default(NULL);
    assert_ptr_equal(respite_policy_retain(policy), policy);
    respite_policy_free(policy);
    assert_string_equal(respite_policy_name(policy), "@default");
    respite_policy_free(policy);

    respite_queue *queue = respite_queue_new(NULL, NULL, NULL);
    assert_string_equal(respite_policy_name(respite_queue_policy(queue)), "@default");
    assert_ptr_equal(respite_queue_retain(queue), queue);
    respite_queue_free(queue);
    assert_int_equal(respite_queue_enqueue(queue, "x", 1, 0.0, NULL), RESPITE_OK);
    respite_queue_free(queue);
    assert_null(respite_queue_policy(NULL));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_engine_outlives_the_queue_gate_and_policy_it_uses),
        cmocka_unit_test(test_a_retained_handle_needs_one_free_per_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
