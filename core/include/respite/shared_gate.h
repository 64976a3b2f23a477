/*
 * respite/shared_gate.h - gates shared by a host's processes (docs/spec.md
 * section 9, rules H1-H11).
 *
 * A gate made with the setting `shared_path` keeps its state in a slot of
 * that file, selected by its `name`; every process that opens the same file
 * and name decides from the same state (respite_gate_new, gate.h: every
 * gate function works on it unchanged). This header reads such a file
 * without attaching a gate: what `respite gates FILE` shows an operator.
 */
#ifndef RESPITE_SHARED_GATE_H
#define RESPITE_SHARED_GATE_H

#include "respite/common.h"
#include "respite/gate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gates one shared gate file holds (its slot count). */
#define RESPITE_SHARED_GATE_SLOTS 64
/* The file layout this library reads and writes (H1). */
#define RESPITE_SHARED_GATE_LAYOUT_VERSION 2

/* RESPITE_SHARED_GATE_SLOTS, for bindings that read no macros. */
RESPITE_API int respite_shared_gate_capacity(void);

/* One gate of a shared gate file, as respite_shared_gates_read sees it. */
typedef struct respite_shared_gate_info {
    char name[RESPITE_NAME_MAX];
    int state;                /* a respite_gate_state as at `now`, without changing the slot */
    double pause_left;        /* open: seconds left (INFINITY under recover_never); else 0 */
    int window_failures;      /* failures in the window at `now` */
    int64_t generation;
    int probes_outstanding;
    respite_gate_stats stats; /* the slot's shared statistics (H8: other processes' fast-path
                                 counts appear once they fold them) */
} respite_shared_gate_info;

/* Reads every gate in a shared gate file without attaching a gate: fills
 * up to `capacity` entries of out (in slot order), sets *count to the number
 * of gates in the file (which may exceed capacity); RESPITE_OK, or an error
 * (no such file, not a respite gate file, a layout version this library
 * does not read - naming both versions). `out` may be NULL when capacity is 0. */
RESPITE_API int respite_shared_gates_read(const char *path, double now, respite_shared_gate_info *out, int capacity,
                                          int *count, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_SHARED_GATE_H */
