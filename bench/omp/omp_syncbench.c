/* OpenMP synchronization overheads in the manner of EPCC's syncbench: parallel, for, parallel for,
 * barrier, single, critical, lock, atomic, reduction (and task, nested parallel), each in microseconds
 * per construct (median). Threads: OMP_NUM_THREADS.
 *     omp_syncbench [repetitions] [milliseconds per sample]      BENCH_ONLY=barrier,lock selects */
#include "omp_bench.h"

#define DELAY 10

static omp_lock_t lock;
static int shared_count;

static void ref_serial(int n)
{
    for (int i = 0; i < n; i++)
        bench_delay(DELAY);
}

static void ref_in_parallel(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++)
        bench_delay(DELAY);
}

/* Work divided among the team, as the contended constructs divide it. */
static void ref_in_parallel_shared(int n)
{
#pragma omp parallel
    for (int i = 0; i < n / omp_get_num_threads(); i++)
        bench_delay(DELAY);
}

/* The same increments on a private counter: what is left is the atomicity and the shared line. */
static void ref_atomic(int n)
{
#pragma omp parallel
    {
        volatile int mine = 0;
        for (int i = 0; i < n / omp_get_num_threads(); i++)
            mine += 1;
    }
}

static void b_parallel(int n)
{
    for (int i = 0; i < n; i++) {
#pragma omp parallel
        bench_delay(DELAY);
    }
}

static void b_for(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
#pragma omp for
        for (int j = 0; j < omp_get_num_threads(); j++)
            bench_delay(DELAY);
    }
}

static void b_parallel_for(int n)
{
    int nthreads = omp_get_max_threads();
    for (int i = 0; i < n; i++) {
#pragma omp parallel for
        for (int j = 0; j < nthreads; j++)
            bench_delay(DELAY);
    }
}

static void b_barrier(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
        bench_delay(DELAY);
#pragma omp barrier
    }
}

static void b_single(int n)
{
#pragma omp parallel
    for (int i = 0; i < n; i++) {
#pragma omp single
        bench_delay(DELAY);
    }
}

static void b_critical(int n)
{
#pragma omp parallel
    for (int i = 0; i < n / omp_get_num_threads(); i++) {
#pragma omp critical
        bench_delay(DELAY);
    }
}

static void b_lock(int n)
{
#pragma omp parallel
    for (int i = 0; i < n / omp_get_num_threads(); i++) {
        omp_set_lock(&lock);
        bench_delay(DELAY);
        omp_unset_lock(&lock);
    }
}

static void b_atomic(int n)
{
#pragma omp parallel
    for (int i = 0; i < n / omp_get_num_threads(); i++) {
#pragma omp atomic
        shared_count += 1;
    }
}

static void b_reduction(int n)
{
    for (int i = 0; i < n; i++) {
        int x = 0;
#pragma omp parallel reduction(+ : x)
        {
            bench_delay(DELAY);
            x = 1;
        }
        bench_sink = x;
    }
}

static void b_task(int n)
{
#pragma omp parallel
#pragma omp single
    for (int i = 0; i < n; i++) {
#pragma omp task
        bench_delay(DELAY);
    }
}

static void b_parallel_nested(int n)
{
    for (int i = 0; i < n; i++) {
#pragma omp parallel
#pragma omp parallel num_threads(2)
        bench_delay(DELAY);
    }
}

int main(int argc, char **argv)
{
    bench_args_t args;
    if (bench_parse(argc, argv, &args) != 0) return 2;
    omp_init_lock(&lock);
    static const struct {
        const char *name;
        bench_fn bench, reference;
    } tests[] = {
        {"parallel", b_parallel, ref_serial},
        {"for", b_for, ref_in_parallel},
        {"parallel_for", b_parallel_for, ref_serial},
        {"barrier", b_barrier, ref_in_parallel},
        {"single", b_single, ref_in_parallel},
        {"critical", b_critical, ref_in_parallel_shared},
        {"lock", b_lock, ref_in_parallel_shared},
        {"atomic", b_atomic, ref_atomic},
        {"reduction", b_reduction, ref_serial},
        {"task", b_task, ref_serial},
        {"parallel_nested", b_parallel_nested, ref_serial},
    };
    printf("# syncbench: %d threads, %d repetitions; microseconds per construct (median)\n",
           omp_get_max_threads(), args.reps);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!bench_selected(&args, tests[i].name)) continue;
        if (!strcmp(tests[i].name, "parallel_nested")) omp_set_max_active_levels(2);
        double us = bench_measure(tests[i].bench, tests[i].reference, args.reps, args.target_s);
        printf("%-16s %10.3f\n", tests[i].name, us);
        fflush(stdout);
    }
    omp_destroy_lock(&lock);
    return 0;
}
