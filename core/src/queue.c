/* The bounded delivery queue (D3-D6, D9): a ring of event pointers that can
 * grow at both ends, under one lock. Every event accepted is counted under
 * exactly one heading of respite_queue_stats at every moment.
 *
 * A durable queue (section 10) makes the same decisions here, with its
 * pending events in an SQLite file (queue_store.c) instead of the ring:
 * every call that changes the queue is one transaction, which loads the
 * file's figures into stats first and saves them last. The primitives on
 * pending events (peek, drop and take the head, add, put back) work on
 * whichever holds them. */
#include "queue_store.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Q9: the longest wait (about 31 years); a longer one is refused, not cut,
 * and the deadline stays far inside time_t. */
#define WAIT_MAX_SECONDS 1e9
/* L6: how often a wait on a durable queue looks at the file. */
#define FILE_POLL_SECONDS 0.025

/* Memory one event holds, as live_bytes counts it. */
#define EVENT_BYTES(size) ((int64_t)(sizeof(queue_event) + (size) + 1))

struct respite_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* signalled for respite_queue_wait */
    int waiters;
    int64_t wait_for;       /* smallest min_pending a waiter wants */
    unsigned interrupts;    /* respite_queue_interrupt calls: each ends every wait */

    queue_event **ring;
    size_t ring_size; /* power of two */
    size_t head;
    size_t count; /* pending */

    int64_t capacity;
    int64_t max_bytes;
    int overflow;
    double ttl; /* 0: none */
    int retry_times;
    int64_t last_id;
    char name[RESPITE_NAME_MAX]; /* the name setting: its metrics' label */

    int closed;
    int freed;     /* the last holder let go; batches keep the struct alive */
    int holders;   /* the creator + one per engine using the queue */
    int refs;      /* 1 while there are holders + one per live batch */
    const respite_policy *policy; /* held: the engine reads its handlers */
    double last_now;
    double oldest_bound; /* no pending event was queued before this (for expire) */
    int sorted;          /* the ring is oldest first by queued_at: expiry pops the head */

    respite_queue_stats stats; /* durable: the file's figures as of the last call */
    queue_store *store;        /* NULL in memory */
    respite_batch *spare; /* one freed batch kept for reuse */
};

enum { SLOT_UNSETTLED = -1 };

typedef struct batch_slot {
    queue_event *event;
    int disposition; /* SLOT_UNSETTLED or a respite_disposition */
} batch_slot;

struct respite_batch {
    respite_queue *queue;
    int count;
    int unsettled;
    int slots_size;
    batch_slot *slots;
    int64_t bytes; /* the payloads' sizes together */
};

static const char *const disposition_names[RESPITE_DISPOSITION_COUNT] = {
    "delivered", "retry", "discarded", "retries_exhausted",
};

const char *respite_disposition_name(int disposition)
{
    if (disposition < 0 || disposition >= RESPITE_DISPOSITION_COUNT)
        return NULL;
    return disposition_names[disposition];
}

/* ------------------------------------------------------------------ ring */

static int ring_reserve(respite_queue *q, size_t wanted)
{
    if (wanted <= q->ring_size)
        return 1;
    size_t size = q->ring_size ? q->ring_size : 16;
    while (size < wanted)
        size *= 2;
    queue_event **ring = malloc(size * sizeof *ring);
    if (!ring)
        return 0;
    for (size_t i = 0; i < q->count; i++)
        ring[i] = q->ring[(q->head + i) & (q->ring_size - 1)];
    free(q->ring);
    q->ring = ring;
    q->ring_size = size;
    q->head = 0;
    return 1;
}

static queue_event *ring_at(const respite_queue *q, size_t i)
{
    return q->ring[(q->head + i) & (q->ring_size - 1)];
}

/* Events are popped oldest first (expiry, eviction, take), and in a long
 * queue the oldest are long out of cache: each pop asks for the event
 * RING_PREFETCH places behind the new head, so its miss overlaps the work
 * on the ones before it rather than stalling the pop that reaches it. */
#define RING_PREFETCH 16
#if defined(__GNUC__)
#define prefetch_event(e) __builtin_prefetch(e)
#else
#define prefetch_event(e) ((void)(e))
#endif

static queue_event *ring_pop_head(respite_queue *q)
{
    queue_event *e = q->ring[q->head];
    q->head = (q->head + 1) & (q->ring_size - 1);
    if (--q->count == 0)
        q->sorted = 1;
    else if (q->count > RING_PREFETCH)
        prefetch_event(ring_at(q, RING_PREFETCH));
    return e;
}

/* Room is reserved by the caller. A retried event older than the head keeps
 * the order; batches settled out of order break it until the ring empties. */
static void ring_push_head(respite_queue *q, queue_event *e)
{
    if (q->count > 0 && e->queued_at > ring_at(q, 0)->queued_at)
        q->sorted = 0;
    q->head = (q->head + q->ring_size - 1) & (q->ring_size - 1);
    q->ring[q->head] = e;
    q->count++;
}

static void event_free(respite_queue *q, queue_event *e)
{
    q->stats.live_bytes -= EVENT_BYTES(e->size);
    free(e);
}

static void wake_waiters(respite_queue *q)
{
    if (q->waiters && (q->stats.pending >= q->wait_for || q->closed))
        pthread_cond_broadcast(&q->changed);
}

/* ------------------------------------------------------- pending events */

static void count_pending(respite_queue *q, int64_t events, int64_t bytes)
{
    q->stats.pending += events;
    q->stats.pending_bytes += bytes;
}

