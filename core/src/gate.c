/* The recovery gate (docs/spec.md section 2, rules G1-G18; time rules T1-T4).
 *
 * Concurrency: the published state is one atomic word, (generation << 11) |
 * flags | state. A closed-state check and a non-counted report read that word
 * and bump this thread's own stripe of counters: no lock, no allocation, no
 * write to a line another thread reads. A refusal while the pause runs reads
 * the word and `until` without the lock. Everything that changes state (a
 * counted failure, a transition, a probe) takes the mutex, re-reads the state
 * and publishes the word again with release ordering.
 *
 * One state machine: every transition below runs on a gate_state
 * (gate_state.h), which lives either in this handle's own allocation or in a
 * slot of a file that several processes map (section 9, shared_gate.c). The
 * handle adds what is per process or per handle: the fast-path stripes, the
 * references, the event cursor and the C callback. */
#include "gate_state.h"

#include "c_locale.h"
#include "gate_fleet.h"
#include "process_identity.h"
#include "rng.h"
#include "shared_gate_file.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char refusal_prefix[] =
    "sending requests to the service is temporarily restricted due to recent failures";

struct respite_gate {
    gate_state *s;                       /* in this allocation, or in a mapped slot */
    respite_striped_counters *counters;  /* this process's fast-path counts */
    respite_shared_attachment *shared;   /* NULL: the state is this handle's own */
    _Atomic int refs;                    /* holders: the creator, engines, clients */
    _Atomic uint64_t event_cursor;       /* the next event this handle reads (H9) */
    _Atomic int64_t events_dropped;      /* events it missed by falling behind */
    respite_event_callback callback;     /* guarded by the state's lock */
    void *user_data;
    respite_gate_observer observer;      /* a fleet gate's thread (section 11); under the lock */
    void *observer_data;
};

/* The entry points of the closed path start on a 64-byte boundary, so the
 * same code has the same layout (fetch blocks, micro-op cache lines, branch
 * placement) in an executable, the shared library and every binding's
 * module. Where they fell at other offsets, the shared library's copy ran
 * 1.2x the static one's time, one GOT load being the only instruction apart;
 * aligned, 1.05x (bench_gate, same run). tests/unit/test_gate_alignment.c. */
#define CLOSED_PATH_ENTRY __attribute__((aligned(64)))

/* An in-process gate is one allocation: the handle, its stripes, its state. */
#define HANDLE_ROOM ((sizeof(struct respite_gate) + RESPITE_CACHE_LINE - 1) / RESPITE_CACHE_LINE * RESPITE_CACHE_LINE)

/* ------------------------------------------------------------- helpers */

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_GATE, err);
}

static inline bool time_valid(double now)
{
    return now >= 0.0 && now <= DBL_MAX; /* false for NaN and infinities */
}

/* T4: the time the gate acts on is never earlier than one it acted on. */
static double advance_latest(gate_state *s, double now)
{
    double seen = atomic_load_explicit(&s->latest, memory_order_relaxed);
    while (now > seen) {
        if (atomic_compare_exchange_weak_explicit(&s->latest, &seen, now, memory_order_relaxed,
                                                  memory_order_relaxed))
            return now;
    }
    return seen;
}

static void publish(gate_state *s)
{
    uint64_t word = (s->generation << GATE_GENERATION_SHIFT) | (uint64_t)s->state |
                    (s->unconfirmed ? GATE_FLAG_UNCONFIRMED : 0);
    atomic_store_explicit(&s->word, word, memory_order_release);
}

/* Appends to the state's numbered ring (under the lock); each handle reads
 * it from its own cursor. */
static void emit(gate_state *s, int type, double at, int64_t failures, double window, double pause)
{
    uint64_t seq = atomic_load_explicit(&s->event_seq, memory_order_relaxed);
    gate_event *e = &s->events[seq % GATE_EVENT_CAPACITY];
    e->type = type;
    e->unused = 0;
    e->at = at;
    e->failures = failures;
    e->window = window;
    e->pause = pause;
    atomic_store_explicit(&s->event_seq, seq + 1, memory_order_release);
}

/* The full event numbered seq (still in the ring), named after the gate. */
static void event_at(gate_state *s, uint64_t seq, respite_event *out)
{
    const gate_event *e = &s->events[seq % GATE_EVENT_CAPACITY];
    memset(out, 0, sizeof *out);
    out->type = e->type;
    out->at = e->at;
    if (e->type == RESPITE_EVENT_FLEET_PAUSED)
        out->count = e->failures; /* its hosts, kept where a failure count goes */
    else
        out->failures = e->failures;
    out->window = e->window;
    out->pause = e->pause;
    memcpy(out->source, s->name, sizeof out->source);
}

/* Probe bookkeeping is O(1) in P: settling any probe is a transition that
 * ends the probing (G8, G9), so within one probing the outstanding probes
 * are always slots 0 .. probes_outstanding - 1, in the order admitted (the
 * time the gate acts on never goes back, T4). */
static void clear_probes(gate_state *s)
{
    s->probes_outstanding = 0;
}

