/* The sliding window of counted-failure timestamps (G2): a ring of at most
 * N times, oldest first. Not thread-safe: the gate's lock guards it. */
#ifndef RESPITE_FAILURE_WINDOW_H
#define RESPITE_FAILURE_WINDOW_H

#include <stddef.h>

typedef struct respite_failure_window {
    double *times;
    int capacity; /* N */
    int head;     /* the oldest entry */
    int count;
} respite_failure_window;

/* 0, or -1 when out of memory. */
int respite_failure_window_init(respite_failure_window *w, int capacity);
void respite_failure_window_destroy(respite_failure_window *w);

/* Drops entries that are `width` or more seconds old at `now` (they leave
 * when now - t >= width), then adds `now`. Returns the count afterwards.
 * Times must not decrease (the gate never lets time go backwards). */
int respite_failure_window_add(respite_failure_window *w, double now, double width);

/* Drops entries that have left the window at `now`; returns the count. */
int respite_failure_window_prune(respite_failure_window *w, double now, double width);

void respite_failure_window_clear(respite_failure_window *w);

#endif
