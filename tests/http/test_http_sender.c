/* The background sender (spec section 5, S1-S12) against the fault server. */
#include "http_test_util.h"

#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

#define RETRY_POLICY                                                                                     \
    "{\"name\":\"t\",\"maximum_capacity\":10000,\"retry_times\":100,"                                      \
    "\"error_handlers\":[{\"on\":\"server_error\",\"strategy\":\"retry\"}]}"

/* A sender posting to server with "sender" settings pairs (url added),
 * gate settings pairs on the usage_sharing profile, and a policy (NULL:
 * @default). */
static respite_sender *sender_of(respite_fault_server *server, const char *sender_pairs, const char *gate_pairs,
                                 const char *policy_json)
{
    char pairs[1024];
    snprintf(pairs, sizeof pairs, "url=%s%s%s", respite_fault_server_url(server), sender_pairs ? "," : "",
             sender_pairs ? sender_pairs : "");
    respite_settings *ss = settings_of("sender", pairs);
    respite_settings *gs = settings_of("usage_sharing", gate_pairs);
    respite_policy *policy = policy_json ? policy_from(policy_json) : NULL;
    respite_error err;
    respite_error_clear(&err);
    respite_sender *sender = respite_sender_new(ss, gs, NULL, policy, &err);
    if (!sender)
        fail_msg("sender: %s", err.message);
    respite_policy_free(policy); /* the sender keeps its own copy */
    respite_settings_free(ss);
    respite_settings_free(gs);
    return sender;
}

static void enqueue_text(respite_sender *sender, const char *text)
{
    respite_error err;
    respite_error_clear(&err);
    if (respite_sender_enqueue(sender, text, strlen(text), &err) != RESPITE_OK)
        fail_msg("enqueue %s: %s", text, err.message);
}

/* Asserts the server has seen exactly `want` requests while the pause that
 * began at `at` (the sender's clock) for `pause` seconds still runs. A test
 * thread the machine kept waiting until after the pause can only check that
 * none was lost: the next probe may have gone out by then. */
static void expect_requests_in_pause(respite_fault_server *server, int64_t want, double at, double pause)
{
    int64_t seen = respite_fault_server_requests(server);
    if (respite_now() < at + pause)
        assert_int_equal(seen, want);
    else
        assert_true(seen >= want);
}

/* S3, S4, G3, G9, seed usage-sharing-backoff-java items 2, 3 and 5: N failed
 * sends pause sending; each pause ends with one probe; a failed probe grows
 * the pause up to the maximum; after a successful probe the queue drains
 * without any new event arriving. */
static void test_pause_probe_grow_then_drain(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("down");
    respite_sender *sender =
        sender_of(server, "min_entries_per_message=1,max_entries_per_message=1,timeout_seconds=2",
                  "failures_to_enter_recovery=3,recovery_seconds=0.1,recovery_multiplier=2,max_recovery_seconds=0.4",
                  RETRY_POLICY);
    for (int i = 0; i < 5; i++) {
        char text[32];
        snprintf(text, sizeof text, "{\"id\":%d}", i);
        enqueue_text(sender, text);
    }
    event_log log = {0};
    assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERY_STARTED, 1, 5.0));
    const respite_event *started = events_nth(&log, RESPITE_EVENT_RECOVERY_STARTED, 0);
    expect_requests_in_pause(server, 3, started->at, started->pause);
    assert_true(started->pause == 0.1);
    assert_int_equal(started->failures, 3);
    /* S6: each failed send is an event with its status and body, before
     * the gate event it causes. */
    int failed_before = 0;
    for (int i = 0; log.events[i].type != RESPITE_EVENT_RECOVERY_STARTED; i++)
        failed_before += log.events[i].type == RESPITE_EVENT_SEND_FAILED;
    assert_int_equal(failed_before, 3);
    assert_int_equal(events_nth(&log, RESPITE_EVENT_SEND_FAILED, 0)->http_status, 503);
    assert_string_equal(events_nth(&log, RESPITE_EVENT_SEND_FAILED, 0)->detail, "503\n");

    /* Pauses 0.2, 0.4, then 0.4 again (the maximum): one probe each. */
    const double pauses[] = {0.2, 0.4, 0.4};
    for (int k = 0; k < 3; k++) {
        assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERY_EXTENDED, k + 1, 5.0));
        const respite_event *extended = events_nth(&log, RESPITE_EVENT_RECOVERY_EXTENDED, k);
        assert_true(extended->pause == pauses[k]);
        expect_requests_in_pause(server, 3 + k + 1, extended->at, extended->pause);
    }
    /* No request at all during a pause. */
    const respite_event *last = events_nth(&log, RESPITE_EVENT_RECOVERY_EXTENDED, 2);
    sleep_for(0.25);
    respite_sender_stats st = sender_stats(sender);
    expect_requests_in_pause(server, 6, last->at, last->pause);
    if (respite_now() < last->at + last->pause) {
        assert_int_equal(st.engine.probes, 3);
        assert_int_equal(st.paused, 1);
    }
    assert_int_equal(st.queue.pending + st.queue.in_flight, 5);

    server_script(server, "healthy");
    assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERED, 1, 5.0));
    assert_true(WAIT_UNTIL(sender_stats(sender).queue.delivered == 5, 5.0));
    st = sender_stats(sender);
    /* 3 failures, the failed probes, then 5 sends of which the first is the
     * successful probe: 4 failed probes only if the test thread was late. */
    assert_true(st.engine.probes >= 4);
    assert_int_equal(st.requests, 3 + (st.engine.probes - 1) + 5);
    assert_int_equal(respite_fault_server_requests(server), st.requests);
    assert_int_equal(st.paused, 0);
    assert_int_equal(st.queue.accepted, 5);
    assert_int_equal(respite_sender_close(sender, NULL), 0);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* S1: producers never block on the network: while the service hangs,
 * 10,000 enqueues each return at once. */