static void count_in_flight(respite_queue *q, int64_t events, int64_t bytes)
{
    q->stats.in_flight += events;
    q->stats.in_flight_bytes += bytes;
}

/* The head of the pending events; *found 0 when there is none. */
static int head_peek(respite_queue *q, store_row *row, int *found, respite_error *err)
{
    if (q->store)
        return respite_store_head(q->store, row, found, err);
    *found = q->count > 0;
    if (*found) {
        const queue_event *e = ring_at(q, 0);
        row->id = e->id;
        row->queued_at = e->queued_at;
        row->attempts = e->attempts;
        row->size = (int64_t)e->size;
    }
    return RESPITE_OK;
}

/* Removes the head (peeked as row) for good: evicted (D5) or expired (D6). */
static int head_drop(respite_queue *q, const store_row *row, respite_error *err)
{
    if (q->store) {
        int status = respite_store_delete(q->store, row->id, err);
        if (status != RESPITE_OK)
            return status;
    } else {
        event_free(q, ring_pop_head(q));
    }
    count_pending(q, -1, -row->size);
    return RESPITE_OK;
}

/* Moves the head (peeked as row) into flight, its attempt counted. */
static int head_take(respite_queue *q, const store_row *row, double now, queue_event **out, respite_error *err)
{
    if (q->store) {
        int status = respite_store_claim(q->store, row->id, now, out, err);
        if (status != RESPITE_OK)
            return status;
        q->stats.live_bytes += EVENT_BYTES((*out)->size);
    } else {
        *out = ring_pop_head(q);
        (*out)->attempts++;
    }
    count_pending(q, -1, -row->size);
    count_in_flight(q, 1, row->size);
    return RESPITE_OK;
}

/* Claims other handles let lapse are pending again (L5). */
static int reclaim(respite_queue *q, double now, respite_error *err)
{
    if (!q->store)
        return RESPITE_OK;
    int64_t rows, bytes;
    int status = respite_store_reclaim(q->store, now, &rows, &bytes, err);
    if (status == RESPITE_OK) {
        count_in_flight(q, -rows, -bytes);
        count_pending(q, rows, bytes);
    }
    return status;
}

/* L6: a file's handle belongs to the process that opened it. */
static int inherited(respite_queue *q, respite_error *err)
{
    if (!q->store || !respite_store_inherited(q->store))
        return RESPITE_OK;
    return respite_fail(err, RESPITE_E_CLOSED,
                        "queue belongs to the process that opened its file: this process was forked after; "
                        "open the file again here");
}

/* A durable call's transaction; nothing in memory. */
static int tx_begin(respite_queue *q, respite_error *err)
{
    int status = inherited(q, err);
    if (status != RESPITE_OK || !q->store)
        return status;
    return respite_store_begin(q->store, &q->stats, err);
}

/* Keeps what the call decided (refusals it counted too). */
static int tx_commit(respite_queue *q, respite_error *err)
{
    return q->store ? respite_store_commit(q->store, &q->stats, err) : RESPITE_OK;
}

static void tx_rollback(respite_queue *q)
{
    if (q->store)
        respite_store_rollback(q->store);
}

/* ------------------------------------------------------------- lifecycle */

static int open_store(respite_queue *q, const respite_settings *settings, respite_error *err)
{
    const char *path = respite_setting_text(settings, RESPITE_SETTING_QUEUE_QUEUE_PATH);
    if (!*path)
        return RESPITE_OK;
    int set_aside = 0;
    int64_t lost = 0;
    q->store = respite_store_open(path, respite_setting_choice(settings, RESPITE_SETTING_QUEUE_DURABILITY),
                                  respite_setting_number(settings, RESPITE_SETTING_QUEUE_LEASE_SECONDS), &set_aside,
                                  &lost, err);
    if (!q->store)
        return RESPITE_E_STORAGE;
    q->stats.durable = 1;
    q->stats.corrupt_set_aside = set_aside;
    q->stats.corrupt_lost = set_aside ? lost : 0;
    return respite_store_read(q->store, &q->stats, err);
}

respite_queue *respite_queue_new(const respite_policy *policy, const respite_settings *settings, respite_error *err)
{
    respite_policy *own_policy = NULL;
    respite_settings *own_settings = NULL;
    respite_queue *q = NULL;

    if (settings) {
        if (respite_settings_expect(settings, "queue", "settings", err) != RESPITE_OK)
            return NULL;
        if (respite_settings_validate(settings, err) != RESPITE_OK)
            return NULL;
    } else if (!(settings = own_settings = respite_settings_new("queue", err))) {
        return NULL;
    }
    if (!policy && !(policy = own_policy = respite_policy_default(err)))
        goto out;

    q = calloc(1, sizeof *q);
    if (!q) {
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating a queue");
        goto out;
    }
    q->capacity = respite_policy_maximum_capacity(policy);
    q->ttl = respite_policy_event_ttl(policy);
    q->retry_times = respite_policy_retry_times(policy);
    q->max_bytes = respite_setting_integer(settings, RESPITE_SETTING_QUEUE_MAX_BYTES);
    q->overflow = respite_setting_choice(settings, RESPITE_SETTING_QUEUE_OVERFLOW); /* a respite_overflow */
    if (q->capacity < 1) {
        respite_fail(err, RESPITE_E_INVALID_POLICY, "maximum_capacity must be at least 1 (got %lld)",
                     (long long)q->capacity);
        free(q);
        q = NULL;
        goto out;
    }
    if (open_store(q, settings, err) != RESPITE_OK) {
        respite_store_close(q->store);
        free(q);
        q = NULL;
        goto out;
    }
    respite_copy_text(q->name, sizeof q->name, respite_setting_text(settings, RESPITE_SETTING_QUEUE_NAME));
    q->stats.capacity = q->capacity;
    q->stats.max_bytes = q->max_bytes;
    q->stats.overflow = q->overflow;
    q->stats.retry_times = q->retry_times;
    q->stats.event_ttl = q->ttl;
    q->refs = 1;
    q->holders = 1;
    q->policy = respite_policy_retain(policy);
    q->oldest_bound = INFINITY;
    q->sorted = 1;
    pthread_mutex_init(&q->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&q->changed, &attr);
    pthread_condattr_destroy(&attr);
out:
    respite_policy_free(own_policy);
    respite_settings_free(own_settings);
    return q;
}

