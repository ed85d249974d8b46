/* GOMP entry points of parallel regions (combined with loops and sections), cancellation. */
#include "gomp.h"

GOMP_ENTRY void GOMP_parallel(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    omp_parallel(fn, data, num_threads, flags, NULL, NULL);
}

GOMP_ENTRY unsigned GOMP_parallel_reductions(void (*fn)(void *), void *data, unsigned num_threads, unsigned flags)
{
    return omp_parallel_reductions(fn, data, num_threads, flags);
}

GOMP_ENTRY void GOMP_parallel_start(void (*fn)(void *), void *data, unsigned num_threads)
{
    omp_parallel_start(fn, data, num_threads);
}

GOMP_ENTRY void GOMP_parallel_end(void)
{
    omp_parallel_end();
}

#define PARALLEL_LOOP(name, kind)                                                                            \
    GOMP_ENTRY void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                              long end, long incr, long chunk, unsigned flags)                 \
    {                                                                                                         \
        omp_parallel_loop(fn, data, num_threads, flags, &(omp_loop_desc_t){.start = start, .end = end,        \
                                                                           .incr = incr, .sched = (kind),    \
                                                                           .chunk = chunk}, false);           \
    }
PARALLEL_LOOP(static, OMP_SCHED_STATIC)
PARALLEL_LOOP(dynamic, OMP_SCHED_DYNAMIC | OMP_SCHED_MONOTONIC)
PARALLEL_LOOP(guided, OMP_SCHED_GUIDED)
PARALLEL_LOOP(nonmonotonic_dynamic, OMP_SCHED_DYNAMIC)
PARALLEL_LOOP(nonmonotonic_guided, OMP_SCHED_GUIDED)

#define PARALLEL_LOOP_RUNTIME(name, kind)                                                                         \
    GOMP_ENTRY void GOMP_parallel_loop_##name(void (*fn)(void *), void *data, unsigned num_threads, long start, \
                                              long end, long incr, unsigned flags)                             \
    {                                                                                                         \
        omp_parallel_loop(fn, data, num_threads, flags, &(omp_loop_desc_t){.start = start, .end = end,        \
                                                                           .incr = incr,                      \
                                                                           .sched = (kind)}, false);          \
    }
PARALLEL_LOOP_RUNTIME(runtime, OMP_SCHED_RUNTIME | OMP_SCHED_MONOTONIC)
PARALLEL_LOOP_RUNTIME(nonmonotonic_runtime, OMP_SCHED_RUNTIME)
PARALLEL_LOOP_RUNTIME(maybe_nonmonotonic_runtime, OMP_SCHED_RUNTIME)

/* GOMP_1.0 forms: fork only; the caller runs fn and then GOMP_parallel_end. */
#define PARALLEL_LOOP_START(name, kind)                                                                      \
    GOMP_ENTRY void GOMP_parallel_loop_##name##_start(void (*fn)(void *), void *data, unsigned num_threads,   \
                                                      long start, long end, long incr, long chunk)             \
    {                                                                                                         \
        omp_parallel_loop(fn, data, num_threads, 0, &(omp_loop_desc_t){.start = start, .end = end,            \
                                                                       .incr = incr, .sched = (kind),        \
                                                                       .chunk = chunk}, true);                \
    }
PARALLEL_LOOP_START(static, OMP_SCHED_STATIC)
PARALLEL_LOOP_START(dynamic, OMP_SCHED_DYNAMIC | OMP_SCHED_MONOTONIC)
PARALLEL_LOOP_START(guided, OMP_SCHED_GUIDED)

GOMP_ENTRY void GOMP_parallel_loop_runtime_start(void (*fn)(void *), void *data, unsigned num_threads, long start,
                                                 long end, long incr)
{
    omp_parallel_loop(fn, data, num_threads, 0,
                      &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                         .sched = OMP_SCHED_RUNTIME | OMP_SCHED_MONOTONIC},
                      true);
}

GOMP_ENTRY void GOMP_parallel_sections(void (*fn)(void *), void *data, unsigned num_threads, unsigned count,
                                       unsigned flags)
{
    omp_parallel_sections(fn, data, num_threads, count, flags, false);
}

GOMP_ENTRY void GOMP_parallel_sections_start(void (*fn)(void *), void *data, unsigned num_threads, unsigned count)
{
    omp_parallel_sections(fn, data, num_threads, count, 0, true);
}

GOMP_ENTRY bool GOMP_cancel(int which, bool do_cancel)
{
    return omp_cancel(omp_self(), which, do_cancel);
}

GOMP_ENTRY bool GOMP_cancellation_point(int which)
{
    return omp_cancellation_point(omp_self(), which);
}
