/* GOMP entry points of worksharing loops with long iteration variables. Every *_next call continues the
 * loop whatever its schedule: the schedule was fixed when the construct started. */
#include "gomp.h"

GOMP_ENTRY bool GOMP_loop_static_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_STATIC, .chunk = chunk, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_dynamic_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_DYNAMIC | OMP_SCHED_MONOTONIC, .chunk = chunk, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_guided_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_GUIDED, .chunk = chunk, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_RUNTIME | OMP_SCHED_MONOTONIC, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_dynamic_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_DYNAMIC, .chunk = chunk, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_guided_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_GUIDED, .chunk = chunk, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_RUNTIME, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_maybe_nonmonotonic_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_RUNTIME, .ordered = false},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_ordered_static_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_STATIC, .chunk = chunk, .ordered = true},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_ordered_dynamic_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_DYNAMIC, .chunk = chunk, .ordered = true},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_ordered_guided_start(long start, long end, long incr, long chunk, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_GUIDED, .chunk = chunk, .ordered = true},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_ordered_runtime_start(long start, long end, long incr, long *istart, long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                         .sched = OMP_SCHED_RUNTIME, .ordered = true},
                          istart, iend, NULL, NULL);
}

GOMP_ENTRY bool GOMP_loop_start(long start, long end, long incr, long sched, long chunk, long *istart, long *iend,
                                uintptr_t *reductions, void **mem)
{
    return omp_loop_start_full(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                              .sched = (int)sched, .chunk = chunk},
                               istart, iend, NULL, NULL, reductions, mem);
}

GOMP_ENTRY bool GOMP_loop_ordered_start(long start, long end, long incr, long sched, long chunk, long *istart,
                                        long *iend, uintptr_t *reductions, void **mem)
{
    return omp_loop_start_full(omp_self(), &(omp_loop_desc_t){.start = start, .end = end, .incr = incr,
                                                              .sched = (int)sched, .chunk = chunk, .ordered = true},
                               istart, iend, NULL, NULL, reductions, mem);
}

GOMP_ENTRY bool GOMP_loop_static_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_dynamic_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_guided_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_runtime_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_dynamic_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_guided_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_nonmonotonic_runtime_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_maybe_nonmonotonic_runtime_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ordered_static_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ordered_dynamic_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ordered_guided_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ordered_runtime_next(long *istart, long *iend)
{
    return gomp_loop_next_long(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_doacross_static_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_STATIC, chunk, istart, iend, NULL, NULL,
                              false);
}

GOMP_ENTRY bool GOMP_loop_doacross_dynamic_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_DYNAMIC, chunk, istart, iend, NULL, NULL,
                              false);
}

GOMP_ENTRY bool GOMP_loop_doacross_guided_start(unsigned ncounts, long *counts, long chunk, long *istart, long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_GUIDED, chunk, istart, iend, NULL, NULL,
                              false);
}

GOMP_ENTRY bool GOMP_loop_doacross_runtime_start(unsigned ncounts, long *counts, long *istart, long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_RUNTIME, 0, istart, iend,
                              NULL, NULL, false);
}

GOMP_ENTRY bool GOMP_loop_doacross_start(unsigned ncounts, long *counts, long sched, long chunk, long *istart,
                                         long *iend, uintptr_t *reductions, void **mem)
{
    return omp_doacross_start_full(omp_self(), ncounts, (const uint64_t *)counts, (int)sched, chunk, istart, iend,
                                   NULL, NULL, false, reductions, mem);
}

GOMP_ENTRY void GOMP_loop_end(void)
{
    omp_loop_end(omp_self(), false);
}

GOMP_ENTRY void GOMP_loop_end_nowait(void)
{
    omp_loop_end(omp_self(), true);
}

GOMP_ENTRY bool GOMP_loop_end_cancel(void)
{
    return omp_loop_end_cancel(omp_self());
}
