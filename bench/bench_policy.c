/* Policy validations per second: parse + validate + free of a valid policy
 * (Edgehog's), of a larger valid one (200 handlers), of an invalid one (every
 * problem listed), and the D2 lookup that runs on every failed delivery.
 *
 *   bench_policy [milliseconds per measurement, default 300]
 *
 * Each figure is the best of 5 runs (the least disturbed by other load). */
#include "respite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPEATS 5

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static const char *const EDGEHOG =
    "{\"name\":\"edgehog\",\"maximum_capacity\":100,\"retry_times\":3,\"event_ttl\":30,\"error_handlers\":["
    "{\"on\":\"server_error\",\"strategy\":\"retry\"},{\"on\":\"client_error\",\"strategy\":\"discard\"}]}";

static const char *const INVALID =
    "{\"name\":\"@x\",\"maximum_capacity\":0,\"error_handlers\":[{\"on\":[404,404,399],\"strategy\":\"none\"},"
    "{\"on\":\"any_error\",\"strategy\":\"retry\"},{\"on\":\"server_error\",\"strategy\":\"discard\"}],"
    "\"event_ttl\":0,\"extra\":1}";

static char *large_policy(void)
{
    size_t size = 200 * 48 + 128;
    char *text = malloc(size);
    if (!text)
        exit(1);
    int n = snprintf(text, size, "{\"name\":\"large\",\"maximum_capacity\":1000000,\"retry_times\":5,\"error_handlers\":[");
    for (int i = 0; i < 200; i++)
        n += snprintf(text + n, size - (size_t)n, "%s{\"on\":[%d],\"strategy\":\"%s\"}", i ? "," : "", 400 + i,
                      i % 2 ? "retry" : "discard");
    snprintf(text + n, size - (size_t)n, "]}");
    return text;
}

/* Best rate (operations per second) of REPEATS timed runs of `ms` each. */
static double validations_per_second(const char *json, int expect_valid, double ms)
{
    double best = 0;
    for (int r = 0; r < REPEATS; r++) {
        long count = 0;
        double start = seconds(), end = start + ms / 1000.0, now;
        do {
            for (int i = 0; i < 64; i++) {
                respite_error err = {0};
                respite_problems *problems = expect_valid ? NULL : respite_problems_new(NULL);
                respite_policy *p = respite_policy_from_json(json, problems, &err);
                if ((p != NULL) != expect_valid) {
                    fprintf(stderr, "unexpected result: %s\n", err.message);
                    exit(1);
                }
                respite_policy_free(p);
                respite_problems_free(problems);
            }
            count += 64;
            now = seconds();
        } while (now < end);
        double rate = (double)count / (now - start);
        if (rate > best)
            best = rate;
    }
    return best;
}

static double lookups_per_second(const respite_policy *p, double ms)
{
    double best = 0;
    volatile int sink = 0;
    for (int r = 0; r < REPEATS; r++) {
        long count = 0;
        double start = seconds(), end = start + ms / 1000.0, now;
        do {
            for (int status = 400; status <= 599; status++)
                sink += respite_policy_strategy_for(p, 0, status, NULL);
            count += 200;
            now = seconds();
        } while (now < end);
        double rate = (double)count / (now - start);
        if (rate > best)
            best = rate;
    }
    (void)sink;
    return best;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 300.0;
    if (ms <= 0)
        ms = 300.0;
    char *large = large_policy();
    printf("policy validation (parse + validate + free), best of %d x %.0f ms\n", REPEATS, ms);
    char label[80];
    snprintf(label, sizeof label, "edgehog (valid, 2 handlers, %zu bytes)", strlen(EDGEHOG));
    printf("  %-44s %12.0f /s\n", label, validations_per_second(EDGEHOG, 1, ms));
    snprintf(label, sizeof label, "large (valid, 200 handlers, %zu bytes)", strlen(large));
    printf("  %-44s %12.0f /s\n", label, validations_per_second(large, 1, ms));
    respite_problems *problems = respite_problems_new(NULL);
    respite_policy_free(respite_policy_from_json(INVALID, problems, NULL));
    snprintf(label, sizeof label, "invalid (%d problems listed, %zu bytes)", respite_problems_count(problems),
             strlen(INVALID));
    respite_problems_free(problems);
    printf("  %-44s %12.0f /s\n", label, validations_per_second(INVALID, 0, ms));
    respite_policy *p = respite_policy_from_json(EDGEHOG, NULL, NULL);
    printf("  %-44s %12.0f /s\n", "strategy_for (D2 lookup)", lookups_per_second(p, ms));
    respite_policy_free(p);
    free(large);
    return 0;
}
