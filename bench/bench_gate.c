/* Nanoseconds per gate operation, single-threaded and with 2 threads sharing
 * one gate (per-thread figure), side by side in one run with their ratios.
 *
 *   bench_gate [milliseconds per measurement, default 300]
 *
 * Times are each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), so that
 * other processes sharing the cores do not inflate them; two threads only
 * contend when they really run at once, so the 2-thread figures mean most on
 * an otherwise idle machine (the load average is printed). Each figure is the
 * best of 5 runs. */
#include "respite.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REPEATS 5
#define MAX_THREADS 2

typedef int64_t (*op_fn)(respite_gate *gate, int64_t iterations, double t0);

/* Closed: a check and its success report (the lock-free fast path). */
static int64_t closed_check_success(respite_gate *gate, int64_t n, double t0)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        double t = t0 + (double)i * 1e-9;
        int64_t permit = respite_gate_admit(gate, t, NULL);
        respite_gate_report(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, t, NULL);
        sum += permit;
    }
    return sum;
}

/* A counted failure while closed (recovery_seconds 0 keeps the gate closed:
 * the window, the lock and the trip bookkeeping, without refusals). */
static int64_t counted_failure(respite_gate *gate, int64_t n, double t0)
{
    for (int64_t i = 0; i < n; i++)
        respite_gate_report(gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, t0 + (double)i * 1e-9, NULL);
    return n;
}

/* A refusal while the pause runs (time moves on, as with a real clock). */
static int64_t open_refusal(respite_gate *gate, int64_t n, double t0)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += respite_gate_admit(gate, t0 + (double)i * 1e-9, NULL);
    return sum;
}

/* For scale: reading the clock once. */
static int64_t read_clock(respite_gate *gate, int64_t n, double t0)
{
    (void)gate;
    double sum = t0;
    for (int64_t i = 0; i < n; i++)
        sum += respite_now();
    return (int64_t)sum;
}

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct run {
    pthread_t thread;
    pthread_barrier_t *barrier;
    op_fn op;
    respite_gate *gate;
    int64_t iterations;
    double elapsed;
    volatile int64_t sink;
};

static void *run_op(void *arg)
{
    struct run *r = arg;
    pthread_barrier_wait(r->barrier);
    double start = seconds();
    r->sink = r->op(r->gate, r->iterations, 1000.0);
    r->elapsed = seconds() - start;
    return NULL;
}

/* ns per operation per thread with `threads` threads on one gate. */
static double measure(op_fn op, respite_gate *gate, int threads, int64_t iterations)
{
    double best = 1e30;
    for (int rep = 0; rep < REPEATS; rep++) {
        pthread_barrier_t barrier;
        pthread_barrier_init(&barrier, NULL, (unsigned)threads);
        struct run runs[MAX_THREADS];
        for (int i = 0; i < threads; i++) {
            runs[i] = (struct run){.barrier = &barrier, .op = op, .gate = gate, .iterations = iterations};
            pthread_create(&runs[i].thread, NULL, run_op, &runs[i]);
        }
        double worst = 0.0;
        for (int i = 0; i < threads; i++) {
            pthread_join(runs[i].thread, NULL);
            if (runs[i].elapsed > worst)
                worst = runs[i].elapsed;
        }
        pthread_barrier_destroy(&barrier);
        double ns = worst * 1e9 / (double)iterations;
        if (ns < best)
            best = ns;
    }
    return best;
}

/* Iterations that take about `ms` single-threaded. */
static int64_t calibrate(op_fn op, respite_gate *gate, double ms)
{
    int64_t n = 1000;
    for (;;) {
        double start = seconds();
        op(gate, n, 1000.0);
        double elapsed = seconds() - start;
        if (elapsed > 0.02)
            return (int64_t)((double)n * (ms / 1000.0) / elapsed) + 1;
        n *= 4;
    }
}

static respite_gate *make_gate(const char *name1, double v1, const char *name2, double v2)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    if (!s || (name1 && respite_settings_set_number(s, name1, v1, &err)) ||
        (name2 && respite_settings_set_number(s, name2, v2, &err))) {
        fprintf(stderr, "settings: %s\n", err.message);
        exit(1);
    }
    respite_gate *gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!gate) {
        fprintf(stderr, "gate: %s\n", err.message);
        exit(1);
    }
    return gate;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 300.0;
    if (ms <= 0)
        ms = 300.0;

    respite_gate *closed = make_gate(NULL, 0, NULL, 0);
    respite_gate *counting = make_gate("recovery_seconds", 0.0, "failures_to_enter_recovery", 1000.0);
    respite_gate *open = make_gate("recover_never", 1.0, "failures_to_enter_recovery", 1.0);
    respite_gate_report(open, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, 1.0, NULL);

    struct {
        const char *name;
        op_fn op;
        respite_gate *gate;
    } cases[] = {
        {"closed check + success", closed_check_success, closed},
        {"counted failure (closed)", counted_failure, counting},
        {"open-state refusal", open_refusal, open},
        {"respite_now() (for scale)", read_clock, closed},
    };

    FILE *load = fopen("/proc/loadavg", "r");
    double load1 = -1;
    if (load) {
        if (fscanf(load, "%lf", &load1) != 1)
            load1 = -1;
        fclose(load);
    }
    printf("load average %.2f; ns of thread CPU time per operation, best of %d\n", load1, REPEATS);
    printf("%-28s %12s %18s %8s\n", "operation", "1 thread ns", "2 threads ns/thr", "ratio");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t n = calibrate(cases[i].op, cases[i].gate, ms);
        double one = measure(cases[i].op, cases[i].gate, 1, n);
        double two = measure(cases[i].op, cases[i].gate, 2, n);
        printf("%-28s %12.2f %18.2f %7.2fx\n", cases[i].name, one, two, two / one);
    }

    respite_gate_stats st;
    respite_gate_stats_get(closed, &st, NULL);
    if (st.admitted != st.reported || st.refused != 0) {
        fprintf(stderr, "closed gate: admitted %lld, reported %lld, refused %lld\n", (long long)st.admitted,
                (long long)st.reported, (long long)st.refused);
        return 1;
    }
    respite_gate_free(closed);
    respite_gate_free(counting);
    respite_gate_free(open);
    return 0;
}