/* The outstanding probe admitted first, or -1. */
static int oldest_probe(const gate_state *s)
{
    return s->probes_outstanding > 0 ? 0 : -1;
}

/* T2: t + seconds (> 0), or the next double above t when the sum rounds
 * back to t (t beyond about 2^53 times the seconds, e.g. 60 s at 1e18): the
 * pause then lasts the clock's resolution there, never nothing. */
static double time_after(double t, double seconds)
{
    double end = t + seconds;
    return end > t ? end : nextafter(t, INFINITY);
}

/* G9: the delay after a failed probe (it stays R when M = 1). */
static double next_delay(const gate_state *s)
{
    if (s->multiplier == 1.0)
        return s->delay;
    double next = s->delay * s->multiplier;
    return next < s->max_recovery ? next : s->max_recovery;
}

/* G16 then G15: one draw per pause, then the Retry-After hint. */
static double pause_for(gate_state *s, double delay, double hint)
{
    double u = respite_unit_double(respite_splitmix64_next(&s->rng_state));
    double pause = delay * (1.0 - s->jitter * u);
    if (s->honour_retry_after && hint > 0.0) {
        double cap = s->max_recovery > s->recovery ? s->max_recovery : s->recovery;
        double wanted = hint < cap ? hint : cap;
        if (wanted > pause)
            pause = wanted;
    }
    return pause;
}

/* Opens (or reopens) the gate at `at`; returns the pause (INFINITY under
 * recover_never, G13). `until` is written while the published state is not
 * open, so a lock-free reader that sees the same word twice saw its `until`. */
static double open_gate(gate_state *s, double at, double hint)
{
    double pause = s->recover_never ? INFINITY : pause_for(s, s->delay, hint);
    s->until = s->recover_never ? INFINITY : time_after(at, pause);
    s->generation++;
    s->pauses++;
    s->state = RESPITE_GATE_OPEN;
    s->unconfirmed = false;
    clear_probes(s);
    atomic_store_explicit(&s->until_published, s->until, memory_order_release);
    publish(s);
    return pause;
}

/* G8 (and G11's first success): closed, delay R, empty window. */
static void recover(gate_state *s, double at)
{
    s->state = RESPITE_GATE_CLOSED;
    s->unconfirmed = false;
    s->delay = s->recovery;
    respite_failure_window_clear(&s->window);
    clear_probes(s);
    publish(s);
    emit(s, RESPITE_EVENT_RECOVERED, at, 0, 0, 0);
}

/* G9 / G10: a failed probe reopens the gate with the next delay. */
static void reopen(gate_state *s, double at, double hint)
{
    s->delay = next_delay(s);
    double pause = open_gate(s, at, hint);
    emit(s, RESPITE_EVENT_RECOVERY_EXTENDED, at, 0, 0, pause);
}

/* Applies everything that became due by t, in order, at the moment it became
 * due: the end of a pause (G7, G11) and probe timeouts (G10). */
static void advance(gate_state *s, double t)
{
    for (;;) {
        if (s->state == RESPITE_GATE_OPEN) {
            if (s->recover_never || t < s->until)
                return;
            double ended = s->until;
            if (s->probes == 0) {
                s->state = RESPITE_GATE_CLOSED;
                s->unconfirmed = true;
                publish(s);
                emit(s, RESPITE_EVENT_PROBING, ended, 0, 0, 0);
                return;
            }
            s->state = RESPITE_GATE_PROBING;
            clear_probes(s);
            publish(s);
            emit(s, RESPITE_EVENT_PROBING, ended, 0, 0, 0);
        } else if (s->state == RESPITE_GATE_PROBING) {
            int oldest = oldest_probe(s);
            if (oldest < 0)
                return;
            double due = time_after(gate_state_probes(s)[oldest].started, s->probe_timeout);
            if (t < due)
                return;
            s->probe_timeouts++;
            reopen(s, due, 0.0);
        } else {
            return;
        }
    }
}

/* H7: with every probe taken, a probe whose process has gone is lost at t
 * like a timed-out one (G10). */
static void lose_abandoned_probe(gate_state *s, double t)
{
    gate_probe *probe = gate_state_probes(s);
    for (int i = 0; i < s->probes_outstanding; i++) {
        respite_process_identity owner = {probe[i].owner_pid, probe[i].owner_start};
        if (respite_process_gone(owner)) {
            s->probe_timeouts++;
            reopen(s, t, 0.0);
            return;
        }
    }
}

/* Seconds until a call would be admitted at t, after advance(s, t). */
static double wait_locked(gate_state *s, double t)
{
    if (s->state == RESPITE_GATE_OPEN)
        return s->recover_never ? INFINITY : s->until - t;
    if (s->state == RESPITE_GATE_PROBING && s->probes_outstanding >= s->probes)
        return time_after(gate_state_probes(s)[oldest_probe(s)].started, s->probe_timeout) - t;
    return 0.0;
}

/* H6: after a holder died inside the lock, bring what it may have left half
 * done back to a state the machine can run on, and publish it. */
