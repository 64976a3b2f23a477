/* The bounded delivery queue (D3-D6, D9): a ring of event pointers that can
 * grow at both ends, under one lock. Every event accepted is counted under
 * exactly one heading of respite_queue_stats at every moment. */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct queue_event {
    double queued_at; /* when first accepted; retries keep it (D6) */
    int attempts;
    size_t size;
    char data[]; /* size bytes + NUL */
} queue_event;

/* Q9: the longest wait (about 31 years); a longer one is refused, not cut,
 * and the deadline stays far inside time_t. */
#define WAIT_MAX_SECONDS 1e9

/* Memory one event holds, as live_bytes counts it. */
#define EVENT_BYTES(size) ((int64_t)(sizeof(queue_event) + (size) + 1))

struct respite_queue {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* signalled for respite_queue_wait */
    int waiters;
    int64_t wait_for;       /* smallest min_pending a waiter wants */

    queue_event **ring;
    size_t ring_size; /* power of two */
    size_t head;
    size_t count; /* pending */

    int64_t capacity;
    int64_t max_bytes;
    int overflow;
    double ttl; /* 0: none */
    int retry_times;

    int closed;
    int freed;     /* the last holder let go; batches keep the struct alive */
    int holders;   /* the creator + one per engine using the queue */
    int refs;      /* 1 while there are holders + one per live batch */
    const respite_policy *policy; /* held: the engine reads its handlers */
    double last_now;
    double oldest_bound; /* no pending event was queued before this (for expire) */

