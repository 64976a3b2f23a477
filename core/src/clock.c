/* The monotonic clock behind every convenience wrapper (never the wall
 * clock), and the one sleep the core uses. */
#include "internal.h"

#include <errno.h>
#include <time.h>

double respite_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void respite_sleep_seconds(double seconds)
{
    if (!(seconds > 0.0))
        return;
    struct timespec left;
    left.tv_sec = (time_t)seconds;
    left.tv_nsec = (long)((seconds - (double)left.tv_sec) * 1e9);
    if (left.tv_nsec > 999999999L)
        left.tv_nsec = 999999999L;
    /* A signal must not shorten the wait: sleep out what is left. */
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}
