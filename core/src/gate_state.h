/* The state one gate's state machine runs on (docs/spec.md section 2).
 *
 * It holds no pointer: its arrays trail the struct (window_room timestamps,
 * then probe_room probe slots) and are found from the lengths it records.
 * So the same bytes work in a process's memory (arrays sized N and P) and
 * in a slot of a file that several processes map (arrays at their maxima,
 * section 9). A respite_gate handle points at one. */
#ifndef RESPITE_GATE_STATE_H
#define RESPITE_GATE_STATE_H

#include "failure_window.h"
#include "internal.h"
#include "striped_counter.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

#define GATE_EVENT_CAPACITY 64
#define GATE_WINDOW_MAX 1000 /* failures_to_enter_recovery's maximum */
#define GATE_PROBES_MAX 1000 /* probes' maximum */

/* The published word: (generation << GATE_GENERATION_SHIFT) | flags | state.
 * Permit = (generation << GATE_GENERATION_SHIFT) | slot, where slot is 0 for
 * a call admitted while closed and k+1 for probe slot k (P <= 1000 < 2^11).
 * Generations start at 1, so every permit is > 0, and stay below 2^42, so
 * permits stay below 2^53 and are exact in every language. */
#define GATE_GENERATION_SHIFT 11
#define GATE_SLOT_MASK ((UINT64_C(1) << GATE_GENERATION_SHIFT) - 1)
_Static_assert((1 << GATE_GENERATION_SHIFT) == RESPITE_GATE_PERMIT_SLOTS, "the public permit slot count");
_Static_assert(GATE_PROBES_MAX < RESPITE_GATE_PERMIT_SLOTS, "probe slots fit a permit");
#define GATE_STATE_MASK UINT64_C(0x3)
#define GATE_FLAG_UNCONFIRMED UINT64_C(0x4) /* G11: closed after a pause, delay not yet reset */

/* Fast-path counts, per thread in stripes (folded into the state's totals
 * for a shared gate, H8). Successes are reported minus COUNT_NOT_SUCCESS:
 * a binding's fast path (K3) settles only successes and adds only to
 * reported, so its successes are counted without a second add. */
enum { COUNT_ADMITTED, COUNT_REFUSED, COUNT_REPORTED, COUNT_LATE, COUNT_NOT_SUCCESS, COUNT_FIELDS };

/* One outstanding probe: admitted at `started` by `owner` (pid 0 in a
 * process's own gate: no lease to check, H7). */
typedef struct gate_probe {
    double started;
    uint64_t owner_start;
    int32_t owner_pid;
    int32_t unused;
} gate_probe;

/* A compact event: the full respite_event is made when a handle reads it. */
typedef struct gate_event {
    int32_t type;
    int32_t unused;
    double at;
    int64_t failures;
    double window;
    double pause;
} gate_event;

typedef struct gate_state {
    /* Read by every fast path; written only at transitions. */
    _Alignas(RESPITE_CACHE_LINE) _Atomic uint64_t word;
    _Atomic double until_published; /* `until`, readable without the lock */
    _Atomic uint64_t event_seq;     /* events ever pushed; event k is events[k % 64] */
    /* Settings: immutable once made. */
    int failures_to_enter;  /* N */
    int probes;             /* P */
    double window_seconds;  /* W */
    double recovery;        /* R */
    double multiplier;      /* M */
    double max_recovery;    /* Rmax */
    double probe_timeout;
    double jitter;
    bool recover_never;
    bool count_all_failures;
    bool honour_retry_after;
    bool leased;            /* probes are leases of processes (a shared gate, H7) */
    int window_room;        /* timestamps after the struct (>= N) */
    int probe_room;         /* probe slots after them (>= max(P, 1)) */
    char name[RESPITE_NAME_MAX];
    /* Times the state became open: written under the lock at an opening
     * only, so it shares this line (the events fill the locked part's). */
    int64_t pauses;

    /* The latest time the gate acted on (T4); written by slow paths and refusals. */
    _Alignas(RESPITE_CACHE_LINE) _Atomic double latest;
    /* Fast-path counts folded in from processes' stripes (a shared gate). */
    _Atomic int64_t totals[COUNT_FIELDS];

    /* Everything below is guarded by lock. */
    _Alignas(RESPITE_CACHE_LINE) pthread_mutex_t lock;
    int state;
    bool unconfirmed;
    uint64_t generation;
    double delay;
    double until;
    uint64_t rng_state;
    respite_failure_window window;
    int probes_outstanding;
    int64_t counted_failures;
    int64_t trips;
    int64_t probes_admitted;
    int64_t probe_timeouts;
    gate_event events[GATE_EVENT_CAPACITY];
} gate_state;

static inline double *gate_state_times(gate_state *s)
{
    return (double *)(void *)(s + 1);
}

static inline gate_probe *gate_state_probes(gate_state *s)
{
    return (gate_probe *)(void *)(gate_state_times(s) + s->window_room);
}

/* Bytes of a state with these arrays, a multiple of the cache line. */
static inline size_t gate_state_size(int window_room, int probe_room)
{
    size_t size = sizeof(gate_state) + (size_t)window_room * sizeof(double) + (size_t)probe_room * sizeof(gate_probe);
    return (size + RESPITE_CACHE_LINE - 1) / RESPITE_CACHE_LINE * RESPITE_CACHE_LINE;
}

/* Sets a state from gate settings (checked already): closed, generation 1,
 * delay R. `shared`: its lock is robust and process-shared and its probes
 * are leases. RESPITE_OK or an error (the lock could not be made). */
int respite_gate_state_init(gate_state *s, const respite_settings *settings, int window_room, int probe_room,
                            bool shared, respite_error *err);

/* Takes the state's lock; when its holder died (a shared gate), repairs the
 * state first (H6). */
void respite_gate_state_lock(gate_state *s);

/* Applies what became due by the time the gate would act on at `now` (T4,
 * G7, G10, G11) - what respite_shared_gates_read runs on a copy. Returns
 * that time. */
double respite_gate_state_advance(gate_state *s, double now);

/* The statistics of section 2 from the state, with the fast-path counts
 * given; events_dropped is 0 (a handle's own). Under the lock. */
void respite_gate_state_stats(gate_state *s, const int64_t counts[COUNT_FIELDS], respite_gate_stats *out);

/* What the fast-path protocol (fast_path.c) hands out for a handle: its
 * state, its process's counters and its event cursor. */
gate_state *respite_gate_fast_parts(respite_gate *gate, respite_striped_counters **counters,
                                    _Atomic uint64_t **cursor);

#endif
