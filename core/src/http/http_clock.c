/* Monotonic time and sleeping for the HTTP module (never the wall clock). */
#include "http_internal.h"

#include <errno.h>

long long respite_http_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void respite_http_sleep(double seconds)
{
    if (!(seconds > 0.0))
        return;
    if (seconds > 86400.0)
        seconds = 86400.0;
    struct timespec left;
    left.tv_sec = (time_t)seconds;
    left.tv_nsec = (long)((seconds - (double)left.tv_sec) * 1e9);
    if (left.tv_nsec > 999999999L)
        left.tv_nsec = 999999999L;
    /* A signal must not shorten the wait: sleep out what is left. */
    while (nanosleep(&left, &left) != 0 && errno == EINTR) {
    }
}

long respite_http_timeout_ms(double seconds)
{
    double ms = seconds * 1000.0;
    if (!(ms >= 1.0))
        return 1;
    if (ms > 86400000.0)
        ms = 86400000.0;
    return (long)(ms + 0.5);
}