static void test_producers_never_block(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("hang");
    respite_sender *sender =
        sender_of(server, "min_entries_per_message=1,timeout_seconds=30,close_timeout_seconds=0.2", NULL, NULL);
    enqueue_text(sender, "first");
    assert_true(WAIT_UNTIL(respite_fault_server_requests(server) == 1, 5.0)); /* the sender is stuck */
    double worst = 0, start = respite_now();
    for (int i = 0; i < 10000; i++) {
        double t0 = respite_now();
        enqueue_text(sender, "an event of some forty bytes, more or less");
        double took = respite_now() - t0;
        if (took > worst)
            worst = took;
    }
    double total = respite_now() - start;
    print_message("10,000 enqueues while the service hangs: %.1f ms in all, slowest %.3f ms\n", total * 1e3,
                  worst * 1e3);
    /* A blocked enqueue would wait for the 30 s send timeout; the bounds leave
     * room for a loaded machine descheduling the test thread. */
    assert_true(worst < 0.5);
    assert_true(total < 5.0);
    /* S11: flush gives up when its time runs out. */
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_sender_flush(sender, 0.05, &err), RESPITE_E_TRANSPORT);
    assert_non_null(strstr(err.message, "flush ran out of time after 0.05s with "));
    /* close drains for close_timeout_seconds at most, cutting the hung send short. */
    double t0 = respite_now();
    int64_t unsent = respite_sender_close(sender, NULL);
    double took = respite_now() - t0;
    assert_true(took < 2.0); /* close_timeout_seconds 0.2; the hung send alone would take 30 s */
    assert_true(unsent > 0);
    respite_sender_stats st = sender_stats(sender);
    assert_int_equal(st.closed, 1);
    assert_true(respite_queue_stats_balanced(&st.queue));
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* S5: close while paused returns at once, sends nothing and reports the
 * events not sent. */