    respite_queue_stats stats;
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

static queue_event *ring_pop_head(respite_queue *q)
{
    queue_event *e = q->ring[q->head];
    q->head = (q->head + 1) & (q->ring_size - 1);
    q->count--;
    q->stats.pending--;
    q->stats.pending_bytes -= (int64_t)e->size;
    return e;
}

/* Room is reserved by the caller. */
static void ring_push_head(respite_queue *q, queue_event *e)
{
    q->head = (q->head + q->ring_size - 1) & (q->ring_size - 1);
    q->ring[q->head] = e;
    q->count++;
    q->stats.pending++;
    q->stats.pending_bytes += (int64_t)e->size;
}

static void ring_push_tail(respite_queue *q, queue_event *e)
{
    q->ring[(q->head + q->count) & (q->ring_size - 1)] = e;
    q->count++;
    q->stats.pending++;
    q->stats.pending_bytes += (int64_t)e->size;
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

/* ------------------------------------------------------------- lifecycle */

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
    q->stats.capacity = q->capacity;
    q->stats.max_bytes = q->max_bytes;
    q->stats.overflow = q->overflow;
    q->stats.retry_times = q->retry_times;
    q->stats.event_ttl = q->ttl;
    q->refs = 1;
    q->holders = 1;
    q->policy = respite_policy_retain(policy);
    q->oldest_bound = INFINITY;
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
    return respite_fail(err, RESPITE_E_CLOSED, "queue is closed");
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

    /* Copy before taking the lock so producers contend only for the ring. */
    queue_event *e = NULL;
    if (queue->max_bytes == 0 || (int64_t)size <= queue->max_bytes) {
        e = malloc(sizeof *e + size + 1);
        if (!e)
            return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory copying an event of %zu bytes", size);
        memcpy(e->data, data, size);
        e->data[size] = '\0';
        e->size = size;
        e->attempts = 0;
    }

    pthread_mutex_lock(&queue->lock);
    int status = RESPITE_OK;
    if (queue->closed) {
        queue->stats.refused_closed++;
        status = fail_closed(err);
        goto refuse;
    }
    if (!e) {
        queue->stats.refused_too_large++;
        status = respite_fail(err, RESPITE_E_TOO_LARGE,
                              "an event of %zu bytes is larger than max_bytes (%lld bytes)", size,
                              (long long)queue->max_bytes);
        goto refuse;
    }
    int over_count = queue->stats.pending >= queue->capacity;
    int over_bytes = queue->max_bytes && queue->stats.pending_bytes + (int64_t)size > queue->max_bytes;
    if (over_count || over_bytes) {
        if (queue->overflow == RESPITE_OVERFLOW_DROP_NEWEST) {
            queue->stats.refused_full++;
            if (over_count)
                status = respite_fail(err, RESPITE_E_QUEUE_FULL,
                                      "the queue is full (%lld events, maximum_capacity %lld); "
                                      "overflow drop_newest refuses new events",
                                      (long long)queue->stats.pending, (long long)queue->capacity);
            else
                status = respite_fail(err, RESPITE_E_QUEUE_FULL,
                                      "the queue is full (%lld bytes queued, an event of %zu bytes, max_bytes %lld); "
                                      "overflow drop_newest refuses new events",
                                      (long long)queue->stats.pending_bytes, size, (long long)queue->max_bytes);
            goto refuse;
        }
        /* drop_oldest: evict from the head until the event fits (D5). */
        while (queue->count && (queue->stats.pending >= queue->capacity ||
                                (queue->max_bytes &&
                                 queue->stats.pending_bytes + (int64_t)size > queue->max_bytes))) {
            event_free(queue, ring_pop_head(queue));
            queue->stats.dropped_capacity++;
        }
    }
    if (!ring_reserve(queue, queue->count + 1)) {
        status = respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory growing the queue");
        goto refuse;
    }
    e->queued_at = queue_time(queue, now);
    if (e->queued_at < queue->oldest_bound)
        queue->oldest_bound = e->queued_at;
    ring_push_tail(queue, e);
    queue->stats.accepted++;
    queue->stats.live_bytes += EVENT_BYTES(size);
    wake_waiters(queue);
    pthread_mutex_unlock(&queue->lock);
    return RESPITE_OK;

refuse:
    pthread_mutex_unlock(&queue->lock);
    free(e);
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

int64_t respite_queue_pending(respite_queue *queue, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    pthread_mutex_lock(&queue->lock);
    int64_t pending = queue->stats.pending;
    pthread_mutex_unlock(&queue->lock);
    return pending;
}

/* ---------------------------------------------------------------- expiry */

static int expired_at(const respite_queue *q, const queue_event *e, double now)
{
    return q->ttl > 0 && now - e->queued_at >= q->ttl; /* age == TTL drops (D6) */
}

/* Full sweep, skipped while the oldest possible event is still young. */
static int64_t expire_locked(respite_queue *q, double now)
{
    if (q->ttl <= 0 || q->count == 0 || now - q->oldest_bound < q->ttl)
        return 0;
    int64_t dropped = 0;
    size_t kept = 0;
    double oldest = INFINITY;
    for (size_t i = 0; i < q->count; i++) {
        queue_event *e = ring_at(q, i);
        if (expired_at(q, e, now)) {
            q->stats.pending_bytes -= (int64_t)e->size;
            event_free(q, e);
            dropped++;
            continue;
        }
        if (e->queued_at < oldest)
            oldest = e->queued_at;
        q->ring[(q->head + kept++) & (q->ring_size - 1)] = e;
    }
    q->count = kept;
    q->stats.pending = (int64_t)kept;
    q->stats.expired += dropped;
    q->oldest_bound = oldest;
    return dropped;
}

int64_t respite_queue_expire(respite_queue *queue, double now, respite_error *err)
{
    if (!queue)
        return fail_closed(err), -1;
    if (respite_check_time(now, "now", err) != RESPITE_OK)
        return -1;
    pthread_mutex_lock(&queue->lock);
    int64_t dropped = expire_locked(queue, queue_time(queue, now));
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
    /* Drop expired events at the head first, so an empty result is honest. */
    while (queue->count && expired_at(queue, ring_at(queue, 0), now)) {
        event_free(queue, ring_pop_head(queue));
        queue->stats.expired++;
    }
    if (queue->count == 0) {
        pthread_mutex_unlock(&queue->lock);
        return NULL;
    }
    int want = (size_t)max_events < queue->count ? max_events : (int)queue->count;
    respite_batch *b = batch_alloc(queue, want);
    if (!b) {
        pthread_mutex_unlock(&queue->lock);
        respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory taking %d events", want);
        return NULL;
    }
    int n = 0;
    while (n < want && queue->count) {
        queue_event *e = ring_pop_head(queue);
        if (expired_at(queue, e, now)) { /* D6: never attempted once expired */
            event_free(queue, e);
            queue->stats.expired++;
            continue;
        }
        e->attempts++;
        b->slots[n].event = e;
        b->slots[n].disposition = SLOT_UNSETTLED;
        queue->stats.in_flight++;
        queue->stats.in_flight_bytes += (int64_t)e->size;
        n++;
    }
    if (n == 0) { /* everything it met had expired */
        if (!queue->spare)
            queue->spare = b;
        else {
            free(b->slots);
            free(b);
        }
        pthread_mutex_unlock(&queue->lock);
        return NULL;
    }
    b->queue = queue;
    b->count = n;
    b->unsettled = n;
    queue->refs++;
    pthread_mutex_unlock(&queue->lock);
    return b;
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
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
    double whole = floor(timeout_seconds);
    deadline.tv_sec += (time_t)whole;
    deadline.tv_nsec += (long)((timeout_seconds - whole) * 1e9);
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&queue->lock);
    int ready = 0;
    for (;;) {
        if (queue->stats.pending >= min_pending || queue->closed) {
            ready = 1;
            break;
        }
        queue->waiters++;
        if (queue->waiters == 1 || min_pending < queue->wait_for)
            queue->wait_for = min_pending;
        int rc = pthread_cond_timedwait(&queue->changed, &queue->lock, &deadline);
        queue->waiters--;
        if (rc == ETIMEDOUT) {
            ready = queue->stats.pending >= min_pending || queue->closed;
            break;
        }
    }
    pthread_mutex_unlock(&queue->lock);
    return ready;
}

/* ----------------------------------------------------------------- stats */

int respite_queue_stats_get(respite_queue *queue, respite_queue_stats *out, respite_error *err)
{
    if (!queue)
        return fail_closed(err);
    if (!out)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT, "out must not be NULL");
    pthread_mutex_lock(&queue->lock);
    *out = queue->stats;
    pthread_mutex_unlock(&queue->lock);
    return RESPITE_OK;
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
    if (!batch) {
        respite_fail(err, RESPITE_E_CLOSED, "batch is closed");
        return NULL;
    }
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

int respite_batch_event_disposition(const respite_batch *batch, int index, respite_error *err)
{
    const batch_slot *s = slot_of(batch, index, err);
    return s ? s->disposition : -1;
}

/* Puts the batch's retried (and, when releasing, unsettled) events back at
 * the head in batch order (D4). Lock held. */
static int requeue_locked(respite_queue *q, respite_batch *b, int release_unsettled)
{
    size_t back = 0;
    for (int i = 0; i < b->count; i++) {
        int d = b->slots[i].disposition;
        if (b->slots[i].event && (d == RESPITE_DISPOSITION_RETRY || (release_unsettled && d == SLOT_UNSETTLED)))
            back++;
    }
    if (back == 0)
        return 1;
    if (!ring_reserve(q, q->count + back))
        return 0;
    for (int i = b->count - 1; i >= 0; i--) {
        batch_slot *s = &b->slots[i];
        if (!s->event)
            continue;
        if (s->disposition == RESPITE_DISPOSITION_RETRY) {
            q->stats.retried++;
        } else if (release_unsettled && s->disposition == SLOT_UNSETTLED) {
            s->event->attempts--; /* never sent */
            b->unsettled--;
        } else {
            continue;
        }
        q->stats.in_flight--;
        q->stats.in_flight_bytes -= (int64_t)s->event->size;
        if (s->event->queued_at < q->oldest_bound)
            q->oldest_bound = s->event->queued_at;
        ring_push_head(q, s->event);
        s->event = NULL;
    }
    wake_waiters(q);
    return 1;
}

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
    s->disposition = disposition;
    b->unsettled--;
    if (disposition == RESPITE_DISPOSITION_RETRY)
        return disposition; /* in flight until the batch is freed, then back to the head */
    q->stats.in_flight--;
    q->stats.in_flight_bytes -= (int64_t)s->event->size;
    if (disposition == RESPITE_DISPOSITION_DELIVERED)
        q->stats.delivered++;
    else if (disposition == RESPITE_DISPOSITION_DISCARDED)
        q->stats.discarded++;
    else
        q->stats.retries_exhausted++;
    /* The payload stays readable until the batch is freed. */
    return disposition;
}

