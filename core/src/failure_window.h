/* The sliding window of counted-failure timestamps (G2): a ring of at most
 * N times, oldest first. The times live wherever the gate's state lives (a
 * process's memory or a shared file), so the ring keeps only indices and
 * every call is handed the array. Not thread-safe: the gate's lock guards it. */
#ifndef RESPITE_FAILURE_WINDOW_H
#define RESPITE_FAILURE_WINDOW_H

#include <stddef.h>

typedef struct respite_failure_window {
    int capacity; /* N */
    int head;     /* the oldest entry */
    int count;
} respite_failure_window;

/* An empty window of `capacity` times (the array must hold that many). */
void respite_failure_window_init(respite_failure_window *w, int capacity);

/* Drops entries that are `width` or more seconds old at `now` (they leave
 * when now - t >= width), then adds `now`. Returns the count afterwards.
 * Times must not decrease (the gate never lets time go backwards). */
int respite_failure_window_add(respite_failure_window *w, double *times, double now, double width);

/* Drops entries that have left the window at `now`; returns the count. */
int respite_failure_window_prune(respite_failure_window *w, const double *times, double now, double width);

void respite_failure_window_clear(respite_failure_window *w);

/* Brings head and count back in range (after a process died mid-update). */
void respite_failure_window_repair(respite_failure_window *w, int capacity);

#endif