static void repair(gate_state *s)
{
    if (s->state != RESPITE_GATE_CLOSED && s->state != RESPITE_GATE_OPEN && s->state != RESPITE_GATE_PROBING)
        s->state = RESPITE_GATE_CLOSED;
    respite_failure_window_repair(&s->window, s->failures_to_enter);
    if (s->state != RESPITE_GATE_PROBING || s->probes_outstanding < 0 || s->probes_outstanding > s->probes)
        s->probes_outstanding = 0; /* out of range only if it died mid-write: those probes are lost */
    atomic_store_explicit(&s->until_published, s->until, memory_order_release);
    publish(s);
}

void respite_gate_state_lock(gate_state *s)
{
    if (pthread_mutex_lock(&s->lock) == EOWNERDEAD) {
        repair(s);
        pthread_mutex_consistent(&s->lock);
    }
}

double respite_gate_state_advance(gate_state *s, double now)
{
    double t = advance_latest(s, now);
    advance(s, t);
    return t;
}

void respite_gate_state_stats(gate_state *s, const int64_t counts[COUNT_FIELDS], respite_gate_stats *out)
{
    out->admitted = counts[COUNT_ADMITTED];
    out->refused = counts[COUNT_REFUSED];
    out->reported = counts[COUNT_REPORTED];
    out->late = counts[COUNT_LATE];
    out->successes = counts[COUNT_REPORTED] - counts[COUNT_NOT_SUCCESS];
    out->counted_failures = s->counted_failures;
    out->trips = s->trips;
    out->probes = s->probes_admitted;
    out->probe_timeouts = s->probe_timeouts;
    out->events_dropped = 0;
    out->generation = (int64_t)s->generation;
    out->window_failures = s->window.count;
    out->state = s->state;
    out->delay = s->delay;
    out->until = s->state == RESPITE_GATE_OPEN ? s->until : 0.0;
    out->probes_outstanding = s->probes_outstanding;
    out->pauses = s->pauses;
}

/* Takes the state's lock for this handle (folding its process's counts
 * first when shared, H8); returns the event number to fire callbacks from. */
static uint64_t lock_gate(respite_gate *g)
{
    if (g->shared)
        respite_shared_fold(g->shared);
    respite_gate_state_lock(g->s);
    return atomic_load_explicit(&g->s->event_seq, memory_order_relaxed);
}

/* Fires the callback for the events this handle's call produced (still
 * under the lock, as documented), then unlocks. */
static void unlock_gate(respite_gate *g, uint64_t from)
{
    gate_state *s = g->s;
    uint64_t end = atomic_load_explicit(&s->event_seq, memory_order_relaxed);
    if (g->callback && end != from) {
        if (end - from > GATE_EVENT_CAPACITY)
            from = end - GATE_EVENT_CAPACITY;
        for (; from < end; from++) {
            respite_event event;
            event_at(s, from, &event);
            g->callback(&event, g->user_data);
        }
    }
    if (g->observer && end != from)
        g->observer(g->observer_data);
    pthread_mutex_unlock(&s->lock);
}

/* ---------------------------------------------------------------- life */

int respite_gate_state_init(gate_state *s, const respite_settings *settings, int window_room, int probe_room,
                            bool shared, respite_error *err)
{
    memset(s, 0, gate_state_size(window_room, probe_room));
    s->failures_to_enter = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_FAILURES_TO_ENTER_RECOVERY);
    s->window_seconds = respite_setting_number(settings, RESPITE_SETTING_GATE_FAILURES_WINDOW_SECONDS);
    s->recovery = respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_SECONDS);
    s->multiplier = respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_MULTIPLIER);
    s->max_recovery = respite_setting_number(settings, RESPITE_SETTING_GATE_MAX_RECOVERY_SECONDS);
    s->probes = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_PROBES);
    s->probe_timeout = respite_setting_number(settings, RESPITE_SETTING_GATE_PROBE_TIMEOUT_SECONDS);
    s->recover_never = respite_setting_flag(settings, RESPITE_SETTING_GATE_RECOVER_NEVER);
    s->count_all_failures = respite_setting_flag(settings, RESPITE_SETTING_GATE_COUNT_ALL_FAILURES);
    s->honour_retry_after = respite_setting_flag(settings, RESPITE_SETTING_GATE_HONOUR_RETRY_AFTER);
    s->jitter = respite_setting_number(settings, RESPITE_SETTING_GATE_JITTER);
    uint64_t seed = (uint64_t)respite_setting_integer(settings, RESPITE_SETTING_GATE_SEED);
    respite_copy_text(s->name, sizeof s->name, respite_setting_text(settings, RESPITE_SETTING_GATE_NAME));
    s->leased = shared;
    s->window_room = window_room;
    s->probe_room = probe_room;

    s->rng_state = seed ? seed : respite_os_seed();
    s->state = RESPITE_GATE_CLOSED;
    s->generation = 1;
    s->delay = s->recovery;
    respite_failure_window_init(&s->window, s->failures_to_enter);
    atomic_init(&s->until_published, 0.0);
    atomic_init(&s->latest, 0.0);
    atomic_init(&s->event_seq, 0);
    for (int i = 0; i < COUNT_FIELDS; i++)
        atomic_init(&s->totals[i], 0);

    pthread_mutexattr_t attr;
    pthread_mutexattr_init(&attr);
    int rc = 0;
    if (shared) {
        rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        if (rc == 0)
            rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    }
    if (rc == 0)
        rc = pthread_mutex_init(&s->lock, &attr);
    pthread_mutexattr_destroy(&attr);
    if (rc != 0)
        return respite_fail(err, RESPITE_E_INTERNAL, "cannot make the gate's lock: %s", strerror(rc));
    atomic_init(&s->word, 0);
    publish(s);
    return RESPITE_OK;
}

