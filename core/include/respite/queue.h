/*
 * respite/queue.h - the bounded delivery queue (docs/spec.md section 4,
 * rules D3-D6, D9 and the queue rules Q1-Q9).
 *
 * Events are opaque byte payloads, copied in. A queue is made from a
 * delivery policy (maximum_capacity, event_ttl, retry_times) and "queue"
 * settings (overflow, max_bytes). The consumer takes events as an in-flight
 * batch and settles each one: delivered, retried (back to the head, D4),
 * discarded or retries_exhausted. Every event accepted is counted under
 * exactly one heading at every moment (D9).
 *
 * Thread safety: a queue is safe to share: many producers may enqueue while
 * one consumer takes and settles. A batch belongs to the thread that took it.
 * A batch may outlive its queue (bindings free in any order): settling it
 * then fails with "queue is closed".
 *
 * Durable queues (docs/spec.md section 10, rules L1-L9): with the setting
 * queue_path the events live in an SQLite file (WAL mode) that several
 * processes may open at once; every function below works unchanged, with
 * the same results and the same D9 figures, which are kept in the file.
 * Failures of the file itself are RESPITE_E_STORAGE.
 */
#ifndef RESPITE_QUEUE_H
#define RESPITE_QUEUE_H

#include "respite/common.h"
#include "respite/policy.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct respite_queue respite_queue;
typedef struct respite_batch respite_batch;

/* Setting "overflow": what enqueue does at capacity (D5). */
typedef enum respite_overflow {
    RESPITE_OVERFLOW_DROP_OLDEST = 0, /* evict from the head (counted dropped_capacity) */
    RESPITE_OVERFLOW_DROP_NEWEST = 1  /* refuse the new event: queue_full (refused_full) */
} respite_overflow;

/* Setting "durability" of a durable queue (L2). */
typedef enum respite_durability {
    RESPITE_DURABILITY_NORMAL = 0, /* WAL, synchronous NORMAL: survives a process crash */
    RESPITE_DURABILITY_FULL = 1    /* WAL, synchronous FULL: survives power loss too */
} respite_durability;

/* How a taken event is settled. */
typedef enum respite_disposition {
    RESPITE_DISPOSITION_DELIVERED = 0,        /* D1 */
    RESPITE_DISPOSITION_RETRY = 1,            /* D4: back to the head, unless D3 exhausted it */
    RESPITE_DISPOSITION_DISCARDED = 2,        /* D2: a discard handler, or no handler */
    RESPITE_DISPOSITION_RETRIES_EXHAUSTED = 3 /* D3: retry_times resends already made */
} respite_disposition;

#define RESPITE_DISPOSITION_COUNT 4

/* "delivered", "retry", "discarded", "retries_exhausted"; NULL otherwise. */
RESPITE_API const char *respite_disposition_name(int disposition);

/* A queue. policy: NULL for "@default" (D8); the queue holds a reference
 * to it (respite_queue_policy), so the caller may free its own. settings: "queue" settings,
 * NULL for the defaults. NULL and err (invalid_setting for settings of
 * another component) on failure. */
RESPITE_API respite_queue *respite_queue_new(const respite_policy *policy, const respite_settings *settings, respite_error *err);
/* Drops the caller's reference. When the last holder (its creator or an
 * engine using it) lets go, the queue and every pending event are freed;
 * batches still out stay valid to read and free; settling them fails with
 * closed. NULL is a no-op. */
RESPITE_API void respite_queue_free(respite_queue *queue);
/* Takes one more reference (released with respite_queue_free); returns queue. */
RESPITE_API respite_queue *respite_queue_retain(respite_queue *queue);
/* The queue's `name` setting ("" when unset); NULL for NULL. */
RESPITE_API const char *respite_queue_name(const respite_queue *queue);
/* The delivery policy the queue was made with (held by the queue); NULL for NULL. */
RESPITE_API const respite_policy *respite_queue_policy(const respite_queue *queue);

