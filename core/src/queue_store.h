/* The SQLite file of a durable queue (docs/spec.md section 10): the rows of
 * the events and the D9 figures. queue.c decides (capacity, TTL, retries,
 * the figures); the store only keeps what it decided, one transaction per
 * queue call. Every function is called with the queue's lock held. */
#ifndef RESPITE_QUEUE_STORE_H
#define RESPITE_QUEUE_STORE_H

#include "internal.h"

/* One event, as the queue holds it in memory (its ring, or a batch). */
typedef struct queue_event {
    int64_t id;       /* L3: increasing, never reused */
    double queued_at; /* when first accepted; retries keep it (D6) */
    int attempts;
    size_t size;
    char data[]; /* size bytes + NUL */
} queue_event;

typedef struct queue_store queue_store;

/* The head of the pending events, without its payload. */
typedef struct store_row {
    int64_t id;
    double queued_at;
    int attempts;
    int64_t size;
} store_row;

/* What settling found of a claimed event's row (L5). */
enum store_where {
    STORE_MINE = 0,     /* still claimed by this handle: it was in flight */
    STORE_PENDING = 1,  /* its claim was taken back: it was pending */
    STORE_ELSEWHERE = 2 /* claimed again by another handle, or gone */
};

/* Opens (or creates) the file (L1, L2, L4, L8, L9). *set_aside is 1 and
 * *lost the events lost (-1: unknown) when a corrupt file was moved aside. */
queue_store *respite_store_open(const char *path, int durability, double lease_seconds, int *set_aside,
                                int64_t *lost, respite_error *err);
/* Leaves a store made in the parent alone in a forked child (L6):
 * SQLite's connections must not cross fork(). */
void respite_store_close(queue_store *s);
/* 1 in a process forked after the store was opened. */
int respite_store_inherited(const queue_store *s);

/* A write transaction: begin loads the file's figures into *stats (its
 * counting fields only) and the id counters; commit saves them. Rollback
 * after any failure in between. */
int respite_store_begin(queue_store *s, respite_queue_stats *stats, respite_error *err);
int respite_store_commit(queue_store *s, const respite_queue_stats *stats, respite_error *err);
void respite_store_rollback(queue_store *s);
/* The file's figures now, outside any transaction. */
int respite_store_read(queue_store *s, respite_queue_stats *stats, respite_error *err);

/* Inside a transaction. */
int64_t respite_store_next_id(queue_store *s);
int respite_store_insert(queue_store *s, int64_t id, const char *data, size_t size, double queued_at,
                         respite_error *err);
/* *found 0 when nothing is pending. */
int respite_store_head(queue_store *s, store_row *row, int *found, respite_error *err);
int respite_store_delete(queue_store *s, int64_t id, respite_error *err);
/* Claims the row for lease_seconds from now, counts the attempt and copies
 * the event out (*out, malloc'd). */
int respite_store_claim(queue_store *s, int64_t id, double now, queue_event **out, respite_error *err);
/* Deletes a settled event's row unless another handle claimed it. */
int respite_store_finish(queue_store *s, int64_t id, int *where, respite_error *err);
/* Puts a claimed row back at the head (D4) with its attempts, counting a
 * retry when retried; *mine 0 when the claim was no longer this handle's. */
int respite_store_release(queue_store *s, int64_t id, int attempts, int retried, int *mine, respite_error *err);
/* Pending rows with now - queued_at >= ttl: deleted; how many and their bytes. */
int respite_store_expire(queue_store *s, double now, double ttl, int64_t *rows, int64_t *bytes, respite_error *err);
/* Claims of other handles that ended at or before now: cleared (L5). */
int respite_store_reclaim(queue_store *s, double now, int64_t *rows, int64_t *bytes, respite_error *err);

#endif
