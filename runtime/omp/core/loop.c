/* Worksharing loops. A loop is kept in iteration space: iterations 0..count-1, iteration i being
 * start + i * incr, so signed (long) and unsigned (unsigned long long, counting up or down) loops share
 * one scheduler. static: blocks (no chunk) or round-robin chunks, computed locally; dynamic: a shared
 * counter taken chunk by chunk; guided: chunks proportional to what remains over the threads, at least
 * the chunk size (OpenMP 5.1 section 2.11.4). */
#include "../omp_internal.h"

#include <stddef.h>
#include <stdlib.h>

_Static_assert(offsetof(omp_ws_t, incr) + sizeof(uint64_t) <= OMP_CACHE_LINE,
               "a chunk's reads of the slot stay on its first line");

/* diff / step rounded up; step 1 (most loops) without the division, which costs 20-40 cycles. */
static inline uint64_t ceil_div(uint64_t diff, uint64_t step)
{
    return step == 1 ? diff : diff / step + (diff % step != 0);
}

static uint64_t iteration_count(const omp_loop_desc_t *d)
{
    if (d->is_ull) {
        if (d->up)
            return d->ustart >= d->uend ? 0 : ceil_div(d->uend - d->ustart, d->uincr);
        return d->ustart <= d->uend ? 0 : ceil_div(d->ustart - d->uend, -d->uincr);
    }
    if (d->incr > 0)
        return d->start >= d->end ? 0 : ceil_div((uint64_t)d->end - (uint64_t)d->start, (uint64_t)d->incr);
    if (d->start <= d->end || d->incr == 0)
        return 0;
    return ceil_div((uint64_t)d->start - (uint64_t)d->end, -(uint64_t)d->incr);
}

/* A nonmonotonic dynamic loop gives each thread an equal block of the chunks up front (as a static
 * schedule would) and lets a thread that ran out steal half of what another has left. Chunk sizes are
 * kept; only which thread runs which chunk changes, which nonmonotonic allows (OpenMP 5.1 2.11.4). A
 * thread then takes its chunks from its own cache line instead of bouncing one shared counter between
 * the cores for every chunk; with more members than cores, a member whose VP-mate has not run yet steals
 * from it, so the loop finishes without waiting for the VP to switch. Chunk numbers are packed two to a
 * word: loops of 2^32 chunks or more use the shared counter. */
static inline uint64_t share_pack(uint64_t lo, uint64_t hi)
{
    return lo | hi << 32;
}

static bool shares_init(omp_ws_t *ws, unsigned n)
{
    uint64_t nchunks = ceil_div(ws->count, ws->chunk);
    if (nchunks > UINT32_MAX)
        return false;
    if (ws->nshares < n) {
        free(ws->shares);
        ws->shares = omp_malloc_aligned(OMP_CACHE_LINE, sizeof(omp_ws_share_t) * n);
        ws->nshares = n;
    }
    uint64_t q = nchunks / n, r = nchunks % n;
    for (unsigned t = 0; t < n; t++) {
        uint64_t lo = t * q + (t < r ? t : r);
        atomic_store_explicit(&ws->shares[t].range, share_pack(lo, lo + q + (t < r)), memory_order_relaxed);
    }
    return true;
}