/* A gate in this process's memory: arrays of N timestamps and P probes. */
static respite_gate *new_local(const respite_settings *settings, respite_error *err)
{
    int window_room = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_FAILURES_TO_ENTER_RECOVERY);
    int probes = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_PROBES);
    int probe_room = probes > 0 ? probes : 1;
    size_t size = HANDLE_ROOM + sizeof(respite_striped_counters) + gate_state_size(window_room, probe_room);
    respite_gate *g = aligned_alloc(RESPITE_CACHE_LINE, size);
    if (!g) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a gate");
        return NULL;
    }
    memset(g, 0, HANDLE_ROOM);
    g->counters = (respite_striped_counters *)(void *)((char *)g + HANDLE_ROOM);
    g->s = (gate_state *)(void *)((char *)g->counters + sizeof(respite_striped_counters));
    respite_striped_init(g->counters);
    if (respite_gate_state_init(g->s, settings, window_room, probe_room, false, err) != RESPITE_OK) {
        free(g);
        return NULL;
    }
    return g;
}

/* A handle on a slot of a shared gate file (section 9). */
static respite_gate *new_shared(const respite_settings *settings, respite_error *err)
{
    if (!respite_setting_text(settings, RESPITE_SETTING_GATE_NAME)[0]) {
        respite_fail_setting(err, "name",
                             "name must not be empty when shared_path is set: it selects the gate's slot in the file");
        return NULL;
    }
    respite_gate *g = calloc(1, sizeof *g);
    if (!g) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a gate");
        return NULL;
    }
    g->shared = respite_shared_attach(settings, err);
    if (!g->shared) {
        free(g);
        return NULL;
    }
    g->s = respite_shared_state(g->shared);
    g->counters = respite_shared_counters(g->shared);
    /* H9: a handle sees the transitions from its opening on. */
    atomic_init(&g->event_cursor, atomic_load_explicit(&g->s->event_seq, memory_order_acquire));
    return g;
}

respite_gate *respite_gate_new(const respite_settings *settings, respite_error *err)
{
    respite_settings *defaults = NULL;
    if (!settings) {
        defaults = respite_settings_new("cloud_request", err);
        if (!defaults)
            return NULL;
        settings = defaults;
    }
    respite_gate *g = NULL;
    if (respite_settings_expect(settings, "gate", "settings", err) == RESPITE_OK &&
        respite_settings_validate(settings, err) == RESPITE_OK) {
        g = respite_setting_text(settings, RESPITE_SETTING_GATE_SHARED_PATH)[0] ? new_shared(settings, err)
                                                                                : new_local(settings, err);
    }
    respite_settings_free(defaults);
    if (g)
        atomic_init(&g->refs, 1);
    return g;
}

respite_gate *respite_gate_retain(respite_gate *gate)
{
    if (gate)
        atomic_fetch_add_explicit(&gate->refs, 1, memory_order_relaxed);
    return gate;
}

void respite_gate_free(respite_gate *gate)
{
    if (!gate || atomic_fetch_sub_explicit(&gate->refs, 1, memory_order_acq_rel) != 1)
        return;
    if (gate->shared) {
        respite_shared_detach(gate->shared); /* H10: the file and the slot stay */
    } else {
        pthread_mutex_destroy(&gate->s->lock);
        respite_striped_destroy(gate->counters);
    }
    free(gate);
}

const char *respite_gate_state_name(int state)
{
    switch (state) {
    case RESPITE_GATE_CLOSED: return "closed";
    case RESPITE_GATE_OPEN: return "open";
    case RESPITE_GATE_PROBING: return "probing";
    default: return NULL;
    }
}

gate_state *respite_gate_fast_parts(respite_gate *gate, respite_striped_counters **counters,
                                    _Atomic uint64_t **cursor)
{
    *counters = gate->counters;
    *cursor = &gate->event_cursor;
    return gate->s;
}

/* --------------------------------------------------------------- check */

static int check_slow(respite_gate *g, double now, uint64_t word, respite_decision *out, respite_error *err);

/* G1: the closed fast path; it needs no time, so callers that read the
 * clock themselves can skip it (respite_gate_admit_now). */
