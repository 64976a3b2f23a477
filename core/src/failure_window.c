/* A ring of timestamps: a sliding window, not a count since the first failure,
 * so failures spread thinner than N per W never trip the gate. */
#include "failure_window.h"

#include <stdlib.h>

int respite_failure_window_init(respite_failure_window *w, int capacity)
{
    w->times = calloc((size_t)capacity, sizeof *w->times);
    w->capacity = capacity;
    w->head = 0;
    w->count = 0;
    return w->times ? 0 : -1;
}

void respite_failure_window_destroy(respite_failure_window *w)
{
    free(w->times);
    w->times = NULL;
}

int respite_failure_window_prune(respite_failure_window *w, double now, double width)
{
    while (w->count > 0 && now - w->times[w->head] >= width) {
        w->head = (w->head + 1) % w->capacity;
        w->count--;
    }
    return w->count;
}

int respite_failure_window_add(respite_failure_window *w, double now, double width)
{
    respite_failure_window_prune(w, now, width);
    if (w->count == w->capacity) {
        /* Full without tripping only happens when the caller keeps counting
         * past N (never for the gate); the oldest gives way. */
        w->head = (w->head + 1) % w->capacity;
        w->count--;
    }
    w->times[(w->head + w->count) % w->capacity] = now;
    w->count++;
    return w->count;
}

void respite_failure_window_clear(respite_failure_window *w)
{
    w->head = 0;
    w->count = 0;
}
