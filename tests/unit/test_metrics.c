/* Metrics snapshots as OpenMetrics text (docs/spec.md section 12): each
 * test name carries the rule it checks. The text is also parsed by a
 * strict OpenMetrics parser in bindings/python/tests/test_metrics.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

static respite_settings *named(const char *component, const char *name)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new(component, &err);
    assert_non_null(s);
    assert_int_equal(respite_settings_set_text(s, "name", name, &err), RESPITE_OK);
    return s;
}

/* "billing": one success, then opened for good by two counted failures,
 * one call refused. */
static respite_gate *open_gate(void)
{
    respite_error err = {0};
    respite_settings *s = named("gate", "billing");
    assert_int_equal(respite_settings_set_integer(s, "failures_to_enter_recovery", 2, &err), RESPITE_OK);
    assert_int_equal(respite_settings_set_boolean(s, "recover_never", 1, &err), RESPITE_OK);
    respite_gate *gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    assert_non_null(gate);
    double now = respite_now();
    assert_int_equal(respite_gate_report(gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SUCCESS, 0, now, &err), RESPITE_OK);
    for (int i = 0; i < 2; i++) {
        int64_t permit = respite_gate_admit(gate, now, &err);
        assert_true(permit > 0);
        assert_int_equal(respite_gate_report(gate, permit, RESPITE_OUTCOME_SERVER_ERROR, 0, now, &err), RESPITE_OK);
    }
    assert_int_equal(respite_gate_admit(gate, now, &err), 0);
    return gate;
}

/* "events": 3 accepted, 1 delivered, 1 discarded, 1 pending of 4 bytes. */
static respite_queue *used_queue(void)
{
    respite_error err = {0};
    respite_settings *s = named("queue", "events");
    respite_queue *queue = respite_queue_new(NULL, s, &err);
    respite_settings_free(s);
    assert_non_null(queue);
    double now = respite_now();
    assert_int_equal(respite_queue_enqueue(queue, "one", 3, now, &err), RESPITE_OK);
    assert_int_equal(respite_queue_enqueue(queue, "two", 3, now, &err), RESPITE_OK);
    assert_int_equal(respite_queue_enqueue(queue, "four", 4, now, &err), RESPITE_OK);
    respite_batch *batch = respite_queue_take(queue, 2, now, &err);
    assert_non_null(batch);
    assert_int_equal(respite_batch_settle(batch, 0, RESPITE_DISPOSITION_DELIVERED, &err), RESPITE_DISPOSITION_DELIVERED);
    assert_int_equal(respite_batch_settle(batch, 1, RESPITE_DISPOSITION_DISCARDED, &err), RESPITE_DISPOSITION_DISCARDED);
    respite_batch_free(batch);
    return queue;
}

static char *render(respite_metrics *m)
{
    respite_error err = {0};
    char *text = respite_metrics_render(m, &err);
    if (!text)
        fail_msg("render: %s", err.message);
    return text;
}

