/* Queue under load: several producers and one consumer for about 2 s, a
 * reader checking D9 on live snapshots. At the end D9 holds and every
 * delivered event (unique id) was delivered exactly once.
 * stress_durable_queue.c runs it again on a durable queue (section 10). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

#define PRODUCERS 4
#define PER_PRODUCER_MAX 2000000
#define RUN_SECONDS 2.0

static respite_queue *queue;
static atomic_int stop_producing;
static atomic_int stop_reading;
static int64_t produced[PRODUCERS];
static unsigned char *delivered_ids; /* one byte per id */
static int failures;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "stress_queue: " __VA_ARGS__);                                                   \
            fprintf(stderr, "\n");                                                                           \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

static void *producer(void *arg)
{
    int p = (int)(intptr_t)arg;
    char text[32];
    int64_t i = 0;
    while (!atomic_load(&stop_producing) && i < PER_PRODUCER_MAX) {
        int n = snprintf(text, sizeof text, "%d", p * PER_PRODUCER_MAX + (int)i);
        int status = respite_queue_enqueue(queue, text, (size_t)n, respite_now(), NULL);
        if (status != RESPITE_OK && status != RESPITE_E_QUEUE_FULL) {
            fprintf(stderr, "stress_queue: enqueue failed with %s\n", respite_status_name(status));
            break;
        }
        i++;
    }
    produced[p] = i;
    return NULL;
}

static void *reader(void *arg)
{
    (void)arg;
    int64_t checks = 0;
    while (!atomic_load(&stop_reading)) {
        respite_queue_stats s;
        respite_queue_stats_get(queue, &s, NULL);
        if (!respite_queue_stats_balanced(&s)) {
            fprintf(stderr, "stress_queue: a live snapshot does not balance (D9)\n");
            abort();
        }
        checks++;
    }
    return (void *)(intptr_t)checks;
}

int main(void)
{
    respite_error err;
    respite_error_clear(&err);
    respite_policy *policy = respite_policy_from_json(
        "{\"name\":\"stress\",\"maximum_capacity\":5000,\"retry_times\":2,"
        "\"error_handlers\":[{\"on\":\"any_error\",\"strategy\":\"retry\"}]}",
        NULL, &err);
    if (!policy) {
        fprintf(stderr, "stress_queue: policy: %s\n", err.message);
        return 1;
    }
    respite_settings *settings = NULL;
#ifdef STRESS_QUEUE_ON_FILE
    char dir[] = "/tmp/respite-stress-XXXXXX", path[64], remove_dir[96];
    if (!mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/queue.db", dir);
    snprintf(remove_dir, sizeof remove_dir, "rm -rf '%s'", dir);
    settings = respite_settings_new("queue", NULL);
    respite_settings_set_text(settings, "queue_path", path, NULL);
#endif
    queue = respite_queue_new(policy, settings, &err);
    respite_settings_free(settings);
    respite_policy_free(policy);
    delivered_ids = calloc((size_t)PRODUCERS * PER_PRODUCER_MAX, 1);
    if (!queue || !delivered_ids)
        return 1;

    pthread_t producers[PRODUCERS], read_thread;
    for (int p = 0; p < PRODUCERS; p++)
        pthread_create(&producers[p], NULL, producer, (void *)(intptr_t)p);
    pthread_create(&read_thread, NULL, reader, NULL);

    /* The consumer: batches of 1-16, settled delivered / retry / discarded. */
    double start = respite_now();
    uint64_t x = 88172645463325252ULL;
    int64_t delivered = 0, duplicates = 0, batches = 0;
    int closed = 0;
    for (;;) {
        double now = respite_now();
        if (!closed && now - start >= RUN_SECONDS) {
            atomic_store(&stop_producing, 1);
            for (int p = 0; p < PRODUCERS; p++)
                pthread_join(producers[p], NULL);
            respite_queue_close(queue, NULL); /* drain what is left */
            closed = 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        respite_batch *b = respite_queue_take(queue, (int)(x % 16) + 1, now, NULL);
        if (!b) {
            if (closed)
                break;
            continue;
        }
        batches++;
        for (int i = 0; i < respite_batch_count(b); i++) {
            int disposition = (int)((x >> (i * 2 + 8)) % 8);
            disposition = disposition < 5 ? RESPITE_DISPOSITION_DELIVERED
                          : disposition < 7 ? RESPITE_DISPOSITION_RETRY
                                            : RESPITE_DISPOSITION_DISCARDED;
            int applied = respite_batch_settle(b, i, disposition, NULL);
            if (applied == RESPITE_DISPOSITION_DELIVERED) {
                long id = strtol(respite_batch_event_text(b, i, NULL), NULL, 10);
                if (delivered_ids[id]++)
                    duplicates++;
                delivered++;
            }
        }
        respite_batch_free(b);
    }
    atomic_store(&stop_reading, 1);
    void *checks;
    pthread_join(read_thread, &checks);

    respite_queue_stats s;
    respite_queue_stats_get(queue, &s, NULL);
    int64_t total = 0;
    for (int p = 0; p < PRODUCERS; p++)
        total += produced[p];
    CHECK(respite_queue_check_accounting(queue, &err) == RESPITE_OK, "%s", err.message);
    CHECK(duplicates == 0, "%lld events delivered more than once", (long long)duplicates);
    CHECK(s.delivered == delivered, "delivered %lld, consumer saw %lld", (long long)s.delivered,
          (long long)delivered);
    CHECK(s.accepted + s.refused_full == total, "accepted %lld + refused %lld != produced %lld",
          (long long)s.accepted, (long long)s.refused_full, (long long)total);
    CHECK(s.pending == 0 && s.in_flight == 0, "left: pending %lld, in flight %lld", (long long)s.pending,
          (long long)s.in_flight);
    CHECK(s.live_bytes == 0, "live_bytes %lld after draining", (long long)s.live_bytes);
    CHECK(s.retried > 0 && s.retries_exhausted > 0 && s.discarded > 0, "the mix did not exercise every path");
    CHECK((intptr_t)checks > 0, "the reader never ran");
    printf("stress_queue: produced %lld, accepted %lld, delivered %lld, dropped %lld, exhausted %lld, "
           "discarded %lld, retried %lld, batches %lld, live checks %lld\n",
           (long long)total, (long long)s.accepted, (long long)s.delivered, (long long)s.dropped_capacity,
           (long long)s.retries_exhausted, (long long)s.discarded, (long long)s.retried, (long long)batches,
           (long long)(intptr_t)checks);
    respite_queue_free(queue);
    free(delivered_ids);
#ifdef STRESS_QUEUE_ON_FILE
    CHECK(system(remove_dir) == 0, "could not remove %s", dir);
#endif
    return failures ? 1 : 0;
}
