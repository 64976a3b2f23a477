/*
 * respite/gate.h - the recovery gate (behaviour section 2, rules G1-G18).
 *
 * A gate made with the setting `shared_path` keeps its state in a file that
 * every process opening it shares (respite/shared_gate.h, docs/spec.md
 * section 9); every function below works on it unchanged.
 *
 * Thread safety: a gate is safe to share between threads. The closed-state
 * respite_gate_admit / respite_gate_check and a success report take no lock,
 * allocate nothing and write no cache line that another thread reads on its
 * fast path (statistics are striped per thread). Transitions take a lock.
 */
#ifndef RESPITE_GATE_H
#define RESPITE_GATE_H

#include "respite/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_gate respite_gate;

typedef enum respite_gate_state {
    RESPITE_GATE_CLOSED = 0,  /* calls admitted */
    RESPITE_GATE_OPEN = 1,    /* refusing until the pause ends */
    RESPITE_GATE_PROBING = 2  /* the pause ended; up to `probes` calls admitted */
} respite_gate_state;

/* "closed", "open", "probing"; NULL otherwise. */
RESPITE_API const char *respite_gate_state_name(int state);

/* No permit: report an outcome without one. Closed: as the current
 * generation's; open: ignored (counted late); probing: settles the oldest
 * outstanding probe (docs/spec.md section 2).
 * A permit is generation * RESPITE_GATE_PERMIT_SLOTS + slot (slot 0 when
 * admitted while closed, k + 1 for probe slot k): always > 0 and < 2^53. */
#define RESPITE_NO_PERMIT 0
#define RESPITE_GATE_PERMIT_SLOTS 2048

/* The result of one check. */
typedef struct respite_decision {
    int allowed;          /* 1 admitted, 0 refused */
    int probe;            /* 1 when admitted as a probe (G7) */
    int64_t permit;       /* > 0 when admitted: report the outcome with it */
    double retry_after;   /* refused: seconds until a call may be admitted,
                             INFINITY under recover_never (G13); 0 when allowed */
} respite_decision;

/* A gate from "gate" settings (or a profile); NULL settings = cloud_request
 * defaults. NULL and err when the settings are invalid. */
RESPITE_API respite_gate *respite_gate_new(const respite_settings *settings, respite_error *err);
/* Drops the caller's reference: the gate is freed when the last holder
 * (its creator, an engine, a sender or a client that uses it) lets go, so a
 * binding may free its gate while an engine still uses it. NULL: no-op. */
RESPITE_API void respite_gate_free(respite_gate *gate);
/* Takes one more reference (the holder later calls respite_gate_free);
 * returns gate. NULL: NULL. */
RESPITE_API respite_gate *respite_gate_retain(respite_gate *gate);
/* The gate's `name` setting ("" when unset); NULL for NULL. */
RESPITE_API const char *respite_gate_name(const respite_gate *gate);

/* Asks whether a call may be made now (G1, G5, G7, G11-G13). Fills *out and
 * returns RESPITE_OK; a refusal is not an error here. */
RESPITE_API int respite_gate_check(respite_gate *gate, double now, respite_decision *out, respite_error *err);

/* Scalar form of check for bindings, answering in one call: the permit
 * (> 0) when admitted; 0 when refused, with err filled as the refusal
 * (temporarily_unavailable, err->retry_after and the G17 message, as
 * respite_refusal_error), so a binding raises it like any other error;
 * -1 and err on other errors. */
RESPITE_API int64_t respite_gate_admit(respite_gate *gate, double now, respite_error *err);

/* As admit and report at respite_now(), reading the clock only when the
 * answer depends on it: the closed-state fast path needs no time, so a
 * binding's protected call costs no clock read while the gate is closed. */
RESPITE_API int64_t respite_gate_admit_now(respite_gate *gate, respite_error *err);
RESPITE_API int respite_gate_report_now(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint,
                                        respite_error *err);

/* Seconds until a call may be admitted at `now`: 0 when one would be,
 * INFINITY under recover_never, -1 on error. */
RESPITE_API double respite_gate_retry_after(respite_gate *gate, double now, respite_error *err);

/* Reports the outcome of an admitted call (G2-G4, G6, G8-G11, G15).
 * permit: from check/admit, or RESPITE_NO_PERMIT (a permit this gate did not
 * hand out: invalid_argument). retry_after_hint: seconds from a Retry-After
 * header, or 0 for none (negative/NaN/infinite: invalid_argument).
 * outcome: a respite_outcome (else invalid_argument). */
