/* Shared by the GOMP entry points: each is a one-line call into the OpenMP core. Signatures follow GCC 12's
 * libgomp_g.h (the ABI the compiler emits calls to). */
#ifndef MPCRT_OMP_GOMP_H
#define MPCRT_OMP_GOMP_H

#include "../omp_internal.h"

#define GOMP_ENTRY OMP_EXPORT

static inline omp_loop_desc_t gomp_loop(long start, long end, long incr, int sched, long chunk, bool ordered)
{
    omp_loop_desc_t d = {.start = start, .end = end, .incr = incr, .sched = sched, .chunk = chunk,
                         .ordered = ordered};
    return d;
}

static inline omp_loop_desc_t gomp_loop_ull(bool up, unsigned long long start, unsigned long long end,
                                            unsigned long long incr, int sched, unsigned long long chunk,
                                            bool ordered)
{
    omp_loop_desc_t d = {.is_ull = true, .up = up, .ustart = start, .uend = end, .uincr = incr, .sched = sched,
                         .chunk = (long)chunk, .ordered = ordered};
    return d;
}

#endif