static void test_close_while_paused(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("down");
    respite_sender *sender = sender_of(server, "min_entries_per_message=1",
                                       "failures_to_enter_recovery=1,recovery_seconds=60", NULL);
    enqueue_text(sender, "x");
    event_log log = {0};
    assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERY_STARTED, 1, 5.0));
    for (int i = 0; i < 7; i++)
        enqueue_text(sender, "y");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_sender_flush(sender, 1.0, &err), RESPITE_E_TEMPORARILY_UNAVAILABLE);
    assert_true(err.retry_after > 50.0);

    double t0 = respite_now();
    int64_t unsent = respite_sender_close(sender, &err);
    double took = respite_now() - t0;
    print_message("close while paused took %.2f ms\n", took * 1e3);
    assert_true(took < 1.0); /* at once: not the 60 s pause, nor close_timeout_seconds (5 s) */
    assert_int_equal(unsent, 7);
    assert_int_equal(respite_fault_server_requests(server), 1);
    assert_true(events_wait(sender, &log, RESPITE_EVENT_UNSENT_AT_CLOSE, 1, 1.0));
    assert_int_equal(events_nth(&log, RESPITE_EVENT_UNSENT_AT_CLOSE, 0)->count, 7);
    assert_true(respite_event_is_warning(RESPITE_EVENT_UNSENT_AT_CLOSE));

    respite_error_clear(&err);
    assert_int_equal(respite_sender_enqueue(sender, "z", 1, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "sender is closed");
    assert_int_equal(respite_sender_close(sender, NULL), 7); /* the same count again */
    respite_sender_stats st = sender_stats(sender);
    assert_int_equal(st.closed, 1);
    assert_int_equal(st.queue.pending, 7);
    assert_true(respite_queue_stats_balanced(&st.queue));
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* S5: close while healthy sends everything, a last batch below the minimum too. */
static void test_close_while_healthy_delivers_everything(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_sender *sender = sender_of(server, "min_entries_per_message=50", NULL, NULL);
    for (int i = 0; i < 30; i++) {
        char text[32];
        snprintf(text, sizeof text, "event-%02d", i);
        enqueue_text(sender, text);
    }
    sleep_for(0.05);
    assert_int_equal(respite_fault_server_requests(server), 0); /* S2: below the minimum */
    assert_int_equal(respite_sender_close(sender, NULL), 0);
    assert_int_equal(respite_fault_server_requests(server), 1);
    respite_fault_record rec;
    assert_int_equal(respite_fault_server_record(server, 0, &rec), 0);
    for (int i = 0; i < 30; i++) {
        char text[32];
        snprintf(text, sizeof text, "event-%02d", i);
        assert_non_null(strstr(rec.body, text));
    }
    respite_fault_record_clear(&rec);
    respite_sender_stats st = sender_stats(sender);
    assert_int_equal(st.queue.delivered, 30);
    assert_int_equal(st.queue.accepted, 30);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* S7, S8: prefix, separator and suffix frame the batch; gzip round trip;
 * extra headers; flush sends below the minimum. */
static void test_gzip_framing_and_headers(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_sender *sender =
        sender_of(server, "min_entries_per_message=10,gzip=true,prefix=[,separator=;,suffix=],content_type=x/y",
                  NULL, NULL);
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_sender_add_header(sender, "X-Api-Key", "secret", &err), RESPITE_OK);
    enqueue_text(sender, "{\"id\":1}");
    enqueue_text(sender, "{\"id\":2}");
    enqueue_text(sender, "{\"id\":3}");
    assert_int_equal(respite_sender_flush(sender, 5.0, &err), RESPITE_OK);
    assert_int_equal(respite_fault_server_requests(server), 1);
    respite_fault_record rec;
    assert_int_equal(respite_fault_server_record(server, 0, &rec), 0);
    assert_int_equal(rec.gzip, 1);
    assert_int_equal(rec.decode_error, 0);
    assert_string_equal(rec.body, "[{\"id\":1};{\"id\":2};{\"id\":3}]");
    expect_header(&rec, "Content-Encoding", "gzip");
    expect_header(&rec, "Content-Type", "x/y");
    expect_header(&rec, "X-Api-Key", "secret");
    char value[64];
    assert_false(respite_fault_record_header(&rec, "Expect", value, sizeof value));
    respite_fault_record_clear(&rec);
    respite_sender_stats st = sender_stats(sender);
    assert_int_equal(st.requests, 1);
    assert_true(st.bytes_sent > 18); /* a gzip header and trailer alone are 18 bytes */
    assert_int_equal(st.queue.delivered, 3);
    respite_sender_free(sender); /* free closes */
    respite_fault_server_stop(server);
}

/* S16: the batch's event ids on the request, in batch order; on a durable
 * queue (L3) they carry on in a second sender on the same file. */
static void test_ids_header_carries_the_batch_ids(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    respite_settings *bad = respite_settings_new("sender", NULL);
    assert_int_equal(respite_settings_set_text(bad, "ids_header", "Event Ids", &err), RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.message, "ids_header must be \"\" or a header name (an HTTP token) (got 'Event Ids')");
    respite_settings_free(bad);

    char dir[] = "/tmp/respite-ids-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/q.db", dir);
    respite_settings *qs = settings_of("queue", NULL);
    assert_int_equal(respite_settings_set_text(qs, "queue_path", path, NULL), RESPITE_OK);
    respite_fault_server *server = server_start("healthy");
    char pairs[256];
    snprintf(pairs, sizeof pairs, "url=%s,min_entries_per_message=2,max_entries_per_message=2,ids_header=X-Event-Ids",
             respite_fault_server_url(server));
    respite_settings *ss = settings_of("sender", pairs);
    const char *expected[] = {"1,2", "3,4", "5", "6"};
    int request = 0;
    for (int round = 0; round < 2; round++) {
        respite_sender *sender = respite_sender_new(ss, NULL, qs, NULL, &err);
        if (!sender)
            fail_msg("sender: %s", err.message);
        for (int i = 0; i < (round == 0 ? 5 : 1); i++)
            enqueue_text(sender, "e");
        assert_int_equal(respite_sender_flush(sender, 5.0, &err), RESPITE_OK);
        respite_sender_free(sender);
        for (; request < (round == 0 ? 3 : 4); request++) {
            respite_fault_record rec;
            assert_int_equal(respite_fault_server_record(server, request, &rec), 0);
            expect_header(&rec, "X-Event-Ids", expected[request]);
            respite_fault_record_clear(&rec);
        }
    }
    assert_int_equal(respite_fault_server_requests(server), 4);
    respite_settings_free(ss);
    respite_settings_free(qs);
    respite_fault_server_stop(server);
    char command[96];
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    assert_int_equal(system(command), 0);
}

