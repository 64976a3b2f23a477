/* A bounded ring of events: producers never block on a slow reader, and a
 * reader that falls behind loses the oldest events, counted, not the newest. */
#include "event_ring.h"

#include <stdlib.h>

int respite_event_ring_init(respite_event_ring *ring, size_t capacity, respite_error *err)
{
    ring->events = calloc(capacity ? capacity : 1, sizeof *ring->events);
    if (!ring->events)
        return respite_fail(err, RESPITE_E_NO_MEMORY, "out of memory allocating %zu events", capacity);
    ring->capacity = capacity ? capacity : 1;
    ring->head = 0;
    ring->count = 0;
    atomic_init(&ring->pending, 0);
    ring->dropped = 0;
    ring->callback = NULL;
    ring->user_data = NULL;
    pthread_mutex_init(&ring->lock, NULL);
    return RESPITE_OK;
}

void respite_event_ring_destroy(respite_event_ring *ring)
{
    if (!ring->events)
        return;
    pthread_mutex_destroy(&ring->lock);
    free(ring->events);
    ring->events = NULL;
}

void respite_event_ring_push(respite_event_ring *ring, const respite_event *event)
{
    pthread_mutex_lock(&ring->lock);
    if (ring->count == ring->capacity) {
        ring->head = (ring->head + 1) % ring->capacity;
        ring->count--;
        ring->dropped++;
    }
    ring->events[(ring->head + ring->count) % ring->capacity] = *event;
    ring->count++;
    atomic_store_explicit(&ring->pending, ring->count, memory_order_release);
    respite_event_callback callback = ring->callback;
    void *user_data = ring->user_data;
    pthread_mutex_unlock(&ring->lock);
    if (callback)
        callback(event, user_data);
}

int respite_event_ring_pop(respite_event_ring *ring, respite_event *out)
{
    pthread_mutex_lock(&ring->lock);
    int taken = ring->count > 0;
    if (taken) {
        *out = ring->events[ring->head];
        ring->head = (ring->head + 1) % ring->capacity;
        ring->count--;
        atomic_store_explicit(&ring->pending, ring->count, memory_order_release);
    }
    pthread_mutex_unlock(&ring->lock);
    return taken;
}

int64_t respite_event_ring_dropped(respite_event_ring *ring)
{
    pthread_mutex_lock(&ring->lock);
    int64_t dropped = ring->dropped;
    pthread_mutex_unlock(&ring->lock);
    return dropped;
}

size_t respite_event_ring_pending(const respite_event_ring *ring)
{
    return atomic_load_explicit(&ring->pending, memory_order_acquire);
}

void respite_event_ring_set_callback(respite_event_ring *ring, respite_event_callback callback, void *user_data)
{
    pthread_mutex_lock(&ring->lock);
    ring->callback = callback;
    ring->user_data = user_data;
    pthread_mutex_unlock(&ring->lock);
}
