/* Nanoseconds per gate operation through the shared library, as the
 * bindings call it, next to the same calls statically linked.
 *
 *   bench_gate [milliseconds per measurement, default 200] [rounds, default 11]
 *
 * 1. Static vs shared: `respite_gate_admit_now` + `respite_gate_report_now`
 *    on a closed gate, once through the core linked into this program and
 *    once through librespite.so opened with dlopen (what a binding's module
 *    is to its interpreter), in paired rounds whose order alternates; the
 *    figure is the median (and min, max) of the per-round ratios.
 * 2. Each operation through the shared library with 1 thread and with 2
 *    threads sharing one gate (per-thread figure). A 2-thread repetition
 *    counts only if the threads really ran at once: their CPU time over
 *    the wall-clock span of both must be at least 1.8 of 2 (else it is
 *    re-run, and reported as not overlapped if it never is).
 *
 * Times are each thread's own CPU time (CLOCK_THREAD_CPUTIME_ID), so other
 * processes on the machine do not inflate them (they do lower the overlap).
 * The counted failures are reported at the real time into a window a few
 * microseconds wide, so the window slides on every call.
 *
 * Why the shared library is close to the static core: it and every
 * binding's module reach the thread's stripe number (4 bytes of TLS) with
 * the initial-exec model, one load relative to the thread pointer instead
 * of a __tls_get_addr call; a module opened later with dlopen (as Python,
 * PHP, Node and Java open theirs) gets those bytes from the static TLS
 * surplus glibc keeps for such modules (glibc.rtld.optional_static_tls,
 * 512 bytes by default), and the binding test steps load all four so. The
 * core is built with -fno-semantic-interposition, so its calls to its own
 * exported functions are direct. The closed path's entry points start on a
 * 64-byte boundary (gate.c), so both copies have the same code layout: at
 * other offsets the same instructions ran 1.2x slower in one copy.
 *
 * Lines starting with "result" are the summary scripts/bench.sh tabulates. */
#include "bench_stats.h"
#include "respite.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 2
#define REPEATS 5
#define OVERLAP_ATTEMPTS 4 /* times REPEATS tries in all */
#define OVERLAP_MIN 1.8

/* The calls a benchmark makes, from one copy of the core. */
struct api {
    const char *name;
    __typeof__(respite_settings_new) *settings_new;
    __typeof__(respite_settings_set_number) *settings_set_number;
    __typeof__(respite_settings_free) *settings_free;
    __typeof__(respite_gate_new) *gate_new;
    __typeof__(respite_gate_free) *gate_free;
    __typeof__(respite_gate_admit) *admit;
    __typeof__(respite_gate_report) *report;
    __typeof__(respite_gate_admit_now) *admit_now;
    __typeof__(respite_gate_report_now) *report_now;
    __typeof__(respite_gate_stats_get) *stats_get;
    __typeof__(respite_now) *now;
};

static const struct api static_api = {
    "static",
    respite_settings_new,
    respite_settings_set_number,
    respite_settings_free,
    respite_gate_new,
    respite_gate_free,
    respite_gate_admit,
    respite_gate_report,
    respite_gate_admit_now,
    respite_gate_report_now,
    respite_gate_stats_get,
    respite_now,
};

static void *symbol(void *lib, const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "bench_gate: %s not in %s\n", name, RESPITE_SHARED_LIBRARY);
        exit(1);
    }
    return p;
}

/* librespite.so, opened as an interpreter opens a binding's module. */
static struct api open_shared(void)
{
    void *lib = dlopen(RESPITE_SHARED_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        fprintf(stderr, "bench_gate: %s\n", dlerror());
        exit(1);
    }
    struct api a = {.name = "shared"};
    *(void **)&a.settings_new = symbol(lib, "respite_settings_new");
    *(void **)&a.settings_set_number = symbol(lib, "respite_settings_set_number");
    *(void **)&a.settings_free = symbol(lib, "respite_settings_free");
    *(void **)&a.gate_new = symbol(lib, "respite_gate_new");
    *(void **)&a.gate_free = symbol(lib, "respite_gate_free");
    *(void **)&a.admit = symbol(lib, "respite_gate_admit");
    *(void **)&a.report = symbol(lib, "respite_gate_report");
    *(void **)&a.admit_now = symbol(lib, "respite_gate_admit_now");
    *(void **)&a.report_now = symbol(lib, "respite_gate_report_now");
    *(void **)&a.stats_get = symbol(lib, "respite_gate_stats_get");
    *(void **)&a.now = symbol(lib, "respite_now");
    return a;
}

