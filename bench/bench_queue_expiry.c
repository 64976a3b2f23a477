/* TTL expiry cost per engine step against the number of pending events
 * (issue 16 item 4): events queued evenly over one second with a 10 s TTL;
 * each step calls respite_queue_expire at a time that makes a few of the
 * oldest expire. The in-memory queue pops them from its head, so the cost
 * per step stays flat from 1e3 to 1e6 pending. Prints one line per size and
 * a `result` line (largest / smallest cost per step). */
#include <stdio.h>
#include <stdlib.h>

#include "respite.h"

#define STEPS 200 /* 800 of the smallest queue's 1000 events expire */
#define EXPIRED_PER_STEP 4

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

int main(void)
{
    static const int64_t sizes[] = {1000, 10000, 100000, 1000000};
    double smallest = 0, largest = 0;
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        double best = 1e30;
        for (int round = 0; round < 3; round++) {
            double ns = step_ns(sizes[i]);
            if (ns < best)
                best = ns;
        }
        printf("expire with %7lld pending, about %d expiring per step: %.0f ns per step\n", (long long)sizes[i],
               EXPIRED_PER_STEP, best);
        if (i == 0)
            smallest = best;
        largest = best;
    }
    printf("result\tqueue expiry per step, 1e6 / 1e3 pending\t%.2f\tflat (about 1)\n", largest / smallest);
    return 0;
}
