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

/* The owner cache: the first RESPITE_STRIPE_OWNERS threads that add to a
 * set (their thread pointers, each fixed once set) add to their stripes
 * with no TLS access, which in a shared library costs a GOT load before the
 * %fs one: the chain GOT -> TLS -> stripe pointer -> cell becomes owner's
 * stripe pointer -> cell. An entry holds while no thread of the process has
 * given back a stripe number since it was filled (respite_stripe_epoch_): a
 * new thread that reuses a dead owner's thread pointer (glibc reuses
 * stacks) sees a newer epoch, so it never writes the dead owner's stripe,
 * whose number may be another thread's by then; it refills the entry with
 * its own. fork() moves the epoch in the child too (its new threads reuse
 * the parent's thread pointers). Only the thread holding an entry's `tp`
 * writes its `stripe` and `epoch`, so entries never bounce between cores.
 * Without a thread-pointer builtin, every add takes the TLS path. */
#if defined(__has_builtin)
#if __has_builtin(__builtin_thread_pointer)
#define RESPITE_STRIPE_OWNER_CACHE 1
#endif
#endif
#ifndef RESPITE_STRIPE_OWNER_CACHE
#define RESPITE_STRIPE_OWNER_CACHE 0
#endif
#define RESPITE_STRIPE_OWNERS 2 /* what fits in the set's spare bytes */

typedef struct respite_stripe_owner {
    _Atomic uintptr_t tp; /* 0, then set once (CAS) */
    _Atomic(respite_stripe *) stripe;
    _Atomic uint64_t epoch;
} respite_stripe_owner;

/* Cache-line aligned and sized, so its owner can place it at an aligned
 * address and put aligned data right after it (allocate with aligned_alloc).
 * Counters are per process: a thread pointer means nothing in another one,
 * so none of these lives in memory shared between processes. */
typedef struct respite_striped_counters {
    /* Read by every add, written once per thread exit at most: the first
     * line, with stripe pointers (also written once), away from `shared`. */
    _Alignas(RESPITE_CACHE_LINE) respite_stripe_owner owner[RESPITE_STRIPE_OWNERS];
    /* Stripes handed to bindings' fast paths (respite_striped_add_block): a
     * list that only grows until destroy. */
    _Atomic(respite_stripe *) blocks;
    /* Written once per stripe number (release), by the thread owning it. */
    _Atomic(respite_stripe *) stripe[RESPITE_STRIPES];
    /* Added to atomically by threads without a stripe of their own. */
    _Alignas(64) _Atomic int64_t shared[RESPITE_STRIPE_FIELDS];
} respite_striped_counters;
_Static_assert(sizeof(respite_striped_counters) % RESPITE_CACHE_LINE == 0, "whole cache lines");
_Static_assert(sizeof(respite_striped_counters) == 5 * RESPITE_CACHE_LINE, "the cache costs no memory");

/* This thread's stripe number: 0 .. RESPITE_STRIPES-1 when it owns one,
 * RESPITE_STRIPES when it shares, -1 before its first add. initial-exec:
 * one %fs-relative load instead of a __tls_get_addr call in the shared
 * library and in every binding's module; dlopen'd modules get it from
 * glibc's static TLS surplus (4 bytes of its hundreds; docs/benchmarks.md). */
extern _Thread_local int respite_thread_stripe_ __attribute__((tls_model("initial-exec")));

/* First add of this thread (stripe number or stripe not there yet), the
 * owner's first add after an epoch change, and threads without a stripe of
 * their own. */
void respite_striped_add_slow(respite_striped_counters *c, int field, int64_t n);

/* Stripe numbers given back so far in this process (and forks): hidden,
 * so the shared library reads it RIP-relative, with no GOT load. */
extern _Atomic uint64_t respite_stripe_epoch_ __attribute__((visibility("hidden")));

static inline void respite_striped_add(respite_striped_counters *c, int field, int64_t n)
{
#if RESPITE_STRIPE_OWNER_CACHE
    uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
    for (int i = 0; i < RESPITE_STRIPE_OWNERS; i++) {
        respite_stripe_owner *o = &c->owner[i];
        if (tp != atomic_load_explicit(&o->tp, memory_order_relaxed))
            continue;
        if (__builtin_expect(atomic_load_explicit(&respite_stripe_epoch_, memory_order_relaxed) ==
                                 atomic_load_explicit(&o->epoch, memory_order_relaxed),
                             1)) {
            _Atomic int64_t *cell = &atomic_load_explicit(&o->stripe, memory_order_relaxed)->field[field];
            atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n, memory_order_relaxed);
        } else {
            respite_striped_add_slow(c, field, n); /* refills the entry */
        }
        return;
    }
#endif
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
