/* Per-VP run queue: one FIFO per priority level (0..20) and a bitmap of non-empty levels, so push, pop and
 * removal are O(1). Only the owning VP touches it. Inline: these are on every switch. */
#ifndef MPCRT_THREADS_RUNQUEUE_H
#define MPCRT_THREADS_RUNQUEUE_H

static inline void mpcrt_rq_push(mpcrt_runqueue_t *rq, mpcrt_ult_t *u)
{
    int p = u->cur_prio;
    u->rq_next = NULL;
    u->rq_prev = rq->tail[p];
    if (rq->tail[p])
        rq->tail[p]->rq_next = u;
    else
        rq->head[p] = u;
    rq->tail[p] = u;
    rq->nonempty |= 1u << p;
    rq->count++;
}

static inline void mpcrt_rq_remove(mpcrt_runqueue_t *rq, mpcrt_ult_t *u)
{
    int p = u->cur_prio;
    if (u->rq_prev)
        u->rq_prev->rq_next = u->rq_next;
    else
        rq->head[p] = u->rq_next;
    if (u->rq_next)
        u->rq_next->rq_prev = u->rq_prev;
    else
        rq->tail[p] = u->rq_prev;
    if (!rq->head[p])
        rq->nonempty &= ~(1u << p);
    rq->count--;
}

/* Takes the head of the highest non-empty level and ages it (Taboada's rule, research/seed003 §6.4): a pick
 * lowers the current priority by one, and a pick at 0 resets it to the base, so a high-priority ULT gets
 * about base+1 turns for each turn of a priority-0 one and nothing starves. */
static inline mpcrt_ult_t *mpcrt_rq_pop(mpcrt_runqueue_t *rq)
{
    if (!rq->nonempty)
        return NULL;
    int p = 31 - __builtin_clz(rq->nonempty);
    mpcrt_ult_t *u = rq->head[p];
    mpcrt_rq_remove(rq, u);
    u->cur_prio = u->cur_prio > 0 ? u->cur_prio - 1 : u->base_prio;
    return u;
}

/* mpcrt_rq_push(u) then mpcrt_rq_pop for a queue holding exactly one ULT of a level >= u's: returns that
 * ULT, aged as a pop ages it, and leaves u alone in the queue (a yield between two ULTs of one VP). p is
 * that ULT's level, which the caller found to compare it with u's. */
static inline mpcrt_ult_t *mpcrt_rq_swap_single(mpcrt_runqueue_t *rq, mpcrt_ult_t *u, int p)
{
    mpcrt_ult_t *only = rq->head[p];
    only->cur_prio = only->cur_prio > 0 ? only->cur_prio - 1 : only->base_prio;
    int q = u->cur_prio;
    u->rq_next = u->rq_prev = NULL;
    if (q != p) { /* two ranks ping-ponging share a level: then u just takes the place of `only` */
        rq->head[p] = rq->tail[p] = NULL;
        rq->nonempty = 1u << q;
    }
    rq->head[q] = rq->tail[q] = u;
    return only;
}

#endif
