/* A gate shared through a file (docs/spec.md section 9) against the
 * in-process gate, side by side in one run:
 *
 *   bench_shared_gate [milliseconds per measurement, default 200] [rounds, default 11]
 *
 * 1. closed check + success (respite_gate_admit_now + respite_gate_report_now),
 *    shared vs in-process, in paired rounds (target: shared <= 2x);
 * 2. a counted failure (respite_gate_report_now, no permit, transport) on a
 *    gate whose window never fills (N 1000, W 10 us), shared vs in-process
 *    (target: shared <= 1 us);
 * 3. 1, 2 and 4 processes on one shared gate, each doing (1) or (2): ns per
 *    operation per process and operations per second in all.
 * Times are CPU time of the measuring thread or process, so other work on
 * the machine inflates them less; each round measures both gates back to
 * back, and the ratios are per round (min and median printed). */
#include "bench_stats.h"
#include "respite.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_ROUNDS 101
#define MAX_PROCESSES 4

static char path[128];

static double cpu_seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static respite_gate *make_gate(int shared, double n, double window)
{
    respite_error err = {0};
    respite_settings *s = respite_settings_new("gate", &err);
    int rc = !s || respite_settings_set_number(s, "failures_to_enter_recovery", n, &err) ||
             respite_settings_set_number(s, "failures_window_seconds", window, &err) ||
             respite_settings_set_text(s, "name", n > 100 ? "counting" : "closed", &err) ||
             (shared && respite_settings_set_text(s, "shared_path", path, &err));
    respite_gate *gate = rc ? NULL : respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!gate) {
        fprintf(stderr, "gate: %s\n", err.message);
        exit(1);
    }
    return gate;
}

static respite_gate *closed_gate(int shared)
{
    return make_gate(shared, 10, 100);
}

/* N 1000 within 10 us: even back-to-back failures never fill the window. */
static respite_gate *counting_gate(int shared)
{
    return make_gate(shared, 1000, 0.00001);
}

typedef void (*op_fn)(respite_gate *gate, int64_t n);

static void closed_check_success(respite_gate *gate, int64_t n)
{
    for (int64_t i = 0; i < n; i++) {
        int64_t permit = respite_gate_admit_now(gate, NULL);
        respite_gate_report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0.0, NULL);
    }
}

static void counted_failure(respite_gate *gate, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        respite_gate_report_now(gate, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, 0.0, NULL);
}

static double ns_per_op(op_fn op, respite_gate *gate, int64_t n)
{
    double start = cpu_seconds(CLOCK_THREAD_CPUTIME_ID);
    op(gate, n);
    return (cpu_seconds(CLOCK_THREAD_CPUTIME_ID) - start) * 1e9 / (double)n;
}

static int64_t calibrate(op_fn op, respite_gate *gate, double ms)
{
    for (int64_t n = 1000;; n *= 4) {
        double ns = ns_per_op(op, gate, n);
        if (ns * (double)n > 2e7)
            return (int64_t)(ms * 1e6 / ns) + 1;
    }
}

/* Paired rounds: in-process then shared, the same iterations each. */
static void paired(const char *what, op_fn op, respite_gate *local, respite_gate *shared, double ms, int rounds,
                   const char *target)
{
    int64_t n = calibrate(op, local, ms);
    double l[MAX_ROUNDS], s[MAX_ROUNDS], ratio[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        l[r] = ns_per_op(op, local, n);
        s[r] = ns_per_op(op, shared, n);
        ratio[r] = s[r] / l[r];
    }
    double ratio_min = ratio[0];
    for (int r = 1; r < rounds; r++)
        if (ratio[r] < ratio_min)
            ratio_min = ratio[r];
    double ratio_median = bench_median(ratio, rounds);
    printf("%-26s %10.1f %10.1f %8.2fx %8.2fx   %s\n", what, bench_median(l, rounds), bench_median(s, rounds), ratio_min,
           ratio_median, target);
}

struct process_result {
    _Atomic int ready;
    _Atomic int go;
    double ns_per_op[MAX_PROCESSES];
    double wall[MAX_PROCESSES];
};

/* `processes` processes on one shared gate, each running op n times:
 * median over rounds of the mean ns/op per process (returned), and ops/s
 * in all; `one_process_ns` is the 1-process figure to compare with (0: none). */
