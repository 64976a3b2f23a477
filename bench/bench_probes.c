/* The cost of a probing cycle against the number of probes P (issue 16
 * item 4: probing bookkeeping O(1) in P, flat from P = 1 to 1000).
 *
 * One cycle, on times the bench supplies (a pause and a probe timeout of
 * 1 s, no jitter): a counted failure opens the gate (G3); at the end of the
 * pause a probe is admitted (G7); it times out, which reopens the gate
 * (G10) and refuses the call that found it so; after the next pause a
 * second probe is admitted and its success closes the gate (G8). Five
 * calls, the same for every P: if the gate scanned or cleared its P probe
 * slots on any of them, the cycle would grow with P.
 *
 * Also, per probe, a cycle that takes every probe (P admitted, one refused,
 * then the last one's success): P + 2 calls, shown per probe admitted.
 *
 * Every round measures every P in blocks that take turns, the order
 * rotating; times are the thread's CPU time; the figures are medians over the rounds, and the ratio is the
 * median of the per-round ratios of P = 1000 to P = 1.
 *
 *   bench_probes [cycles per measurement, default 20000] [rounds, default 9]
 *
 * Lines starting with "result" are the summary scripts/bench.sh tabulates. */
#include "bench_stats.h"
#include "respite.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TARGET 1.2

static const int probe_counts[] = {1, 10, 100, 1000};
enum { COUNTS = sizeof probe_counts / sizeof probe_counts[0] };

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void fail(const char *what, const respite_error *err)
{
    fprintf(stderr, "bench_probes: %s: %s\n", what, err ? err->message : "unexpected result");
    exit(1);
}

static respite_gate *gate_with(int probes)
{
    respite_error err;
    respite_settings *s = respite_settings_new("gate", &err);
    if (!s)
        fail("settings", &err);
    if (respite_settings_set_number(s, "failures_to_enter_recovery", 1, &err) != RESPITE_OK ||
        respite_settings_set_number(s, "recovery_seconds", 1, &err) != RESPITE_OK ||
        respite_settings_set_number(s, "probe_timeout_seconds", 1, &err) != RESPITE_OK ||
        respite_settings_set_number(s, "probes", probes, &err) != RESPITE_OK)
        fail("settings", &err);
    respite_gate *g = respite_gate_new(s, &err);
    if (!g)
        fail("gate", &err);
    respite_settings_free(s);
    return g;
}

static void report(respite_gate *g, int64_t permit, int outcome, double t)
{
    respite_error err;
    if (respite_gate_report(g, permit, outcome, 0.0, t, &err) != RESPITE_OK)
        fail("report", &err);
}

static int64_t admit(respite_gate *g, double t, int want_permit)
{
    int64_t permit = respite_gate_admit(g, t, NULL);
    if ((permit > 0) != want_permit)
        fail(want_permit ? "a probe was refused" : "a call was admitted past its probes", NULL);
    return permit;
}

/* One gate per P, measured in blocks that take turns with the other P's,
 * so a change in the machine's load falls on every P alike. */
typedef struct subject {
    respite_gate *gate;
    double t;      /* the gate's time, always forward */
    double cpu;    /* seconds spent in the cycles */
    int64_t units; /* cycles, or probes admitted */
} subject;

/* `cycles` cycles of the five calls (see the top). */
static void one_probe_cycles(subject *x, int cycles)
{
    respite_gate *g = x->gate;
    double t = x->t, start = cpu_now();
    for (int i = 0; i < cycles; i++, t += 4.0) {
        report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, t); /* opens until t + 1 */
        admit(g, t + 1.0, 1);                                       /* probe; due at t + 2 */
        admit(g, t + 2.0, 0);                                       /* timed out: open until t + 3 */
        int64_t permit = admit(g, t + 3.0, 1);
        report(g, permit, RESPITE_OUTCOME_SUCCESS, t + 3.0); /* closed */
    }
    x->cpu += cpu_now() - start;
    x->units += cycles;
    x->t = t;
}

