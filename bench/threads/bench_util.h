/* Timing helpers for the scheduler micro-benchmarks: monotonic clock and the median of repetitions. */
#ifndef MPCRT_BENCH_UTIL_H
#define MPCRT_BENCH_UTIL_H

#include <stdlib.h>
#include <time.h>

static inline double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts samples in place; returns the median. */
static inline double median(double *samples, int n)
{
    qsort(samples, (size_t)n, sizeof *samples, compare_doubles);
    return n % 2 ? samples[n / 2] : (samples[n / 2 - 1] + samples[n / 2]) / 2;
}

#endif
