/* G18: events in words, produced once by the core for every language. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "respite.h"

static const char *message_of(respite_event e)
{
    static char buf[512];
    respite_event_message(&e, buf, sizeof buf);
    return buf;
}

static void test_G18_each_event_type_in_words(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_RECOVERY_STARTED;
    e.failures = 10;
    e.window = 100.0;
    e.pause = 60.0;
    assert_string_equal(message_of(e), "recovery started: 10 failures within 100s; requests paused for 60s");
    e.failures = 1;
    e.pause = 0.30000000000000004;
    assert_string_equal(message_of(e), "recovery started: 1 failure within 100s; requests paused for 0.3s");
    e.pause = INFINITY;
    assert_string_equal(message_of(e), "recovery started: 1 failure within 100s; requests paused until a reset");

    respite_event x = {0};
    x.type = RESPITE_EVENT_RECOVERY_EXTENDED;
    x.pause = 120.0;
    assert_string_equal(message_of(x), "recovery extended: the probe failed; requests paused for 120s");
    x.type = RESPITE_EVENT_PROBING;
    assert_string_equal(message_of(x), "recovery period ended: the next request is a probe");
    x.type = RESPITE_EVENT_RECOVERED;
    assert_string_equal(message_of(x), "recovered: the service answered; requests resume");
    x.type = RESPITE_EVENT_RESET;
    assert_string_equal(message_of(x), "gate reset: requests resume");
}

static void test_S6_failed_sends_and_unsent_events_in_words(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_SEND_FAILED;
    e.http_status = 503;
    strcpy(e.detail, "busy\r\nretry later\n");
    assert_string_equal(message_of(e), "send failed: HTTP 503: busy  retry later");
    e.http_status = 0;
    strcpy(e.detail, "Connection refused");
    assert_string_equal(message_of(e), "send failed: Connection refused");
    e.detail[0] = '\0';
    assert_string_equal(message_of(e), "send failed: the request did not complete");

    respite_event u = {0};
    u.type = RESPITE_EVENT_UNSENT_AT_CLOSE;
    u.count = 1;
    assert_string_equal(message_of(u), "closed with 1 event not sent");
    u.count = 7;
    assert_string_equal(message_of(u), "closed with 7 events not sent");
}

#define X10 "xxxxxxxxxx"
#define X119 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 "xxxxxxxxx"

/* E3 (issue 14 item 3): the body is cut by characters, never inside one,
 * and bytes that are not UTF-8 show as '?': every binding can decode it. */
static void test_E3_failed_send_detail_is_cut_by_characters(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_SEND_FAILED;
    e.http_status = 503;
    strcpy(e.detail, X119 "\xc3\xa9");
    assert_string_equal(message_of(e), "send failed: HTTP 503: " X119 "\xc3\xa9");
    strcpy(e.detail, X119 "\xc3\xa9\xc3\xa9");
    assert_string_equal(message_of(e), "send failed: HTTP 503: " X119 "\xc3\xa9");
    strcpy(e.detail, X119 "x\xf0\x9f\x98\x80");
    assert_string_equal(message_of(e), "send failed: HTTP 503: " X119 "x");
    strcpy(e.detail, "bad \xff\xfe byte\x01\xc3");
    assert_string_equal(message_of(e), "send failed: HTTP 503: bad ?? byte ?");
    e.http_status = 0;
    strcpy(e.detail, "\xe2\x82");
    assert_string_equal(message_of(e), "send failed: ??");
}

/* A buffer too short for the line gets it cut at a character boundary. */
static void test_E3_a_short_buffer_never_ends_inside_a_character(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_RECOVERED;
    strcpy(e.source, "\xc3\xa9t\xc3\xa9");
    char buf[5];
    size_t needed = respite_event_message(&e, buf, sizeof buf);
    assert_int_equal(needed, strlen("\xc3\xa9t\xc3\xa9: recovered: the service answered; requests resume"));
    assert_string_equal(buf, "\xc3\xa9t"); /* not "\xc3\xa9t\xc3" */
    char two[2];
    respite_event_message(&e, two, sizeof two);
    assert_string_equal(two, "");
}

static void test_E10_message_never_overflows_and_reports_its_length(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_PROBING;
    char small[8];
    size_t needed = respite_event_message(&e, small, sizeof small);
    assert_int_equal(needed, strlen("recovery period ended: the next request is a probe"));
    assert_int_equal(strlen(small), sizeof small - 1);
    assert_int_equal(respite_event_message(&e, NULL, 0), needed);
    e.type = 99;
    char buf[64];
    respite_event_message(&e, buf, sizeof buf);
    assert_string_equal(buf, "event of unknown type 99");
    respite_event_message(NULL, buf, sizeof buf);
    assert_string_equal(buf, "no event");
}

static void test_G18_the_line_starts_with_the_source_name(void **state)
{
    (void)state;
    respite_event e = {0};
    e.type = RESPITE_EVENT_RECOVERED;
    strcpy(e.source, "billing");
    char buf[128];
    size_t needed = respite_event_message(&e, buf, sizeof buf);
    assert_string_equal(buf, "billing: recovered: the service answered; requests resume");
    assert_int_equal(needed, strlen(buf));
    /* Cut short, it still says how long the whole line is. */
    char tiny[5];
    assert_int_equal(respite_event_message(&e, tiny, sizeof tiny), needed);
    assert_string_equal(tiny, "bill");
    char exact[10];
    assert_int_equal(respite_event_message(&e, exact, sizeof exact), needed);
    assert_string_equal(exact, "billing: ");
}

static void test_G18_a_named_gate_writes_its_name_on_every_line(void **state)
{
    (void)state;
    respite_settings *s = respite_settings_new("gate", NULL);
    assert_int_equal(respite_settings_set_text(s, "name", "billing", NULL), RESPITE_OK);
    assert_int_equal(respite_settings_set_integer(s, "failures_to_enter_recovery", 1, NULL), RESPITE_OK);
    respite_gate *g = respite_gate_new(s, NULL);
    respite_settings_free(s);
    assert_string_equal(respite_gate_name(g), "billing");
    int64_t permit = respite_gate_admit(g, 0.0, NULL);
    assert_int_equal(respite_gate_report(g, permit, RESPITE_OUTCOME_TRANSPORT, 0, 1.0, NULL), RESPITE_OK);
    assert_int_equal(respite_gate_events_pending(g), 1);
    respite_event e;
    assert_int_equal(respite_gate_next_event(g, &e, NULL), 1);
    assert_string_equal(e.source, "billing");
    assert_string_equal(message_of(e), "billing: recovery started: 1 failure within 100s; requests paused for 60s");
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_G18_each_event_type_in_words),
        cmocka_unit_test(test_G18_the_line_starts_with_the_source_name),
        cmocka_unit_test(test_G18_a_named_gate_writes_its_name_on_every_line),
        cmocka_unit_test(test_S6_failed_sends_and_unsent_events_in_words),
        cmocka_unit_test(test_E10_message_never_overflows_and_reports_its_length),
        cmocka_unit_test(test_E3_failed_send_detail_is_cut_by_characters),
        cmocka_unit_test(test_E3_a_short_buffer_never_ends_inside_a_character),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
