/* The recovery gate (docs/spec.md section 2, rules G1-G18; time rules T1-T4).
 *
 * Concurrency: the published state is one atomic word, (generation << 11) |
 * flags | state. A closed-state check and a non-counted report read that word
 * and bump this thread's own stripe of counters: no lock, no allocation, no
 * write to a line another thread reads. A refusal while the pause runs reads
 * the word and `until` without the lock. Everything that changes state (a
 * counted failure, a transition, a probe) takes the mutex, re-reads the state
 * and publishes the word again with release ordering. */
#include "c_locale.h"
#include "event_ring.h"
#include "failure_window.h"
#include "internal.h"
#include "rng.h"
#include "striped_counter.h"

#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Permit = (generation << GATE_GENERATION_SHIFT) | slot, where slot is 0 for
 * a call admitted while closed and k+1 for probe slot k (P <= 1000 < 2^11).
 * Generations start at 1, so every permit is > 0, and stay below 2^42, so
 * permits stay below 2^53 and are exact in every language. */
#define GATE_GENERATION_SHIFT 11
#define GATE_SLOT_MASK ((UINT64_C(1) << GATE_GENERATION_SHIFT) - 1)
_Static_assert((1 << GATE_GENERATION_SHIFT) == RESPITE_GATE_PERMIT_SLOTS, "the public permit slot count");
#define GATE_STATE_MASK UINT64_C(0x3)
#define GATE_FLAG_UNCONFIRMED UINT64_C(0x4) /* G11: closed after a pause, delay not yet reset */
#define GATE_EVENT_CAPACITY 64

enum { COUNT_ADMITTED, COUNT_REFUSED, COUNT_REPORTED, COUNT_LATE };

static const char refusal_prefix[] =
    "sending requests to the service is temporarily restricted due to recent failures";

struct respite_gate {
    respite_striped_counters counters; /* fast-path statistics, one line per thread */

    /* Read by every fast path; written only at transitions. */
    _Alignas(RESPITE_CACHE_LINE) _Atomic uint64_t word;
    _Atomic double until_published; /* `until`, readable without the lock */
    _Atomic int refs;       /* holders: the creator, engines, clients */
    char name[RESPITE_NAME_MAX];
    /* Settings: immutable after _new. */
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

    /* The latest time the gate acted on (T4); written by slow paths and refusals. */
    _Alignas(RESPITE_CACHE_LINE) _Atomic double latest;

    /* Everything below is guarded by lock. */
    _Alignas(RESPITE_CACHE_LINE) pthread_mutex_t lock;
    int state;
    bool unconfirmed;
    uint64_t generation;
    double delay;
    double until;
    uint64_t rng_state;
    respite_failure_window window;
    double *probe_started; /* per slot: when the probe was admitted */
    bool *probe_active;
    int probes_outstanding;
    int64_t counted_failures;
    int64_t trips;
    int64_t probes_admitted;
    int64_t probe_timeouts;
    respite_event_ring events;
};

/* ------------------------------------------------------------- helpers */

static int fail_closed(respite_error *err)
{
    return respite_fail(err, RESPITE_E_CLOSED, "gate is closed");
}

static inline bool time_valid(double now)
{
    return now >= 0.0 && now <= DBL_MAX; /* false for NaN and infinities */
}

/* T4: the time the gate acts on is never earlier than one it acted on. */
static double advance_latest(respite_gate *g, double now)
{
    double seen = atomic_load_explicit(&g->latest, memory_order_relaxed);
    while (now > seen) {
        if (atomic_compare_exchange_weak_explicit(&g->latest, &seen, now, memory_order_relaxed,
                                                  memory_order_relaxed))
            return now;
    }
    return seen;
}

static void publish(respite_gate *g)
{
    uint64_t word = (g->generation << GATE_GENERATION_SHIFT) | (uint64_t)g->state |
                    (g->unconfirmed ? GATE_FLAG_UNCONFIRMED : 0);
    atomic_store_explicit(&g->word, word, memory_order_release);
}