static void queue_destroy(respite_queue *q)
{
    respite_policy_free((respite_policy *)q->policy);
    pthread_mutex_destroy(&q->lock);
    pthread_cond_destroy(&q->changed);
    if (q->spare) {
        free(q->spare->slots);
        free(q->spare);
    }
    free(q->ring);
    free(q);
}

respite_queue *respite_queue_retain(respite_queue *queue)
{
    if (queue) {
        pthread_mutex_lock(&queue->lock);
        queue->holders++;
        pthread_mutex_unlock(&queue->lock);
    }
    return queue;
}

const char *respite_queue_name(const respite_queue *queue)
{
    return queue ? queue->name : NULL;
}

const respite_policy *respite_queue_policy(const respite_queue *queue)
{
    return queue ? queue->policy : NULL;
}

void respite_queue_free(respite_queue *queue)
{
    if (!queue)
        return;
    pthread_mutex_lock(&queue->lock);
    if (--queue->holders > 0) {
        pthread_mutex_unlock(&queue->lock);
        return;
    }
    while (queue->count)
        event_free(queue, ring_pop_head(queue));
    /* The file keeps the events; batches still out keep their claims until
     * their leases end (L5). */
    respite_store_close(queue->store);
    queue->store = NULL;
    queue->freed = 1;
    queue->closed = 1;
    pthread_cond_broadcast(&queue->changed);
    int last = --queue->refs == 0;
    pthread_mutex_unlock(&queue->lock);
    if (last)
        queue_destroy(queue);
}

static int fail_closed(respite_error *err)
{
    return respite_closed(RESPITE_HANDLE_QUEUE, err);
}

/* Time never goes backwards inside a queue (common.h). Lock held. */
static double queue_time(respite_queue *q, double now)
{
    if (now < q->last_now)
        return q->last_now;
    q->last_now = now;
    return now;
}

/* --------------------------------------------------------------- enqueue */

/* Under the lock, in the call's transaction: the decisions of D5 and Q1.
 * RESPITE_OK with the event added; a refusal (counted); or a failure. */
static int enqueue_locked(respite_queue *q, queue_event *e, const char *data, size_t size, int too_large,
                          double now, int *refused, respite_error *err)
{
    *refused = 1;
    if (q->closed) {
        q->stats.refused_closed++;
        return fail_closed(err);
    }
    if (too_large) {
        q->stats.refused_too_large++;
        return respite_fail(err, RESPITE_E_TOO_LARGE, "an event of %zu bytes is larger than max_bytes (%lld bytes)",
                            size, (long long)q->max_bytes);
    }
    int over_count = q->stats.pending >= q->capacity;
    int over_bytes = q->max_bytes && q->stats.pending_bytes + (int64_t)size > q->max_bytes;
    if ((over_count || over_bytes) && q->overflow == RESPITE_OVERFLOW_DROP_NEWEST) {
        q->stats.refused_full++;
        if (over_count)
            return respite_fail(err, RESPITE_E_QUEUE_FULL,
                                "the queue is full (%lld events, maximum_capacity %lld); "
                                "overflow drop_newest refuses new events",
                                (long long)q->stats.pending, (long long)q->capacity);
        return respite_fail(err, RESPITE_E_QUEUE_FULL,
                            "the queue is full (%lld bytes queued, an event of %zu bytes, max_bytes %lld); "
                            "overflow drop_newest refuses new events",
                            (long long)q->stats.pending_bytes, size, (long long)q->max_bytes);
    }
    *refused = 0;
    /* drop_oldest: evict from the head until the event fits (D5). */
    while (q->stats.pending >= q->capacity ||
           (q->max_bytes && q->stats.pending_bytes + (int64_t)size > q->max_bytes)) {
        store_row head;
        int found, status = head_peek(q, &head, &found, err);
        if (status == RESPITE_OK && found)
            status = head_drop(q, &head, err);
        if (status != RESPITE_OK)
            return status;
        if (!found)
            break;
        q->stats.dropped_capacity++;
    }
    if (!q->store && !ring_reserve(q, q->count + 1))
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory growing the queue");
    double queued_at = queue_time(q, now);
    if (q->store) {
        int status = respite_store_insert(q->store, respite_store_next_id(q->store), data, size, queued_at, err);
        if (status != RESPITE_OK)
            return status;
    } else {
        e->id = ++q->last_id;
        e->queued_at = queued_at;
        if (queued_at < q->oldest_bound)
            q->oldest_bound = queued_at;
        if (q->count > 0 && queued_at < ring_at(q, q->count - 1)->queued_at)
            q->sorted = 0;
        q->ring[(q->head + q->count) & (q->ring_size - 1)] = e;
        q->count++;
        q->stats.live_bytes += EVENT_BYTES(size);
    }
    count_pending(q, 1, (int64_t)size);
    q->stats.accepted++;
    return RESPITE_OK;
}