static inline bool admit_fast(respite_gate *g, uint64_t word, respite_decision *out)
{
    if ((word & GATE_STATE_MASK) != RESPITE_GATE_CLOSED)
        return false;
    respite_striped_add(g->counters, COUNT_ADMITTED, 1);
    out->allowed = 1;
    out->permit = (int64_t)(word & ~GATE_SLOT_MASK);
    return true;
}

static inline int check_decision(respite_gate *g, double now, respite_decision *out, respite_error *err)
{
    out->allowed = 0;
    out->probe = 0;
    out->permit = 0;
    out->retry_after = 0.0;
    if (!g)
        return fail_closed(err);
    uint64_t word = atomic_load_explicit(&g->s->word, memory_order_acquire);
    if (time_valid(now) && admit_fast(g, word, out))
        return RESPITE_OK;
    return check_slow(g, now, word, out, err);
}

/* Everything but the closed fast path: bad times, refusals, probes, transitions. */
static __attribute__((noinline)) int check_slow(respite_gate *g, double now, uint64_t word, respite_decision *out,
                                                respite_error *err)
{
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    gate_state *s = g->s;
    if ((word & GATE_STATE_MASK) == RESPITE_GATE_OPEN) { /* G5 without the lock while the pause runs */
        double until = atomic_load_explicit(&s->until_published, memory_order_acquire);
        if (atomic_load_explicit(&s->word, memory_order_relaxed) == word) {
            double t = advance_latest(s, now);
            if (t < until) {
                respite_striped_add(g->counters, COUNT_REFUSED, 1);
                out->retry_after = s->recover_never ? INFINITY : until - t;
                return RESPITE_OK;
            }
        }
    }

    uint64_t from = lock_gate(g);
    double t = respite_gate_state_advance(s, now);
    if (s->leased && s->state == RESPITE_GATE_PROBING && s->probes_outstanding >= s->probes)
        lose_abandoned_probe(s, t);
    if (s->state == RESPITE_GATE_CLOSED) {
        out->allowed = 1;
        out->permit = (int64_t)(s->generation << GATE_GENERATION_SHIFT);
    } else if (s->state == RESPITE_GATE_PROBING && s->probes_outstanding < s->probes) { /* G7 */
        gate_probe *probe = gate_state_probes(s);
        int slot = s->probes_outstanding;
        respite_process_identity owner = {0, 0};
        if (s->leased)
            owner = respite_process_self(); /* H7: the probe is this process's lease */
        probe[slot].started = t;
        probe[slot].owner_pid = owner.pid;
        probe[slot].owner_start = owner.start;
        s->probes_outstanding++;
        s->probes_admitted++;
        out->allowed = 1;
        out->probe = 1;
        out->permit = (int64_t)((s->generation << GATE_GENERATION_SHIFT) | (uint64_t)(slot + 1));
    } else {
        out->retry_after = wait_locked(s, t);
    }
    unlock_gate(g, from);
    respite_striped_add(g->counters, out->allowed ? COUNT_ADMITTED : COUNT_REFUSED, 1);
    return RESPITE_OK;
}

CLOSED_PATH_ENTRY int respite_gate_check(respite_gate *gate, double now, respite_decision *out, respite_error *err)
{
    if (!out) {
        if (!gate)
            return fail_closed(err);
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_decision (got NULL)");
    }
    return check_decision(gate, now, out, err);
}

CLOSED_PATH_ENTRY int64_t respite_gate_admit(respite_gate *gate, double now, respite_error *err)
{
    respite_decision decision;
    if (check_decision(gate, now, &decision, err) != RESPITE_OK)
        return -1;
    if (!decision.allowed)
        return respite_refusal_error(decision.retry_after, err), 0;
    return decision.permit;
}

CLOSED_PATH_ENTRY int64_t respite_gate_admit_now(respite_gate *gate, respite_error *err)
{
    respite_decision decision = {0, 0, 0, 0.0};
    if (gate && admit_fast(gate, atomic_load_explicit(&gate->s->word, memory_order_acquire), &decision))
        return decision.permit;
    return respite_gate_admit(gate, respite_now(), err);
}

int respite_gate_wait(respite_gate *gate, double now, double *wait, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    *wait = 0.0;
    if ((atomic_load_explicit(&gate->s->word, memory_order_acquire) & GATE_STATE_MASK) == RESPITE_GATE_CLOSED)
        return RESPITE_OK;
    uint64_t from = lock_gate(gate);
    double t = respite_gate_state_advance(gate->s, now);
    *wait = wait_locked(gate->s, t);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

double respite_gate_retry_after(respite_gate *gate, double now, respite_error *err)
{
    double wait = 0.0;
    return respite_gate_wait(gate, now, &wait, err) == RESPITE_OK ? wait : -1.0;
}

int respite_gate_get_state(respite_gate *gate, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err), -1;
    if (!time_valid(now))
        return respite_check_time(now, "now", err), -1;
    if ((atomic_load_explicit(&gate->s->word, memory_order_acquire) & GATE_STATE_MASK) == RESPITE_GATE_CLOSED)
        return RESPITE_GATE_CLOSED;
    uint64_t from = lock_gate(gate);
    respite_gate_state_advance(gate->s, now);
    int state = gate->s->state;
    unlock_gate(gate, from);
    return state;
}

