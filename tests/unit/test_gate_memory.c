/* Native memory per gate, measured through the allocator: what a default
 * gate costs when made, what each thread that uses it adds (one 128-byte
 * stripe of counters, allocated on its first call), and that freeing the
 * gate gives every byte back. The figures are printed; docs/benchmarks.md
 * quotes them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>

#include "respite.h"

/* The core's allocations, counted: tests/CMakeLists.txt links this test
 * with --wrap for every allocation function the core calls, so the core's
 * calls come here (the allocator's own bookkeeping, thread arenas and
 * caches are not counted; the sanitizers' allocators count alike). */
#include <malloc.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int64_t live_bytes;

void *__real_malloc(size_t size);
void *__real_calloc(size_t count, size_t size);
void *__real_realloc(void *p, size_t size);
void *__real_aligned_alloc(size_t alignment, size_t size);
char *__real_strdup(const char *s);
char *__real_strndup(const char *s, size_t n);
void __real_free(void *p);

static void *counted(void *p)
{
    if (p)
        atomic_fetch_add(&live_bytes, (int64_t)malloc_usable_size(p));
    return p;
}

void *__wrap_malloc(size_t size) { return counted(__real_malloc(size)); }
void *__wrap_calloc(size_t count, size_t size) { return counted(__real_calloc(count, size)); }
void *__wrap_aligned_alloc(size_t alignment, size_t size) { return counted(__real_aligned_alloc(alignment, size)); }
char *__wrap_strdup(const char *s) { return counted(__real_strdup(s)); }
char *__wrap_strndup(const char *s, size_t n) { return counted(__real_strndup(s, n)); }

void __wrap_free(void *p)
{
    if (p)
        atomic_fetch_sub(&live_bytes, (int64_t)malloc_usable_size(p));
    __real_free(p);
}

void *__wrap_realloc(void *p, size_t size)
{
    int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
    void *q = __real_realloc(p, size);
    if (q || size == 0)
        atomic_fetch_sub(&live_bytes, old);
    return counted(q);
}

static int64_t heap_in_use(void)
{
    return atomic_load(&live_bytes);
}

/* A default gate (respite_gate_new(NULL)) with no thread using it yet:
 * its state with 64 compact events, and no stripe (issue 16 item 3). */
#define DEFAULT_GATE_BYTES_MAX 4096
/* One thread's first call: one 128-byte stripe of counters. */
#define STRIPE_BYTES_MAX 160
#define THREADS 4
#define CALLS 1000

static void call_closed(respite_gate *g, int calls)
{
    for (int i = 0; i < calls; i++) {
        int64_t permit = respite_gate_admit_now(g, NULL);
        assert_true(permit > 0);
        assert_int_equal(respite_gate_report_now(g, permit, RESPITE_OUTCOME_SUCCESS, 0, NULL), RESPITE_OK);
    }
}

struct user {
    respite_gate *gate;
    pthread_barrier_t *all_called;
};

/* Calls, then waits until every user has called, so that each holds a
 * stripe number of its own while calling (numbers are reused after exit). */
static void *use_gate(void *arg)
{
    struct user *u = arg;
    call_closed(u->gate, CALLS);
    pthread_barrier_wait(u->all_called);
    return NULL;
}

/* `n` threads call the gate, all holding a stripe number at once. */
static void run_users(respite_gate *g, int n)
{
    pthread_barrier_t all_called;
    pthread_barrier_init(&all_called, NULL, (unsigned)n);
    pthread_t threads[n];
    struct user users[n];
    for (int i = 0; i < n; i++) {
        users[i] = (struct user){.gate = g, .all_called = &all_called};
        assert_int_equal(pthread_create(&threads[i], NULL, use_gate, &users[i]), 0);
    }
    for (int i = 0; i < n; i++)
        assert_int_equal(pthread_join(threads[i], NULL), 0);
    pthread_barrier_destroy(&all_called);
}

static void test_a_default_gate_costs_its_state_and_a_stripe_per_thread(void **state)
{
    (void)state;
    /* One-time work happens here, outside the figures. */
    respite_gate *warm = respite_gate_new(NULL, NULL);
    assert_non_null(warm);
    call_closed(warm, 1);
    run_users(warm, THREADS);
    respite_gate_free(warm);

    int64_t before = heap_in_use();
    respite_gate *g = respite_gate_new(NULL, NULL);
    assert_non_null(g);
    int64_t made = heap_in_use() - before;

    call_closed(g, 1);
    int64_t first_call = heap_in_use() - before - made;
    call_closed(g, CALLS);
    int64_t more_calls = heap_in_use() - before - made - first_call;

    run_users(g, THREADS);
    int64_t with_threads = heap_in_use() - before;

    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.admitted, 1 + CALLS + THREADS * CALLS);
    assert_int_equal(stats.reported, stats.admitted);

    printf("default gate: %lld bytes made, +%lld at its first call, +%lld over %d more calls, "
           "%lld with %d more threads\n",
           (long long)made, (long long)first_call, (long long)more_calls, CALLS, (long long)with_threads,
           THREADS);
    assert_true(made > 0);
    assert_true(made <= DEFAULT_GATE_BYTES_MAX);
    assert_true(first_call > 0 && first_call <= STRIPE_BYTES_MAX);
    assert_int_equal(more_calls, 0);
    assert_true(with_threads - made - first_call <= THREADS * STRIPE_BYTES_MAX);

    respite_gate_free(g);
    assert_int_equal(heap_in_use(), before);
}

/* More threads at once than there are stripes: the ones without a stripe
 * of their own share one, and every call is still counted. */
#define MANY 80

static void test_more_threads_than_stripes_count_exactly(void **state)
{
    (void)state;
    respite_gate *g = respite_gate_new(NULL, NULL);
    assert_non_null(g);
    run_users(g, MANY);
    respite_gate_stats stats;
    assert_int_equal(respite_gate_stats_get(g, &stats, NULL), RESPITE_OK);
    assert_int_equal(stats.admitted, MANY * CALLS);
    assert_int_equal(stats.reported, MANY * CALLS);
    respite_gate_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_default_gate_costs_its_state_and_a_stripe_per_thread),
        cmocka_unit_test(test_more_threads_than_stripes_count_exactly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