static void emit(respite_gate *g, int type, double at, int64_t failures, double window, double pause)
{
    respite_event event;
    memset(&event, 0, sizeof event);
    event.type = type;
    event.at = at;
    event.failures = failures;
    event.window = window;
    event.pause = pause;
    memcpy(event.source, g->name, sizeof event.source);
    respite_event_ring_push(&g->events, &event);
}

static void clear_probes(respite_gate *g)
{
    for (int i = 0; i < g->probes; i++)
        g->probe_active[i] = false;
    g->probes_outstanding = 0;
}

/* The outstanding probe admitted first, or -1. */
static int oldest_probe(const respite_gate *g)
{
    int oldest = -1;
    for (int i = 0; i < g->probes; i++)
        if (g->probe_active[i] && (oldest < 0 || g->probe_started[i] < g->probe_started[oldest]))
            oldest = i;
    return oldest;
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
static double next_delay(const respite_gate *g)
{
    if (g->multiplier == 1.0)
        return g->delay;
    double next = g->delay * g->multiplier;
    return next < g->max_recovery ? next : g->max_recovery;
}

/* G16 then G15: one draw per pause, then the Retry-After hint. */
static double pause_for(respite_gate *g, double delay, double hint)
{
    double u = respite_unit_double(respite_splitmix64_next(&g->rng_state));
    double pause = delay * (1.0 - g->jitter * u);
    if (g->honour_retry_after && hint > 0.0) {
        double cap = g->max_recovery > g->recovery ? g->max_recovery : g->recovery;
        double wanted = hint < cap ? hint : cap;
        if (wanted > pause)
            pause = wanted;
    }
    return pause;
}

/* Opens (or reopens) the gate at `at`; returns the pause (INFINITY under
 * recover_never, G13). `until` is written while the published state is not
 * open, so a lock-free reader that sees the same word twice saw its `until`. */
static double open_gate(respite_gate *g, double at, double hint)
{
    double pause = g->recover_never ? INFINITY : pause_for(g, g->delay, hint);
    g->until = g->recover_never ? INFINITY : time_after(at, pause);
    g->generation++;
    g->state = RESPITE_GATE_OPEN;
    g->unconfirmed = false;
    clear_probes(g);
    atomic_store_explicit(&g->until_published, g->until, memory_order_release);
    publish(g);
    return pause;
}

/* G8 (and G11's first success): closed, delay R, empty window. */
static void recover(respite_gate *g, double at)
{
    g->state = RESPITE_GATE_CLOSED;
    g->unconfirmed = false;
    g->delay = g->recovery;
    respite_failure_window_clear(&g->window);
    clear_probes(g);
    publish(g);
    emit(g, RESPITE_EVENT_RECOVERED, at, 0, 0, 0);
}

/* G9 / G10: a failed probe reopens the gate with the next delay. */
static void reopen(respite_gate *g, double at, double hint)
{
    g->delay = next_delay(g);
    double pause = open_gate(g, at, hint);
    emit(g, RESPITE_EVENT_RECOVERY_EXTENDED, at, 0, 0, pause);
}

/* Applies everything that became due by t, in order, at the moment it became
 * due: the end of a pause (G7, G11) and probe timeouts (G10). */
static void advance(respite_gate *g, double t)
{
    for (;;) {
        if (g->state == RESPITE_GATE_OPEN) {
            if (g->recover_never || t < g->until)
                return;
            double ended = g->until;
            if (g->probes == 0) {
                g->state = RESPITE_GATE_CLOSED;
                g->unconfirmed = true;
                publish(g);
                emit(g, RESPITE_EVENT_PROBING, ended, 0, 0, 0);
                return;
            }
            g->state = RESPITE_GATE_PROBING;
            clear_probes(g);
            publish(g);
            emit(g, RESPITE_EVENT_PROBING, ended, 0, 0, 0);
        } else if (g->state == RESPITE_GATE_PROBING) {
            int oldest = oldest_probe(g);
            if (oldest < 0)
                return;
            double due = time_after(g->probe_started[oldest], g->probe_timeout);
            if (t < due)
                return;
            g->probe_timeouts++;
            reopen(g, due, 0.0);
        } else {
            return;
        }
    }
}

/* Seconds until a call would be admitted at t, after advance(g, t). */
static double wait_locked(const respite_gate *g, double t)
{
    if (g->state == RESPITE_GATE_OPEN)
        return g->recover_never ? INFINITY : g->until - t;
    if (g->state == RESPITE_GATE_PROBING && g->probes_outstanding >= g->probes)
        return time_after(g->probe_started[oldest_probe(g)], g->probe_timeout) - t;
    return 0.0;
}

/* ---------------------------------------------------------------- life */

respite_gate *respite_gate_new(const respite_settings *settings, respite_error *err)
{
    respite_settings *defaults = NULL;
    if (!settings) {
        defaults = respite_settings_new("cloud_request", err);
        if (!defaults)
            return NULL;
        settings = defaults;
    }
    if (respite_settings_expect(settings, "gate", "settings", err) != RESPITE_OK) {
        respite_settings_free(defaults);
        return NULL;
    }
    if (respite_settings_validate(settings, err) != RESPITE_OK) {
        respite_settings_free(defaults);
        return NULL;
    }
    if (respite_setting_text(settings, RESPITE_SETTING_GATE_SHARED_PATH)[0]) {
        respite_settings_free(defaults);
        respite_fail(err, RESPITE_E_INTERNAL, "shared gates are not built yet");
        return NULL;
    }

    size_t size = (sizeof(respite_gate) + RESPITE_CACHE_LINE - 1) / RESPITE_CACHE_LINE * RESPITE_CACHE_LINE;
    respite_gate *g = aligned_alloc(RESPITE_CACHE_LINE, size);
    if (!g) {
        respite_settings_free(defaults);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a gate");
        return NULL;
    }
    memset(g, 0, size);
    respite_striped_init(&g->counters);
    g->failures_to_enter = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_FAILURES_TO_ENTER_RECOVERY);
    g->window_seconds = respite_setting_number(settings, RESPITE_SETTING_GATE_FAILURES_WINDOW_SECONDS);
    g->recovery = respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_SECONDS);
    g->multiplier = respite_setting_number(settings, RESPITE_SETTING_GATE_RECOVERY_MULTIPLIER);
    g->max_recovery = respite_setting_number(settings, RESPITE_SETTING_GATE_MAX_RECOVERY_SECONDS);
    g->probes = (int)respite_setting_integer(settings, RESPITE_SETTING_GATE_PROBES);
    g->probe_timeout = respite_setting_number(settings, RESPITE_SETTING_GATE_PROBE_TIMEOUT_SECONDS);
    g->recover_never = respite_setting_flag(settings, RESPITE_SETTING_GATE_RECOVER_NEVER);
    g->count_all_failures = respite_setting_flag(settings, RESPITE_SETTING_GATE_COUNT_ALL_FAILURES);
    g->honour_retry_after = respite_setting_flag(settings, RESPITE_SETTING_GATE_HONOUR_RETRY_AFTER);
    g->jitter = respite_setting_number(settings, RESPITE_SETTING_GATE_JITTER);
    uint64_t seed = (uint64_t)respite_setting_integer(settings, RESPITE_SETTING_GATE_SEED);
    respite_copy_text(g->name, sizeof g->name, respite_setting_text(settings, RESPITE_SETTING_GATE_NAME));
    respite_settings_free(defaults);

    g->rng_state = seed ? seed : respite_os_seed();
    g->state = RESPITE_GATE_CLOSED;
    g->generation = 1;
    g->delay = g->recovery;
    atomic_init(&g->until_published, 0.0);
    atomic_init(&g->latest, 0.0);
    atomic_init(&g->word, 0);
    atomic_init(&g->refs, 1);

    size_t slots = g->probes > 0 ? (size_t)g->probes : 1;
    g->probe_started = calloc(slots, sizeof *g->probe_started);
    g->probe_active = calloc(slots, sizeof *g->probe_active);
    bool window_ok = respite_failure_window_init(&g->window, g->failures_to_enter) == 0;
    if (!g->probe_started || !g->probe_active || !window_ok ||
        respite_event_ring_init(&g->events, GATE_EVENT_CAPACITY, err) != RESPITE_OK) {
        free(g->probe_started);
        free(g->probe_active);
        respite_failure_window_destroy(&g->window);
        free(g);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a gate");
        return NULL;
    }
    pthread_mutex_init(&g->lock, NULL);
    publish(g);
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
    pthread_mutex_destroy(&gate->lock);
    respite_event_ring_destroy(&gate->events);
    respite_failure_window_destroy(&gate->window);
    free(gate->probe_started);
    free(gate->probe_active);
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