int respite_queue_enqueue(respite_queue *queue, const char *data, size_t size, double now, respite_error *err)
{
    if (!queue)
        return fail_closed(err);
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    if (!data)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "data must not be NULL");
    if (size == 0)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "an event must have at least 1 byte (got 0 bytes)");
    if (size > (size_t)INT64_MAX - sizeof(queue_event) - 1)
        size = (size_t)INT64_MAX - sizeof(queue_event) - 1; /* still too large for any limit; malloc fails */
    int too_large = queue->max_bytes && (int64_t)size > queue->max_bytes;

    /* In memory: copy before taking the lock so producers contend only for
     * the ring. A file takes the bytes from the caller. */
    queue_event *e = NULL;
    if (!too_large && !queue->store) {
        e = malloc(sizeof *e + size + 1);
        if (!e)
            return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying an event of %zu bytes", size);
        memcpy(e->data, data, size);
        e->data[size] = '\0';
        e->size = size;
        e->attempts = 0;
    }

    pthread_mutex_lock(&queue->lock);
    int refused = 1;
    int status = tx_begin(queue, err);
    if (status == RESPITE_OK)
        status = reclaim(queue, now < queue->last_now ? queue->last_now : now, err);
    if (status == RESPITE_OK) {
        status = enqueue_locked(queue, e, data, size, too_large, now, &refused, err);
        if (status == RESPITE_OK || refused) {
            int kept = tx_commit(queue, err);
            if (kept != RESPITE_OK)
                status = kept;
        } else {
            tx_rollback(queue);
        }
    }
    if (status == RESPITE_OK)
        wake_waiters(queue);
    pthread_mutex_unlock(&queue->lock);
    if (status != RESPITE_OK || queue->store)
        free(e);
    return status;
}

int respite_queue_enqueue_many(respite_queue *queue, const char *data, const size_t *sizes, int count,
                               double now, int *accepted, respite_error *err)
{
    int taken = 0;
    if (accepted)
        *accepted = 0;
    if (!queue)
        return fail_closed(err);
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return RESPITE_E_INVALID_TIME;
    if (count < 0 || (count > 0 && (!data || !sizes)))
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "count must be 0 or more with data and sizes (got %d events, data %s, sizes %s)", count,
                            data ? "given" : "NULL", sizes ? "given" : "NULL");
    for (int i = 0; i < count; i++)
        if (sizes[i] == 0)
            return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                                "an event must have at least 1 byte (got 0 bytes for event %d)", i);
    int status = RESPITE_OK;
    if (!queue->store) { /* nothing to share: one enqueue each */
        for (size_t at = 0; taken < count; at += sizes[taken++])
            if ((status = respite_queue_enqueue(queue, data + at, sizes[taken], now, err)) != RESPITE_OK)
                break;
        if (accepted)
            *accepted = taken;
        return status;
    }
    pthread_mutex_lock(&queue->lock);
    int refused = 0;
    status = tx_begin(queue, err);
    if (status == RESPITE_OK)
        status = reclaim(queue, now < queue->last_now ? queue->last_now : now, err);
    for (size_t at = 0; status == RESPITE_OK && taken < count; at += sizes[taken++]) {
        int too_large = queue->max_bytes && (int64_t)sizes[taken] > queue->max_bytes;
        status = enqueue_locked(queue, NULL, data + at, sizes[taken], too_large, now, &refused, err);
        if (status != RESPITE_OK)
            break;
    }
    if (status == RESPITE_OK || refused) {
        int kept = tx_commit(queue, err);
        if (kept != RESPITE_OK) {
            status = kept;
            taken = 0;
        }
    } else {
        tx_rollback(queue);
        taken = 0;
    }
    if (taken > 0)
        wake_waiters(queue);
    pthread_mutex_unlock(&queue->lock);
    if (accepted)
        *accepted = taken;
    return status;
}

int respite_queue_close(respite_queue *queue, respite_error *err)
{
    if (!queue)
        return fail_closed(err);
    pthread_mutex_lock(&queue->lock);
    queue->closed = 1;
    queue->stats.closed = 1;
    pthread_cond_broadcast(&queue->changed);
    pthread_mutex_unlock(&queue->lock);
    return RESPITE_OK;
}

int respite_queue_is_closed(respite_queue *queue, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    pthread_mutex_lock(&queue->lock);
    int closed = queue->closed;
    pthread_mutex_unlock(&queue->lock);
    return closed;
}

/* The figures now: a file's are read from it. Lock held. */
static int refresh_locked(respite_queue *q, respite_error *err)
{
    int status = inherited(q, err);
    if (status != RESPITE_OK || !q->store)
        return status;
    return respite_store_read(q->store, &q->stats, err);
}

int64_t respite_queue_pending(respite_queue *queue, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    pthread_mutex_lock(&queue->lock);
    int64_t pending = refresh_locked(queue, err) == RESPITE_OK ? queue->stats.pending : -1;
    pthread_mutex_unlock(&queue->lock);
    return pending;
}

/* ---------------------------------------------------------------- expiry */

static int expired_at(const respite_queue *q, double queued_at, double now)
{
    return q->ttl > 0 && now - queued_at >= q->ttl; /* age == TTL drops (D6) */
}

/* In memory, oldest first: pops the expired head, O(expired). */
static int64_t ring_expire_head(respite_queue *q, double now)
{
    int64_t dropped = 0, bytes = 0;
    while (q->count > 0 && expired_at(q, ring_at(q, 0)->queued_at, now)) {
        queue_event *e = ring_pop_head(q);
        bytes += (int64_t)e->size;
        event_free(q, e);
        dropped++;
    }
    q->oldest_bound = q->count > 0 ? ring_at(q, 0)->queued_at : INFINITY;
    count_pending(q, -dropped, -bytes);
    return dropped;
}

