/* Shared measurement loop of the OpenMP overhead benchmarks (EPCC style, Bull 1999 / Reid & Bull 2004):
 * the overhead of a construct is (time of a loop of it - time of the same work without it) / iterations.
 * Plain OpenMP and libc only: the same source is built against libgomp, LLVM's libomp and mpcrt. */
#ifndef MPCRT_BENCH_OMP_H
#define MPCRT_BENCH_OMP_H

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int bench_sink;

/* A fixed amount of work that the compiler cannot remove, on a local accumulator as EPCC's delay: the work
 * touches no shared line. It used to store each step into bench_sink, a global every thread wrote, so the
 * delay itself moved that line between the cores and a row measured the benchmark's own false sharing as
 * much as the runtime (static_1, critical and lock most, and libgomp's times swung 2x with it). */
static inline void bench_delay(int n)
{
    float sum = 0.0f;
    for (int i = 0; i < n; i++) {
        sum += (float)i;
        __asm__ volatile("" : "+x"(sum)); /* n dependent adds, not folded at a constant n */
    }
    if (sum < 0.0f)
        bench_sink = (int)sum; /* never: only makes the result live */
}

typedef void (*bench_fn)(int iterations);

static int bench_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Iterations such that one run of bench takes at least target_s: runtimes differ by 100x on an
 * oversubscribed core, so a fixed count is either too short for some or too long for others. */
static inline int bench_calibrate(bench_fn bench, double target_s)
{
    int n = 8;
    for (;;) {
        double t0 = omp_get_wtime();
        bench(n);
        double t = omp_get_wtime() - t0;
        if (t >= target_s || n >= (1 << 24)) return n;
        n = t > target_s / 64 ? (int)(n * target_s / t * 1.2) + 1 : n * 8;
    }
}

/* Microseconds per construct: median over reps of (bench - reference) / iterations. */
static inline double bench_measure(bench_fn bench, bench_fn reference, int reps, double target_s)
{
    double samples[256];
    if (reps > 256) reps = 256;
    bench(16); /* warm up: teams created, pages touched */
    int n = bench_calibrate(bench, target_s);
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
        bench(n);
        double t1 = omp_get_wtime();
        reference(n);
        double t2 = omp_get_wtime();
        samples[r] = ((t1 - t0) - (t2 - t1)) / n * 1e6;
    }
    qsort(samples, (size_t)reps, sizeof *samples, bench_cmp);
    return samples[reps / 2];
}

/* Arguments and selection shared by the benchmark programs: [repetitions] [milliseconds per sample],
 * BENCH_ONLY=name,name selects tests. */
typedef struct {
    int reps;
    double target_s;
    const char *only;
} bench_args_t;

static inline int bench_parse(int argc, char **argv, bench_args_t *a)
{
    a->reps = argc > 1 ? atoi(argv[1]) : 11;
    a->target_s = (argc > 2 ? atof(argv[2]) : 20.0) / 1e3;
    a->only = getenv("BENCH_ONLY");
    if (a->reps < 1 || a->reps > 256 || a->target_s <= 0) {
        fprintf(stderr, "usage: %s [repetitions 1-256] [milliseconds per sample]\n", argv[0]);
        return -1;
    }
    return 0;
}

static inline int bench_selected(const bench_args_t *a, const char *name)
{
    if (!a->only) return 1;
    size_t len = strlen(name);
    for (const char *p = a->only; (p = strstr(p, name)) != NULL; p += len)
        if ((p == a->only || p[-1] == ',') && (p[len] == '\0' || p[len] == ',')) return 1;
    return 0;
}

#endif
