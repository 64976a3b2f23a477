/* A sender in a metrics snapshot (docs/spec.md section 12, M3, M5): its own
 * families, its queue's and its gate's, all labelled with its name. */
#include "http_test_util.h"

static void test_M5_a_sender_brings_its_gate_and_queue(void **state)
{
    (void)state;
    respite_fault_server *server = server_start(NULL);
    respite_error err = {0};
    respite_settings *s = respite_settings_new("sender", &err);
    assert_int_equal(respite_settings_set_text(s, "url", respite_fault_server_url(server), &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_text(s, "name", "usage", &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_integer(s, "min_entries_per_message", 1, &err), RESPITE_OK);
    respite_sender *sender = respite_sender_new(s, NULL, NULL, NULL, &err);
    respite_settings_free(s);
    if (!sender)
        fail_msg("sender: %s", err.message);
    assert_string_equal(respite_sender_name(sender), "usage");
    assert_int_equal(respite_sender_enqueue(sender, "a", 1, &err), RESPITE_OK);
    assert_int_equal(respite_sender_enqueue(sender, "bc", 2, &err), RESPITE_OK);
    assert_int_equal(respite_sender_flush(sender, 5, &err), RESPITE_OK);

    respite_metrics *m = respite_metrics_new(NULL, &err);
    assert_int_equal(respite_metrics_add_sender(m, sender, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_sample_count(m), 19 + 15 + 7);
    char *text = respite_metrics_render(m, &err);
    assert_non_null(text);
    assert_non_null(strstr(text, "\nrespite_gate_state{gate=\"usage\",respite_gate_state=\"closed\"} 1\n"));
    assert_non_null(strstr(text, "\nrespite_queue_delivered_total{queue=\"usage\"} 2\n"));
    assert_non_null(strstr(text, "\nrespite_sender_events_sent_total{sender=\"usage\"} 2\n"));
    assert_non_null(strstr(text, "\nrespite_sender_sent_bytes_total{sender=\"usage\"} "));
    assert_non_null(strstr(text, "\nrespite_sender_paused{sender=\"usage\"} 0\n"));
    respite_free_string(text);

    /* M3: a second sender of the same name is refused, a NULL one is closed. */
    assert_int_equal(respite_metrics_add_sender(m, sender, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "metrics already have a gate named 'usage': give each gate its own name (the name setting)");
    assert_int_equal(respite_metrics_add_sender(m, NULL, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "sender is closed");
    assert_int_equal(respite_metrics_sample_count(m), 19 + 15 + 7);
    respite_metrics_free(m);

    /* A queue named as the sender already there: nothing of the sender is added. */
    s = respite_settings_new("queue", &err);
    assert_int_equal(respite_settings_set_text(s, "name", "usage", &err), RESPITE_OK);
    respite_queue *queue = respite_queue_new(NULL, s, &err);
    respite_settings_free(s);
    m = respite_metrics_new(NULL, &err);
    assert_int_equal(respite_metrics_add_queue(m, queue, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_add_sender(m, sender, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "metrics already have a queue named 'usage': give each queue its own name (the name setting)");
    assert_int_equal(respite_metrics_sample_count(m), 15);
    respite_metrics_free(m);
    respite_queue_free(queue);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_M5_a_sender_brings_its_gate_and_queue),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
