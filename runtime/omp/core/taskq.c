/* Ready tasks (OpenMP 5.1 section 2.12.6, task scheduling). Each team member has a deque of the tasks it
 * queued, in push order; it takes the newest itself and the others steal the oldest. Creating a task and
 * running it then touch no line that the whole team writes: a single shared queue, as before, had every
 * creator, taker and completer write the same line (the EPCC task benchmark's remaining cost, perf).
 * Tasks with a priority go to one team-wide queue in priority order (the team task lock), checked first.
 *
 * A thread waiting in taskwait or taskgroup may only run descendants of the task that waits (the
 * tied-task scheduling constraint), `within`. A task made ready by its dependences goes to the deque of the
 * thread that created it, which runs its parent (tasks are tied), so the tasks a waiter waits for are
 * in its own deque unless another thread runs them: the owner searches its deque for one, from the newest
 * back to the first task pushed after `within` started (older ones cannot descend from it); a thief only
 * looks at the oldest few of another deque. */
#include "../omp_internal.h"

#define STEAL_SCAN 4 /* tasks a waiting thief examines at the old end of another deque */
#define STEAL_MAX 32 /* tasks a free thief takes at once (half the deque, at most this many) */
/* A task stolen from a producer whose deque is at its throttle length costs it a full creation
 * (allocation, counters, queueing, and the cache misses of lines the thief took) instead of an inline
 * run. A thief whose last batch ran shorter than TINY_TASK_CYCLES per task made the team slower, not
 * faster (the EPCC task benchmark, 10-store tasks: 0.7 us per task at 2 threads without this, 0.03 us
 * with it), so it leaves the producers alone for STEAL_BACKOFF_CYCLES (about 70 us) before it steals
 * again. Larger tasks are stolen at once, as always. Only limiting it to deques near their throttle
 * length was tried: at 4 threads the thieves keep a producer's deque below that, and it was 0.7 us. */
#define TINY_TASK_CYCLES 1500
#define STEAL_BACKOFF_CYCLES 200000

#include <stdlib.h>

#define RING_FIRST 256 /* first ring size of a deque (grows by doubling) */

static void set_count(omp_taskdeque_t *d)
{
    atomic_store_explicit(&d->count, (long)(d->tail - d->head), memory_order_relaxed);
}

/* Remove ring position i (head <= i < tail), closing the gap from the nearer end. */
static omp_task_t *remove_at(omp_taskdeque_t *d, unsigned long i)
{
    omp_task_t *t = d->ring[i & d->mask];
    if (i - d->head < d->tail - 1 - i) {
        for (unsigned long k = i; k > d->head; k--)
            d->ring[k & d->mask] = d->ring[(k - 1) & d->mask];
        d->head++;
    } else {
        for (unsigned long k = i; k + 1 < d->tail; k++)
            d->ring[k & d->mask] = d->ring[(k + 1) & d->mask];
        d->tail--;
    }
    set_count(d);
    return t;
}

/* Room for n more tasks (lock held). */
static void reserve(omp_taskdeque_t *d, unsigned long n)
{
    unsigned long used = d->tail - d->head, size = d->ring ? d->mask + 1 : 0;
    if (used + n <= size)
        return;
    unsigned long nsize = size ? size : RING_FIRST;
    while (nsize < used + n)
        nsize *= 2;
    omp_task_t **ring = malloc(sizeof *ring * nsize);
    if (!ring)
        omp_fatal("out of memory queueing a task");
    for (unsigned long k = 0; k < used; k++)
        ring[k] = d->ring[(d->head + k) & d->mask];
    free(d->ring);
    d->ring = ring;
    d->mask = nsize - 1;
    d->head = 0;
    d->tail = used;
}

void omp_taskq_free(omp_taskdeque_t *d)
{
    free(d->ring);
    d->ring = NULL;
}

static void prio_insert(omp_taskq_t *q, omp_task_t *t)
{
    omp_task_t *after = q->tail;
    while (after && after->priority < t->priority)
        after = after->q_prev;
    t->q_prev = after;
    t->q_next = after ? after->q_next : q->head;
    if (t->q_next)
        t->q_next->q_prev = t;
    else
        q->tail = t;
    if (after)
        after->q_next = t;
    else
        q->head = t;
    t->in_prio = true;
    atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
}

