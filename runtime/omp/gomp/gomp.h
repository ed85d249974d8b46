/* Shared by the GOMP entry points: each is a one-line call into the OpenMP core. Signatures follow GCC 12's
 * libgomp_g.h (the ABI the compiler emits calls to). */
#ifndef MPCRT_OMP_GOMP_H
#define MPCRT_OMP_GOMP_H

#include "../omp_internal.h"

#define GOMP_ENTRY OMP_EXPORT

/* The *_next entry points: chunks from the shared counter or from the own share of a stealing loop
 * inline; 1 taken, 0 done, -1 anything else (omp_loop_next). */
static inline int gomp_next_inline(omp_thread_t *thr, uint64_t *first, uint64_t *last)
{
    omp_ws_t *ws = thr->ts.ws;
    if (OMP_UNLIKELY(!ws || ws->next_kind == OMP_NEXT_GENERAL))
        return -1;
    if (ws->next_kind == OMP_NEXT_STEAL)
        return omp_loop_own_next(thr, ws, first, last);
    return omp_loop_counter_next(ws, first, last);
}

static inline bool gomp_loop_next_long(long *istart, long *iend)
{
    omp_thread_t *thr = omp_self();
    uint64_t first, last;
    int r = gomp_next_inline(thr, &first, &last);
    if (OMP_UNLIKELY(r < 0))
        return omp_loop_next(thr, istart, iend, NULL, NULL);
    if (r == 0)
        return false;
    *istart = (long)first;
    *iend = (long)last;
    return true;
}

static inline bool gomp_loop_next_ull(unsigned long long *istart, unsigned long long *iend)
{
    omp_thread_t *thr = omp_self();
    uint64_t first, last;
    int r = gomp_next_inline(thr, &first, &last);
    if (OMP_UNLIKELY(r < 0))
        return omp_loop_next(thr, NULL, NULL, istart, iend);
    if (r == 0)
        return false;
    *istart = first;
    *iend = last;
    return true;
}

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
