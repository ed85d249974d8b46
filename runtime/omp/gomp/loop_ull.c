/* GOMP entry points of worksharing loops with unsigned long long iteration variables; `up` tells the
 * direction (a downward loop's increment is the two's complement of the step). */
#include "gomp.h"

GOMP_ENTRY bool GOMP_loop_ull_static_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_STATIC, .chunk = (long)chunk, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_dynamic_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_DYNAMIC | OMP_SCHED_MONOTONIC, .chunk = (long)chunk, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_guided_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_GUIDED, .chunk = (long)chunk, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_runtime_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_RUNTIME | OMP_SCHED_MONOTONIC, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_dynamic_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_DYNAMIC, .chunk = (long)chunk, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_guided_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_GUIDED, .chunk = (long)chunk, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_runtime_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_RUNTIME, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_maybe_nonmonotonic_runtime_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_RUNTIME, .ordered = false},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_static_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_STATIC, .chunk = (long)chunk, .ordered = true},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_dynamic_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_DYNAMIC, .chunk = (long)chunk, .ordered = true},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_guided_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, unsigned long long chunk,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_GUIDED, .chunk = (long)chunk, .ordered = true},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_runtime_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr,
                                          unsigned long long *istart, unsigned long long *iend)
{
    return omp_loop_start(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start, .uend = end,
                                                         .uincr = incr, .sched = OMP_SCHED_RUNTIME, .ordered = true},
                          NULL, NULL, istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, long sched,
                                    unsigned long long chunk, unsigned long long *istart, unsigned long long *iend,
                                    uintptr_t *reductions, void **mem)
{
    return omp_loop_start_full(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start,
                                                              .uend = end, .uincr = incr, .sched = (int)sched,
                                                              .chunk = (long)chunk},
                               NULL, NULL, istart, iend, reductions, mem);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_start(bool up, unsigned long long start, unsigned long long end, unsigned long long incr, long sched,
                                            unsigned long long chunk, unsigned long long *istart, unsigned long long *iend,
                                            uintptr_t *reductions, void **mem)
{
    return omp_loop_start_full(omp_self(), &(omp_loop_desc_t){.is_ull = true, .up = up, .ustart = start,
                                                              .uend = end, .uincr = incr, .sched = (int)sched,
                                                              .chunk = (long)chunk, .ordered = true},
                               NULL, NULL, istart, iend, reductions, mem);
}

GOMP_ENTRY bool GOMP_loop_ull_static_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_dynamic_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_guided_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_runtime_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_dynamic_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_guided_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_nonmonotonic_runtime_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_maybe_nonmonotonic_runtime_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_static_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_dynamic_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_guided_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_ordered_runtime_next(unsigned long long *istart, unsigned long long *iend)
{
    return gomp_loop_next_ull(istart, iend);
}

GOMP_ENTRY bool GOMP_loop_ull_doacross_static_start(unsigned ncounts, unsigned long long *counts, unsigned long long chunk,
                                                unsigned long long *istart, unsigned long long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_STATIC, (long)chunk, NULL, NULL, istart,
                              iend, true);
}

GOMP_ENTRY bool GOMP_loop_ull_doacross_dynamic_start(unsigned ncounts, unsigned long long *counts, unsigned long long chunk,
                                                unsigned long long *istart, unsigned long long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_DYNAMIC, (long)chunk, NULL, NULL, istart,
                              iend, true);
}

GOMP_ENTRY bool GOMP_loop_ull_doacross_guided_start(unsigned ncounts, unsigned long long *counts, unsigned long long chunk,
                                                unsigned long long *istart, unsigned long long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_GUIDED, (long)chunk, NULL, NULL, istart,
                              iend, true);
}

GOMP_ENTRY bool GOMP_loop_ull_doacross_runtime_start(unsigned ncounts, unsigned long long *counts, unsigned long long *istart,
                                                     unsigned long long *iend)
{
    return omp_doacross_start(omp_self(), ncounts, (const uint64_t *)counts, OMP_SCHED_RUNTIME, 0, NULL, NULL,
                              istart, iend, true);
}

GOMP_ENTRY bool GOMP_loop_ull_doacross_start(unsigned ncounts, unsigned long long *counts, long sched, unsigned long long chunk,
                                             unsigned long long *istart, unsigned long long *iend, uintptr_t *reductions,
                                             void **mem)
{
    return omp_doacross_start_full(omp_self(), ncounts, (const uint64_t *)counts, (int)sched, (long)chunk, NULL,
                                   NULL, istart, iend, true, reductions, mem);
}
