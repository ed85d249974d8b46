/* The ordered construct and doacross loops (OpenMP 5.1 section 2.19.9). ordered: chunks are handed out in
 * iteration order, so a thread may enter its ordered regions once every iteration before its chunk has
 * finished; a thread finishing a chunk waits for its turn and passes it on (ordered_done = end of chunk),
 * so iterations that skip the ordered region never stall the others. doacross: per outer iteration the
 * flattened index of the last `depend(source)` (posts of one outer iteration come in order, from the one
 * thread executing it); depend(sink) waits until that index reaches the sink. */
#include "../omp_internal.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    omp_ws_t *ws;
    uint64_t value;
} ordered_wait_t;

static bool turn_reached(void *arg)
{
    ordered_wait_t *o = arg;
    return atomic_load_explicit(&o->ws->ordered_done, memory_order_acquire) == o->value;
}

void omp_ordered_start(omp_thread_t *thr)
{
    omp_ws_t *ws = thr->ts.ws;
    if (!ws || !thr->ts.has_chunk)
        return; /* orphaned, or a loop without ordered chunks: nothing to order against */
    ordered_wait_t o = {ws, thr->ts.chunk_lo};
    if (!turn_reached(&o))
        omp_team_wait(thr, thr->ts.team, turn_reached, &o);
}

void omp_ordered_end(omp_thread_t *thr)
{
    (void)thr; /* the turn passes on when the chunk ends */
}

void omp_ordered_chunk_done(omp_thread_t *thr)
{
    omp_ws_t *ws = thr->ts.ws;
    thr->ts.has_chunk = false;
    ordered_wait_t o = {ws, thr->ts.chunk_lo};
    if (!turn_reached(&o))
        omp_team_wait(thr, thr->ts.team, turn_reached, &o);
    /* release: the chunk's ordered regions happen before the next chunk's. */
    atomic_store_explicit(&ws->ordered_done, thr->ts.chunk_hi, memory_order_release);
    omp_team_notify(thr->ts.team);
}

/* ---- doacross */

bool omp_doacross_start(omp_thread_t *thr, unsigned ncounts, const uint64_t *counts, int sched, long chunk,
                        long *istart, long *iend, unsigned long long *ustart, unsigned long long *uend,
                        bool is_ull)
{
    return omp_doacross_start_full(thr, ncounts, counts, sched, chunk, istart, iend, ustart, uend, is_ull, NULL,
                                   NULL);
}

bool omp_doacross_start_full(omp_thread_t *thr, unsigned ncounts, const uint64_t *counts, int sched, long chunk,
                             long *istart, long *iend, unsigned long long *ustart, unsigned long long *uend,
                             bool is_ull, uintptr_t *reductions, void **mem)
{
    bool init = omp_ws_enter(thr);
    if (init) {
        omp_ws_t *ws = thr->ts.ws;
        omp_loop_desc_t d = {.is_ull = is_ull, .up = true, .start = 0, .end = (long)counts[0], .incr = 1,
                             .ustart = 0, .uend = counts[0], .uincr = 1,
                             /* chunks in order: a sink's source must not sit in a stolen share */
                             .sched = sched | OMP_SCHED_MONOTONIC, .chunk = chunk};
        omp_loop_init_ws(ws, &d, thr->ts.team->nthreads, &thr->task->icv);
        ws->ncounts = ncounts;
        ws->dims = malloc(sizeof(uint64_t) * (ncounts ? ncounts : 1));
        memcpy(ws->dims, counts, sizeof(uint64_t) * ncounts);
        uint64_t inner = 1;
        for (unsigned k = 1; k < ncounts; k++)
            if (__builtin_mul_overflow(inner, counts[k], &inner))
                inner = UINT64_MAX;
        ws->inner_total = inner;
        ws->posted = calloc(counts[0] ? counts[0] : 1, sizeof(uint64_t));
        if (!ws->posted || !ws->dims)
            omp_fatal("out of memory for a doacross loop of %llu iterations", (unsigned long long)counts[0]);
    }
    if (reductions || mem)
        omp_ws_attach_extras(thr, init, reductions, mem);
    if (init)
        omp_ws_publish(thr);
    if (!istart && !ustart)
        return true;
    return omp_loop_next(thr, istart, iend, ustart, uend);
}

static bool flatten(const omp_ws_t *ws, const uint64_t *iters, uint64_t *flat)
{
    uint64_t f = 0;
    for (unsigned k = 0; k < ws->ncounts; k++)
        if (iters[k] >= ws->dims[k])
            return false; /* a sink outside the iteration space: no dependence */
    for (unsigned k = 1; k < ws->ncounts; k++)
        f = f * ws->dims[k] + iters[k];
    *flat = f;
    return true;
}

void omp_doacross_post(omp_thread_t *thr, const uint64_t *iters)
{
    omp_ws_t *ws = thr->ts.ws;
    uint64_t flat;
    if (!ws || !ws->posted || !flatten(ws, iters, &flat))
        return;
    _Atomic uint64_t *slot = &ws->posted[iters[0]];
    /* release: the iteration's writes are visible to the sinks that see the post. */
    if (atomic_load_explicit(slot, memory_order_relaxed) < flat + 1)
        atomic_store_explicit(slot, flat + 1, memory_order_release);
    omp_team_notify(thr->ts.team);
}

typedef struct {
    _Atomic uint64_t *slot;
    uint64_t value;
} sink_wait_t;

static bool sink_reached(void *arg)
{
    sink_wait_t *s = arg;
    return atomic_load_explicit(s->slot, memory_order_acquire) >= s->value;
}

void omp_doacross_wait(omp_thread_t *thr, const uint64_t *iters)
{
    omp_ws_t *ws = thr->ts.ws;
    uint64_t flat;
    if (!ws || !ws->posted || !flatten(ws, iters, &flat))
        return;
    sink_wait_t s = {&ws->posted[iters[0]], flat + 1};
    if (!sink_reached(&s))
        omp_team_wait(thr, thr->ts.team, sink_reached, &s);
}

void omp_doacross_wait_va(omp_thread_t *thr, uint64_t first, va_list ap)
{
    omp_ws_t *ws = thr->ts.ws;
    if (!ws || !ws->posted)
        return;
    uint64_t iters[ws->ncounts ? ws->ncounts : 1];
    iters[0] = first;
    for (unsigned k = 1; k < ws->ncounts; k++)
        iters[k] = ws->is_ull ? (uint64_t)va_arg(ap, unsigned long long) : (uint64_t)va_arg(ap, long);
    omp_doacross_wait(thr, iters);
}
