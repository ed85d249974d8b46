/* Worksharing constructs: every thread of a team meets the same sequence of constructs, possibly at
 * different times (nowait). Construct number k uses slot k mod OMP_WS_RING of the team's ring; the first
 * thread to reach it initializes it, the others wait until it is published; the last thread to leave
 * construct k frees the slot for construct k + OMP_WS_RING. A thread more than a ring ahead waits.
 * Also single (a counter, no slot unless copyprivate) and sections (a dynamic loop of chunk 1). */
#include "../omp_internal.h"

#include <stdlib.h>

typedef struct {
    omp_ws_t *ws;
    long seq;
} slot_wait_t;

static bool slot_free(void *arg)
{
    slot_wait_t *s = arg;
    return atomic_load_explicit(&s->ws->free_for, memory_order_acquire) == s->seq ||
           atomic_load(&s->ws->state) == OMP_WS_READY(s->seq); /* seq_cst: see omp_ws_publish */
}

static bool slot_ready(void *arg)
{
    slot_wait_t *s = arg;
    return atomic_load(&s->ws->state) == OMP_WS_READY(s->seq); /* seq_cst: see omp_ws_publish */
}

bool omp_ws_enter(omp_thread_t *thr)
{
    omp_team_t *team = thr->ts.team;
    long seq = (long)thr->ts.ws_seq++;
    omp_ws_t *ws = &team->ws_ring[seq % OMP_WS_RING];
    thr->ts.ws = ws;
    thr->ts.ws_cur = seq;
    thr->ts.static_next = 0;
    thr->ts.has_chunk = false;
    thr->ts.ran_last = false;
    /* acquire: the initializer's writes to the slot are visible. */
    if (atomic_load_explicit(&ws->state, memory_order_acquire) == OMP_WS_READY(seq))
        return false;
    slot_wait_t s = {ws, seq};
    bool freed = seq >= OMP_WS_RING && thr->ts.barrier_left[seq % OMP_WS_RING] == seq - OMP_WS_RING + 1;
    if (!freed && !slot_free(&s))
        omp_team_wait(thr, team, slot_free, &s);
    /* Once free, the slot still holds the published construct seq - OMP_WS_RING until a thread claims it.
     * A thread that sees it claimed already does not try: a failing CAS would still take the line from
     * the initializer, which is writing it. */
    long expected = OMP_WS_READY(seq - OMP_WS_RING);
    if (atomic_load_explicit(&ws->state, memory_order_relaxed) == expected &&
        atomic_compare_exchange_strong_explicit(&ws->state, &expected, OMP_WS_CLAIMED(seq),
                                                memory_order_acquire, memory_order_relaxed)) {
        /* The previous construct's memory is freed only now: threads may read it until they leave. Each
         * field is stored only if set: the line stays clean (and shared) in the common case. */
        if (atomic_load_explicit(&ws->cancelled, memory_order_relaxed))
            atomic_store_explicit(&ws->cancelled, false, memory_order_relaxed);
        if (ws->posted || ws->dims || ws->mem || ws->reductions) {
            free((void *)ws->posted);
            free(ws->dims);
            free(ws->mem);
            ws->reductions = NULL;
            ws->mem = NULL;
            ws->posted = NULL;
            ws->dims = NULL;
        }
        if (atomic_load_explicit(&ws->copy_data, memory_order_relaxed))
            atomic_store_explicit(&ws->copy_data, NULL, memory_order_relaxed);
        return true;
    }
    if (!slot_ready(&s))
        omp_team_wait(thr, team, slot_ready, &s);
    return false;
}

void omp_ws_publish(omp_thread_t *thr)
{
    /* release: the initialized slot is visible to every thread that sees it ready. An exchange (seq_cst,
     * as slot_ready's load) instead of a store: the notification then needs no fence of its own. */
    atomic_exchange(&thr->ts.ws->state, OMP_WS_READY(thr->ts.ws_cur));
    omp_team_notify_after_rmw(thr->ts.team);
}

void omp_ws_leave(omp_thread_t *thr)
{
    omp_ws_t *ws = thr->ts.ws;
    if (!ws)
        return;
    omp_team_t *team = thr->ts.team;
    long seq = thr->ts.ws_cur;
    thr->ts.ws = NULL;
    /* acq_rel: the last leaver sees every thread's use of the slot before recycling it. */
    if (atomic_fetch_add_explicit(&ws->left, 1, memory_order_acq_rel) + 1 == team->nthreads) {
        atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
        atomic_store_explicit(&ws->free_for, seq + OMP_WS_RING, memory_order_release);
        omp_team_notify(team);
    }
}

