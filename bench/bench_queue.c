/* Queue throughput, single thread: enqueue + take(1) + settle + free per
 * event (target: at least 5 million pairs per second), and the same with
 * batches of 50 for the sender's usual shape. Figures: docs/benchmarks.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "respite.h"

static double run_pairs(respite_queue *q, int64_t n)
{
    const char payload[] = "{\"id\":12345,\"ua\":\"Mozilla/5.0\"}";
    double start = respite_now();
    for (int64_t i = 0; i < n; i++) {
        double now = (double)i * 1e-6;
        if (respite_queue_enqueue(q, payload, sizeof payload - 1, now, NULL) != RESPITE_OK)
            abort();
        respite_batch *b = respite_queue_take(q, 1, now, NULL);
        if (!b || respite_batch_settle(b, 0, RESPITE_DISPOSITION_DELIVERED, NULL) != RESPITE_DISPOSITION_DELIVERED)
            abort();
        respite_batch_free(b);
    }
    return respite_now() - start;
}

static double run_batches(respite_queue *q, int64_t n, int batch)
{
    const char payload[] = "{\"id\":12345,\"ua\":\"Mozilla/5.0\"}";
    double start = respite_now();
    for (int64_t i = 0; i < n; i += batch) {
        double now = (double)i * 1e-6;
        for (int j = 0; j < batch; j++)
            respite_queue_enqueue(q, payload, sizeof payload - 1, now, NULL);
        respite_batch *b = respite_queue_take(q, batch, now, NULL);
        if (!b || respite_batch_settle_all(b, RESPITE_DISPOSITION_DELIVERED, NULL) != batch)
            abort();
        respite_batch_free(b);
    }
    return respite_now() - start;
}

int main(int argc, char **argv)
{
    int64_t n = argc > 1 ? atoll(argv[1]) : 10000000;
    respite_queue *q = respite_queue_new(NULL, NULL, NULL); /* @default: capacity 1000 */
    if (!q)
        return 1;
    run_pairs(q, n / 10); /* warm up */
    double best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = run_pairs(q, n);
        if (t < best)
            best = t;
    }
    printf("enqueue+take(1)+settle+free: %lld pairs in %.3f s = %.2f million/s (%.1f ns each)\n", (long long)n, best,
           (double)n / best / 1e6, best / (double)n * 1e9);
    best = 1e30;
    for (int round = 0; round < 3; round++) {
        double t = run_batches(q, n, 50);
        if (t < best)
            best = t;
    }
    printf("enqueue x50 + take(50)+settle_all+free: %lld events in %.3f s = %.2f million events/s\n", (long long)n,
           best, (double)n / best / 1e6);
    respite_queue_stats s;
    respite_queue_stats_get(q, &s, NULL);
    if (!respite_queue_stats_balanced(&s) || s.pending != 0)
        return 1;
    respite_queue_free(q);
    return 0;
}