static double scale(const char *what, op_fn op, respite_gate *(*make)(int), int processes, int64_t n, int rounds,
                  double one_process_ns)
{
    struct process_result *res =
        mmap(NULL, sizeof *res, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (res == MAP_FAILED) {
        perror("mmap");
        exit(1);
    }
    double per_op[MAX_ROUNDS], throughput[MAX_ROUNDS];
    for (int r = 0; r < rounds; r++) {
        memset(res, 0, sizeof *res);
        pid_t pids[MAX_PROCESSES];
        for (int p = 0; p < processes; p++) {
            fflush(NULL);
            pids[p] = fork();
            if (pids[p] == 0) {
                respite_gate *gate = make(1);
                atomic_fetch_add(&res->ready, 1);
                while (!atomic_load(&res->go))
                    ;
                double wall = respite_now(), cpu = cpu_seconds(CLOCK_PROCESS_CPUTIME_ID);
                op(gate, n);
                res->ns_per_op[p] = (cpu_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu) * 1e9 / (double)n;
                res->wall[p] = respite_now() - wall;
                respite_gate_free(gate);
                _exit(0);
            }
        }
        while (atomic_load(&res->ready) < processes)
            usleep(100);
        atomic_store(&res->go, 1);
        double sum = 0, longest = 0;
        for (int p = 0; p < processes; p++) {
            int status;
            waitpid(pids[p], &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                fprintf(stderr, "a benchmark process failed (status %d)\n", status);
                exit(1);
            }
            sum += res->ns_per_op[p];
            if (res->wall[p] > longest)
                longest = res->wall[p];
        }
        per_op[r] = sum / processes;
        throughput[r] = (double)n * processes / longest;
    }
    munmap(res, sizeof *res);
    double ns = bench_median(per_op, rounds);
    printf("%-26s %9d %14.1f %10.2fx %14.2f\n", what, processes, ns, one_process_ns > 0 ? ns / one_process_ns : 1.0,
           bench_median(throughput, rounds) / 1e6);
    return ns;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 200.0;
    int rounds = argc > 2 ? atoi(argv[2]) : 11;
    if (ms <= 0)
        ms = 200.0;
    if (rounds < 1 || rounds > MAX_ROUNDS)
        rounds = 11;
    snprintf(path, sizeof path, "/dev/shm/respite-bench-%d", (int)getpid());
    if (access("/dev/shm", W_OK) != 0)
        snprintf(path, sizeof path, "/tmp/respite-bench-%d", (int)getpid());

    FILE *load = fopen("/proc/loadavg", "r");
    double load1 = -1;
    if (load) {
        if (fscanf(load, "%lf", &load1) != 1)
            load1 = -1;
        fclose(load);
    }
    printf("load average %.2f; %d paired rounds of about %.0f ms; ns of CPU time per operation (medians)\n",
           load1, rounds, ms);
    printf("%-26s %10s %10s %9s %9s   %s\n", "operation", "in-process", "shared", "min", "median", "target");

    respite_gate *closed_local = closed_gate(0), *closed_shared = closed_gate(1);
    respite_gate *counting_local = counting_gate(0), *counting_shared = counting_gate(1);
    paired("closed check + success", closed_check_success, closed_local, closed_shared, ms, rounds,
           "shared <= 2x in-process");
    paired("counted failure", counted_failure, counting_local, counting_shared, ms, rounds, "shared <= 1000 ns");

    /* Both gates stayed closed: nothing was refused, the window never filled. */
    respite_gate *all[] = {closed_local, closed_shared, counting_local, counting_shared};
    for (int i = 0; i < 4; i++) {
        respite_gate_stats st;
        respite_gate_stats_get(all[i], &st, NULL);
        if (st.refused != 0 || st.trips != 0) {
            fprintf(stderr, "gate %d: refused %lld, trips %lld: the benchmark did not measure the closed gate\n", i,
                    (long long)st.refused, (long long)st.trips);
            return 1;
        }
    }

    int64_t n_closed = calibrate(closed_check_success, closed_shared, ms);
    int64_t n_counted = calibrate(counted_failure, counting_shared, ms);
    printf("\n%-26s %9s %14s %11s %14s\n", "processes on one gate", "processes", "ns/op/process", "vs 1",
           "M ops/s in all");
    int counts[] = {1, 2, 4};
    int scale_rounds = rounds > 5 ? 5 : rounds;
    double one = 0;
    for (int i = 0; i < 3; i++) {
        double ns = scale("closed check + success", closed_check_success, closed_gate, counts[i], n_closed,
                          scale_rounds, one);
        if (i == 0)
            one = ns;
    }
    one = 0;
    for (int i = 0; i < 3; i++) {
        double ns = scale("counted failure", counted_failure, counting_gate, counts[i], n_counted, scale_rounds, one);
        if (i == 0)
            one = ns;
    }

    respite_gate_free(closed_local);
    respite_gate_free(closed_shared);
    respite_gate_free(counting_local);
    respite_gate_free(counting_shared);
    unlink(path);
    return 0;
}