/* In memory: skipped while the oldest possible event is still young; a
 * full sweep only while the ring is out of order. */
static int64_t ring_expire(respite_queue *q, double now)
{
    if (q->ttl <= 0 || q->count == 0 || now - q->oldest_bound < q->ttl)
        return 0;
    if (q->sorted)
        return ring_expire_head(q, now);
    int64_t dropped = 0, bytes = 0;
    size_t kept = 0;
    double oldest = INFINITY;
    for (size_t i = 0; i < q->count; i++) {
        queue_event *e = ring_at(q, i);
        if (expired_at(q, e->queued_at, now)) {
            bytes += (int64_t)e->size;
            event_free(q, e);
            dropped++;
            continue;
        }
        if (e->queued_at < oldest)
            oldest = e->queued_at;
        q->ring[(q->head + kept++) & (q->ring_size - 1)] = e;
    }
    q->count = kept;
    if (kept == 0)
        q->sorted = 1;
    q->oldest_bound = oldest;
    count_pending(q, -dropped, -bytes);
    return dropped;
}

/* Drops every expired pending event (D6); how many in *dropped. */
static int expire_locked(respite_queue *q, double now, int64_t *dropped, respite_error *err)
{
    *dropped = 0;
    if (!q->store) {
        *dropped = ring_expire(q, now);
    } else if (q->ttl > 0) {
        int64_t bytes = 0;
        int status = respite_store_expire(q->store, now, q->ttl, dropped, &bytes, err);
        if (status != RESPITE_OK)
            return status;
        count_pending(q, -*dropped, -bytes);
    }
    q->stats.expired += *dropped;
    return RESPITE_OK;
}

int64_t respite_queue_expire(respite_queue *queue, double now, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return -1;
    pthread_mutex_lock(&queue->lock);
    now = queue_time(queue, now);
    int64_t dropped = -1;
    int status = tx_begin(queue, err);
    if (status == RESPITE_OK)
        status = reclaim(queue, now, err);
    if (status == RESPITE_OK)
        status = expire_locked(queue, now, &dropped, err);
    if (status == RESPITE_OK)
        status = tx_commit(queue, err);
    else
        tx_rollback(queue);
    if (status != RESPITE_OK)
        dropped = -1;
    pthread_mutex_unlock(&queue->lock);
    return dropped;
}

/* ------------------------------------------------------------------ take */

static respite_batch *batch_alloc(respite_queue *q, int slots)
{
    respite_batch *b = q->spare;
    if (b && b->slots_size >= slots) {
        q->spare = NULL;
        return b;
    }
    b = malloc(sizeof *b);
    if (!b)
        return NULL;
    b->slots = malloc((size_t)slots * sizeof *b->slots);
    if (!b->slots) {
        free(b);
        return NULL;
    }
    b->slots_size = slots;
    return b;
}

static void batch_release(respite_queue *q, respite_batch *b)
{
    if (!q->spare) {
        q->spare = b;
    } else {
        free(b->slots);
        free(b);
    }
}

/* The head's next event that has not expired, dropping expired ones it
 * meets (D6: never attempted once expired); *found 0 when none is left. */
static int head_live(respite_queue *q, double now, store_row *row, int *found, respite_error *err)
{
    for (;;) {
        int status = head_peek(q, row, found, err);
        if (status != RESPITE_OK || !*found || !expired_at(q, row->queued_at, now))
            return status;
        if ((status = head_drop(q, row, err)) != RESPITE_OK)
            return status;
        q->stats.expired++;
    }
}

/* In memory, the loop of take_locked on the ring itself (a sender takes a
 * batch per request): pops up to `want` live events into b, dropping the
 * expired ones it meets (D6), and counts them once. */
static void ring_take(respite_queue *q, respite_batch *b, int want, double now)
{
    int n = 0;
    int64_t bytes = 0, expired = 0, expired_bytes = 0;
    while (n < want && q->count > 0) {
        queue_event *e = ring_pop_head(q);
        if (expired_at(q, e->queued_at, now)) {
            expired++;
            expired_bytes += (int64_t)e->size;
            event_free(q, e);
            continue;
        }
        e->attempts++;
        bytes += (int64_t)e->size;
        b->slots[n].event = e;
        b->slots[n].disposition = SLOT_UNSETTLED;
        n++;
    }
    q->stats.expired += expired;
    count_pending(q, -(n + expired), -(bytes + expired_bytes));
    count_in_flight(q, n, bytes);
    b->count = n;
    b->bytes = bytes;
}

