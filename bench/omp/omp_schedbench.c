/* Loop scheduling overheads in the manner of EPCC's schedbench: inside one parallel region, a
 * worksharing loop of ITERS_PER_THREAD iterations per thread (each a short delay) with a given schedule,
 * minus the same work split by hand; microseconds per loop (median). Threads: OMP_NUM_THREADS.
 *     omp_schedbench [repetitions] [milliseconds per sample]      BENCH_ONLY=dynamic_1,guided_8 selects */
#include "omp_bench.h"

#define ITERS_PER_THREAD 128
#define DELAY 15

static void ref_loop(int n)
{
#pragma omp parallel
    for (int r = 0; r < n; r++)
        for (int i = 0; i < ITERS_PER_THREAD; i++)
            bench_delay(DELAY);
}

/* One function per schedule: the clause is part of the code GCC emits (GOMP_loop_*_start forms or
 * inline static partitioning), which is what is being measured. */
#define SCHED_BENCH(name, clause)                                                                            \
    static void b_##name(int n)                                                                              \
    {                                                                                                        \
        _Pragma("omp parallel") for (int r = 0; r < n; r++)                                                  \
        {                                                                                                    \
            int total = ITERS_PER_THREAD * omp_get_num_threads();                                            \
            _Pragma(clause) for (int i = 0; i < total; i++) bench_delay(DELAY);                              \
        }                                                                                                    \
    }

SCHED_BENCH(static, "omp for schedule(static)")
SCHED_BENCH(static_1, "omp for schedule(static, 1)")
SCHED_BENCH(static_8, "omp for schedule(static, 8)")
SCHED_BENCH(dynamic_1, "omp for schedule(dynamic, 1)")
SCHED_BENCH(dynamic_8, "omp for schedule(dynamic, 8)")
SCHED_BENCH(dynamic_32, "omp for schedule(dynamic, 32)")
SCHED_BENCH(guided_1, "omp for schedule(guided, 1)")
SCHED_BENCH(guided_8, "omp for schedule(guided, 8)")

int main(int argc, char **argv)
{
    bench_args_t args;
    if (bench_parse(argc, argv, &args) != 0) return 2;
    static const struct {
        const char *name;
        bench_fn bench;
    } tests[] = {
        {"static", b_static},       {"static_1", b_static_1},   {"static_8", b_static_8},
        {"dynamic_1", b_dynamic_1}, {"dynamic_8", b_dynamic_8}, {"dynamic_32", b_dynamic_32},
        {"guided_1", b_guided_1},   {"guided_8", b_guided_8},
    };
    printf("# schedbench: %d threads, %d iterations per thread, %d repetitions; microseconds per loop "
           "(median)\n",
           omp_get_max_threads(), ITERS_PER_THREAD, args.reps);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        if (!bench_selected(&args, tests[i].name)) continue;
        double us = bench_measure(tests[i].bench, ref_loop, args.reps, args.target_s);
        printf("%-16s %10.3f\n", tests[i].name, us);
        fflush(stdout);
    }
    return 0;
}
