/* OpenMP synchronization overheads (in the spirit of the EPCC syncbench): the cost of one construct,
 * measured as (time of a loop of it - time of the same loop without it) / iterations, repeated and
 * reported as the median over repetitions. Plain OpenMP: the same source is built against libgomp,
 * LLVM's libomp and mpcrt (see bench/omp/run).
 *     omp_overhead [repetitions] [inner iterations]      (threads: OMP_NUM_THREADS) */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reps = 21, inner = 2000;
static volatile int sink;

static void delay(int n)
{
    for (int i = 0; i < n; i++)
        sink = i;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

typedef void (*bench_fn)(int iterations);

/* Time per construct in microseconds: median over repetitions of (bench - reference) / iterations. */
static double measure(bench_fn bench, bench_fn reference, int iterations)
{
    double samples[256];
    bench(iterations / 10 + 1); /* warm up: teams created, pages touched */
    for (int r = 0; r < reps; r++) {
        double t0 = omp_get_wtime();
        bench(iterations);
        double t1 = omp_get_wtime();
        reference(iterations);
        double t2 = omp_get_wtime();
        samples[r] = ((t1 - t0) - (t2 - t1)) / iterations * 1e6;
    }
    return median(samples, reps);
}

static void ref_serial(int n)
{
    for (int i = 0; i < n; i++)
        delay(10);
}

static void b_parallel(int n)
{
    for (int i = 0; i < n; i++) {
#pragma omp parallel
        delay(10);
    }
}

static void ref_in_parallel(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++)
        delay(10);
}

static void b_barrier(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
        delay(10);
#pragma omp barrier
    }
}

static void b_for(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
#pragma omp for
        for (int j = 0; j < omp_get_num_threads(); j++)
            delay(10);
    }
}

static void b_single(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
#pragma omp single
        delay(10);
    }
}

static void b_critical(int n)
{
#pragma omp parallel
    for (int i = 0; i < n / omp_get_num_threads(); i++) {
#pragma omp critical
        delay(10);
    }
}

static void b_reduction(int n)
{
    for (int i = 0; i < n; i++) {
        int x = 0;
#pragma omp parallel reduction(+ : x)
        {
            delay(10);
            x = 1;
        }
        sink = x;
    }
}

static void b_tasks(int n)
{
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++) {
#pragma omp task
        delay(10);
    }
}

static void b_parallel_nested(int n)
{
    for (int i = 0; i < n; i++) {
#pragma omp parallel
#pragma omp parallel num_threads(2)
        delay(10);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1)
        reps = atoi(argv[1]);
    if (argc > 2)
        inner = atoi(argv[2]);
    if (reps < 1 || reps > 256 || inner < 10) {
        fprintf(stderr, "usage: %s [repetitions 1-256] [iterations >= 10]\n", argv[0]);
        return 2;
    }
    const char *only = getenv("BENCH_ONLY");
    struct {
        const char *name;
        bench_fn bench, reference;
        int scale;
    } tests[] = {
        {"parallel", b_parallel, ref_serial, 1},       {"barrier", b_barrier, ref_in_parallel, 4},
        {"for", b_for, ref_in_parallel, 4},            {"single", b_single, ref_in_parallel, 4},
        {"critical", b_critical, ref_serial, 4},       {"reduction", b_reduction, ref_serial, 1},
        {"task", b_tasks, ref_serial, 4},              {"parallel_nested", b_parallel_nested, ref_serial, 1},
    };
    printf("# threads %d, %d repetitions; microseconds per construct (median)\n", omp_get_max_threads(), reps);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (only && !strstr(only, tests[i].name))
            continue;
        if (!strcmp(tests[i].name, "parallel_nested"))
            omp_set_max_active_levels(2);
        double us = measure(tests[i].bench, tests[i].reference, inner * tests[i].scale);
        printf("%-16s %10.3f\n", tests[i].name, us);
        fflush(stdout);
    }
    return 0;
}