/* Lock held, in the call's transaction. *out NULL when nothing is left. */
static int take_locked(respite_queue *q, int max_events, double now, respite_batch **out, respite_error *err)
{
    *out = NULL;
    if (!q->store) {
        if (q->count == 0)
            return RESPITE_OK;
        int want = max_events < q->stats.pending ? max_events : (int)q->stats.pending;
        respite_batch *b = batch_alloc(q, want);
        if (!b)
            return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory taking %d events", want);
        ring_take(q, b, want, now);
        if (b->count == 0) { /* every one had expired */
            batch_release(q, b);
            return RESPITE_OK;
        }
        b->queue = q;
        b->unsettled = b->count;
        q->refs++;
        *out = b;
        return RESPITE_OK;
    }
    store_row row;
    int found;
    /* Expired events at the head go first, so an empty result is honest. */
    int status = head_live(q, now, &row, &found, err);
    if (status != RESPITE_OK || !found)
        return status;
    int want = max_events < q->stats.pending ? max_events : (int)q->stats.pending;
    respite_batch *b = batch_alloc(q, want);
    if (!b)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory taking %d events", want);
    int n = 0;
    int64_t bytes = 0;
    while (n < want && found) {
        queue_event *e;
        if ((status = head_take(q, &row, now, &e, err)) != RESPITE_OK)
            break;
        bytes += (int64_t)e->size;
        b->slots[n].event = e;
        b->slots[n].disposition = SLOT_UNSETTLED;
        n++;
        if (n < want && (status = head_live(q, now, &row, &found, err)) != RESPITE_OK)
            break;
    }
    if (status != RESPITE_OK) { /* a file failed: its transaction is rolled back */
        for (int i = 0; i < n; i++)
            event_free(q, b->slots[i].event);
        batch_release(q, b);
        return status;
    }
    b->queue = q;
    b->count = n;
    b->bytes = bytes;
    b->unsettled = n;
    q->refs++;
    *out = b;
    return RESPITE_OK;
}

respite_batch *respite_queue_take(respite_queue *queue, int max_events, double now, respite_error *err)
{
    if (!queue)
        return fail_closed(err), NULL;
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return NULL;
    if (max_events < 1) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "max_events must be at least 1 (got %d)", max_events);
        return NULL;
    }
    pthread_mutex_lock(&queue->lock);
    now = queue_time(queue, now);
    respite_batch *b = NULL;
    int status = tx_begin(queue, err);
    if (status == RESPITE_OK)
        status = reclaim(queue, now, err);
    if (status == RESPITE_OK)
        status = take_locked(queue, max_events, now, &b, err);
    if (status == RESPITE_OK && (status = tx_commit(queue, err)) != RESPITE_OK && b) {
        /* Not claimed after all: the rows are as they were. */
        for (int i = 0; i < b->count; i++)
            event_free(queue, b->slots[i].event);
        queue->refs--;
        batch_release(queue, b);
        b = NULL;
    } else if (status != RESPITE_OK) {
        tx_rollback(queue);
    }
    pthread_mutex_unlock(&queue->lock);
    return b;
}

/* Pending now, reading a file when there is one. Lock held. */
static int wait_ready(respite_queue *q, int64_t min_pending)
{
    if (q->closed)
        return 1;
    if (refresh_locked(q, NULL) != RESPITE_OK)
        return 0;
    return q->stats.pending >= min_pending;
}

static struct timespec deadline_after(double seconds)
{
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    double whole = floor(seconds);
    deadline.tv_sec += (time_t)whole;
    deadline.tv_nsec += (long)((seconds - whole) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    return deadline;
}

int respite_queue_wait(respite_queue *queue, int64_t min_pending, double timeout_seconds, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    if (min_pending < 1) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "min_pending must be an integer 1 or more (got %lld)",
                     (long long)min_pending);
        return -1;
    }
    if (!(timeout_seconds >= 0 && timeout_seconds <= WAIT_MAX_SECONDS)) {
        char text[40], most[40];
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "timeout_seconds must be a number of seconds from 0 to %s (got %s)",
                     respite_format_number(WAIT_MAX_SECONDS, most, sizeof most),
                     respite_format_number(timeout_seconds, text, sizeof text));
        return -1;
    }
    if (inherited(queue, err) != RESPITE_OK)
        return -1;
    struct timespec deadline = deadline_after(timeout_seconds);
    double end = respite_now() + timeout_seconds;
    pthread_mutex_lock(&queue->lock);
    unsigned interrupts = queue->interrupts;
    int ready = 0;
    for (;;) {
        if (wait_ready(queue, min_pending)) {
            ready = 1;
            break;
        }
        if (queue->interrupts != interrupts)
            break;
        queue->waiters++;
        if (queue->waiters == 1 || min_pending < queue->wait_for)
            queue->wait_for = min_pending;
        /* L6: other processes' inserts signal nothing here: look again. */
        struct timespec until = deadline;
        if (queue->store && end - respite_now() > FILE_POLL_SECONDS)
            until = deadline_after(FILE_POLL_SECONDS);
        int rc = pthread_cond_timedwait(&queue->changed, &queue->lock, &until);
        queue->waiters--;
        if (rc == ETIMEDOUT && respite_now() >= end) {
            ready = wait_ready(queue, min_pending);
            break;
        }
    }
    pthread_mutex_unlock(&queue->lock);
    return ready;
}

void respite_internal_queue_interrupt(respite_queue *queue)
{
    pthread_mutex_lock(&queue->lock);
    queue->interrupts++;
    pthread_cond_broadcast(&queue->changed);
    pthread_mutex_unlock(&queue->lock);
}

/* ----------------------------------------------------------------- stats */

int respite_queue_stats_get(respite_queue *queue, respite_queue_stats *out, respite_error *err)
{
    if (!queue)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL");
    pthread_mutex_lock(&queue->lock);
    int status = refresh_locked(queue, err);
    if (status == RESPITE_OK)
        *out = queue->stats;
    pthread_mutex_unlock(&queue->lock);
    return status;
}

int respite_queue_stats_balanced(const respite_queue_stats *s)
{
    if (!s)
        return 0;
    return s->accepted == s->delivered + s->dropped_capacity + s->expired + s->retries_exhausted + s->discarded +
                              s->pending + s->in_flight &&
           s->pending >= 0 && s->in_flight >= 0;
}