/* -------------------------------------------------------------- report */

static int fail_permit(int64_t permit, respite_error *err)
{
    return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                        "permit must be 0 (no permit) or a permit this gate handed out (got %lld)",
                        (long long)permit);
}

/* The counted failure or the outcome that needs the lock (G2, G3, G6, G8-G11). */
static void report_locked(respite_gate *g, int64_t permit, int counts, double hint, double now)
{
    gate_state *s = g->s;
    double t = respite_gate_state_advance(s, now);
    uint64_t permit_generation = (uint64_t)permit >> GATE_GENERATION_SHIFT;
    if (permit != RESPITE_NO_PERMIT && permit_generation < s->generation) {
        respite_striped_add(g->counters, COUNT_LATE, 1); /* G6 */
        return;
    }
    if (s->state == RESPITE_GATE_CLOSED) {
        if (!counts) {
            if (s->unconfirmed)
                recover(s, t); /* G11: the first answer after the pause */
            return;
        }
        s->counted_failures++;
        int failures = respite_failure_window_add(&s->window, gate_state_times(s), t, s->window_seconds);
        if (failures < s->failures_to_enter)
            return;
        respite_failure_window_clear(&s->window); /* G3 */
        s->trips++;
        if (s->recovery <= 0.0)
            return; /* G12: counted, never refuses */
        if (s->unconfirmed)
            s->delay = next_delay(s); /* G11: no success since the last pause */
        double pause = open_gate(s, t, hint);
        emit(s, RESPITE_EVENT_RECOVERY_STARTED, t, failures, s->window_seconds, pause);
        return;
    }
    if (s->state == RESPITE_GATE_OPEN) {
        /* Nothing was admitted in this generation: only a permitless report
         * gets here, and a pause is never extended by one (G5, G6). */
        respite_striped_add(g->counters, COUNT_LATE, 1);
        return;
    }
    /* Probing: settle the permit's probe, or the oldest one without a
     * permit. A probe permit of this generation is outstanding (settling
     * any probe ends the probing, G6 makes older permits late), though its
     * slot may have moved (G19): only whether one is out is asked. */
    if (oldest_probe(s) < 0) {
        respite_striped_add(g->counters, COUNT_LATE, 1); /* no probe awaits this outcome */
        return;
    }
    s->probes_outstanding--; /* and the transition below ends the probing */
    if (!counts) {
        recover(s, t); /* G8 */
        return;
    }
    s->counted_failures++;
    reopen(s, t, hint); /* G9 */
}

/* Validates the arguments of a report; RESPITE_OK or the error. */
static __attribute__((noinline)) int report_invalid(respite_gate *gate, int64_t permit, int outcome,
                                                    double retry_after_hint, double now, uint64_t word,
                                                    respite_error *err)
{
    if (respite_outcome_check(outcome, err) < 0)
        return RESPITE_E_INVALID_ARGUMENT;
    if (!(retry_after_hint >= 0.0 && retry_after_hint <= DBL_MAX)) {
        char text[40];
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "retry_after_hint must be a finite number of seconds, 0 or more (0 for none) (got %s)",
                            respite_format_number(retry_after_hint, text, sizeof text));
    }
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    if (permit != RESPITE_NO_PERMIT &&
        (permit < 0 || ((uint64_t)permit >> GATE_GENERATION_SHIFT) == 0 ||
         (int64_t)((uint64_t)permit & GATE_SLOT_MASK) > gate->s->probes ||
         ((uint64_t)permit >> GATE_GENERATION_SHIFT) > (word >> GATE_GENERATION_SHIFT)))
        return fail_permit(permit, err);
    return RESPITE_OK;
}

/* G4 fast path: a success (or, unless count_all_failures, a request_error)
 * while closed and confirmed, with a permit of this generation or none.
 * Anything else - errors included - takes the slow path. It needs no time. */
static inline bool report_fast(respite_gate *gate, uint64_t word, int64_t permit, int outcome,
                               double retry_after_hint)
{
    const gate_state *s = gate->s;
    if ((outcome == RESPITE_OUTCOME_SUCCESS ||
         (outcome == RESPITE_OUTCOME_REQUEST_ERROR && !s->count_all_failures)) &&
        (word & (GATE_STATE_MASK | GATE_FLAG_UNCONFIRMED)) == RESPITE_GATE_CLOSED &&
        (permit == RESPITE_NO_PERMIT || (uint64_t)permit - (word & ~GATE_SLOT_MASK) <= (uint64_t)s->probes) &&
        retry_after_hint >= 0.0 && retry_after_hint <= DBL_MAX) {
        respite_striped_add(gate->counters, COUNT_REPORTED, 1);
        if (outcome != RESPITE_OUTCOME_SUCCESS)
            respite_striped_add(gate->counters, COUNT_NOT_SUCCESS, 1);
        return true;
    }
    return false;
}

