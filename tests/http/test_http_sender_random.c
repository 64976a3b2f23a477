/* S1-S5 and D9 under random faults: thousands of events from two producers
 * while the service fails at random (seeded). Every accepted event is
 * counted under exactly one D9 heading (delivered, discarded by a 404,
 * retries_exhausted), and every delivered event reached
 * the service exactly once in a 2xx-answered request. */
#include "http_test_util.h"

#include <pthread.h>

#define PRODUCERS 2
#define EVENTS_EACH 1500

typedef struct producer {
    respite_sender *sender;
    int id;
    int refused;
} producer;

static void *produce(void *arg)
{
    producer *p = arg;
    for (int i = 0; i < EVENTS_EACH; i++) {
        char text[32];
        snprintf(text, sizeof text, "ev-%d-%04d", p->id, i);
        if (respite_sender_enqueue(p->sender, text, strlen(text), NULL) != RESPITE_OK)
            p->refused++;
        if (i % 100 == 99)
            sleep_for(0.002); /* let batches go out while producing */
    }
    return NULL;
}

static int index_of(const char *id)
{
    int p, i;
    if (sscanf(id, "ev-%d-%d", &p, &i) != 2 || p < 0 || p >= PRODUCERS || i < 0 || i >= EVENTS_EACH)
        return -1;
    return p * EVENTS_EACH + i;
}

static void test_random_faults_keep_the_accounting(void **state)
{
    (void)state;
    respite_fault_server *server = server_start("random p=0.4 seed=42 faults=500,503,429,404,reset,close");
    char pairs[256];
    snprintf(pairs, sizeof pairs,
             "url=%s,min_entries_per_message=10,max_entries_per_message=40,timeout_seconds=2,close_timeout_seconds=5",
             respite_fault_server_url(server));
    respite_settings *ss = settings_of("sender", pairs);
    respite_settings *gs = settings_of("usage_sharing", "failures_to_enter_recovery=5,recovery_seconds=0.02,"
                                                        "max_recovery_seconds=0.08");
    respite_policy *policy = policy_from("{\"name\":\"r\",\"maximum_capacity\":100000,\"retry_times\":2,"
                                       "\"error_handlers\":[{\"on\":\"server_error\",\"strategy\":\"retry\"},"
                                       "{\"on\":[429],\"strategy\":\"retry\"}]}");
    respite_error err;
    respite_error_clear(&err);
    respite_sender *sender = respite_sender_new(ss, gs, NULL, policy, &err);
    if (!sender)
        fail_msg("sender: %s", err.message);
    respite_policy_free(policy);
    respite_settings_free(ss);
    respite_settings_free(gs);

    pthread_t threads[PRODUCERS];
    producer producers[PRODUCERS];
    for (int p = 0; p < PRODUCERS; p++) {
        producers[p] = (producer){sender, p, 0};
        pthread_create(&threads[p], NULL, produce, &producers[p]);
    }
    for (int p = 0; p < PRODUCERS; p++) {
        pthread_join(threads[p], NULL);
        assert_int_equal(producers[p].refused, 0);
    }
    /* Flush until the queue is empty; pauses answer temporarily_unavailable. */
    double until = respite_now() + 20.0;
    int rc;
    do {
        respite_error_clear(&err);
        rc = respite_sender_flush(sender, 2.0, &err);
        if (rc == RESPITE_E_TEMPORARILY_UNAVAILABLE)
            sleep_for(err.retry_after < 0.1 ? err.retry_after : 0.1);
    } while (rc != RESPITE_OK && respite_now() < until);
    assert_int_equal(rc, RESPITE_OK);
    int64_t unsent = respite_sender_close(sender, NULL);
    assert_int_equal(unsent, 0);

    respite_sender_stats st = sender_stats(sender);
    const respite_queue_stats *q = &st.queue;
    print_message("accepted %lld: delivered %lld, retries_exhausted %lld, discarded %lld, pending %lld; "
                  "%lld requests, %lld trips\n",
                  (long long)q->accepted, (long long)q->delivered, (long long)q->retries_exhausted,
                  (long long)q->discarded, (long long)q->pending, (long long)st.requests, (long long)st.gate.trips);
    assert_int_equal(q->accepted, PRODUCERS * EVENTS_EACH);
    assert_int_equal(q->accepted, q->delivered + q->dropped_capacity + q->expired + q->retries_exhausted +
                                      q->discarded + q->pending + q->in_flight);
    assert_true(q->delivered > 0);
    assert_true(q->retried > 0); /* the faults happened and were retried */
    assert_true(q->discarded > 0); /* 404: no handler (D2) */
    assert_true(q->retries_exhausted > 0); /* D3 */
    assert_true(st.engine.sends_failed > 0);

    /* Each event in the 2xx-answered bodies exactly once; as many as delivered. */
    int *seen = calloc(PRODUCERS * EVENTS_EACH, sizeof *seen);
    int64_t in_2xx = 0;
    size_t records = respite_fault_server_record_count(server);
    for (size_t i = 0; i < records; i++) {
        respite_fault_record rec;
        assert_int_equal(respite_fault_server_record(server, i, &rec), 0);
        if (rec.status >= 200 && rec.status < 300) {
            char *save = NULL;
            for (char *id = strtok_r(rec.body, "\n", &save); id; id = strtok_r(NULL, "\n", &save)) {
                int k = index_of(id);
                assert_true(k >= 0);
                seen[k]++;
                in_2xx++;
            }
        }
        respite_fault_record_clear(&rec);
    }
    for (int k = 0; k < PRODUCERS * EVENTS_EACH; k++)
        if (seen[k] > 1)
            fail_msg("event %d delivered %d times", k, seen[k]);
    assert_int_equal(in_2xx, q->delivered);
    /* libcurl may resend once on a reused connection the server closed. */
    assert_true(respite_fault_server_requests(server) >= st.requests);
    free(seen);
    respite_sender_free(sender);
    respite_fault_server_stop(server);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_faults_keep_the_accounting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
