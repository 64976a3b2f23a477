/* K5 under threads: each thread bumps its own fast-path block with plain
 * relaxed stores (as a binding's fast path does) while another thread reads
 * the statistics and a third opens and resets the gate; the counts are
 * exact once the writers stop. Run under TSan by scripts/test.d/20-sanitizers.sh. */
#include "respite.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

#define THREADS 4
#define CALLS 200000

static respite_gate *gate;
static atomic_int stop;
static int failures;
static _Atomic int64_t disturber_reports;

struct worker {
    pthread_t thread;
    int64_t admitted_here, admitted_core, reported_here, reported_core;
};

static uint64_t load_word(int64_t address)
{
    return atomic_load_explicit((_Atomic uint64_t *)(intptr_t)address, memory_order_acquire);
}

static void bump(int64_t address)
{
    _Atomic int64_t *cell = (_Atomic int64_t *)(intptr_t)address;
    atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + 1, memory_order_relaxed);
}

static void *work(void *arg)
{
    struct worker *w = arg;
    respite_fast_path fp;
    if (respite_gate_fast_path(gate, &fp, NULL) != RESPITE_OK) {
        failures++;
        return NULL;
    }
    for (int i = 0; i < CALLS; i++) {
        uint64_t word = load_word(fp.word_address);
        int64_t permit;
        if ((word & (uint64_t)fp.admit_mask) == (uint64_t)fp.admit_value) {
            bump(fp.block_address + fp.admitted_offset);
            permit = (int64_t)(word & (uint64_t)fp.permit_mask);
            w->admitted_here++;
        } else {
            permit = respite_gate_admit_now(gate, NULL);
            if (permit <= 0)
                continue;
            w->admitted_core++;
        }
        word = load_word(fp.word_address);
        if ((word & (uint64_t)fp.success_mask) == (uint64_t)fp.success_value &&
            (uint64_t)permit == (word & (uint64_t)fp.permit_mask)) {
            bump(fp.block_address + fp.reported_offset);
            w->reported_here++;
        } else if (respite_gate_report_now(gate, permit, RESPITE_OUTCOME_SUCCESS, 0, NULL) == RESPITE_OK) {
            w->reported_core++;
        }
    }
    return NULL;
}

static void *read_stats(void *arg)
{
    (void)arg;
    int64_t last = 0;
    while (!atomic_load(&stop)) {
        respite_gate_stats st;
        respite_gate_stats_get(gate, &st, NULL);
        if (st.admitted < last) {
            fprintf(stderr, "admitted went back: %lld < %lld\n", (long long)st.admitted, (long long)last);
            failures++;
        }
        last = st.admitted;
    }
    return NULL;
}

static void *disturb(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop)) {
        if (respite_gate_report_now(gate, 0, RESPITE_OUTCOME_SERVER_ERROR, 0, NULL) == RESPITE_OK) /* N = 1: opens */
            disturber_reports++;
        respite_gate_reset(gate, respite_now(), NULL);
    }
    return NULL;
}

int main(void)
{
    respite_error err;
    respite_settings *s = respite_settings_new("gate", &err);
    respite_settings_set_number(s, "failures_to_enter_recovery", 1, &err);
    respite_settings_set_number(s, "recovery_seconds", 60, &err);
    gate = respite_gate_new(s, &err);
    respite_settings_free(s);
    if (!gate)
        return fprintf(stderr, "gate: %s\n", err.message), 1;
    struct worker workers[THREADS] = {0};
    pthread_t reader, disturber;
    pthread_create(&reader, NULL, read_stats, NULL);
    pthread_create(&disturber, NULL, disturb, NULL);
    while (atomic_load(&disturber_reports) == 0)
        ; /* the transitions run while the workers do */
    for (int i = 0; i < THREADS; i++)
        pthread_create(&workers[i].thread, NULL, work, &workers[i]);
    int64_t admitted = 0, reported = 0, here = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(workers[i].thread, NULL);
        admitted += workers[i].admitted_here + workers[i].admitted_core;
        reported += workers[i].reported_here + workers[i].reported_core;
        here += workers[i].admitted_here;
    }
    atomic_store(&stop, 1);
    pthread_join(reader, NULL);
    pthread_join(disturber, NULL);
    respite_gate_stats st;
    respite_gate_stats_get(gate, &st, NULL);
    reported += disturber_reports; /* it admits nothing */
    if (st.admitted != admitted || here == 0 || st.trips == 0) {
        fprintf(stderr, "admitted %lld, counted %lld (%lld here)\n", (long long)st.admitted, (long long)admitted,
                (long long)here);
        failures++;
    }
    if (st.reported != reported) {
        fprintf(stderr, "reported %lld, counted %lld\n", (long long)st.reported, (long long)reported);
        failures++;
    }
    printf("fast path: %lld admitted (%lld decided here), %lld reported, %lld trips\n", (long long)admitted,
           (long long)here, (long long)reported, (long long)st.trips);
    respite_gate_free(gate);
    return failures ? 1 : 0;
}