static void prio_remove(omp_taskq_t *q, omp_task_t *t)
{
    if (t->q_prev)
        t->q_prev->q_next = t->q_next;
    else
        q->head = t->q_next;
    if (t->q_next)
        t->q_next->q_prev = t->q_prev;
    else
        q->tail = t->q_prev;
    t->q_next = t->q_prev = NULL;
    t->in_prio = false;
    atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
}

void omp_taskq_push(omp_task_t *t)
{
    omp_team_t *team = t->team;
    omp_taskdeque_t *d = &team->deques[t->creator_num];
    atomic_store_explicit(&t->state, TASK_QUEUED, memory_order_relaxed);
    if (t->priority > 0) {
        omp_spin_lock(&team->task_lock);
        prio_insert(&team->prio, t);
        omp_spin_unlock(&team->task_lock);
        /* The owner's waits watch its push count: a waiting parent sees its new child. */
        atomic_fetch_add(&d->pushes, 1);
        return;
    }
    omp_spin_lock(&d->lock);
    reserve(d, 1);
    d->ring[d->tail++ & d->mask] = t;
    set_count(d);
    /* seq_cst: the count and push number before the caller's look at sleepers (Dekker, omp_wake). */
    t->seq = atomic_fetch_add(&d->pushes, 1) + 1;
    omp_spin_unlock(&d->lock);
}

/* Whether t descends from a (t's ancestors stay alive: each child holds a reference to its parent). */
static bool descends(const omp_task_t *t, const omp_task_t *a)
{
    if (a->implicit)
        return t->root == a;
    if (t->depth <= a->depth)
        return false;
    while (t->depth > a->depth)
        t = t->parent;
    return t == a;
}

static bool region_over(omp_team_t *team, unsigned long region)
{
    /* Read under a deque lock: a task of the next region is pushed after the fork advanced `region`, so
     * a thief holding the lock after that push sees the new value. */
    return region && atomic_load_explicit(&team->region, memory_order_relaxed) != region;
}

static omp_task_t *take_prio(omp_team_t *team, omp_task_t *within, unsigned long region)
{
    omp_task_t *t = NULL;
    omp_spin_lock(&team->task_lock);
    if (!region_over(team, region)) {
        for (t = team->prio.head; t && within && !descends(t, within); t = t->q_next)
            ;
        if (t)
            prio_remove(&team->prio, t);
    }
    omp_spin_unlock(&team->task_lock);
    return t;
}

static omp_task_t *take_own(omp_taskdeque_t *d, omp_task_t *within, unsigned long region, omp_team_t *team)
{
    omp_task_t *t = NULL;
    omp_spin_lock(&d->lock);
    if (!region_over(team, region)) {
        for (unsigned long i = d->tail; i != d->head; i--) {
            omp_task_t *c = d->ring[(i - 1) & d->mask];
            if (within && c->seq <= within->mark)
                break;
            if (!within || descends(c, within)) {
                t = remove_at(d, i - 1);
                break;
            }
        }
    }
    omp_spin_unlock(&d->lock);
    return t;
}

/* A thief that may run anything (in a barrier, a join, idle) takes the older half of the deque, up to
 * STEAL_MAX tasks, runs the first and keeps the others in its own deque: the victim's lines then move
 * once per batch, not once per task (a producer whose tasks all get stolen pays for every move). */