/* One operation repeated n times from time t0 on, `step` seconds apart. */
typedef int64_t (*op_fn)(const struct api *a, respite_gate *gate, int64_t n, double t0, double step);

/* Closed: admit_now and its success report_now (the lock-free fast path,
 * no clock read), as every binding calls it. */
static int64_t closed_now(const struct api *a, respite_gate *gate, int64_t n, double t0, double step)
{
    (void)t0;
    (void)step;
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t permit = a->admit_now(gate, NULL);
        a->report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, NULL);
        sum += permit;
    }
    return sum;
}

/* A counted failure while closed, reported at the real time as the bindings
 * do (report_now reads the clock for it): the lock and the sliding window.
 * The window is a few microseconds wide, so failures fall out of it at
 * every call and it never fills (the gate never trips). */
static int64_t counted_failure(const struct api *a, respite_gate *gate, int64_t n, double t0, double step)
{
    (void)t0;
    (void)step;
    for (int64_t i = 0; i < n; i++)
        a->report_now(gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, NULL);
    return n;
}

/* A refusal while open (recover_never; time moves on, as with a real clock). */
static int64_t open_refusal(const struct api *a, respite_gate *gate, int64_t n, double t0, double step)
{
    int64_t sum = 0;
    for (int64_t i = 0; i < n; i++)
        sum += a->admit(gate, t0 + (double)i * step, NULL);
    return sum;
}

/* For scale: reading the clock once. */
static int64_t read_clock(const struct api *a, respite_gate *gate, int64_t n, double t0, double step)
{
    (void)gate;
    (void)step;
    double sum = t0;
    for (int64_t i = 0; i < n; i++)
        sum += a->now();
    return (int64_t)sum;
}

static double clock_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A benchmark case: its gate, and the simulated time it has reached. */
struct bench_case {
    const char *name;
    op_fn op;
    respite_gate *gate;
    double step;     /* simulated seconds between one thread's calls, single-threaded */
    double time;     /* where the next repetition starts */
};

struct run {
    pthread_t thread;
    pthread_barrier_t *barrier;
    const struct api *api;
    struct bench_case *c;
    int64_t n;
    double t0, step;
    double cpu, wall_start, wall_end;
    volatile int64_t sink;
};

static void *run_op(void *arg)
{
    struct run *r = arg;
    pthread_barrier_wait(r->barrier);
    r->wall_start = clock_seconds(CLOCK_MONOTONIC);
    double start = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
    r->sink = r->c->op(r->api, r->c->gate, r->n, r->t0, r->step);
    r->cpu = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
    r->wall_end = clock_seconds(CLOCK_MONOTONIC);
    return NULL;
}

/* One repetition with `threads` threads: ns per operation of the slowest
 * thread, and how much the threads ran at once (CPU time over the span). */
static double repetition(const struct api *a, struct bench_case *c, int threads, int64_t n, double *overlap)
{
    pthread_barrier_t barrier;
    pthread_barrier_init(&barrier, NULL, (unsigned)threads);
    struct run runs[MAX_THREADS];
    /* With 2 threads each calls half as often in simulated time, so the gate
     * sees the same rate of calls. */
    double step = c->step * threads;
    for (int i = 0; i < threads; i++) {
        runs[i] = (struct run){.barrier = &barrier, .api = a, .c = c, .n = n, .t0 = c->time, .step = step};
        pthread_create(&runs[i].thread, NULL, run_op, &runs[i]);
    }
    double worst = 0.0, cpu = 0.0, first = 1e300, last = 0.0;
    for (int i = 0; i < threads; i++) {
        pthread_join(runs[i].thread, NULL);
        worst = runs[i].cpu > worst ? runs[i].cpu : worst;
        cpu += runs[i].cpu;
        first = runs[i].wall_start < first ? runs[i].wall_start : first;
        last = runs[i].wall_end > last ? runs[i].wall_end : last;
    }
    pthread_barrier_destroy(&barrier);
    c->time += (double)n * step;
    *overlap = cpu / (last - first);
    return worst * 1e9 / (double)n;
}