/* Leaving a construct that ends with a barrier. A thread arriving at the barrier reads the slot no more,
 * so once the barrier completes the slot is free for construct seq + OMP_WS_RING, and every thread knows it
 * without a word written: each records it (ts.barrier_left) and omp_ws_enter claims the slot on that
 * record. This replaces the `left` count (a read-modify-write of a shared line by every thread of every
 * construct) and a store of free_for (a line the next claimer then missed on, and whose ownership the
 * storing thread waited for at its barrier arrival). The barrier orders the others' use of the slot
 * before its next claim. */
void omp_ws_leave_barrier(omp_thread_t *thr)
{
    bool had_slot = thr->ts.ws != NULL;
    long seq = thr->ts.ws_cur;
    thr->ts.ws = NULL;
    omp_barrier(thr);
    if (had_slot)
        thr->ts.barrier_left[seq % OMP_WS_RING] = seq + 1;
}

bool omp_single_start(omp_thread_t *thr)
{
    omp_team_t *team = thr->ts.team;
    unsigned long mine = ++thr->ts.single_seq;
    unsigned long expected = mine - 1;
    /* The first thread to reach single number k finds the counter at k - 1 (the winner of k - 1 set it;
     * every later CAS for an older construct fails). */
    return atomic_compare_exchange_strong_explicit(&team->single_count, &expected, mine, memory_order_acq_rel,
                                                   memory_order_relaxed);
}

void *omp_single_copy_start(omp_thread_t *thr)
{
    if (omp_ws_enter(thr))
        return NULL; /* we execute the single; omp_single_copy_end publishes */
    void *data = atomic_load_explicit(&thr->ts.ws->copy_data, memory_order_acquire);
    omp_ws_leave(thr);
    return data;
}

void omp_single_copy_end(omp_thread_t *thr, void *data)
{
    atomic_store_explicit(&thr->ts.ws->copy_data, data, memory_order_relaxed);
    omp_ws_publish(thr);
    omp_ws_leave(thr);
}

/* ---- sections: iterations 1..count handed out one at a time */

static void sections_init(omp_ws_t *ws, unsigned count)
{
    ws->sched = OMP_SCHED_DYNAMIC;
    ws->next_kind = OMP_NEXT_DYNAMIC;
    ws->is_ull = false;
    ws->start = 0;
    ws->incr = 1;
    ws->count = count;
    ws->chunk = 1;
    ws->ordered = false;
    ws->steal = false;
    atomic_store_explicit(&ws->next, 0, memory_order_relaxed);
}

void omp_sections_init_ws(omp_ws_t *ws, void *count)
{
    sections_init(ws, (unsigned)(uintptr_t)count);
}

unsigned omp_sections_start(omp_thread_t *thr, unsigned count)
{
    if (omp_ws_enter(thr)) {
        sections_init(thr->ts.ws, count);
        omp_ws_publish(thr);
    }
    return omp_sections_next(thr);
}

unsigned omp_sections_next(omp_thread_t *thr)
{
    if (!thr->ts.ws)
        omp_ws_enter(thr); /* first call inside GOMP_parallel_sections: the slot is pre-initialized */
    omp_ws_t *ws = thr->ts.ws;
    if (atomic_load_explicit(&ws->next, memory_order_relaxed) >= ws->count)
        return 0;
    uint64_t i = atomic_fetch_add_explicit(&ws->next, 1, memory_order_relaxed);
    return i < ws->count ? (unsigned)i + 1 : 0;
}

unsigned omp_sections_start_full(omp_thread_t *thr, unsigned count, uintptr_t *reductions, void **mem)
{
    bool init = omp_ws_enter(thr);
    if (init)
        sections_init(thr->ts.ws, count);
    if (reductions || mem)
        omp_ws_attach_extras(thr, init, reductions, mem);
    if (init)
        omp_ws_publish(thr);
    return omp_sections_next(thr);
}

/* scope with reduction(task, ...): a construct of no work whose slot carries the reductions. */
void omp_scope_start(omp_thread_t *thr, uintptr_t *reductions)
{
    bool init = omp_ws_enter(thr);
    if (reductions)
        omp_ws_attach_extras(thr, init, reductions, NULL);
    if (init)
        omp_ws_publish(thr);
    omp_ws_leave(thr);
}