/* --------------------------------------------------------------- check */

static int check_slow(respite_gate *g, double now, uint64_t word, respite_decision *out, respite_error *err);

/* G1: the closed fast path; it needs no time, so callers that read the
 * clock themselves can skip it (respite_gate_admit_now). */
static inline bool admit_fast(respite_gate *g, uint64_t word, respite_decision *out)
{
    if ((word & GATE_STATE_MASK) != RESPITE_GATE_CLOSED)
        return false;
    respite_striped_add(&g->counters, COUNT_ADMITTED, 1);
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
    uint64_t word = atomic_load_explicit(&g->word, memory_order_acquire);
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
    if ((word & GATE_STATE_MASK) == RESPITE_GATE_OPEN) { /* G5 without the lock while the pause runs */
        double until = atomic_load_explicit(&g->until_published, memory_order_acquire);
        if (atomic_load_explicit(&g->word, memory_order_relaxed) == word) {
            double t = advance_latest(g, now);
            if (t < until) {
                respite_striped_add(&g->counters, COUNT_REFUSED, 1);
                out->retry_after = g->recover_never ? INFINITY : until - t;
                return RESPITE_OK;
            }
        }
    }

    pthread_mutex_lock(&g->lock);
    double t = advance_latest(g, now);
    advance(g, t);
    if (g->state == RESPITE_GATE_CLOSED) {
        out->allowed = 1;
        out->permit = (int64_t)(g->generation << GATE_GENERATION_SHIFT);
    } else if (g->state == RESPITE_GATE_PROBING && g->probes_outstanding < g->probes) { /* G7 */
        int slot = 0;
        while (g->probe_active[slot])
            slot++;
        g->probe_active[slot] = true;
        g->probe_started[slot] = t;
        g->probes_outstanding++;
        g->probes_admitted++;
        out->allowed = 1;
        out->probe = 1;
        out->permit = (int64_t)((g->generation << GATE_GENERATION_SHIFT) | (uint64_t)(slot + 1));
    } else {
        out->retry_after = wait_locked(g, t);
    }
    pthread_mutex_unlock(&g->lock);
    respite_striped_add(&g->counters, out->allowed ? COUNT_ADMITTED : COUNT_REFUSED, 1);
    return RESPITE_OK;
}