/* Copies `size` bytes of `data` in (a NUL is stored after them, so the
 * batch can hand them out as text). RESPITE_OK, or:
 *  closed      the queue is closed (counted refused_closed) or NULL;
 *  too_large   size > max_bytes (counted refused_too_large);
 *  queue_full  drop_newest and the queue is at capacity or the bytes would
 *              exceed max_bytes (counted refused_full);
 *  invalid_argument  data NULL, or size 0 (empty events are refused, Q2);
 *  invalid_time      now negative, NaN or infinite.
 * Under drop_oldest a full queue evicts from the head until the event fits
 * (counted dropped_capacity) and the enqueue succeeds. */
RESPITE_API int respite_queue_enqueue(respite_queue *queue, const char *data, size_t size, double now, respite_error *err);

/* Q10: `count` events at once, as `count` enqueues at `now` would be, but
 * in one transaction on a durable queue (so one commit, not `count`).
 * `data` holds the payloads one after another, `sizes[i]` bytes each.
 * Stops at the first event refused (its status and message, counted as
 * enqueue counts it); *accepted (may be NULL) is how many went in before
 * it. Arguments are checked first: a NULL or empty event refuses them all,
 * with nothing counted. */
RESPITE_API int respite_queue_enqueue_many(respite_queue *queue, const char *data, const size_t *sizes, int count,
                                           double now, int *accepted, respite_error *err);

/* Refuses every later enqueue (closed). Taking and settling still work, so
 * the consumer can drain. Idempotent. */
RESPITE_API int respite_queue_close(respite_queue *queue, respite_error *err);
/* 1 when closed, 0 when open, -1 for NULL (err closed). */
RESPITE_API int respite_queue_is_closed(respite_queue *queue, respite_error *err);

/* Events queued and not taken (-1 on error). */
RESPITE_API int64_t respite_queue_pending(respite_queue *queue, respite_error *err);

/* D6: drops every pending event whose age at `now` has reached event_ttl
 * (counted expired). Returns how many, or -1 on error. take does the same
 * for the events it meets, so calling this is needed only for figures. */
RESPITE_API int64_t respite_queue_expire(respite_queue *queue, double now, respite_error *err);

/* Takes up to max_events (>= 1) events from the head as an in-flight batch,
 * after dropping expired ones it meets (D6); each event's attempt count goes
 * up by one. NULL with err untouched when nothing is pending; NULL and err
 * on failure. Free the batch with respite_batch_free once settled. */
RESPITE_API respite_batch *respite_queue_take(respite_queue *queue, int max_events, double now, respite_error *err);

/* Blocks the calling thread until at least min_pending events are pending or
 * the queue is closed (1), or timeout_seconds pass on the monotonic clock
 * (0). -1 on error. For a sender thread; the engine itself never blocks. */
RESPITE_API int respite_queue_wait(respite_queue *queue, int64_t min_pending, double timeout_seconds, respite_error *err);

/* D9 figures, a consistent snapshot taken under the queue's lock (durable:
 * the file's figures, read in one transaction, L7). */
typedef struct respite_queue_stats {
    int64_t accepted;          /* enqueues that succeeded */
    int64_t delivered;         /* settled delivered (D1) */
    int64_t dropped_capacity;  /* evicted by drop_oldest (D5) */
    int64_t expired;           /* dropped by event_ttl (D6) */
    int64_t retries_exhausted; /* retried more than retry_times (D3) */
    int64_t discarded;         /* settled discarded (D2) */
    int64_t pending;           /* queued, not taken */
    int64_t in_flight;         /* taken, not settled */
    int64_t refused_full;      /* refused by drop_newest: never accepted */
    int64_t refused_too_large; /* larger than max_bytes: never accepted */
    int64_t refused_closed;    /* enqueued after close: never accepted */
    int64_t retried;           /* times an event went back to the head (D4) */
    int64_t pending_bytes;     /* payload bytes of pending events */
    int64_t in_flight_bytes;   /* payload bytes of events in flight */
    int64_t live_bytes;        /* memory held for events (payloads + headers); durable: this handle's taken ones */
    int64_t capacity;          /* maximum_capacity */
    int64_t max_bytes;         /* 0: no byte limit */
    int overflow;              /* a respite_overflow */
    int retry_times;           /* the policy's: at most retry_times + 1 attempts (D3) */
    double event_ttl;          /* the policy's, seconds; 0: none */
    int closed;                /* 1 after respite_queue_close */
    int durable;               /* 1 when the events live in a file (queue_path) */
    int corrupt_set_aside;     /* 1 when opening found the file corrupt and moved it aside (L8) */
    int64_t corrupt_lost;      /* events lost with that file; -1 when it could not be read */
} respite_queue_stats;

