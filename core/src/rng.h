/* The generators behind jitter, written out in docs/spec.md so a seeded run
 * gives the same numbers in every language. */
#ifndef RESPITE_RNG_H
#define RESPITE_RNG_H

#include <stdint.h>

/* SplitMix64: advances *state by 0x9E3779B97F4A7C15 and returns mix64 of it. */
uint64_t respite_splitmix64_next(uint64_t *state);

/* The SplitMix64 finalizer (a bijective 64-bit mix). */
uint64_t respite_mix64(uint64_t x);

/* A double uniform in [0, 1) from the top 53 bits: (bits >> 11) * 2^-53. */
double respite_unit_double(uint64_t bits);

/* A seed from the operating system (getrandom), never 0; used when the
 * `seed` setting is 0. */
uint64_t respite_os_seed(void);

#endif