static char *read_expected(void)
{
    FILE *f = fopen(RESPITE_SOURCE_DIR "/tests/unit/test_metrics_expected.txt", "rb");
    assert_non_null(f);
    static char buf[16384];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* M1-M5: the exact text for a known state (the expected file is what
 * test_metrics_expected.txt says, reviewed by hand). */
static void test_M1_M5_exact_text(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metrics *m = respite_metrics_new(NULL, &err);
    assert_non_null(m);
    respite_gate *gate = open_gate();
    respite_queue *queue = used_queue();
    assert_int_equal(respite_metrics_add_gate(m, gate, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_add_queue(m, queue, &err), RESPITE_OK);
    char *text = render(m);
    assert_string_equal(text, read_expected());
    respite_free_string(text);
    respite_metrics_free(m);
    respite_gate_free(gate);
    respite_queue_free(queue);
}

/* M6: the samples are what the text says, in its order. */
static void test_M6_samples_match_text(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metrics *m = respite_metrics_new(NULL, &err);
    respite_gate *gate = open_gate();
    respite_queue *queue = used_queue();
    /* Added queue first: the samples still come family by family. */
    assert_int_equal(respite_metrics_add_queue(m, queue, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_add_gate(m, gate, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_sample_count(m), 19 + 15);
    respite_metric_sample s;
    assert_int_equal(respite_metrics_sample(m, 1, &s, &err), RESPITE_OK);
    assert_string_equal(s.family, "respite_gate_state");
    assert_string_equal(s.name, "respite_gate_state");
    assert_string_equal(s.type, "stateset");
    assert_string_equal(s.handle_label, "gate");
    assert_string_equal(s.handle, "billing");
    assert_string_equal(s.label, "respite_gate_state");
    assert_string_equal(s.label_value, "open");
    assert_true(s.value == 1);
    assert_int_equal(respite_metrics_sample(m, 19 + 5, &s, &err), RESPITE_OK);
    assert_string_equal(s.name, "respite_queue_dropped_total");
    assert_string_equal(s.label, "reason");
    assert_string_equal(s.label_value, "discarded");
    assert_true(s.value == 1);
    assert_int_equal(respite_metrics_sample(m, 18, &s, &err), RESPITE_OK);
    assert_string_equal(s.unit, "seconds");
    assert_true(isinf(s.value));
    char *text = render(m);
    assert_string_equal(text, read_expected());
    respite_free_string(text);
    assert_int_equal(respite_metrics_sample(m, 34, &s, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "index must be 0-33 (got 34)");
    respite_metrics_free(m);
    respite_gate_free(gate);
    respite_queue_free(queue);
}

/* M7: label values escaped (\\, \", \n); a name read from a file that is
 * not text shows '?' for its control characters and stray bytes. */
static void test_M7_label_escaping(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metrics *m = respite_metrics_new(NULL, &err);
    respite_shared_gate_info info = {0};
    snprintf(info.name, sizeof info.name, "we\"ird\\name\x01\xff");
    info.state = RESPITE_GATE_OPEN;
    info.pause_left = 12.25;
    info.stats.delay = 30;
    assert_int_equal(respite_metrics_add_shared_gate(m, &info, &err), RESPITE_OK);
    char *text = render(m);
    assert_non_null(strstr(text, "\nrespite_gate_state{gate=\"we\\\"ird\\\\name??\",respite_gate_state=\"open\"} 1\n"));
    assert_non_null(strstr(text, "\nrespite_gate_pause_left_seconds{gate=\"we\\\"ird\\\\name??\"} 12.25\n"));
    respite_free_string(text);
    respite_metrics_free(m);

    /* A name from the name setting may hold \ and ": escaped the same way. */
    m = respite_metrics_new(NULL, &err);
    respite_settings *s = named("gate", "a\\b \"c\"");
    respite_gate *gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    assert_int_equal(respite_metrics_add_gate(m, gate, &err), RESPITE_OK);
    text = render(m);
    assert_non_null(strstr(text, "\nrespite_gate_admitted_total{gate=\"a\\\\b \\\"c\\\"\"} 0\n"));
    respite_free_string(text);
    respite_metrics_free(m);
    respite_gate_free(gate);
}

/* M3: two handles of a kind with one name are refused; kinds differ. */
static void test_M3_names_unique_per_kind(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metrics *m = respite_metrics_new(NULL, &err);
    respite_gate *a = respite_gate_new(NULL, &err), *b = respite_gate_new(NULL, &err);
    assert_int_equal(respite_metrics_add_gate(m, a, &err), RESPITE_OK);
    assert_int_equal(respite_metrics_add_gate(m, b, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "metrics already have a gate named '': give each gate its own name (the name setting)");
    assert_int_equal(respite_metrics_sample_count(m), 19);
    respite_queue *q = respite_queue_new(NULL, NULL, &err);
    assert_int_equal(respite_metrics_add_queue(m, q, &err), RESPITE_OK);
    respite_metrics_free(m);
    respite_gate_free(a);
    respite_gate_free(b);
    respite_queue_free(q);
}

/* M2: the prefix replaces "respite"; a bad one is refused; NULL handles
 * are closed. */
static void test_M2_prefix_and_bad_input(void **state)
{
    (void)state;
    respite_error err = {0};
    assert_null(respite_metrics_new("9lives", &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message,
                        "prefix must be a letter or '_' then letters, digits and '_', at most 32 bytes (got '9lives')");
    assert_null(respite_metrics_new("my-app", &err));
    respite_metrics *m = respite_metrics_new("my_app", &err);
    assert_non_null(m);
    respite_gate *gate = open_gate();
    assert_int_equal(respite_metrics_add_gate(m, gate, &err), RESPITE_OK);
    char *text = render(m);
    assert_non_null(strstr(text, "# TYPE my_app_gate_admitted counter\n"));
    assert_non_null(strstr(text, "\nmy_app_gate_state{gate=\"billing\",my_app_gate_state=\"open\"} 1\n"));
    respite_free_string(text);
    assert_int_equal(respite_metrics_add_gate(m, NULL, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "gate is closed");
    assert_int_equal(respite_metrics_add_queue(m, NULL, &err), RESPITE_E_CLOSED);
    assert_int_equal(respite_metrics_add_gate(NULL, gate, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "metrics is closed");
    assert_null(respite_metrics_render(NULL, &err));
    assert_int_equal(respite_metrics_sample_count(NULL), -1);
    respite_metrics_free(m);
    respite_gate_free(gate);

    /* An empty snapshot is just the end marker. */
    m = respite_metrics_new("", &err);
    text = render(m);
    assert_string_equal(text, "# EOF\n");
    respite_free_string(text);
    respite_metrics_free(m);
}

/* M2: the family table as the bindings and the spec read it. */
static void test_M2_family_table(void **state)
{
    (void)state;
    respite_error err = {0};
    respite_metric_family f;
    assert_int_equal(respite_metric_family_count(), 34);
    assert_int_equal(respite_metric_family_get(0, &f, &err), RESPITE_OK);
    assert_string_equal(f.name, "respite_gate_state");
    assert_string_equal(f.labels, "gate,respite_gate_state");
    assert_int_equal(respite_metric_family_get(20, &f, &err), RESPITE_OK);
    assert_string_equal(f.name, "respite_queue_refused");
    assert_string_equal(f.labels, "queue,reason");
    assert_int_equal(respite_metric_family_get(34, &f, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(respite_metrics_content_type(), "application/openmetrics-text; version=1.0.0; charset=utf-8");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_M1_M5_exact_text),    cmocka_unit_test(test_M6_samples_match_text),
        cmocka_unit_test(test_M7_label_escaping),   cmocka_unit_test(test_M3_names_unique_per_kind),
        cmocka_unit_test(test_M2_prefix_and_bad_input), cmocka_unit_test(test_M2_family_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
