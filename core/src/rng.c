/* SplitMix64 (Steele, Lea, Flood 2014): tiny, seedable, and simple enough to
 * restate exactly in every language's test of the conformance vectors. */
#include "rng.h"

#include <sys/random.h>
#include <time.h>

uint64_t respite_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

uint64_t respite_splitmix64_next(uint64_t *state)
{
    *state += UINT64_C(0x9E3779B97F4A7C15);
    return respite_mix64(*state);
}

double respite_unit_double(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1.0p-53;
}

uint64_t respite_os_seed(void)
{
    uint64_t seed = 0;
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        /* Without entropy, the clock still spreads processes apart. */
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = respite_mix64((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec);
    }
    return seed ? seed : UINT64_C(0x9E3779B97F4A7C15);
}