static __attribute__((noinline)) int report_slow(respite_gate *gate, int64_t permit, int outcome,
                                                 double retry_after_hint, double now, uint64_t word,
                                                 respite_error *err)
{
    int rc = report_invalid(gate, permit, outcome, retry_after_hint, now, word, err);
    if (rc != RESPITE_OK)
        return rc;
    int counts = respite_outcome_counts(outcome, gate->s->count_all_failures);
    respite_striped_add(gate->counters, COUNT_REPORTED, 1);
    if (outcome != RESPITE_OUTCOME_SUCCESS)
        respite_striped_add(gate->counters, COUNT_NOT_SUCCESS, 1);
    if (!counts && (word & (GATE_STATE_MASK | GATE_FLAG_UNCONFIRMED)) == RESPITE_GATE_CLOSED) {
        /* G6: an earlier generation's answer while closed is only counted. */
        respite_striped_add(gate->counters, COUNT_LATE, 1);
        return RESPITE_OK;
    }
    uint64_t from = lock_gate(gate);
    report_locked(gate, permit, counts, retry_after_hint, now);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

CLOSED_PATH_ENTRY int respite_gate_report(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint,
                                          double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    uint64_t word = atomic_load_explicit(&gate->s->word, memory_order_acquire);
    if (time_valid(now) && report_fast(gate, word, permit, outcome, retry_after_hint))
        return RESPITE_OK;
    return report_slow(gate, permit, outcome, retry_after_hint, now, word, err);
}

CLOSED_PATH_ENTRY int respite_gate_report_now(respite_gate *gate, int64_t permit, int outcome,
                                              double retry_after_hint, respite_error *err)
{
    if (gate && report_fast(gate, atomic_load_explicit(&gate->s->word, memory_order_acquire), permit, outcome,
                            retry_after_hint))
        return RESPITE_OK;
    return respite_gate_report(gate, permit, outcome, retry_after_hint, respite_now(), err);
}

/* G19: the probe a released permit held leaves the outstanding ones, the
 * rest keeping their order (the oldest first, for G10). A slot that a
 * release moved no longer names its probe exactly: the newest one goes
 * then, which keeps the count right (any settlement ends the probing). */
static void drop_probe(gate_state *s, int slot)
{
    int index = slot - 1 < s->probes_outstanding ? slot - 1 : s->probes_outstanding - 1;
    gate_probe *probe = gate_state_probes(s);
    memmove(&probe[index], &probe[index + 1], (size_t)(s->probes_outstanding - 1 - index) * sizeof *probe);
    s->probes_outstanding--;
}

int respite_gate_release(respite_gate *gate, int64_t permit, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    uint64_t word = atomic_load_explicit(&gate->s->word, memory_order_acquire);
    uint64_t generation = (uint64_t)permit >> GATE_GENERATION_SHIFT;
    int slot = (int)((uint64_t)permit & GATE_SLOT_MASK);
    if (permit <= 0 || generation == 0 || slot > gate->s->probes || generation > (word >> GATE_GENERATION_SHIFT))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "permit must be a permit this gate handed out (got %lld)",
                            (long long)permit);
    if (slot == 0)
        return RESPITE_OK; /* a closed-state permit holds nothing */
    uint64_t from = lock_gate(gate);
    gate_state *s = gate->s;
    respite_gate_state_advance(s, now);
    if (s->state == RESPITE_GATE_PROBING && generation == s->generation && s->probes_outstanding > 0)
        drop_probe(s, slot);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

int respite_gate_reset(respite_gate *gate, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    uint64_t from = lock_gate(gate);
    gate_state *s = gate->s;
    double t = respite_gate_state_advance(s, now);
    s->state = RESPITE_GATE_CLOSED;
    s->unconfirmed = false;
    s->delay = s->recovery;
    s->generation++;
    respite_failure_window_clear(&s->window);
    clear_probes(s);
    publish(s);
    emit(s, RESPITE_EVENT_RESET, t, 0, 0, 0);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

/* ------------------------------------------------------------ refusals */

size_t respite_refusal_message(double retry_after, char *buf, size_t size)
{
    int n;
    if (!buf)
        size = 0;
    if (isinf(retry_after) && retry_after > 0)
        n = snprintf(buf, size, "%s; recovery resumes only after a reset", refusal_prefix);
    else {
        locale_t previous = respite_c_locale_begin(); /* "12.3s", never "12,3s" */
        n = snprintf(buf, size, "%s; recovery resumes in %.1fs", refusal_prefix, retry_after);
        respite_c_locale_end(previous);
    }
    return n < 0 ? 0 : (size_t)n;
}

int respite_refusal_error(double retry_after, respite_error *err)
{
    if (err) {
        err->status = RESPITE_E_TEMPORARILY_UNAVAILABLE;
        err->setting[0] = '\0';
        respite_refusal_message(retry_after, err->message, sizeof err->message);
        err->retry_after = retry_after;
    }
    return RESPITE_E_TEMPORARILY_UNAVAILABLE;
}

/* ---------------------------------------------------- stats and events */

/* Events this handle has not read yet and the ring still holds, with the
 * ones it missed (H9, G18). */
static uint64_t events_behind(const respite_gate *gate, uint64_t *missed)
{
    uint64_t end = atomic_load_explicit(&gate->s->event_seq, memory_order_acquire);
    uint64_t behind = end - atomic_load_explicit(&gate->event_cursor, memory_order_relaxed);
    *missed = behind > GATE_EVENT_CAPACITY ? behind - GATE_EVENT_CAPACITY : 0;
    return behind - *missed;
}

int respite_gate_stats_get(respite_gate *gate, respite_gate_stats *out, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_gate_stats (got NULL)");
    int64_t counts[COUNT_FIELDS];
    if (gate->shared)
        respite_shared_fold(gate->shared); /* H8: the slot's totals, this process's counts in */
    for (int i = 0; i < COUNT_FIELDS; i++)
        counts[i] = gate->shared ? atomic_load_explicit(&gate->s->totals[i], memory_order_relaxed)
                                 : respite_striped_sum(gate->counters, i);
    respite_gate_state_lock(gate->s);
    respite_gate_state_stats(gate->s, counts, out);
    uint64_t missed;
    events_behind(gate, &missed);
    out->events_dropped = atomic_load_explicit(&gate->events_dropped, memory_order_relaxed) + (int64_t)missed;
    pthread_mutex_unlock(&gate->s->lock);
    return RESPITE_OK;
}

int respite_gate_events_pending(const respite_gate *gate)
{
    uint64_t missed;
    return gate ? (int)events_behind(gate, &missed) : 0;
}

const char *respite_gate_name(const respite_gate *gate)
{
    return gate ? gate->s->name : NULL;
}

int respite_gate_next_event(respite_gate *gate, respite_event *out, respite_error *err)
{
    if (!gate)
        return fail_closed(err), -1;
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_event (got NULL)"), -1;
    respite_gate_state_lock(gate->s);
    uint64_t missed;
    int taken = events_behind(gate, &missed) > 0;
    uint64_t cursor = atomic_load_explicit(&gate->event_cursor, memory_order_relaxed) + missed;
    atomic_fetch_add_explicit(&gate->events_dropped, (int64_t)missed, memory_order_relaxed);
    if (taken)
        event_at(gate->s, cursor++, out);
    atomic_store_explicit(&gate->event_cursor, cursor, memory_order_relaxed);
    pthread_mutex_unlock(&gate->s->lock);
    return taken;
}

int respite_gate_set_event_callback(respite_gate *gate, respite_event_callback callback, void *user_data,
                                    respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    respite_gate_state_lock(gate->s);
    gate->callback = callback;
    gate->user_data = user_data;
    pthread_mutex_unlock(&gate->s->lock);
    return RESPITE_OK;
}

/* ---------------------------------------------------------------- fleet */

/* A pause set by the fleet (F5): `until` given, no draw, the delay kept. */
static void open_for_fleet(gate_state *s, double until)
{
    s->until = until;
    s->generation++;
    s->pauses++;
    s->state = RESPITE_GATE_OPEN;
    s->unconfirmed = false;
    clear_probes(s);
    atomic_store_explicit(&s->until_published, until, memory_order_release);
    publish(s);
}

int respite_internal_gate_fleet_hold(respite_gate *gate, double until, int64_t hosts, double window, double pause,
                                     double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    if (!time_valid(until))
        return respite_check_time(until, "until", err);
    uint64_t from = lock_gate(gate);
    gate_state *s = gate->s;
    double t = respite_gate_state_advance(s, now);
    if (s->state == RESPITE_GATE_CLOSED && until > t) {
        open_for_fleet(s, until);
        emit(s, RESPITE_EVENT_FLEET_PAUSED, t, hosts, window, pause);
    } else if (s->state == RESPITE_GATE_OPEN) {
        /* A lock-free refusal may still read the previous `until`: either
         * answer was true a moment ago. */
        s->until = until;
        atomic_store_explicit(&s->until_published, until, memory_order_release);
        advance(s, t); /* until <= t: the pause ends now */
    } else if (s->state == RESPITE_GATE_PROBING && s->probes_outstanding == 0 && until > t) {
        open_for_fleet(s, until);
    }
    unlock_gate(gate, from);
    return RESPITE_OK;
}

int respite_internal_gate_fleet_resume(respite_gate *gate, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    uint64_t from = lock_gate(gate);
    gate_state *s = gate->s;
    double t = respite_gate_state_advance(s, now);
    if (s->state != RESPITE_GATE_CLOSED || s->unconfirmed)
        recover(s, t);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

int respite_internal_gate_fleet_note(respite_gate *gate, int type, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    uint64_t from = lock_gate(gate);
    emit(gate->s, type, advance_latest(gate->s, now), 0, 0, 0);
    unlock_gate(gate, from);
    return RESPITE_OK;
}

void respite_internal_gate_set_observer(respite_gate *gate, respite_gate_observer observer, void *data)
{
    respite_gate_state_lock(gate->s);
    gate->observer = observer;
    gate->observer_data = data;
    pthread_mutex_unlock(&gate->s->lock);
}