/* Iterations that take about `ms` single-threaded. */
static int64_t calibrate(const struct api *a, struct bench_case *c, double ms)
{
    for (int64_t n = 1000;; n *= 4) {
        double start = clock_seconds(CLOCK_THREAD_CPUTIME_ID);
        c->op(a, c->gate, n, c->time, c->step);
        c->time += (double)n * c->step;
        double elapsed = clock_seconds(CLOCK_THREAD_CPUTIME_ID) - start;
        if (elapsed > 0.02)
            return (int64_t)((double)n * (ms / 1000.0) / elapsed) + 1;
    }
}

static respite_gate *make_gate(const struct api *a, const char *name1, double v1, const char *name2, double v2,
                               const char *name3, double v3)
{
    respite_error err = {0};
    respite_settings *s = a->settings_new("gate", &err);
    if (!s || (name1 && a->settings_set_number(s, name1, v1, &err)) ||
        (name2 && a->settings_set_number(s, name2, v2, &err)) ||
        (name3 && a->settings_set_number(s, name3, v3, &err))) {
        fprintf(stderr, "settings: %s\n", err.message);
        exit(1);
    }
    respite_gate *gate = a->gate_new(s, &err);
    a->settings_free(s);
    if (!gate) {
        fprintf(stderr, "gate: %s\n", err.message);
        exit(1);
    }
    return gate;
}

static bool closed_stats_ok(const struct api *a, respite_gate *g)
{
    respite_gate_stats st;
    a->stats_get(g, &st, NULL);
    if (st.admitted != st.reported || st.refused != 0 || st.counted_failures != 0) {
        fprintf(stderr, "%s closed gate: admitted %lld, reported %lld, refused %lld\n", a->name,
                (long long)st.admitted, (long long)st.reported, (long long)st.refused);
        return false;
    }
    return true;
}

/* Part 1: paired rounds, order alternating. */
static bool static_vs_shared(const struct api *shared, double ms, int rounds)
{
    const struct api *apis[2] = {&static_api, shared};
    struct bench_case cases[2];
    int64_t n[2];
    for (int k = 0; k < 2; k++) {
        cases[k] = (struct bench_case){"closed", closed_now, make_gate(apis[k], NULL, 0, NULL, 0, NULL, 0), 1e-9, 1000};
        n[k] = calibrate(apis[k], &cases[k], ms);
    }
    int64_t iterations = n[0] < n[1] ? n[0] : n[1]; /* the same work for both */
    double ns[2][64], ratio[64];
    rounds = rounds > 64 ? 64 : rounds;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < 2; i++) {
            int k = (r + i) % 2; /* static first in even rounds, shared first in odd ones */
            double overlap;
            ns[k][r] = repetition(apis[k], &cases[k], 1, iterations, &overlap);
        }
        ratio[r] = ns[1][r] / ns[0][r];
    }
    double mid = bench_median(ratio, rounds); /* sorts */
    double lo = ratio[0], hi = ratio[rounds - 1];
    double static_ns = bench_median(ns[0], rounds), shared_ns = bench_median(ns[1], rounds);
    printf("admit_now + report_now, closed, %d paired rounds of %lld calls (order alternating):\n", rounds,
           (long long)iterations);
    printf("  static %.2f ns, shared library %.2f ns (medians); shared/static per round: min %.2f, median %.2f, "
           "max %.2f\n",
           static_ns, shared_ns, lo, mid, hi);
    printf("result\tC: shared-library admit_now+report_now <= 1.2x static\t%.2f ns vs %.2f ns: %.2fx median "
           "(min %.2f, max %.2f) of %d paired rounds\t%s\n",
           shared_ns, static_ns, mid, lo, hi, rounds, mid <= 1.2 ? "met" : "NOT met");
    bool ok = closed_stats_ok(&static_api, cases[0].gate) && closed_stats_ok(shared, cases[1].gate);
    static_api.gate_free(cases[0].gate);
    shared->gate_free(cases[1].gate);
    return ok;
}