RESPITE_API int respite_queue_stats_get(respite_queue *queue, respite_queue_stats *out, respite_error *err);

/* 1 when the snapshot satisfies D9:
 * accepted = delivered + dropped_capacity + expired + retries_exhausted +
 *            discarded + pending + in_flight; 0 otherwise (or NULL). */
RESPITE_API int respite_queue_stats_balanced(const respite_queue_stats *stats);

/* D9 checked on a fresh snapshot: RESPITE_OK, or internal with the figures
 * in the message. */
RESPITE_API int respite_queue_check_accounting(respite_queue *queue, respite_error *err);

/* ---------------------------------------------------------------- batch */

/* Frees a batch: retried events go back to the head now, in batch order
 * (D4); events not yet settled go back with them and their attempt is not
 * counted (they were never sent). NULL: no-op. */
RESPITE_API void respite_batch_free(respite_batch *batch);

/* Events in the batch; 0 for NULL. */
RESPITE_API int respite_batch_count(const respite_batch *batch);
/* Events not yet settled; 0 for NULL. */
RESPITE_API int respite_batch_unsettled(const respite_batch *batch);

/* Event `index` (0-based, in queue order). Errors: closed for NULL,
 * invalid_argument for an index out of range. */
/* Payload size in bytes, or -1. */
RESPITE_API int64_t respite_batch_event_size(const respite_batch *batch, int index, respite_error *err);
/* Payload as NUL-terminated text (valid while the batch lives), or NULL.
 * Binary payloads: read event_size bytes from it. */
RESPITE_API const char *respite_batch_event_text(const respite_batch *batch, int index, respite_error *err);
/* The event's id (L3): >= 1, increasing in enqueue order, never reused
 * within a queue (or its file); -1 on error. A receiver deduplicates on it. */
RESPITE_API int64_t respite_batch_event_id(const respite_batch *batch, int index, respite_error *err);
/* Attempts including this one (1 on the first take), or -1. */
RESPITE_API int respite_batch_event_attempts(const respite_batch *batch, int index, respite_error *err);
/* Seconds since the event was first queued, at `now`, or -1. */
RESPITE_API double respite_batch_event_age(const respite_batch *batch, int index, double now, respite_error *err);
/* The disposition the event was settled with, -1 when not yet settled or on
 * error (err only on error). */
RESPITE_API int respite_batch_event_disposition(const respite_batch *batch, int index, respite_error *err);

/* Settles event `index`; its payload stays readable until the batch is
 * freed. Delivered, discarded and retries_exhausted are counted at once.
 * RETRY keeps the event in flight until the batch is freed, which puts it
 * back at the head, ahead of newer events and in batch order (D4); an event
 * already attempted retry_times + 1 times is counted retries_exhausted
 * instead (D3). Returns the disposition applied, or -1 (settled twice, bad
 * index or disposition: invalid_argument; queue gone: closed). */
RESPITE_API int respite_batch_settle(respite_batch *batch, int index, int disposition, respite_error *err);
/* Settles every unsettled event the same way; returns how many, or -1. */
RESPITE_API int respite_batch_settle_all(respite_batch *batch, int disposition, respite_error *err);

#ifdef __cplusplus
}
#endif

#endif /* RESPITE_QUEUE_H */
