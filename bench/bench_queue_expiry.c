/* TTL expiry cost per engine step against the number of pending events
 * (issue 16 item 4): events queued evenly over one second with a 10 s TTL;
 * each step calls respite_queue_expire at a time that makes a few of the
 * oldest expire. The in-memory queue pops them from its head: O(expired),
 * whatever is pending.
 *
 * What still grows with the queue is memory, not work: an event is about
 * 64 bytes, so from about 1e5 pending the oldest events (the ones that
 * expire) are out of the caches, and each costs a miss to reach and free.
 * The queue prefetches the events behind its head; what is left is the
 * target: at most 1.5x the cost per step over 1000x more pending.
 *
 * Every round measures every size; the figures are the medians over the
 * rounds, and the ratio the median of the per-round ratios.
 *
 *   bench_queue_expiry [rounds]
 *
 * Lines starting with "result" are the summary scripts/bench.sh tabulates. */
#include "bench_stats.h"

#include <stdio.h>
#include <stdlib.h>

#include "respite.h"

#define STEPS 200 /* 800 of the smallest queue's 1000 events expire */
#define EXPIRED_PER_STEP 4
#define TARGET 1.5

static double step_ns(int64_t pending)
{
    char json[256];
    snprintf(json, sizeof json,
             "{\"name\":\"b\",\"maximum_capacity\":%lld,\"event_ttl\":10,"
             "\"error_handlers\":[{\"on\":\"server_error\",\"strategy\":\"discard\"}]}",
             (long long)pending);
    respite_error err;
    respite_policy *policy = respite_policy_from_json(json, NULL, &err);
    respite_queue *q = policy ? respite_queue_new(policy, NULL, &err) : NULL;
    if (!q) {
        fprintf(stderr, "%s\n", err.message);
        exit(1);
    }
    const char payload[] = "{\"id\":12345}";
    for (int64_t i = 0; i < pending; i++)
        if (respite_queue_enqueue(q, payload, sizeof payload - 1, (double)i / (double)pending, &err) != RESPITE_OK) {
            fprintf(stderr, "enqueue: %s\n", err.message);
            exit(1);
        }
    double tick = (double)EXPIRED_PER_STEP / (double)pending; /* queue time between the events one step drops */
    int64_t dropped = 0;
    double start = respite_now();
    for (int s = 1; s <= STEPS; s++)
        dropped += respite_queue_expire(q, 10.0 + tick * s, NULL);
    double took = respite_now() - start;
    if (dropped < (int64_t)STEPS * (EXPIRED_PER_STEP - 1) || respite_queue_check_accounting(q, &err) != RESPITE_OK) {
        fprintf(stderr, "dropped %lld: %s\n", (long long)dropped, err.message);
        exit(1);
    }
    respite_queue_free(q);
    respite_policy_free(policy);
    return took / STEPS * 1e9;
}

int main(int argc, char **argv)
{
    static const int64_t sizes[] = {1000, 10000, 100000, 1000000};
    enum { SIZES = sizeof sizes / sizeof sizes[0] };
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    if (rounds < 1) {
        fprintf(stderr, "usage: bench_queue_expiry [rounds]\n");
        return 2;
    }
    double *ns[SIZES], *ratio = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < SIZES; i++)
        ns[i] = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < SIZES; i++) /* a round not counted: page faults, the allocator's first growth */
        step_ns(sizes[i]);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < SIZES; i++)
            ns[i][r] = step_ns(sizes[i]);
        ratio[r] = ns[SIZES - 1][r] / ns[0][r];
    }
    for (int i = 0; i < SIZES; i++) {
        double mid = bench_median(ns[i], rounds);
        printf("expire with %7lld pending, about %d expiring per step: %.0f ns per step (median of %d rounds; "
               "min %.0f, max %.0f)\n",
               (long long)sizes[i], EXPIRED_PER_STEP, mid, rounds, ns[i][0], ns[i][rounds - 1]);
        free(ns[i]);
    }
    double mid = bench_median(ratio, rounds);
    printf("result\tqueue expiry per step, 1e6 / 1e3 pending (<= %.1fx over 1000x more pending)\t"
           "median of %d per-round ratios %.2f (min %.2f, max %.2f)\t%s\n",
           TARGET, rounds, mid, ratio[0], ratio[rounds - 1], mid <= TARGET ? "met" : "NOT met");
    free(ratio);
    return 0;
}