/* Part 2: 1 and 2 threads through the shared library. */
static bool threads_shared(const struct api *a, double ms)
{
    enum { N = 1000 };
    const double window = 2e-6;
    struct bench_case cases[] = {
        {"admit_now + report_now (closed)", closed_now, make_gate(a, NULL, 0, NULL, 0, NULL, 0), 1e-9, 1000},
        /* N = 1000 failures in W = 2 us would open the gate: more than one
         * failure every 2 ns, several times faster than a report. */
        {"counted failure (report_now, window sliding)", counted_failure,
         make_gate(a, "failures_to_enter_recovery", N, "failures_window_seconds", window, NULL, 0), 0, 0},
        {"open-state refusal", open_refusal,
         make_gate(a, "recover_never", 1, "failures_to_enter_recovery", 1, NULL, 0), 1e-9, 1000},
        {"respite_now() (for scale)", read_clock, NULL, 0, 0},
    };
    cases[3].gate = cases[0].gate;
    a->report(cases[2].gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, 1000.0, NULL);

    printf("\nthrough the shared library; ns of thread CPU time per operation, best of %d; a 2-thread figure\n"
           "counts only when both threads ran at once (CPU time / wall span >= %.1f of 2):\n",
           REPEATS, OVERLAP_MIN);
    printf("%-46s %10s %16s %8s %9s\n", "operation", "1 thread", "2 thr, per thr", "ratio", "overlap");
    bool ok = true;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct bench_case *c = &cases[i];
        int64_t n = calibrate(a, c, ms);
        double one = 1e300, two = 1e300, best_overlap = 0.0, overlap;
        for (int rep = 0; rep < REPEATS; rep++) {
            double ns = repetition(a, c, 1, n, &overlap);
            one = ns < one ? ns : one;
        }
        int counted = 0;
        for (int attempt = 0; attempt < OVERLAP_ATTEMPTS * REPEATS && counted < REPEATS; attempt++) {
            double ns = repetition(a, c, 2, n, &overlap);
            best_overlap = overlap > best_overlap ? overlap : best_overlap;
            if (overlap >= OVERLAP_MIN) {
                counted++;
                two = ns < two ? ns : two;
            }
        }
        if (counted) {
            printf("%-46s %10.2f %16.2f %7.2fx %4d of %d\n", c->name, one, two, two / one, counted, REPEATS);
            if (i == 0)
                printf("result\tC: closed path, 2 threads <= 1.5x per thread (shared library)\t%.2f ns (1 thread), "
                       "%.2f ns per thread with 2: %.2fx\t%s\n",
                       one, two, two / one, two / one <= 1.5 ? "met" : "NOT met");
        } else {
            printf("%-46s %10.2f %16s %8s  best %.2f: threads never overlapped\n", c->name, one, "-", "-",
                   best_overlap);
            if (i == 0)
                printf("result\tC: closed path, 2 threads <= 1.5x per thread (shared library)\t%.2f ns (1 thread); "
                       "2 threads never ran at once (best overlap %.2f of 2)\tnot measured\n",
                       one, best_overlap);
        }
    }

    respite_gate_stats st;
    a->stats_get(cases[1].gate, &st, NULL);
    printf("counted-failure gate after the runs: %lld failures counted, %d in the window, %lld trips\n",
           (long long)st.counted_failures, st.window_failures, (long long)st.trips);
    if (st.trips != 0 || st.counted_failures == 0) {
        fprintf(stderr, "the counted-failure case must count failures in a window that never fills\n");
        ok = false;
    }
    ok = closed_stats_ok(a, cases[0].gate) && ok;
    for (size_t i = 0; i < 3; i++)
        a->gate_free(cases[i].gate);
    return ok;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 200.0;
    int rounds = argc > 2 ? atoi(argv[2]) : 11;
    if (ms <= 0)
        ms = 200.0;
    if (rounds < 1)
        rounds = 11;
    struct api shared = open_shared();

    FILE *load = fopen("/proc/loadavg", "r");
    double load1 = -1;
    if (load) {
        if (fscanf(load, "%lf", &load1) != 1)
            load1 = -1;
        fclose(load);
    }
    printf("bench_gate: load average %.2f; shared library %s\n\n", load1, RESPITE_SHARED_LIBRARY);
    bool ok = static_vs_shared(&shared, ms, rounds);
    ok = threads_shared(&shared, ms) && ok;
    return ok ? 0 : 1;
}