/* Item 3: a body that is not all UTF-8 reaches the event as text every
 * binding decodes, its line cut by characters (E3). */
static void test_answers_come_back_as_text(void **state)
{
    (void)state;
    char script[256] = "503 body=\xff";
    for (int i = 0; i < 119; i++)
        strcat(script, "x");
    strcat(script, "\xc3\xa9");
    const char *body = script + strlen("503 body=\xff");
    respite_fault_server *server = server_start(script);
    respite_sender *sender = sender_of(server, "min_entries_per_message=1", "failures_to_enter_recovery=100", NULL);
    enqueue_text(sender, "a");
    event_log log = {0};
    assert_true(events_wait(sender, &log, RESPITE_EVENT_SEND_FAILED, 1, 5.0));
    const respite_event *failed = events_nth(&log, RESPITE_EVENT_SEND_FAILED, 0);
    assert_int_equal(failed->detail[0], '?'); /* the byte that is not UTF-8 */
    assert_string_equal(failed->detail + 1, body);
    char line[512], expected[300];
    respite_event_message(failed, line, sizeof line);
    snprintf(expected, sizeof expected, "send failed: HTTP 503: ?%.119s", body); /* 120 characters: not the 'e' */
    assert_string_equal(line, expected);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* Item 22: a long content_type is sent whole: a text setting is accepted
 * or rejected, never cut. */
static void test_a_long_content_type_is_sent_whole(void **state)
{
    (void)state;
    char content_type[640] = "application/x-";
    while (strlen(content_type) < 600)
        strcat(content_type, "abcdefghij");
    respite_fault_server *server = server_start("healthy");
    char pairs[700];
    snprintf(pairs, sizeof pairs, "min_entries_per_message=1,content_type=%s", content_type);
    respite_sender *sender = sender_of(server, pairs, NULL, NULL);
    enqueue_text(sender, "a");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_sender_flush(sender, 5.0, &err), RESPITE_OK);
    respite_fault_record rec;
    assert_int_equal(respite_fault_server_record(server, 0, &rec), 0);
    char got[1024];
    assert_true(respite_fault_record_header(&rec, "Content-Type", got, sizeof got));
    assert_string_equal(got, content_type);
    respite_fault_record_clear(&rec);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* G15 through the sender: 429 with Retry-After: 1 lengthens the pause. */
static void test_retry_after_lengthens_the_pause(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("429 retry_after=1");
    respite_sender *sender = sender_of(server, "min_entries_per_message=1",
                                       "failures_to_enter_recovery=1,recovery_seconds=0.1,max_recovery_seconds=5",
                                       NULL);
    enqueue_text(sender, "a");
    event_log log = {0};
    assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERY_STARTED, 1, 5.0));
    assert_true(events_nth(&log, RESPITE_EVENT_RECOVERY_STARTED, 0)->pause == 1.0);
    assert_int_equal(events_nth(&log, RESPITE_EVENT_SEND_FAILED, 0)->http_status, 429);
    enqueue_text(sender, "b");
    sleep_for(0.3); /* R alone (0.1 s) would have ended the pause by now */
    const respite_event *started = events_nth(&log, RESPITE_EVENT_RECOVERY_STARTED, 0);
    int paused = sender_stats(sender).paused;
    expect_requests_in_pause(server, 1, started->at, started->pause);
    if (respite_now() < started->at + started->pause)
        assert_int_equal(paused, 1);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

