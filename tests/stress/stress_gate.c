/* Several threads share one gate on the real clock through alternating
 * healthy and failing phases; afterwards every count must add up and no
 * probe may be stuck. Run under TSan and ASan by scripts/test.d/20-sanitizers.sh. */
#include "respite.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4
#define RUN_SECONDS 2.5
#define N 5
#define PROBES 2
#define PROBE_TIMEOUT 0.02
#define MAX_RECOVERY 0.05

static respite_gate *gate;
static double started;
static atomic_int stop;
static atomic_llong events_by_type[RESPITE_EVENT_TYPE_COUNT];
static atomic_llong events_drained;
static int failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                          \
        }                                                                        \
    } while (0)

struct worker {
    pthread_t thread;
    int index;
    uint64_t rng;
    int64_t checks, reports, counted_reports, errors;
};

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void count_event(const respite_event *ev, void *user_data)
{
    (void)user_data;
    if (ev->type >= 0 && ev->type < RESPITE_EVENT_TYPE_COUNT)
        atomic_fetch_add(&events_by_type[ev->type], 1);
}

/* Healthy for 150 ms, then failing for 100 ms, over and over. */
static int failing_phase(double now)
{
    return fmod(now - started, 0.25) >= 0.15;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    respite_error err = {0};
    while (!atomic_load(&stop)) {
        double now = respite_now();
        respite_decision d;
        if (respite_gate_check(gate, now, &d, &err) != RESPITE_OK) {
            w->errors++;
            continue;
        }
        w->checks++;
        uint64_t r = next_random(&w->rng) % 1000;
        if (!d.allowed)
            continue;
        if (r < 3 || (d.probe && r < 500)) /* a lost outcome: probes must still time out */
            continue;
        int outcome;
        if (failing_phase(now))
            outcome = r < 800 ? RESPITE_OUTCOME_SERVER_ERROR : RESPITE_OUTCOME_SUCCESS;
        else
            outcome = r < 990 ? RESPITE_OUTCOME_SUCCESS : RESPITE_OUTCOME_REQUEST_ERROR; /* 4xx: not counted */
        double hint = (r % 97 == 0) ? 0.01 : 0.0;
        /* Now and then a caller that keeps no permits. */
        int64_t permit = next_random(&w->rng) % 10000 == 0 ? RESPITE_NO_PERMIT : d.permit;
        if (respite_gate_report(gate, permit, outcome, hint, respite_now(), &err) != RESPITE_OK) {
            w->errors++;
            continue;
        }
        w->reports++;
        w->counted_reports += respite_outcome_counts(outcome, 0);
    }
    return NULL;
}

/* Reads statistics and events while the workers run. */
static void *observe(void *arg)
{
    (void)arg;
    respite_gate_stats st;
    respite_event ev;
    while (!atomic_load(&stop)) {
        if (respite_gate_stats_get(gate, &st, NULL) != RESPITE_OK || st.window_failures > N ||
            st.probes_outstanding > PROBES || st.probes_outstanding < 0)
            failures++;
        while (respite_gate_next_event(gate, &ev, NULL) == 1)
            atomic_fetch_add(&events_drained, 1);
        (void)respite_gate_get_state(gate, respite_now(), NULL);
        (void)respite_gate_retry_after(gate, respite_now(), NULL);
    }
    return NULL;
}