int respite_queue_check_accounting(respite_queue *queue, respite_error *err)
{
    respite_queue_stats s = {0}; /* gcc cannot see that a failed stats_get returns non-zero */
    int status = respite_queue_stats_get(queue, &s, err);
    if (status != RESPITE_OK)
        return status;
    if (respite_queue_stats_balanced(&s))
        return RESPITE_OK;
    return respite_fail(err, RESPITE_E_INTERNAL,
                        "queue accounting does not balance: accepted %lld != delivered %lld + dropped_capacity "
                        "%lld + expired %lld + retries_exhausted %lld + discarded %lld + pending %lld + "
                        "in_flight %lld",
                        (long long)s.accepted, (long long)s.delivered, (long long)s.dropped_capacity,
                        (long long)s.expired, (long long)s.retries_exhausted, (long long)s.discarded,
                        (long long)s.pending, (long long)s.in_flight);
}

/* ----------------------------------------------------------------- batch */

int respite_batch_count(const respite_batch *batch)
{
    return batch ? batch->count : 0;
}

int respite_batch_unsettled(const respite_batch *batch)
{
    return batch ? batch->unsettled : 0;
}

static const batch_slot *slot_of(const respite_batch *batch, int index, respite_error *err)
{
    if (!batch)
        return respite_closed(RESPITE_HANDLE_BATCH, err), NULL;
    if (index < 0 || index >= batch->count) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "index must be from 0 to %d (got %d)", batch->count - 1,
                     index);
        return NULL;
    }
    return &batch->slots[index];
}

int64_t respite_batch_event_size(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? (int64_t)s->event->size : -1;
}

const char *respite_batch_event_text(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? s->event->data : NULL;
}

int64_t respite_batch_event_id(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? s->event->id : -1;
}

int respite_batch_event_attempts(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? s->event->attempts : -1;
}

double respite_batch_event_age(const respite_batch *batch, int index, double now, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    if (!s || respite_check_time(now, "now", err) != RESPITE_OK)
        return -1;
    double age = now - s->event->queued_at;
    return age > 0 ? age : 0;
}

int64_t respite_internal_batch_payload_bytes(const respite_batch *batch)
{
    return batch->bytes;
}

const char *respite_internal_batch_payload(const respite_batch *batch, int index, size_t *size)
{
    const queue_event *e = batch->slots[index].event;
    *size = e->size;
    return e->data;
}

int respite_batch_event_disposition(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? s->disposition : -1;
}

/* One retried (or, released, unsettled) event back at the head: in memory
 * the event itself, in a file its row (unless its claim lapsed, L5). */
static int requeue_one(respite_queue *q, respite_batch *b, batch_slot *s, respite_error *err)
{
    int retried = s->disposition == RESPITE_DISPOSITION_RETRY;
    if (!retried) {
        s->event->attempts--; /* never sent */
        b->unsettled--;
    }
    int mine = 1;
    int64_t size = (int64_t)s->event->size;
    if (q->store) {
        int status = respite_store_release(q->store, s->event->id, s->event->attempts, retried, &mine, err);
        if (status != RESPITE_OK)
            return status;
        event_free(q, s->event);
    } else {
        if (s->event->queued_at < q->oldest_bound)
            q->oldest_bound = s->event->queued_at;
        ring_push_head(q, s->event);
    }
    if (mine) {
        count_in_flight(q, -1, -size);
        count_pending(q, 1, size);
        q->stats.retried += retried;
    }
    s->event = NULL;
    return RESPITE_OK;
}

/* Puts the batch's retried (and, when releasing, unsettled) events back at
 * the head in batch order (D4). Lock held. */
static int requeue_locked(respite_queue *q, respite_batch *b, respite_error *err)
{
    size_t back = 0;
    for (int i = 0; i < b->count; i++) {
        int d = b->slots[i].disposition;
        if (b->slots[i].event && (d == RESPITE_DISPOSITION_RETRY || d == SLOT_UNSETTLED))
            back++;
    }
    if (back == 0)
        return RESPITE_OK;
    if (!q->store && !ring_reserve(q, q->count + back))
        return RESPITE_E_NO_MEMORY;
    for (int i = b->count - 1; i >= 0; i--) {
        batch_slot *s = &b->slots[i];
        if (!s->event || (s->disposition != RESPITE_DISPOSITION_RETRY && s->disposition != SLOT_UNSETTLED))
            continue;
        int status = requeue_one(q, b, s, err);
        if (status != RESPITE_OK)
            return status;
    }
    wake_waiters(q);
    return RESPITE_OK;
}

/* -1 on failure (err filled). */
static int settle_locked(respite_queue *q, respite_batch *b, int index, int disposition, respite_error *err)
{
    batch_slot *s = &b->slots[index];
    if (s->disposition != SLOT_UNSETTLED) {
        respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "event %d of the batch is already settled (%s)", index,
                     respite_disposition_name(s->disposition));
        return -1;
    }
    /* D3: at most retry_times + 1 attempts. */
    if (disposition == RESPITE_DISPOSITION_RETRY && s->event->attempts > q->retry_times)
        disposition = RESPITE_DISPOSITION_RETRIES_EXHAUSTED;
    /* In a file the row goes now; in memory the payload stays readable
     * until the batch is freed (so does the copy of a file's). */
    int where = STORE_MINE;
    if (disposition != RESPITE_DISPOSITION_RETRY && q->store &&
        respite_store_finish(q->store, s->event->id, &where, err) != RESPITE_OK)
        return -1;
    s->disposition = disposition;
    b->unsettled--;
    if (disposition == RESPITE_DISPOSITION_RETRY)
        return disposition; /* in flight until the batch is freed, then back to the head */
    if (where == STORE_ELSEWHERE)
        return disposition; /* L5: another handle claimed it again and counts it */
    if (where == STORE_MINE)
        count_in_flight(q, -1, -(int64_t)s->event->size);
    else
        count_pending(q, -1, -(int64_t)s->event->size);
    if (disposition == RESPITE_DISPOSITION_DELIVERED)
        q->stats.delivered++;
    else if (disposition == RESPITE_DISPOSITION_DISCARDED)
        q->stats.discarded++;
    else
        q->stats.retries_exhausted++;
    return disposition;
}