static int settle_check(respite_batch *batch, int disposition, respite_error *err)
{
    if (!batch)
        return respite_fail(err, RESPITE_E_CLOSED, "batch is closed");
    if (disposition < 0 || disposition >= RESPITE_DISPOSITION_COUNT)
        return respite_fail(err, RESPITE_E_INVALID_ARGUMENT,
                            "disposition must be one of delivered (0), retry (1), discarded (2), "
                            "retries_exhausted (3) (got %d)",
                            disposition);
    return RESPITE_OK;
}

int respite_batch_settle(respite_batch *batch, int index, int disposition, respite_error *err)
{
    if (settle_check(batch, disposition, err) != RESPITE_OK)
        return -1;
    if (!slot_of(batch, index, err))
        return -1;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    int applied = -1;
    if (q->freed)
        fail_closed(err);
    else
        applied = settle_locked(q, batch, index, disposition, err);
    pthread_mutex_unlock(&q->lock);
    return applied;
}

int respite_batch_settle_every(respite_batch *batch, int disposition, int *settled, respite_error *err)
{
    int status = settle_check(batch, disposition, err);
    if (status != RESPITE_OK)
        return status;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    *settled = 0;
    if (q->freed) {
        status = fail_closed(err);
    } else {
        for (int i = 0; i < batch->count; i++)
            if (batch->slots[i].disposition == SLOT_UNSETTLED && settle_locked(q, batch, i, disposition, err) >= 0)
                (*settled)++;
    }
    pthread_mutex_unlock(&q->lock);
    return status;
}

int respite_batch_settle_all(respite_batch *batch, int disposition, respite_error *err)
{
    int settled = -1;
    return respite_batch_settle_every(batch, disposition, &settled, err) == RESPITE_OK ? settled : -1;
}

void respite_batch_free(respite_batch *batch)
{
    if (!batch)
        return;
    respite_queue *q = batch->queue;
    pthread_mutex_lock(&q->lock);
    if (!q->freed && !requeue_locked(q, batch, 1)) {
        /* No memory to put them back: they cannot vanish uncounted. */
        for (int i = 0; i < batch->count; i++) {
            batch_slot *s = &batch->slots[i];
            if (s->event && (s->disposition == SLOT_UNSETTLED || s->disposition == RESPITE_DISPOSITION_RETRY)) {
                q->stats.in_flight--;
                q->stats.in_flight_bytes -= (int64_t)s->event->size;
                q->stats.discarded++;
                event_free(q, s->event);
                s->event = NULL;
            }
        }
    }
    for (int i = 0; i < batch->count; i++) /* settled, or the queue is gone */
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
