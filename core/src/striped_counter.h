/* Exact counters that many threads bump without sharing a cache line.
 *
 * Each thread owns one stripe (a cache line of counters) for as long as it
 * lives: stripe numbers are handed out once per thread and returned when the
 * thread exits, so an owner can add with a plain load and store (no locked
 * instruction) and counts stay exact. Threads beyond RESPITE_STRIPES share
 * one extra stripe and add atomically. Readers sum every stripe. */
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
} respite_stripe;

/* RESPITE_STRIPES owned stripes, then the shared one. Must be placed at a
 * cache-line-aligned address (allocate its owner with aligned_alloc). */
typedef struct respite_striped_counters {
    respite_stripe stripe[RESPITE_STRIPES + 1];
} respite_striped_counters;

/* This thread's stripe number: 0 .. RESPITE_STRIPES-1 when it owns one,
 * RESPITE_STRIPES when it shares the last. */
extern _Thread_local int respite_thread_stripe_;
int respite_thread_stripe_assign(void);

static inline int respite_thread_stripe(void)
{
    int stripe = respite_thread_stripe_;
    return stripe >= 0 ? stripe : respite_thread_stripe_assign();
}

static inline void respite_striped_add(respite_striped_counters *c, int field, int64_t n)
{
    int s = respite_thread_stripe();
    _Atomic int64_t *cell = &c->stripe[s].field[field];
    if (s < RESPITE_STRIPES)
        atomic_store_explicit(cell, atomic_load_explicit(cell, memory_order_relaxed) + n, memory_order_relaxed);
    else
        atomic_fetch_add_explicit(cell, n, memory_order_relaxed);
}

/* Sum of one counter over every stripe (exact once writers are quiet). */
int64_t respite_striped_sum(const respite_striped_counters *c, int field);

/* Sets every counter to 0 (before the counters are shared). */
void respite_striped_init(respite_striped_counters *c);

#endif
