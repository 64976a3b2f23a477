/*
 * respite/fast_path_reader.h - the fast-path protocol's decisions (docs/spec.md
 * K1-K5) for a binding written in C (the Python and PHP extensions), so that
 * each does not spell them again. Header-only: every call is inline, takes no
 * lock and allocates nothing. Java and Node read the same words from their
 * own languages (they cannot include this).
 *
 * The caller keeps a reference to the gate (respite_gate_retain) for as long
 * as a reader made from its respite_fast_path is used, makes the block's
 * writes as its one owner (K5), and checks its own time argument first (a
 * time the core would refuse is the core's to answer).
 */
#ifndef RESPITE_FAST_PATH_READER_H
#define RESPITE_FAST_PATH_READER_H

#include <stdint.h>

#include "respite/fast_path.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_fast_reader {
    const uint64_t *word, *events, *cursor;
    int64_t *admitted, *reported;
    uint64_t admit_mask, admit_value, permit_mask, success_mask, success_value;
} respite_fast_reader;

/* The reader of what respite_gate_fast_path gave. */
static inline void respite_fast_reader_init(respite_fast_reader *r, const respite_fast_path *fp)
{
    r->word = (const uint64_t *)(intptr_t)fp->word_address;
    r->events = (const uint64_t *)(intptr_t)fp->events_address;
    r->cursor = (const uint64_t *)(intptr_t)fp->cursor_address;
    r->admitted = (int64_t *)(intptr_t)(fp->block_address + fp->admitted_offset);
    r->reported = (int64_t *)(intptr_t)(fp->block_address + fp->reported_offset);
    r->admit_mask = (uint64_t)fp->admit_mask;
    r->admit_value = (uint64_t)fp->admit_value;
    r->permit_mask = (uint64_t)fp->permit_mask;
    r->success_mask = (uint64_t)fp->success_mask;
    r->success_value = (uint64_t)fp->success_value;
}

/* K5: the block's one owner adds with a plain relaxed store. */
static inline void respite_fast_reader_count(int64_t *cell)
{
    __atomic_store_n(cell, __atomic_load_n(cell, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* K1, K2: a closed gate's permit, counted as admitted; 0 when the core must answer. */
static inline int64_t respite_fast_reader_admit(const respite_fast_reader *r)
{
    uint64_t word = __atomic_load_n(r->word, __ATOMIC_ACQUIRE);
    if ((word & r->admit_mask) != r->admit_value)
        return 0;
    respite_fast_reader_count(r->admitted);
    return (int64_t)(word & r->permit_mask);
}

/* K3: a success with `permit` (or RESPITE_NO_PERMIT), counted as reported when
 * the gate is closed and confirmed in the permit's generation; 0 when the
 * core must answer. */
static inline int respite_fast_reader_success(const respite_fast_reader *r, int64_t permit)
{
    uint64_t word = __atomic_load_n(r->word, __ATOMIC_ACQUIRE);
    if ((word & r->success_mask) != r->success_value ||
        (permit != RESPITE_NO_PERMIT && (uint64_t)permit != (word & r->permit_mask)))
        return 0;
    respite_fast_reader_count(r->reported);
    return 1;
}

/* K4: events wait for this handle (after a decision made here). */
static inline int respite_fast_reader_events_waiting(const respite_fast_reader *r)
{
    return __atomic_load_n(r->events, __ATOMIC_ACQUIRE) != __atomic_load_n(r->cursor, __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_FAST_PATH_READER_H */
