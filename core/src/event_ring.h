/* A bounded, thread-safe ring of events for one handle (G18): the newest
 * `capacity` events are kept; on overflow the oldest is dropped and counted.
 * An optional C callback sees every event as it is pushed. */
#ifndef RESPITE_EVENT_RING_H
#define RESPITE_EVENT_RING_H

#include "internal.h"

#include <pthread.h>
#include <stdatomic.h>

typedef struct respite_event_ring {
    pthread_mutex_t lock;
    respite_event *events;
    size_t capacity;
    size_t head;  /* index of the oldest event */
    size_t count;
    _Atomic size_t pending; /* count, readable without the lock */
    int64_t dropped;
    respite_event_callback callback;
    void *user_data;
} respite_event_ring;

/* The sender (librespite_http) keeps a ring too: these four are exported
 * as respite_internal_ (internal.h). */
#define respite_event_ring_init respite_internal_event_ring_init
#define respite_event_ring_destroy respite_internal_event_ring_destroy
#define respite_event_ring_push respite_internal_event_ring_push
#define respite_event_ring_pop respite_internal_event_ring_pop

/* Prepares an empty ring; RESPITE_OK or RESPITE_E_NO_MEMORY (err filled). */
RESPITE_INTERNAL_API int respite_internal_event_ring_init(respite_event_ring *ring, size_t capacity,
                                                          respite_error *err);
RESPITE_INTERNAL_API void respite_internal_event_ring_destroy(respite_event_ring *ring);

/* Stores a copy of *event (dropping the oldest when full), then calls the
 * callback, outside the ring's lock but inside whatever lock the caller holds. */
RESPITE_INTERNAL_API void respite_internal_event_ring_push(respite_event_ring *ring, const respite_event *event);

/* Takes the oldest event: 1 and *out filled, or 0 when the ring is empty. */
RESPITE_INTERNAL_API int respite_internal_event_ring_pop(respite_event_ring *ring, respite_event *out);

/* Events dropped because the ring was full. */
int64_t respite_event_ring_dropped(respite_event_ring *ring);

/* Events waiting to be popped, without taking the lock (a snapshot: a
 * reader that sees 0 may miss an event pushed at that moment, and sees it
 * on its next look). */
size_t respite_event_ring_pending(const respite_event_ring *ring);

/* Registers (or, with NULL, removes) the callback. */
void respite_event_ring_set_callback(respite_event_ring *ring, respite_event_callback callback, void *user_data);

#endif
