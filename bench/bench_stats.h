/* Order statistics for the paired-round benchmarks: each reports the
 * median of per-round figures, never the best round. */
#ifndef RESPITE_BENCH_STATS_H
#define RESPITE_BENCH_STATS_H

#include <stdlib.h>

static inline int bench_compare_doubles(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static inline void bench_sort(double *values, int n)
{
    qsort(values, (size_t)n, sizeof *values, bench_compare_doubles);
}

/* Sorts `values`: afterwards [0] is the minimum and [n-1] the maximum. */
static inline double bench_median(double *values, int n)
{
    bench_sort(values, n);
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

#endif