int main(void)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    int rc = respite_settings_set_number(s, "failures_to_enter_recovery", N, &err);
    rc |= respite_settings_set_number(s, "failures_window_seconds", 0.05, &err);
    rc |= respite_settings_set_number(s, "recovery_seconds", 0.01, &err);
    rc |= respite_settings_set_number(s, "recovery_multiplier", 2.0, &err);
    rc |= respite_settings_set_number(s, "max_recovery_seconds", MAX_RECOVERY, &err);
    rc |= respite_settings_set_number(s, "probes", PROBES, &err);
    rc |= respite_settings_set_number(s, "probe_timeout_seconds", PROBE_TIMEOUT, &err);
    rc |= respite_settings_set_number(s, "jitter", 0.2, &err);
    if (rc) {
        fprintf(stderr, "settings: %s\n", err.message);
        return 1;
    }
    gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!gate) {
        fprintf(stderr, "gate_new: %s\n", err.message);
        return 1;
    }
    respite_gate_set_event_callback(gate, count_event, NULL, NULL);

    started = respite_now();
    struct worker workers[THREADS] = {0};
    pthread_t observer;
    for (int i = 0; i < THREADS; i++) {
        workers[i].index = i;
        workers[i].rng = 0x9E3779B97F4A7C15u * (uint64_t)(i + 1);
        pthread_create(&workers[i].thread, NULL, work, &workers[i]);
    }
    pthread_create(&observer, NULL, observe, NULL);
    while (respite_now() - started < RUN_SECONDS) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < THREADS; i++)
        pthread_join(workers[i].thread, NULL);
    pthread_join(observer, NULL);
    double ended = respite_now();

    int64_t checks = 0, reports = 0, counted_reports = 0, errors = 0;
    for (int i = 0; i < THREADS; i++) {
        checks += workers[i].checks;
        reports += workers[i].reports;
        counted_reports += workers[i].counted_reports;
        errors += workers[i].errors;
    }
    respite_gate_stats st;
    respite_gate_stats_get(gate, &st, NULL);
    printf("checks %" PRId64 ", admitted %" PRId64 ", refused %" PRId64 ", reported %" PRId64 ", counted %" PRId64
           ", late %" PRId64 ", trips %" PRId64 ", probes %" PRId64 ", probe timeouts %" PRId64
           ", generation %" PRId64 ", events dropped %" PRId64 "\n",
           checks, st.admitted, st.refused, st.reported, st.counted_failures, st.late, st.trips, st.probes,
           st.probe_timeouts, st.generation, st.events_dropped);

    CHECK(errors == 0);
    CHECK(st.admitted + st.refused == checks);
    CHECK(st.reported == reports);
    CHECK(st.counted_failures <= counted_reports);
    CHECK(st.counted_failures >= st.trips * N); /* every trip took N counted failures */
    CHECK(st.late <= st.reported);
    CHECK(st.window_failures >= 0 && st.window_failures < N);
    CHECK(st.probes <= st.admitted);
    CHECK(st.probe_timeouts <= st.probes);
    CHECK(st.probes_outstanding >= 0 && st.probes_outstanding <= PROBES);
    /* The run must actually have exercised the gate. */
    CHECK(st.trips > 0);
    CHECK(st.refused > 0);
    CHECK(st.probes > 0);
    CHECK(st.probe_timeouts > 0);
    /* Every generation change is one event. */
    CHECK(st.generation - 1 == atomic_load(&events_by_type[RESPITE_EVENT_RECOVERY_STARTED]) +
                                   atomic_load(&events_by_type[RESPITE_EVENT_RECOVERY_EXTENDED]) +
                                   atomic_load(&events_by_type[RESPITE_EVENT_RESET]));
    CHECK(st.trips == atomic_load(&events_by_type[RESPITE_EVENT_RECOVERY_STARTED]));
    /* Every event was drained, is waiting, or was dropped (counted). */
    int64_t emitted = 0;
    for (int i = 0; i < RESPITE_EVENT_TYPE_COUNT; i++)
        emitted += atomic_load(&events_by_type[i]);
    int64_t waiting = 0;
    respite_event ev;
    while (respite_gate_next_event(gate, &ev, NULL) == 1)
        waiting++;
    CHECK(atomic_load(&events_drained) + waiting + st.events_dropped == emitted);
    /* No probe stuck: once every outstanding probe has timed out and the
     * longest pause has passed, a call is admitted. */
    double later = ended + PROBE_TIMEOUT + MAX_RECOVERY + 1.0;
    CHECK(respite_gate_admit(gate, later, NULL) > 0);

    respite_gate_free(gate);
    if (failures)
        fprintf(stderr, "%d invariant(s) failed\n", failures);
    return failures ? 1 : 0;
}