RESPITE_API int respite_gate_report(respite_gate *gate, int64_t permit, int outcome, double retry_after_hint,
                                    double now, respite_error *err);

/* G19: ends an admitted call's permit without an outcome - the caller gave
 * up on the call (cancelled it), which says nothing about the service.
 * Nothing is counted or reported; a probe's permit frees its probe slot, so
 * the next check is admitted as a probe. A closed-state permit, a permit of
 * an earlier generation or a settled probe: nothing happens. permit: from
 * check/admit (RESPITE_NO_PERMIT or one this gate did not hand out:
 * invalid_argument). A released permit is not reported afterwards. */
RESPITE_API int respite_gate_release(respite_gate *gate, int64_t permit, double now, respite_error *err);

/* G14: back to closed with delay R, an empty window and a new generation. */
RESPITE_API int respite_gate_reset(respite_gate *gate, double now, respite_error *err);

/* State at `now` (a pause that has ended reads as probing, or closed when
 * probes = 0). -1 on error. */
RESPITE_API int respite_gate_get_state(respite_gate *gate, double now, respite_error *err);

/* The refusal message for a retry_after (G17), written into buf (always
 * NUL-terminated); returns the length it needed, like snprintf.
 * "sending requests to the service is temporarily restricted due to recent
 * failures; recovery resumes in 12.3s" (INFINITY: "...; recovery resumes
 * only after a reset"). */
RESPITE_API size_t respite_refusal_message(double retry_after, char *buf, size_t size);

/* Fills err as a temporarily_unavailable error for retry_after (message as
 * above, err->retry_after set). Returns RESPITE_E_TEMPORARILY_UNAVAILABLE. */
RESPITE_API int respite_refusal_error(double retry_after, respite_error *err);

/* Statistics since the gate was made (reset does not clear them). */
typedef struct respite_gate_stats {
    int64_t admitted;          /* checks that admitted a call (probes included) */
    int64_t refused;           /* checks that refused */
    int64_t reported;          /* outcomes reported */
    int64_t counted_failures;  /* failures that counted against the service */
    int64_t late;              /* outcomes ignored: permit from an earlier generation (G6), no
                                  permit while open, or no probe awaiting it (docs/spec.md) */
    int64_t trips;             /* times the window filled while closed (G3; under G12 the
                                  gate still stays closed) */
    int64_t probes;            /* probes admitted */
    int64_t probe_timeouts;    /* probes that timed out (G10) */
    int64_t events_dropped;    /* events lost because the ring was full */
    int64_t generation;        /* current generation */
    int window_failures;       /* failures in the window now (at most N) */
    int state;                 /* state as of the last call that saw a time */
    double delay;              /* the current pause length */
    double until;              /* open: when the pause ends (INFINITY under recover_never); 0 otherwise */
    int probes_outstanding;    /* probes admitted whose outcome has not arrived (G7, G10) */
    int64_t successes;         /* reports of `success`, late ones included (a binding's fast path too) */
    int64_t pauses;            /* times the gate opened: a trip (G3), a failed or timed-out probe (G9,
                                  G10), a fleet pause (F5) */
} respite_gate_stats;

RESPITE_API int respite_gate_stats_get(respite_gate *gate, respite_gate_stats *out, respite_error *err);

/* Events waiting in the gate's ring, read without a lock or a clock: 0 for
 * a NULL gate. The one rule every binding follows: after a call into the
 * gate (admit, report, check, reset), when this is > 0, take every event
 * with respite_gate_next_event and log its line (respite_event_message). */
RESPITE_API int respite_gate_events_pending(const respite_gate *gate);
/* Events: a bounded ring per gate (capacity 64), read from a cursor per
 * handle (so every handle on a shared gate reads every event once); a handle
 * that falls more than 64 behind loses the oldest, counted in events_dropped. Returns 1 and fills *out when an
 * event was taken, 0 when none is waiting, -1 on error. Each event's
 * `source` is the gate's name. */
RESPITE_API int respite_gate_next_event(respite_gate *gate, respite_event *out, respite_error *err);

/* C users may also get events as they happen (in addition to the ring):
 * the events this handle's own calls produce. NULL callback unregisters.
 * Not wrapped by SWIG. */
RESPITE_API int respite_gate_set_event_callback(respite_gate *gate, respite_event_callback callback,
                                                void *user_data, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_GATE_H */
