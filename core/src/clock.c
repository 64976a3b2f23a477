/* The monotonic clock behind every convenience wrapper; never the wall clock. */
#include "internal.h"

#include <time.h>

double respite_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
