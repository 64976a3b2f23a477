/* Monotonic time and sleeping for the HTTP module (never the wall clock). */
#include "http_internal.h"

#include <math.h>

long long respite_http_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

void respite_http_sleep(double seconds)
{
    respite_sleep_seconds(seconds > 86400.0 ? 86400.0 : seconds);
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

struct timespec respite_http_deadline_in(double seconds)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if (!(seconds < 86400.0))
        seconds = 86400.0;
    if (seconds < 0)
        seconds = 0;
    double whole = floor(seconds);
    ts.tv_sec += (time_t)whole;
    ts.tv_nsec += (long)((seconds - whole) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}