/* `cycles` cycles that take every probe. */
static void every_probe_cycles(subject *x, int probes, int cycles)
{
    respite_gate *g = x->gate;
    double t = x->t, start = cpu_now();
    for (int i = 0; i < cycles; i++, t += 2.0) {
        report(g, RESPITE_NO_PERMIT, RESPITE_OUTCOME_TRANSPORT, t);
        int64_t permit = 0;
        for (int k = 0; k < probes; k++)
            permit = admit(g, t + 1.0, 1);
        admit(g, t + 1.0, 0);
        report(g, permit, RESPITE_OUTCOME_SUCCESS, t + 1.0);
    }
    x->cpu += cpu_now() - start;
    x->units += (int64_t)cycles * probes;
    x->t = t;
}

#define BLOCKS 20

/* One round: ns per one-probe cycle and per probe taken, for every P. */
static void round_ns(int cycles, int round, double *cycle_ns, double *probe_ns)
{
    subject one[COUNTS] = {{0}}, every[COUNTS] = {{0}};
    for (int i = 0; i < COUNTS; i++) {
        one[i] = (subject){gate_with(probe_counts[i]), 1.0, 0.0, 0};
        every[i] = (subject){gate_with(probe_counts[i]), 1.0, 0.0, 0};
    }
    int block = cycles / BLOCKS + 1;
    for (int b = 0; b < BLOCKS; b++)
        for (int j = 0; j < COUNTS; j++) {
            int i = (round + b + j) % COUNTS;
            one_probe_cycles(&one[i], block);
            /* about as many calls as the cycles above, whatever P */
            every_probe_cycles(&every[i], probe_counts[i], 1 + 5 * block / (probe_counts[i] + 2));
        }
    for (int i = 0; i < COUNTS; i++) {
        respite_gate_stats st;
        respite_gate_stats_get(one[i].gate, &st, NULL);
        if (st.trips != one[i].units || st.probes != 2 * one[i].units || st.probe_timeouts != one[i].units ||
            st.state != RESPITE_GATE_CLOSED)
            fail("the cycles did not run as planned", NULL);
        cycle_ns[i] = one[i].cpu / (double)one[i].units * 1e9;
        probe_ns[i] = every[i].cpu / (double)every[i].units * 1e9;
        respite_gate_free(one[i].gate);
        respite_gate_free(every[i].gate);
    }
}

int main(int argc, char **argv)
{
    int cycles = argc > 1 ? atoi(argv[1]) : 20000;
    int rounds = argc > 2 ? atoi(argv[2]) : 9;
    if (cycles < 1 || rounds < 1) {
        fprintf(stderr, "usage: bench_probes [cycles] [rounds]\n");
        return 2;
    }
    double *cycle[COUNTS], *per_probe[COUNTS], *ratio = calloc((size_t)rounds, sizeof(double));
    for (int i = 0; i < COUNTS; i++) {
        cycle[i] = calloc((size_t)rounds, sizeof(double));
        per_probe[i] = calloc((size_t)rounds, sizeof(double));
    }
    double c[COUNTS], p[COUNTS];
    round_ns(cycles / 10, 0, c, p); /* a round not counted: page faults, caches */
    for (int r = 0; r < rounds; r++) {
        round_ns(cycles, r, c, p);
        for (int i = 0; i < COUNTS; i++) {
            cycle[i][r] = c[i];
            per_probe[i][r] = p[i];
        }
        ratio[r] = c[COUNTS - 1] / c[0];
    }
    printf("%-6s %34s %34s\n", "probes", "cycle of 5 calls, ns (min-max)", "every probe taken, ns per probe");
    for (int i = 0; i < COUNTS; i++) {
        double cm = bench_median(cycle[i], rounds), pm = bench_median(per_probe[i], rounds);
        printf("%-6d %20.0f (%4.0f-%4.0f) %22.1f (%4.1f-%4.1f)\n", probe_counts[i], cm, cycle[i][0],
               cycle[i][rounds - 1], pm, per_probe[i][0], per_probe[i][rounds - 1]);
        free(cycle[i]);
        free(per_probe[i]);
    }
    double mid = bench_median(ratio, rounds);
    printf("result\tprobing cycle, P = 1000 / P = 1 <= %.1fx (probe bookkeeping O(1) in P)\t"
           "median of %d per-round ratios %.2f (min %.2f, max %.2f)\t%s\n",
           TARGET, rounds, mid, ratio[0], ratio[rounds - 1], mid <= TARGET ? "met" : "NOT met");
    free(ratio);
    return 0;
}