int respite_gate_check(respite_gate *gate, double now, respite_decision *out, respite_error *err)
{
    if (!out) {
        if (!gate)
            return fail_closed(err);
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_decision (got NULL)");
    }
    return check_decision(gate, now, out, err);
}

int64_t respite_gate_admit(respite_gate *gate, double now, respite_error *err)
{
    respite_decision decision;
    if (check_decision(gate, now, &decision, err) != RESPITE_OK)
        return -1;
    if (!decision.allowed)
        return respite_refusal_error(decision.retry_after, err), 0;
    return decision.permit;
}

int64_t respite_gate_admit_now(respite_gate *gate, respite_error *err)
{
    respite_decision decision = {0, 0, 0, 0.0};
    if (gate && admit_fast(gate, atomic_load_explicit(&gate->word, memory_order_acquire), &decision))
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
    if ((atomic_load_explicit(&gate->word, memory_order_acquire) & GATE_STATE_MASK) == RESPITE_GATE_CLOSED)
        return RESPITE_OK;
    pthread_mutex_lock(&gate->lock);
    double t = advance_latest(gate, now);
    advance(gate, t);
    *wait = wait_locked(gate, t);
    pthread_mutex_unlock(&gate->lock);
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
    if ((atomic_load_explicit(&gate->word, memory_order_acquire) & GATE_STATE_MASK) == RESPITE_GATE_CLOSED)
        return RESPITE_GATE_CLOSED;
    pthread_mutex_lock(&gate->lock);
    advance(gate, advance_latest(gate, now));
    int state = gate->state;
    pthread_mutex_unlock(&gate->lock);
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
static void report_locked(respite_gate *g, int64_t permit, int counts, double hint, double t)
{
    advance(g, t);
    uint64_t permit_generation = (uint64_t)permit >> GATE_GENERATION_SHIFT;
    int slot = (int)((uint64_t)permit & GATE_SLOT_MASK);
    if (permit != RESPITE_NO_PERMIT && permit_generation < g->generation) {
        respite_striped_add(&g->counters, COUNT_LATE, 1); /* G6 */
        return;
    }
    if (g->state == RESPITE_GATE_CLOSED) {
        if (!counts) {
            if (g->unconfirmed)
                recover(g, t); /* G11: the first answer after the pause */
            return;
        }
        g->counted_failures++;
        int failures = respite_failure_window_add(&g->window, t, g->window_seconds);
        if (failures < g->failures_to_enter)
            return;
        respite_failure_window_clear(&g->window); /* G3 */
        g->trips++;
        if (g->recovery <= 0.0)
            return; /* G12: counted, never refuses */
        if (g->unconfirmed)
            g->delay = next_delay(g); /* G11: no success since the last pause */
        double pause = open_gate(g, t, hint);
        emit(g, RESPITE_EVENT_RECOVERY_STARTED, t, failures, g->window_seconds, pause);
        return;
    }
    if (g->state == RESPITE_GATE_OPEN) {
        /* Nothing was admitted in this generation: only a permitless report
         * gets here, and a pause is never extended by one (G5, G6). */
        respite_striped_add(&g->counters, COUNT_LATE, 1);
        return;
    }
    /* Probing: settle the permit's probe, or the oldest one without a permit. */
    int probe = slot > 0 ? slot - 1 : oldest_probe(g);
    if (probe < 0 || !g->probe_active[probe]) {
        respite_striped_add(&g->counters, COUNT_LATE, 1); /* no probe awaits this outcome */
        return;
    }
    g->probe_active[probe] = false;
    g->probes_outstanding--;
    if (!counts) {
        recover(g, t); /* G8 */
        return;
    }
    g->counted_failures++;
    reopen(g, t, hint); /* G9 */
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
         (int64_t)((uint64_t)permit & GATE_SLOT_MASK) > gate->probes ||
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
    if ((outcome == RESPITE_OUTCOME_SUCCESS ||
         (outcome == RESPITE_OUTCOME_REQUEST_ERROR && !gate->count_all_failures)) &&
        (word & (GATE_STATE_MASK | GATE_FLAG_UNCONFIRMED)) == RESPITE_GATE_CLOSED &&
        (permit == RESPITE_NO_PERMIT || (uint64_t)permit - (word & ~GATE_SLOT_MASK) <= (uint64_t)gate->probes) &&
        retry_after_hint >= 0.0 && retry_after_hint <= DBL_MAX) {
        respite_striped_add(&gate->counters, COUNT_REPORTED, 1);
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
    int counts = respite_outcome_counts(outcome, gate->count_all_failures);
    respite_striped_add(&gate->counters, COUNT_REPORTED, 1);
    if (!counts && (word & (GATE_STATE_MASK | GATE_FLAG_UNCONFIRMED)) == RESPITE_GATE_CLOSED) {
        /* G6: an earlier generation's answer while closed is only counted. */
        respite_striped_add(&gate->counters, COUNT_LATE, 1);
        return RESPITE_OK;
    }
    pthread_mutex_lock(&gate->lock);
    report_locked(gate, permit, counts, retry_after_hint, advance_latest(gate, now));
    pthread_mutex_unlock(&gate->lock);
    return RESPITE_OK;
}

int respite_gate_report(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint, double now,
                        respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    uint64_t word = atomic_load_explicit(&gate->word, memory_order_acquire);
    if (time_valid(now) && report_fast(gate, word, permit, outcome, retry_after_hint))
        return RESPITE_OK;
    return report_slow(gate, permit, outcome, retry_after_hint, now, word, err);
}

int respite_gate_report_now(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint,
                            respite_error *err)
{
    if (gate && report_fast(gate, atomic_load_explicit(&gate->word, memory_order_acquire), permit, outcome,
                            retry_after_hint))
        return RESPITE_OK;
    return respite_gate_report(gate, permit, outcome, retry_after_hint, respite_now(), err);
}

int respite_gate_reset(respite_gate *gate, double now, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!time_valid(now))
        return respite_check_time(now, "now", err);
    pthread_mutex_lock(&gate->lock);
    double t = advance_latest(gate, now);
    advance(gate, t);
    gate->state = RESPITE_GATE_CLOSED;
    gate->unconfirmed = false;
    gate->delay = gate->recovery;
    gate->generation++;
    respite_failure_window_clear(&gate->window);
    clear_probes(gate);
    publish(gate);
    emit(gate, RESPITE_EVENT_RESET, t, 0, 0, 0);
    pthread_mutex_unlock(&gate->lock);
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

int respite_gate_stats_get(respite_gate *gate, respite_gate_stats *out, respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_gate_stats (got NULL)");
    pthread_mutex_lock(&gate->lock);
    out->admitted = respite_striped_sum(&gate->counters, COUNT_ADMITTED);
    out->refused = respite_striped_sum(&gate->counters, COUNT_REFUSED);
    out->reported = respite_striped_sum(&gate->counters, COUNT_REPORTED);
    out->late = respite_striped_sum(&gate->counters, COUNT_LATE);
    out->counted_failures = gate->counted_failures;
    out->trips = gate->trips;
    out->probes = gate->probes_admitted;
    out->probe_timeouts = gate->probe_timeouts;
    out->events_dropped = respite_event_ring_dropped(&gate->events);
    out->generation = (int64_t)gate->generation;
    out->window_failures = gate->window.count;
    out->state = gate->state;
    out->delay = gate->delay;
    out->until = gate->state == RESPITE_GATE_OPEN ? gate->until : 0.0;
    out->probes_outstanding = gate->probes_outstanding;
    pthread_mutex_unlock(&gate->lock);
    return RESPITE_OK;
}

int respite_gate_events_pending(const respite_gate *gate)
{
    return gate ? (int)respite_event_ring_pending(&gate->events) : 0;
}

const char *respite_gate_name(const respite_gate *gate)
{
    return gate ? gate->name : NULL;
}

int respite_gate_next_event(respite_gate *gate, respite_event *out, respite_error *err)
{
    if (!gate)
        return fail_closed(err), -1;
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must point to a respite_event (got NULL)"), -1;
    return respite_event_ring_pop(&gate->events, out);
}

int respite_gate_set_event_callback(respite_gate *gate, respite_event_callback callback, void *user_data,
                                    respite_error *err)
{
    if (!gate)
        return fail_closed(err);
    respite_event_ring_set_callback(&gate->events, callback, user_data);
    return RESPITE_OK;
}