void omp_loop_init_ws(omp_ws_t *ws, const omp_loop_desc_t *d, unsigned nthreads, const omp_icv_t *icv)
{
    int sched = d->sched & OMP_SCHED_KIND_MASK;
    bool monotonic = (d->sched & OMP_SCHED_MONOTONIC) != 0;
    long chunk = d->chunk;
    if (sched == OMP_SCHED_RUNTIME) {
        sched = icv->run_sched & OMP_SCHED_KIND_MASK;
        monotonic = monotonic || (icv->run_sched & OMP_SCHED_MONOTONIC);
        chunk = icv->run_chunk;
    }
    if (sched == OMP_SCHED_AUTO)
        sched = OMP_SCHED_STATIC, chunk = 0;
    if (sched != OMP_SCHED_STATIC && chunk < 1)
        chunk = 1;
    if (chunk < 0)
        chunk = 0;
    ws->sched = (uint8_t)sched;
    ws->chunk = (uint64_t)chunk;
    ws->is_ull = d->is_ull;
    ws->nthreads = nthreads;
    ws->nthreads_log2 = nthreads && !(nthreads & (nthreads - 1)) ? (uint8_t)__builtin_ctz(nthreads) : 0xff;
    ws->start = d->is_ull ? d->ustart : (uint64_t)d->start;
    ws->incr = d->is_ull ? d->uincr : (uint64_t)d->incr;
    ws->count = iteration_count(d);
    ws->ordered = d->ordered;
    ws->steal =
        sched == OMP_SCHED_DYNAMIC && !monotonic && !d->ordered && nthreads > 1 && shares_init(ws, nthreads);
    ws->next_kind = ws->steal                                 ? OMP_NEXT_STEAL
                    : d->ordered || sched == OMP_SCHED_STATIC ? OMP_NEXT_GENERAL
                    : sched == OMP_SCHED_DYNAMIC              ? OMP_NEXT_DYNAMIC
                                                              : OMP_NEXT_GUIDED;
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
    /* Only ordered loops read it: others leave its line alone. */
    if (d->ordered)
        atomic_store_explicit(&ws->ordered_done, 0, memory_order_relaxed);
}

void omp_loop_init_ws_cb(omp_ws_t *ws, void *arg)
{
    omp_loop_init_arg_t *a = arg;
    omp_loop_init_ws(ws, &a->desc, a->nthreads, a->icv);
}

/* Converts the chunk [lo, hi) of iteration space into the caller's bounds. The end is start + hi * incr in
 * wrapping arithmetic even for the last chunk (never clamped to the loop's end): the compiled loop steps
 * by incr and compares with it, which only stops on the exact value. */
static inline void bounds(const omp_ws_t *ws, uint64_t lo, uint64_t hi, long *istart, long *iend,
                          unsigned long long *ustart, unsigned long long *uend)
{
    uint64_t first = ws->start + lo * ws->incr, last = ws->start + hi * ws->incr;
    if (ws->is_ull) {
        *ustart = first;
        *uend = last;
    } else {
        *istart = (long)first;
        *iend = (long)last;
    }
}

/* The next chunks of a stealing loop, [*first, *first + *taken): from the own share (omp_share_take_own,
 * which the GOMP *_next entry points also call inline), else the back half of another's. Only the owner
 * raises lo and only thieves lower hi, and a chunk number leaves the shares once, so a CAS cannot succeed
 * on a stale value (no ABA). */
static bool steal_next(omp_ws_t *ws, unsigned n, unsigned t, uint64_t *first, uint64_t *taken)
{
    _Atomic uint64_t *own = &ws->shares[t].range;
    if (omp_share_take_own(own, first, taken))
        return true;
    /* Every chunk is in some share until a thread removes it with a CAS, and then that thread runs it: a
     * scan that finds every share empty means nothing is left to hand out. */
    for (unsigned k = 1; k < n; k++) {
        _Atomic uint64_t *v = &ws->shares[(t + k) % n].range;
        uint64_t vw = atomic_load_explicit(v, memory_order_relaxed);
        while ((uint32_t)vw < (vw >> 32)) {
            uint64_t lo = (uint32_t)vw, hi = vw >> 32;
            uint64_t from = hi - (hi - lo + 1) / 2; /* the back half, rounded up: one chunk is taken whole */
            if (atomic_compare_exchange_weak_explicit(v, &vw, share_pack(lo, from), memory_order_relaxed,
                                                      memory_order_relaxed)) {
                /* Our share is empty, so no thief writes it: a plain store refills it. */
                atomic_store_explicit(own, share_pack(from + 1, hi), memory_order_relaxed);
                *first = from;
                *taken = 1;
                return true;
            }
        }
    }
    return false;
}

