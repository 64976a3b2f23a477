/*
 * respite/engine.h - the delivery engine: the sender's decisions (docs/spec.md
 * section 5, rules S1-S5) without threads, network or sleeping.
 *
 * The engine joins a queue, a delivery policy and a recovery gate on the
 * caller's clock. A sender loop is:
 *
 *   for (;;) switch (respite_engine_next(engine, now, err)) {
 *   case RESPITE_ACTION_SEND:  batch = respite_engine_take(engine, now, err);
 *                              ... send the batch's events ...
 *                              respite_engine_settle(engine, batch, transport_failed,
 *                                                    status, retry_after, now, err);
 *                              break;
 *   case RESPITE_ACTION_WAIT:  sleep respite_engine_wait_seconds(engine), or until close;
 *   case RESPITE_ACTION_IDLE:  wait for events (respite_queue_wait) or close;
 *   case RESPITE_ACTION_DONE:  stop; respite_engine_unsent(engine) were not sent.
 *   }
 *
 * Thread safety: an engine is not thread-safe; one thread (the sender's)
 * drives it. Producers use the queue, which is. The engine holds a
 * reference to its queue and gate (their creators may free theirs at any
 * time) and settles by the queue's policy.
 */
#ifndef RESPITE_ENGINE_H
#define RESPITE_ENGINE_H

#include "respite/common.h"
#include "respite/gate.h"
#include "respite/policy.h"
#include "respite/queue.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_engine respite_engine;

/* What the sender should do next. */
typedef enum respite_action {
    RESPITE_ACTION_SEND = 0, /* take a batch and send it */
    RESPITE_ACTION_WAIT = 1, /* the gate refuses (S4): wait respite_engine_wait_seconds */
    RESPITE_ACTION_IDLE = 2, /* fewer than min_entries_per_message queued (S2) */
    RESPITE_ACTION_DONE = 3  /* closing and finished (S5): stop */
} respite_action;

/* "send", "wait", "idle", "done"; NULL otherwise. */
RESPITE_API const char *respite_action_name(int action);

/* An engine over queue and gate (both required; NULL: closed), settling
 * by the queue's policy (respite_queue_policy). settings: "sender" settings
 * (only name, min_entries_per_message, max_entries_per_message and
 * close_timeout_seconds are used here), NULL for the defaults. */
RESPITE_API respite_engine *respite_engine_new(respite_queue *queue, respite_gate *gate, const respite_settings *settings,
                                   respite_error *err);
/* Frees the engine; a batch still in flight goes back to the head of the
 * queue, its attempt not counted. NULL is a no-op. */
RESPITE_API void respite_engine_free(respite_engine *engine);

/* S2, S4, S5: the next action at `now`, or -1 on error (a batch in flight
 * must be settled first: invalid_argument). Expired events are dropped
 * first (D6). */
RESPITE_API int respite_engine_next(respite_engine *engine, double now, respite_error *err);

/* For the last WAIT: seconds until the gate admits again (INFINITY under
 * recover_never); 0 after any other action or for NULL. */
RESPITE_API double respite_engine_wait_seconds(const respite_engine *engine);

/* Takes the next batch (up to max_entries events, even below the minimum)
 * and admits it through the gate; the engine keeps the gate's permit. The
 * batch belongs to the engine: read it, then pass it to settle, which frees
 * it. NULL with err untouched when nothing is pending; NULL and err
 * temporarily_unavailable (with retry_after) when the gate refuses (the
 * events stay queued); NULL and err on other failures. */
RESPITE_API respite_batch *respite_engine_take(respite_engine *engine, double now, respite_error *err);

/* S3: reports how the send of `batch` (the one take returned) ended.
 * transport_failed != 0: it did not complete (http_status ignored);
 * otherwise http_status 100-599. The outcome goes to the gate with the
 * permit (section 1; retry_after_hint >= 0, 0 for none) and each event is
 * settled: 2xx/3xx delivered (D1); otherwise the policy's handler for the
 * code, a transport failure or a 1xx matched as 503 (D2): retry goes back
 * to the head (D4) unless retry_times resends were made (D3), discard is
 * counted discarded. Frees the batch. RESPITE_OK or a status. */
RESPITE_API int respite_engine_settle(respite_engine *engine, respite_batch *batch, int transport_failed, int http_status,
                                      double retry_after_hint, double now, respite_error *err);

/* S5: starts closing at `now`: the queue refuses new events. If the gate
 * refuses at `now` (paused), nothing more is sent: next gives DONE and the
 * pending events are unsent. Otherwise next drains the queue, sending final
 * batches even below the minimum, until it is empty or
 * now + close_timeout_seconds is reached, or the gate refuses. Idempotent
 * (the first call's time sets the deadline). */
RESPITE_API int respite_engine_close(respite_engine *engine, double now, respite_error *err);

/* 1 once close was called, 0 before, -1 for NULL. */
RESPITE_API int respite_engine_is_closing(const respite_engine *engine);

/* Events left unsent when DONE was reached (counted once DONE is first
 * returned; also the event unsent_at_close when > 0); -1 before DONE or for
 * NULL (err closed). */
RESPITE_API int64_t respite_engine_unsent(respite_engine *engine, respite_error *err);

/* The effective batch bounds: min_entries_per_message, and the most events
 * in one batch (max_entries_per_message when set; else the policy's
 * prefetch_count when the policy sets one; else 2 x min). 0 for NULL. */
RESPITE_API int respite_engine_min_entries(const respite_engine *engine);
RESPITE_API int respite_engine_max_entries(const respite_engine *engine);

/* Figures since the engine was made. */
typedef struct respite_engine_stats {
    int64_t sends;          /* batches taken and admitted */
    int64_t probes;         /* of which admitted as probes (G7) */
    int64_t sends_failed;   /* settled with a non-2xx/3xx outcome or a transport failure */
    int64_t refusals;       /* takes the gate refused */
    int64_t events_sent;    /* events in admitted batches */
    int64_t unsent;         /* as respite_engine_unsent, -1 before DONE */
    int closing;            /* 1 once close was called */
    int closed_while_paused;/* 1 when close found the gate refusing (S5) */
    double close_deadline;  /* closing: when draining stops; 0 before */
} respite_engine_stats;

RESPITE_API int respite_engine_stats_get(const respite_engine *engine, respite_engine_stats *out, respite_error *err);

/* Engine events (unsent_at_close); the gate's own events are on the gate.
 * 1 and *out filled, 0 when none is waiting, -1 on error. */
RESPITE_API int respite_engine_next_event(respite_engine *engine, respite_event *out, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_ENGINE_H */
