/* A ring of timestamps: a sliding window, not a count since the first failure,
 * so failures spread thinner than N per W never trip the gate. */
#include "failure_window.h"

void respite_failure_window_init(respite_failure_window *w, int capacity)
{
    w->capacity = capacity;
    w->head = 0;
    w->count = 0;
}

int respite_failure_window_prune(respite_failure_window *w, const double *times, double now, double width)
{
    while (w->count > 0 && now - times[w->head] >= width) {
        w->head = (w->head + 1) % w->capacity;
        w->count--;
    }
    return w->count;
}

int respite_failure_window_add(respite_failure_window *w, double *times, double now, double width)
{
    respite_failure_window_prune(w, times, now, width);
    if (w->count == w->capacity) {
        /* Full without tripping only happens when the caller keeps counting
         * past N (never for the gate); the oldest gives way. */
        w->head = (w->head + 1) % w->capacity;
        w->count--;
    }
    times[(w->head + w->count) % w->capacity] = now;
    w->count++;
    return w->count;
}

void respite_failure_window_clear(respite_failure_window *w)
{
    w->head = 0;
    w->count = 0;
}

void respite_failure_window_repair(respite_failure_window *w, int capacity)
{
    w->capacity = capacity;
    if (w->head < 0 || w->head >= capacity)
        w->head = 0;
    if (w->count < 0 || w->count > capacity)
        w->count = 0;
}