static bool static_next(omp_thread_t *thr, const omp_ws_t *ws, uint64_t *lo, uint64_t *hi)
{
    uint64_t count = ws->count;
    unsigned n = ws->nthreads, t = thr->ts.num;
    if (ws->chunk == 0) {
        if (thr->ts.static_next++ != 0)
            return false;
        uint64_t q = count / n, r = count % n;
        if (t < r) {
            *lo = t * (q + 1);
            *hi = *lo + q + 1;
        } else {
            *lo = t * q + r;
            *hi = *lo + q;
        }
        return *lo < *hi;
    }
    uint64_t k, start;
    if (__builtin_mul_overflow(thr->ts.static_next, (uint64_t)n, &k) || __builtin_add_overflow(k, t, &k) ||
        __builtin_mul_overflow(k, ws->chunk, &start) || start >= count)
        return false;
    thr->ts.static_next++;
    *lo = start;
    *hi = count - start > ws->chunk ? start + ws->chunk : count;
    return true;
}

static bool stealing_next(omp_thread_t *thr, omp_ws_t *ws, uint64_t *lo, uint64_t *hi)
{
    /* GCC's lastprivate (and linear) copy-out is done by the thread whose last chunk ends the loop: that
     * thread must get no chunk after the final one, which stealing could hand it (a lower chunk still in
     * another's share). It stops there; the chunks left are in the shares of threads still taking chunks,
     * which run them. */
    uint64_t c, k, count = ws->count;
    if (thr->ts.ran_last || !steal_next(ws, ws->nthreads, thr->ts.num, &c, &k))
        return false;
    *lo = c * ws->chunk;
    /* k > 1 only from a share of 8 or more chunks, so k * chunk stays below count: no overflow. */
    *hi = count - *lo > k * ws->chunk ? *lo + k * ws->chunk : count;
    thr->ts.ran_last = *hi == count;
    return true;
}

static inline void chunk_taken(omp_thread_t *thr, const omp_ws_t *ws, uint64_t lo, uint64_t hi, long *istart,
                               long *iend, unsigned long long *ustart, unsigned long long *uend)
{
    thr->ts.chunk_lo = lo;
    thr->ts.chunk_hi = hi;
    thr->ts.has_chunk = true;
    bounds(ws, lo, hi, istart, iend, ustart, uend);
}

/* Nonmonotonic dynamic loops (never ordered): a function of its own, tail-called from omp_loop_next. */
static __attribute__((noinline)) bool stealing_loop_next(omp_thread_t *thr, long *istart, long *iend,
                                                         unsigned long long *ustart, unsigned long long *uend)
{
    omp_ws_t *ws = thr->ts.ws;
    uint64_t lo, hi;
    if (!stealing_next(thr, ws, &lo, &hi))
        return false;
    chunk_taken(thr, ws, lo, hi, istart, iend, ustart, uend);
    return true;
}