typedef struct flush_call {
    respite_sender *sender;
    int status;
    respite_error err;
} flush_call;

static void *flush_in_thread(void *arg)
{
    flush_call *c = arg;
    respite_error_clear(&c->err);
    c->status = respite_sender_flush(c->sender, 5.0, &c->err);
    return NULL;
}

/* S11, S12: a flush waiting when close begins ends with closed, not with a
 * claim that its time ran out. */
static void test_close_ends_a_waiting_flush(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("hang");
    respite_sender *sender =
        sender_of(server, "min_entries_per_message=1,timeout_seconds=30,close_timeout_seconds=0.2", NULL, NULL);
    enqueue_text(sender, "stuck");
    assert_true(WAIT_UNTIL(respite_fault_server_requests(server) == 1, 5.0));
    flush_call call = {sender, -1, {0}};
    pthread_t thread;
    pthread_create(&thread, NULL, flush_in_thread, &call);
    sleep_for(0.05); /* the flush is waiting for the hung send */
    double t0 = respite_now();
    assert_int_equal(respite_sender_close(sender, NULL), 0); /* the hung send is abandoned and discarded */
    pthread_join(thread, NULL);
    assert_true(respite_now() - t0 < 2.0); /* not the flush's 5 s */
    assert_int_equal(call.status, RESPITE_E_CLOSED);
    assert_string_equal(call.err.message, "sender is closed");
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* Bad input is refused with the core's messages. */
static void test_bad_input(void **state)
{
    (void)state;
    respite_error err;
    respite_error_clear(&err);
    assert_null(respite_sender_new(NULL, NULL, NULL, NULL, &err));
    assert_int_equal(err.status, RESPITE_E_INVALID_SETTING);
    assert_string_equal(err.setting, "url");
    assert_string_equal(err.message, "url must be an http:// or https:// URL (got '')");

    respite_settings *wrong = respite_settings_new("client", &err);
    respite_error_clear(&err);
    assert_null(respite_sender_new(wrong, NULL, NULL, NULL, &err));
    assert_string_equal(err.message, "sender_settings must be sender settings (got client settings)");
    respite_settings_free(wrong);

    respite_fault_server *server = server_start("healthy");
    respite_sender *sender = sender_of(server, NULL, NULL, NULL);
    respite_error_clear(&err);
    assert_int_equal(respite_sender_add_header(sender, "Bad Name", "v", &err), RESPITE_E_INVALID_ARGUMENT);
    respite_error_clear(&err);
    assert_int_equal(respite_sender_add_header(sender, "X-Ok", "line\nbreak", &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "value must be text without line breaks (got a line break)");
    respite_error_clear(&err);
    assert_int_equal(respite_sender_enqueue(sender, NULL, 0, &err), RESPITE_E_INVALID_ARGUMENT);
    respite_error_clear(&err);
    assert_int_equal(respite_sender_flush(sender, -1.0, &err), RESPITE_E_INVALID_ARGUMENT);
    assert_string_equal(err.message, "timeout_seconds must be a number from 0 to 86400 (got -1)");
    respite_event ev;
    assert_int_equal(respite_sender_next_event(sender, &ev, NULL), 0);
    respite_sender_free(sender);

    respite_error_clear(&err);
    assert_int_equal(respite_sender_enqueue(NULL, "x", 1, &err), RESPITE_E_CLOSED);
    assert_string_equal(err.message, "sender is closed");
    assert_int_equal(respite_sender_close(NULL, &err), -1);
    respite_sender_free(NULL);
    respite_fault_server_stop(server);
}

/* S14: at-least-once. The first answer comes after the send's timeout, so
 * the send is a transport failure although the receiver has the batch; the
 * retry policy sends it again and the receiver gets the event twice. */
static void test_slow_answer_delivers_twice(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("200 delay=1; healthy");
    respite_sender *sender =
        sender_of(server, "min_entries_per_message=1,timeout_seconds=0.2", "failures_to_enter_recovery=5", RETRY_POLICY);
    enqueue_text(sender, "only-once?");
    respite_error err;
    respite_error_clear(&err);
    assert_int_equal(respite_sender_flush(sender, 10.0, &err), RESPITE_OK);
    assert_int_equal(respite_fault_server_requests(server), 2);
    for (size_t i = 0; i < 2; i++) {
        respite_fault_record rec;
        assert_int_equal(respite_fault_server_record(server, i, &rec), 0);
        assert_string_equal(rec.body, "only-once?");
        respite_fault_record_clear(&rec);
    }
    respite_sender_stats st = sender_stats(sender);
    assert_int_equal(st.queue.accepted, 1);
    assert_int_equal(st.queue.delivered, 1);
    assert_int_equal(st.queue.retried, 1);
}

/* S15: in a child made by fork() the parent's sender is closed: close
 * returns 0 at once, enqueue, flush and add_header say whose it is, free
 * returns without joining the parent's thread; the parent goes on sending. */
static void test_a_forked_child_leaves_the_parents_sender_alone(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("healthy");
    respite_sender *sender = sender_of(server, "min_entries_per_message=50", NULL, NULL);
    enqueue_text(sender, "before-fork");
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        alarm(5); /* a hang ends the child with SIGALRM */
        respite_error err;
        respite_error_clear(&err);
        int ok = respite_sender_enqueue(sender, "x", 1, &err) == RESPITE_E_CLOSED &&
                 strstr(err.message, "forked") != NULL;
        ok = ok && respite_sender_flush(sender, 1.0, NULL) == RESPITE_E_CLOSED;
        ok = ok && respite_sender_add_header(sender, "X-A", "b", NULL) == RESPITE_E_CLOSED;
        respite_sender_stats st;
        ok = ok && respite_sender_stats_get(sender, &st, NULL) == RESPITE_OK && st.closed && st.queue.accepted == 0;
        respite_event ev;
        ok = ok && respite_sender_next_event(sender, &ev, NULL) == 0;
        ok = ok && respite_sender_close(sender, NULL) == 0 && respite_sender_close(sender, NULL) == 0;
        respite_sender_free(sender);
        _exit(ok ? 0 : 1); /* no thread started here: TSan refuses threads after a fork */
    }
    int status = 0;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    enqueue_text(sender, "after-fork");
    assert_int_equal(respite_sender_flush(sender, 5.0, NULL), RESPITE_OK);
    assert_int_equal(sender_stats(sender).queue.delivered, 2);
    assert_int_equal(respite_sender_close(sender, NULL), 0);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

/* H9: a sender on a shared gate reports the transitions another handle
 * (here in this process; another process's alike) made, while it idles. */
static void test_a_shared_gate_opened_elsewhere_is_reported(void **state)
{
    (void)state;
    char path[] = "/tmp/respite-sender-shared-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path); /* the gate creates it */
    char gate_pairs[256];
    snprintf(gate_pairs, sizeof gate_pairs, "failures_to_enter_recovery=1,recovery_seconds=60,name=cloud,shared_path=%s",
             path);
    respite_fault_server *server = server_start("healthy");
    respite_sender *sender = sender_of(server, "min_entries_per_message=1", gate_pairs, NULL);
    respite_settings *gs = settings_of("usage_sharing", gate_pairs);
    respite_error err;
    respite_error_clear(&err);
    respite_gate *other = respite_gate_new(gs, &err);
    if (!other)
        fail_msg("other handle: %s", err.message);
    assert_int_equal(respite_gate_report_now(other, RESPITE_NO_PERMIT, RESPITE_OUTCOME_SERVER_ERROR, 0, &err),
                     RESPITE_OK);
    event_log log = {0};
    assert_true(events_wait(sender, &log, RESPITE_EVENT_RECOVERY_STARTED, 1, 2.0));
    assert_int_equal(respite_fault_server_requests(server), 0);
    respite_gate_free(other);
    respite_settings_free(gs);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pause_probe_grow_then_drain),
        cmocka_unit_test(test_producers_never_block),
        cmocka_unit_test(test_close_while_paused),
        cmocka_unit_test(test_close_while_healthy_delivers_everything),
        cmocka_unit_test(test_gzip_framing_and_headers),
        cmocka_unit_test(test_ids_header_carries_the_batch_ids),
        cmocka_unit_test(test_retry_after_lengthens_the_pause),
        cmocka_unit_test(test_answers_come_back_as_text),
        cmocka_unit_test(test_a_long_content_type_is_sent_whole),
        cmocka_unit_test(test_close_ends_a_waiting_flush),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_slow_answer_delivers_twice),
        cmocka_unit_test(test_a_forked_child_leaves_the_parents_sender_alone),
        cmocka_unit_test(test_a_shared_gate_opened_elsewhere_is_reported),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
