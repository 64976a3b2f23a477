/*
 * respite/fast_path.h - the closed path without a crossing (docs/spec.md
 * section 2, "The fast-path protocol", rules K1-K6).
 *
 * A binding that pays for every call into C (a JNI or Node-API crossing)
 * may decide the two answers that change nothing but counters itself: a
 * closed admit (G1) and a success of the current generation while closed
 * and confirmed (G4). respite_gate_fast_path hands it what it needs: the
 * address of the published state word, the masks and values that mean
 * "closed" and "closed and confirmed", the permit layout, the event words
 * of the events rule, and a counter block of its own that the core adds to
 * the gate's statistics. Every other answer goes to the core.
 *
 * Addresses are integers (int64_t) so that every binding can map them (a
 * direct ByteBuffer in Java, an external ArrayBuffer in Node). A binding
 * written in C decides with respite/fast_path_reader.h instead of spelling
 * the rules again.
 */
#ifndef RESPITE_FAST_PATH_H
#define RESPITE_FAST_PATH_H

#include "respite/gate.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_fast_path {
    /* The published state word: an unsigned 64-bit integer, 8-byte aligned,
     * read with acquire ordering (K1). It lives as long as the gate (for a
     * gate with shared_path: in the mapped slot). */
    int64_t word_address;
    /* Closed admit (K2): (word & admit_mask) == admit_value; the permit is
     * word & permit_mask. */
    int64_t admit_mask;
    int64_t admit_value;
    int64_t permit_mask;
    /* Closed and confirmed (K3): (word & success_mask) == success_value; a
     * `success` with no permit or with the permit word & permit_mask is
     * then only counted. */
    int64_t success_mask;
    int64_t success_value;
    /* The events rule (K4): events wait for this handle when the unsigned
     * 64-bit words at events_address (events ever made) and cursor_address
     * (this handle's next one) differ. The cursor only grows and never
     * passes the events word, so a copy taken at the last drain may stand
     * in for it (a stale one only costs a call that finds nothing). */
    int64_t events_address;
    int64_t cursor_address;
    /* The caller's own counter block (K5): block_size bytes of signed 64-bit
     * counters, 8-byte aligned, written only by its one owner (a thread, or
     * a single-threaded runtime's handle) with plain relaxed stores, and
     * summed by respite_gate_stats_get. Add 1 at admitted_offset per closed
     * admit and at reported_offset per success decided here. */
    int64_t block_address;
    int block_size;
    int admitted_offset;
    int reported_offset;
} respite_fast_path;

/* Fills *out for the caller, with a new counter block (K5) that lives, like
 * the words, as long as the gate: call it once per thread (or per handle in
 * a single-threaded runtime) and keep a reference to the gate
 * (respite_gate_retain) for as long as the addresses are read. RESPITE_OK,
 * or an error (closed gate, NULL out, no memory). */
RESPITE_API int respite_gate_fast_path(respite_gate *gate, respite_fast_path *out, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_FAST_PATH_H */