static int settle_check(respite_batch *batch, int disposition, respite_error *err)
{
    if (!batch)
        return respite_closed(RESPITE_HANDLE_BATCH, err);
    if (disposition < 0 || disposition >= RESPITE_DISPOSITION_COUNT)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "disposition must be one of delivered (0), retry (1), discarded (2), "
                            "retries_exhausted (3) (got %d)",
                            disposition);
    return RESPITE_OK;
}

/* Settles `index` (or, with index -1, every unsettled event) in one
 * transaction. Lock held. The slots of a failed file call are restored. */
static int settle_some(respite_queue *q, respite_batch *b, int index, int disposition, int *applied, int *settled,
                       respite_error *err)
{
    if (q->freed)
        return fail_closed(err);
    /* A file's call may fail half way: the slots as they were, to restore. */
    int *before = NULL;
    if (q->store && !(before = malloc((size_t)b->count * sizeof *before)))
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory settling %d events", b->count);
    int status = tx_begin(q, err);
    if (status != RESPITE_OK) {
        free(before);
        return status;
    }
    for (int i = 0; before && i < b->count; i++)
        before[i] = b->slots[i].disposition;
    int unsettled = b->unsettled;
    int failed = 0;
    *settled = 0;
    respite_error step; /* filled by a step that fails, read only then */
    respite_error_clear(&step);
    for (int i = index < 0 ? 0 : index; i < (index < 0 ? b->count : index + 1); i++) {
        if (index < 0 && b->slots[i].disposition != SLOT_UNSETTLED)
            continue;
        int d = settle_locked(q, b, i, disposition, &step);
        if (d >= 0) {
            *applied = d;
            (*settled)++;
        } else if (step.status == RESPITE_E_STORAGE || index >= 0) {
            if (err)
                *err = step;
            status = step.status;
            failed = step.status == RESPITE_E_STORAGE;
            break;
        }
    }
    if (!failed && (index < 0 || status == RESPITE_OK))
        status = tx_commit(q, err) != RESPITE_OK ? RESPITE_E_STORAGE : status;
    else
        tx_rollback(q);
    if (status == RESPITE_E_STORAGE && before) { /* nothing happened in the file */
        for (int i = 0; i < b->count; i++)
            b->slots[i].disposition = before[i];
        b->unsettled = unsettled;
        *settled = 0;
    }
    free(before);
    return status;
}

int respite_batch_settle(respite_batch *batch, int index, int disposition, respite_error *err)
{
    if (settle_check(batch, disposition, err) != RESPITE_OK)
        return -1;
    if (!slot_of(batch, index, err))
        return -1;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    int applied = -1, settled = 0;
    int status = settle_some(q, batch, index, disposition, &applied, &settled, err);
    pthread_mutex_unlock(&q->lock);
    return status == RESPITE_OK ? applied : -1;
}

int respite_batch_settle_every(respite_batch *batch, int disposition, int *settled, respite_error *err)
{
    int status = settle_check(batch, disposition, err);
    if (status != RESPITE_OK)
        return status;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    int applied = -1;
    *settled = 0;
    status = settle_some(q, batch, -1, disposition, &applied, settled, err);
    pthread_mutex_unlock(&q->lock);
    return status;
}

int respite_batch_settle_all(respite_batch *batch, int disposition, respite_error *err)
{
    int settled = -1;
    return respite_batch_settle_every(batch, disposition, &settled, err) == RESPITE_OK ? settled : -1;
}

/* In memory, no room to put events back: they cannot vanish uncounted. */
static void discard_unreturned(respite_queue *q, respite_batch *b)
{
    for (int i = 0; i < b->count; i++) {
        batch_slot *s = &b->slots[i];
        if (s->event && (s->disposition == SLOT_UNSETTLED || s->disposition == RESPITE_DISPOSITION_RETRY)) {
            count_in_flight(q, -1, -(int64_t)s->event->size);
            q->stats.discarded++;
            event_free(q, s->event);
            s->event = NULL;
        }
    }
}

void respite_batch_free(respite_batch *batch)
{
    if (!batch)
        return;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    if (!q->freed) {
        if (tx_begin(q, NULL) != RESPITE_OK || requeue_locked(q, batch, NULL) != RESPITE_OK) {
            /* A file keeps the claims until their leases end (L5). */
            tx_rollback(q);
            if (!q->store)
                discard_unreturned(q, batch);
        } else {
            tx_commit(q, NULL);
        }
    }
    for (int i = 0; i < batch->count; i++) /* settled, or the queue is gone, or a file's copy */
        if (batch->slots[i].event)
            event_free(q, batch->slots[i].event);
    int last = --q->refs == 0;
    if (!last && !q->freed && !q->spare) {
        q->spare = batch;
        batch = NULL;
    }
    pthread_mutex_unlock(&q->lock);
    if (batch) {
        free(batch->slots);
        free(batch);
    }
    if (last)
        queue_destroy(q);
}
