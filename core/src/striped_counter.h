/* Exact counters that many threads bump without sharing a cache line.
 *
 * Each thread owns one stripe number for as long as it lives: stripe
 * numbers are handed out once per thread and returned when the thread
 * exits, so an owner can add with a plain load and store (no locked
 * instruction) and counts stay exact. A set of counters keeps one pointer
 * per stripe number and allocates that stripe (a cache line of counters) on
 * its owner's first add, so a gate pays for the threads that use it, not for
 * RESPITE_STRIPES of them. Threads beyond RESPITE_STRIPES (or whose stripe
 * could not be allocated) share `shared` and add atomically. Readers sum
 * every stripe. */
#ifndef RESPITE_STRIPED_COUNTER_H
#define RESPITE_STRIPED_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

#define RESPITE_STRIPES 64          /* threads with a stripe of their own */
#define RESPITE_STRIPE_FIELDS 8     /* counters per stripe (one 64-byte line of them) */
/* 128, not 64: x86's adjacent-line prefetcher moves lines in pairs, so two
 * threads writing neighbouring 64-byte lines still interfere. */
#define RESPITE_CACHE_LINE 128

typedef struct respite_stripe {
    _Alignas(RESPITE_CACHE_LINE) _Atomic int64_t field[RESPITE_STRIPE_FIELDS];
    struct respite_stripe *next; /* a block's next block (in the line's spare half) */
} respite_stripe;
_Static_assert(sizeof(respite_stripe) == RESPITE_CACHE_LINE, "one line per stripe");

/* Cache-line aligned and sized, so its owner can place it at an aligned
 * address and put aligned data right after it (allocate with aligned_alloc). */
typedef struct respite_striped_counters {
    /* Written once per stripe number (release), by the thread owning it. */
    _Alignas(RESPITE_CACHE_LINE) _Atomic(respite_stripe *) stripe[RESPITE_STRIPES];
    _Atomic int64_t shared[RESPITE_STRIPE_FIELDS];
    /* Stripes handed to bindings' fast paths (respite_striped_add_block): a
     * list that only grows until destroy. */
    _Atomic(respite_stripe *) blocks;
} respite_striped_counters;
_Static_assert(sizeof(respite_striped_counters) % RESPITE_CACHE_LINE == 0, "whole cache lines");

/* This thread's stripe number: 0 .. RESPITE_STRIPES-1 when it owns one,
 * RESPITE_STRIPES when it shares, -1 before its first add. initial-exec:
 * one %fs-relative load instead of a __tls_get_addr call in the shared
 * library and in every binding's module; dlopen'd modules get it from
 * glibc's static TLS surplus (4 bytes of its hundreds; docs/benchmarks.md). */
extern _Thread_local int respite_thread_stripe_ __attribute__((tls_model("initial-exec")));

/* First add of this thread (stripe number or stripe not there yet) and
 * threads without a stripe of their own. */
void respite_striped_add_slow(respite_striped_counters *c, int field, int64_t n);

static inline void respite_striped_add(respite_striped_counters *c, int field, int64_t n)
{
    unsigned s = (unsigned)respite_thread_stripe_; /* -1 (none yet) is out of range too */
    respite_stripe *own = s < RESPITE_STRIPES ? atomic_load_explicit(&c->stripe[s], memory_order_relaxed) : 0;
    if (__builtin_expect(own != 0, 1)) {
        _Atomic int64_t *cell = &own->field[field];
        atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n, memory_order_relaxed);
    } else {
        respite_striped_add_slow(c, field, n);
    }
}

/* A new stripe of zeros owned by one caller that adds to it with plain
 * relaxed stores from outside C (a binding's fast path, docs/spec.md K5),
 * summed with the others; NULL when out of memory. */
respite_stripe *respite_striped_add_block(respite_striped_counters *c);

/* Sum of one counter over every stripe (exact once writers are quiet). */
int64_t respite_striped_sum(const respite_striped_counters *c, int field);

/* Sets every counter to 0, with no stripe allocated (before the counters
 * are shared). */
void respite_striped_init(respite_striped_counters *c);

/* Frees the stripes (when no thread adds any more). */
void respite_striped_destroy(respite_striped_counters *c);

#endif