static omp_task_t *steal(omp_taskdeque_t *d, omp_taskdeque_t *own, omp_task_t *within, unsigned long region,
                         omp_team_t *team)
{
    omp_task_t *t = NULL, *batch[STEAL_MAX];
    unsigned long n = 0;
    omp_spin_lock(&d->lock);
    if (!region_over(team, region) && d->tail != d->head) {
        if (within) {
            for (unsigned long i = d->head; i != d->tail && i - d->head < STEAL_SCAN; i++)
                if (descends(d->ring[i & d->mask], within)) {
                    t = remove_at(d, i);
                    break;
                }
        } else {
            unsigned long count = d->tail - d->head;
            n = count / 2 < STEAL_MAX ? count / 2 : STEAL_MAX;
            if (n < 1)
                n = 1;
            for (unsigned long k = 0; k < n; k++)
                batch[k] = d->ring[(d->head + k) & d->mask];
            d->head += n;
            set_count(d);
            t = batch[0];
        }
    }
    omp_spin_unlock(&d->lock);
    if (n > 1) {
        omp_spin_lock(&own->lock);
        reserve(own, n - 1);
        unsigned long seq = atomic_fetch_add_explicit(&own->pushes, n - 1, memory_order_relaxed);
        for (unsigned long k = 1; k < n; k++) {
            batch[k]->seq = ++seq;
            own->ring[own->tail++ & own->mask] = batch[k];
        }
        set_count(own);
        omp_spin_unlock(&own->lock);
    }
    return t;
}

omp_task_t *omp_taskq_take(omp_thread_t *thr, omp_task_t *within, unsigned long region)
{
    omp_team_t *team = thr->ts.team;
    omp_task_t *t = NULL;
    if (!atomic_load_explicit(&team->tasks_seen, memory_order_relaxed))
        return NULL;
    if (OMP_UNLIKELY(atomic_load_explicit(&team->prio.count, memory_order_relaxed) > 0) &&
        (t = take_prio(team, within, region)))
        return t;
    unsigned n = region ? team->capacity : team->nthreads, me = thr->ts.num; /* see omp_team_has_tasks */
    omp_taskdeque_t *own = &team->deques[me];
    if (atomic_load_explicit(&own->count, memory_order_relaxed) > 0 &&
        (t = take_own(own, within, region, team)))
        return t;
    if (!within && thr->steal_ok_at) {
        if (__builtin_ia32_rdtsc() < thr->steal_ok_at) {
            /* The caller loops (its wait predicate sees queued tasks): let the VP's other ULTs run. */
            if (thr->ult && mpcrt_yield_would_switch())
                mpcrt_yield();
            else
                omp_cpu_relax();
            return NULL;
        }
        thr->steal_ok_at = 0;
    }
    unsigned v = thr->steal_from;
    for (unsigned k = 0; k < n; k++, v++) {
        if (v >= n)
            v = 0;
        if (v == me)
            continue;
        omp_taskdeque_t *d = &team->deques[v];
        if (atomic_load_explicit(&d->count, memory_order_relaxed) > 0 &&
            (t = steal(d, own, within, region, team))) {
            thr->steal_from = v; /* the same victim first next time: a producer stays one */
            if (!within) {
                thr->batch_n = thr->batch_left =
                    (unsigned)atomic_load_explicit(&own->count, memory_order_relaxed) + 1;
                thr->batch_t0 = __builtin_ia32_rdtsc();
            }
            return t;
        }
    }
    return NULL;
}

/* Both predicates first read tasks_seen, one load where the region has no explicit task (the join and
 * the barriers of task-free regions: summing the members' lines cost parallel_for 5-15 %). */
bool omp_team_has_tasks(omp_team_t *team)
{
    if (!atomic_load(&team->tasks_seen))
        return false;
    if (atomic_load_explicit(&team->prio.count, memory_order_relaxed) > 0)
        return true;
    /* capacity, not nthreads: an idle worker asks while the next fork may be changing nthreads (the deques
     * past it are empty). */
    for (unsigned i = 0; i < team->capacity; i++)
        if (atomic_load_explicit(&team->deques[i].count, memory_order_relaxed) > 0)
            return true;
    return false;
}

bool omp_team_tasks_pending(omp_team_t *team)
{
    if (!atomic_load(&team->tasks_seen))
        return false;
    for (unsigned i = 0; i < team->nthreads; i++)
        if (atomic_load(&team->implicit[i].pending) != 0)
            return true;
    return false;
}

void omp_taskq_ran(omp_thread_t *thr)
{
    if (thr->batch_left && --thr->batch_left == 0) {
        uint64_t now = __builtin_ia32_rdtsc();
        if (now - thr->batch_t0 < (uint64_t)thr->batch_n * TINY_TASK_CYCLES)
            thr->steal_ok_at = now + STEAL_BACKOFF_CYCLES;
    }
}