/* Entering the slot (inside GOMP_parallel_loop_*), ordered loops and static schedules. */
static __attribute__((noinline)) bool loop_next_slow(omp_thread_t *thr, long *istart, long *iend,
                                                     unsigned long long *ustart, unsigned long long *uend)
{
    omp_ws_t *ws = thr->ts.ws;
    if (!ws) {
        omp_ws_enter(thr); /* first call inside GOMP_parallel_loop_*: the slot is pre-initialized */
        return omp_loop_next(thr, istart, iend, ustart, uend);
    }
    if (ws->ordered && thr->ts.has_chunk)
        omp_ordered_chunk_done(thr);
    uint64_t lo, hi, count = ws->count;
    bool got;
    if (ws->sched == OMP_SCHED_STATIC) {
        got = static_next(thr, ws, &lo, &hi);
    } else if (ws->steal) {
        return stealing_loop_next(thr, istart, iend, ustart, uend);
    } else if (ws->sched == OMP_SCHED_DYNAMIC) {
        got = atomic_load_explicit(&ws->next, memory_order_relaxed) < count &&
              (lo = atomic_fetch_add_explicit(&ws->next, ws->chunk, memory_order_relaxed)) < count;
        hi = got && count - lo > ws->chunk ? lo + ws->chunk : count;
    } else {
        got = false;
        uint64_t cur = atomic_load_explicit(&ws->next, memory_order_relaxed);
        while (cur < count) {
            uint64_t remaining = count - cur, n = ws->nthreads;
            uint64_t size = remaining / n + (remaining % n != 0);
            size = size < ws->chunk ? ws->chunk : size;
            size = size > remaining ? remaining : size;
            if (atomic_compare_exchange_weak_explicit(&ws->next, &cur, cur + size, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                lo = cur, hi = cur + size, got = true;
                break;
            }
        }
    }
    if (!got)
        return false;
    chunk_taken(thr, ws, lo, hi, istart, iend, ustart, uend);
    return true;
}

/* The chunk after a thread's current one (the GOMP *_next entry points take counter chunks inline). */
bool omp_loop_next(omp_thread_t *thr, long *istart, long *iend, unsigned long long *ustart,
                   unsigned long long *uend)
{
    omp_ws_t *ws = thr->ts.ws;
    if (OMP_UNLIKELY(!ws || ws->next_kind == OMP_NEXT_GENERAL))
        return loop_next_slow(thr, istart, iend, ustart, uend);
    if (ws->next_kind == OMP_NEXT_STEAL)
        return stealing_loop_next(thr, istart, iend, ustart, uend);
    uint64_t first, last;
    if (!omp_loop_counter_next(ws, &first, &last))
        return false;
    if (ws->is_ull) {
        *ustart = first;
        *uend = last;
    } else {
        *istart = (long)first;
        *iend = (long)last;
    }
    return true;
}

/* The initializer of a loop with a shared counter takes its first chunk before it publishes the slot: the
 * counter's line is in its cache then and nobody else can take a chunk, so the others, once they see the
 * slot published, find the counter already moved and take the line from it only once. */
static bool publish_after_first_chunk(omp_thread_t *thr, long *istart, long *iend, unsigned long long *ustart,
                                      unsigned long long *uend)
{
    omp_next_kind_t kind = (omp_next_kind_t)thr->ts.ws->next_kind;
    if (kind != OMP_NEXT_DYNAMIC && kind != OMP_NEXT_GUIDED) {
        omp_ws_publish(thr);
        return omp_loop_next(thr, istart, iend, ustart, uend);
    }
    bool got = omp_loop_next(thr, istart, iend, ustart, uend);
    omp_ws_publish(thr);
    return got;
}

bool omp_loop_start(omp_thread_t *thr, const omp_loop_desc_t *desc, long *istart, long *iend,
                    unsigned long long *ustart, unsigned long long *uend)
{
    if (omp_ws_enter(thr)) {
        omp_loop_init_ws(thr->ts.ws, desc, thr->ts.team->nthreads, &thr->task->icv);
        return publish_after_first_chunk(thr, istart, iend, ustart, uend);
    }
    return omp_loop_next(thr, istart, iend, ustart, uend);
}

void omp_loop_end(omp_thread_t *thr, bool nowait)
{
    omp_ws_t *ws = thr->ts.ws;
    if (ws && ws->ordered && thr->ts.has_chunk)
        omp_ordered_chunk_done(thr);
    if (nowait)
        omp_ws_leave(thr);
    else
        omp_ws_leave_barrier(thr);
}

bool omp_loop_end_cancel(omp_thread_t *thr)
{
    omp_ws_t *ws = thr->ts.ws;
    if (ws && ws->ordered && thr->ts.has_chunk)
        omp_ordered_chunk_done(thr);
    omp_ws_leave(thr);
    return omp_barrier_cancel(thr);
}

bool omp_loop_start_full(omp_thread_t *thr, const omp_loop_desc_t *desc, long *istart, long *iend,
                         unsigned long long *ustart, unsigned long long *uend, uintptr_t *reductions,
                         void **mem)
{
    bool init = omp_ws_enter(thr);
    if (init)
        omp_loop_init_ws(thr->ts.ws, desc, thr->ts.team->nthreads, &thr->task->icv);
    if (reductions || mem)
        omp_ws_attach_extras(thr, init, reductions, mem);
    if (!istart && !ustart) {
        if (init)
            omp_ws_publish(thr);
        return true; /* only the reductions or memory were wanted */
    }
    if (init)
        return publish_after_first_chunk(thr, istart, iend, ustart, uend);
    return omp_loop_next(thr, istart, iend, ustart, uend);
}
