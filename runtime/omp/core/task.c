/* Explicit tasks (OpenMP 5.1 section 2.12). Tasks are stackless work items: whichever team thread takes
 * one runs it on its own stack, at a task scheduling point (barrier, join, taskwait, taskgroup end).
 * A ready task sits in up to three priority queues under the team's task lock: the team's (barriers take
 * from it), its parent's children (taskwait) and its taskgroup's (taskgroup end), so a waiting task only
 * runs tasks it waits for (the tied-task scheduling constraint). Completion updates the parent's, the
 * taskgroup's and the team's counters under the same lock, which is what lets a waiter free a taskgroup
 * as soon as it sees the count reach zero. Reference counts keep a task alive while a child, a dependence
 * table or its own completion may still touch it. */
#include "../omp_internal.h"

#include <stdlib.h>
#include <string.h>

/* GOMP_task flags (gomp-constants.h). */
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_DEPEND (1u << 3)
#define TASK_FLAG_PRIORITY (1u << 4)
#define TASK_FLAG_DETACH (1u << 13)

#define SMALL_TASK_DATA 192 /* tasks with at most this much data come from the per-thread free list */
#define FREE_LIST_MAX 64
/* Queued tasks per team member beyond which a new task runs at once in its creator (task throttling, as
 * libgomp and libomp do): the helpers are behind anyway, and running it costs the creator no more than
 * it would cost a helper, without the queue's lock traffic and memory. */
#define THROTTLE_PER_THREAD 64

/* ---- allocation */

static size_t small_size(void)
{
    return (sizeof(omp_task_t) + 63) / 64 * 64 + SMALL_TASK_DATA;
}

/* Every field zero. Field by field rather than one memset of the block: gcc makes the memset a `rep
 * stos`, whose start-up was a third of task creation's cycles (perf, EPCC task benchmark). */
static void task_clear(omp_task_t *t)
{
    t->parent = NULL;
    t->taskgroup = t->member_of = NULL;
    t->team = NULL;
    t->fn = NULL;
    t->data = NULL;
    t->priority = 0;
    t->implicit = t->final = t->undeferred = t->detach = t->on_stack = false;
    t->promoted = NULL;
    for (int k = 0; k < TQ_COUNT; k++) {
        t->queued_in[k] = false;
        t->q_next[k] = t->q_prev[k] = NULL;
    }
    atomic_init(&t->state, 0);
    atomic_init(&t->votes, 0);
    atomic_init(&t->deps_met, false);
    t->creator = NULL;
    atomic_init(&t->children_pending, 0);
    t->children.head = t->children.tail = NULL;
    atomic_init(&t->children.count, 0);
    atomic_init(&t->waiter, NULL);
    t->deps = NULL;
    atomic_init(&t->npredecessors, 0);
    atomic_init(&t->dep_lock, 0);
    t->dep_complete = false;
    t->successors = NULL;
    t->nsuccessors = t->successors_cap = 0;
    atomic_init(&t->refs, 0);
    t->alloc_size = 0;
}

static omp_task_t *task_alloc(omp_thread_t *thr, size_t data_bytes, size_t align, void **data)
{
    size_t header = (sizeof(omp_task_t) + 63) / 64 * 64;
    if (align < 1)
        align = 1;
    size_t need = header + data_bytes + (align > 64 ? align : 0);
    omp_task_t *t;
    size_t size;
    if (need <= small_size() && thr->free_tasks) {
        t = thr->free_tasks;
        thr->free_tasks = t->parent;
        thr->nfree_tasks--;
        size = small_size();
    } else {
        size = need <= small_size() ? small_size() : need;
        t = omp_malloc_aligned(64, size);
    }
    task_clear(t); /* icv is set by the caller */
    t->alloc_size = size;
    uintptr_t p = (uintptr_t)t + header;
    p = (p + align - 1) & ~(uintptr_t)(align - 1);
    *data = (void *)p;
    return t;
}

void omp_task_free(omp_task_t *t)
{
    if (t->deps)
        omp_deps_clear(t);
    free(t->successors);
    omp_thread_t *thr = NULL;
    mpcrt_ult_t *u = mpcrt_ult_self();
    thr = u ? mpcrt_ult_slot(u, MPCRT_ULT_SLOT_OMP) : omp_kthread_self;
    if (thr && t->alloc_size == small_size() && thr->nfree_tasks < FREE_LIST_MAX) {
        t->parent = thr->free_tasks;
        thr->free_tasks = t;
        thr->nfree_tasks++;
        return;
    }
    free(t);
}

void omp_task_unref(omp_task_t *t)
{
    /* acq_rel: the last reference sees every other holder's writes before freeing. */
    if (atomic_fetch_sub_explicit(&t->refs, 1, memory_order_acq_rel) == 1 && !t->implicit)
        omp_task_free(t);
}

void omp_task_init_implicit(omp_task_t *task, omp_team_t *team, const omp_icv_t *icv)
{
    if (task->deps)
        omp_deps_clear(task);
    free(task->successors);
    task_clear(task);
    task->implicit = true;
    task->team = team;
    task->icv = *icv;
    atomic_init(&task->refs, 1);
    atomic_init(&task->state, TASK_RUNNING);
}

void omp_task_end_implicit(omp_task_t *task)
{
    if (task->deps)
        omp_deps_clear(task);
}

bool omp_task_in_final(omp_thread_t *thr)
{
    return thr->task->final;
}

/* ---- queues (team task lock held) */

static void q_insert(omp_taskq_t *q, omp_task_t *t, int k)
{
    omp_task_t *after = q->tail;
    while (after && after->priority < t->priority)
        after = after->q_prev[k];
    t->q_prev[k] = after;
    t->q_next[k] = after ? after->q_next[k] : q->head;
    if (t->q_next[k])
        t->q_next[k]->q_prev[k] = t;
    else
        q->tail = t;
    if (after)
        after->q_next[k] = t;
    else
        q->head = t;
    t->queued_in[k] = true;
    atomic_fetch_add_explicit(&q->count, 1, memory_order_relaxed);
}

static void q_remove(omp_taskq_t *q, omp_task_t *t, int k)
{
    if (t->q_prev[k])
        t->q_prev[k]->q_next[k] = t->q_next[k];
    else
        q->head = t->q_next[k];
    if (t->q_next[k])
        t->q_next[k]->q_prev[k] = t->q_prev[k];
    else
        q->tail = t->q_prev[k];
    t->q_next[k] = t->q_prev[k] = NULL;
    t->queued_in[k] = false;
    atomic_fetch_sub_explicit(&q->count, 1, memory_order_relaxed);
}

static void dequeue_all(omp_team_t *team, omp_task_t *t)
{
    if (t->queued_in[TQ_TEAM])
        q_remove(&team->queue, t, TQ_TEAM);
    if (t->queued_in[TQ_CHILD])
        q_remove(&t->parent->children, t, TQ_CHILD);
    if (t->queued_in[TQ_GROUP])
        q_remove(&t->member_of->queue, t, TQ_GROUP);
    atomic_fetch_sub_explicit(&team->tasks_queued, 1, memory_order_relaxed);
}

static void enqueue(omp_task_t *t)
{
    omp_team_t *team = t->team;
    omp_thread_t *wake_parent = NULL, *wake_group = NULL;
    atomic_store_explicit(&t->state, TASK_QUEUED, memory_order_relaxed);
    omp_spin_lock(&team->task_lock);
    q_insert(&team->queue, t, TQ_TEAM);
    if (t->parent)
        q_insert(&t->parent->children, t, TQ_CHILD);
    if (t->member_of)
        q_insert(&t->member_of->queue, t, TQ_GROUP);
    atomic_fetch_add_explicit(&team->tasks_queued, 1, memory_order_release);
    atomic_thread_fence(memory_order_seq_cst); /* the queue counts before the waiters (Dekker) */
    if (t->parent)
        wake_parent = atomic_load_explicit(&t->parent->waiter, memory_order_relaxed);
    if (t->member_of)
        wake_group = atomic_load_explicit(&t->member_of->waiter, memory_order_relaxed);
    omp_spin_unlock(&team->task_lock);
    if (wake_parent)
        omp_wake(wake_parent);
    if (wake_group && wake_group != wake_parent)
        omp_wake(wake_group);
    omp_team_notify_one(team);
}

void omp_task_make_ready(omp_task_t *t)
{
    if (t->undeferred) {
        /* Its creator waits to run it itself. */
        omp_thread_t *creator = t->creator;
        atomic_store_explicit(&t->deps_met, true, memory_order_release);
        omp_wake(creator);
        return;
    }
    enqueue(t);
}

/* ---- completion */

static bool group_cancelled(omp_taskgroup_t *g)
{
    for (; g; g = g->prev)
        if (atomic_load_explicit(&g->cancelled, memory_order_relaxed))
            return true;
    return false;
}

bool omp_task_cancelled(omp_task_t *t)
{
    if (!omp_global.cancellation)
        return false;
    if (t->team && atomic_load_explicit(&t->team->cancelled, memory_order_relaxed))
        return true;
    return group_cancelled(t->member_of);
}

static void complete(omp_task_t *t)
{
    omp_team_t *team = t->team;
    omp_deps_release(t);
    if (t->deps)
        omp_deps_clear(t); /* no more children will be created */
    omp_task_t *parent = t->parent;
    omp_taskgroup_t *group = t->member_of;
    omp_thread_t *wake_parent = NULL, *wake_group = NULL;
    bool free_parent = false;
    omp_spin_lock(&team->task_lock);
    atomic_store_explicit(&t->state, TASK_COMPLETE, memory_order_release);
    if (parent) {
        /* seq_cst pairs: the waiter stores `waiter` then reads the count (Dekker). */
        if (atomic_fetch_sub(&parent->children_pending, 1) == 1)
            wake_parent = atomic_load(&parent->waiter);
        free_parent = atomic_fetch_sub_explicit(&parent->refs, 1, memory_order_acq_rel) == 1 && !parent->implicit;
    }
    if (group && atomic_fetch_sub(&group->pending, 1) == 1)
        wake_group = atomic_load(&group->waiter);
    /* seq_cst: the barrier's completion test pairs this with the seq_cst arrivals. Still under the lock:
     * a master that saw the count reach zero takes the lock before it resets the team. */
    if (atomic_fetch_sub(&team->tasks_pending, 1) == 1)
        omp_barrier_check(team); /* wakes only: never blocks or switches */
    omp_spin_unlock(&team->task_lock);
    if (wake_parent)
        omp_wake(wake_parent);
    if (wake_group && wake_group != wake_parent)
        omp_wake(wake_group);
    if (free_parent)
        omp_task_free(parent);
    omp_task_unref(t);
}

static void body_done(omp_task_t *t)
{
    if (atomic_fetch_sub_explicit(&t->votes, 1, memory_order_acq_rel) == 1)
        complete(t);
    else
        atomic_store_explicit(&t->state, TASK_DETACHED, memory_order_relaxed);
}

void omp_task_fulfill(void *event)
{
    omp_task_t *t = event;
    if (atomic_fetch_sub_explicit(&t->votes, 1, memory_order_acq_rel) == 1)
        complete(t);
}

static void run_task(omp_thread_t *thr, omp_task_t *t)
{
    omp_task_t *prev = thr->task;
    thr->task = t;
    atomic_store_explicit(&t->state, TASK_RUNNING, memory_order_relaxed);
    if (!omp_task_cancelled(t) && t->fn)
        t->fn(t->data);
    thr->task = prev;
    body_done(t);
}

/* Move an inline task (run_inline) to the heap before its first child, which may outlive it, points to
 * it, and then counts it: from here on it completes as any undeferred task, through complete(). Called
 * by the thread running it, while nothing else can know its address. */
static omp_task_t *promote(omp_thread_t *thr, omp_task_t *s)
{
    void *unused;
    omp_task_t *h = task_alloc(thr, 0, 1, &unused);
    size_t size = h->alloc_size;
    memcpy(h, s, sizeof *h);
    h->alloc_size = size;
    h->on_stack = false;
    atomic_init(&h->refs, 2); /* its own, and its runner's until it completes */
    atomic_fetch_add_explicit(&h->parent->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&h->parent->children_pending, 1, memory_order_relaxed);
    if (h->member_of)
        atomic_fetch_add_explicit(&h->member_of->pending, 1, memory_order_relaxed);
    atomic_fetch_add(&h->team->tasks_pending, 1);
    s->promoted = h;
    thr->task = h;
    return h;
}

/* An undeferred task (if(0), final, throttled) without dependences, detach event or data copy runs here
 * and now, on a task block in this frame: its parent, taskgroup and team can only wait for it after it
 * returned, so it skips their counters, the allocation and the team lock that a queued task costs. This
 * is the throttled path of a producer that is ahead of its team (the EPCC task benchmark at 4 threads
 * on 2 cores went through it for most tasks, at a heap task's full cost). */
static void run_inline(omp_thread_t *thr, omp_task_t *parent, void (*fn)(void *), void *data, bool final,
                       int priority)
{
    omp_task_t t;
    task_clear(&t);
    t.parent = parent;
    t.team = thr->ts.team;
    t.icv = parent->icv;
    t.fn = fn;
    t.data = data;
    t.member_of = t.taskgroup = parent->taskgroup;
    t.final = final;
    t.undeferred = true;
    t.on_stack = true;
    t.creator = thr;
    t.priority = priority;
    atomic_init(&t.refs, 1);
    atomic_init(&t.votes, 1);
    atomic_init(&t.state, TASK_RUNNING);
    thr->task = &t;
    if (!omp_task_cancelled(&t) && fn)
        fn(data);
    thr->task = parent;
    if (t.promoted) {
        body_done(t.promoted); /* votes 1 (no detach): completes at once */
        omp_task_unref(t.promoted);
    }
}

bool omp_task_run_one(omp_thread_t *thr, int kind, void *owner)
{
    omp_team_t *team = thr->ts.team;
    if (atomic_load_explicit(&team->tasks_queued, memory_order_acquire) == 0)
        return false;
    omp_task_t *t = NULL;
    omp_spin_lock(&team->task_lock);
    switch (kind) {
    case TQ_TEAM:
        /* owner: a worker past its region helps only with tasks of that region. */
        if (!owner || atomic_load_explicit(&team->region, memory_order_relaxed) == (unsigned long)(uintptr_t)owner)
            t = team->queue.head;
        break;
    case TQ_CHILD:
        t = ((omp_task_t *)owner)->children.head;
        break;
    case TQ_GROUP:
        t = ((omp_taskgroup_t *)owner)->queue.head;
        break;
    }
    if (t)
        dequeue_all(team, t);
    omp_spin_unlock(&team->task_lock);
    if (!t)
        return false;
    run_task(thr, t);
    return true;
}

/* ---- creation */

static int clamp_priority(int priority)
{
    return priority < 0 ? 0 : priority > omp_global.max_task_priority ? omp_global.max_task_priority : priority;
}

typedef struct {
    omp_task_t *task;
} deps_wait_t;

static bool deps_met(void *arg)
{
    deps_wait_t *w = arg;
    return atomic_load_explicit(&w->task->deps_met, memory_order_acquire) ||
           atomic_load_explicit(&w->task->parent->children.count, memory_order_relaxed) > 0;
}

static bool complete_pred(void *arg)
{
    omp_task_t *t = arg;
    return atomic_load_explicit(&t->state, memory_order_acquire) == TASK_COMPLETE ||
           atomic_load_explicit(&t->team->tasks_queued, memory_order_relaxed) > 0;
}

void omp_task_create(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                     int priority, void *detach)
{
    omp_task_create_ex(thr, fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach,
                       NULL, NULL);
}

void omp_task_create_ex(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                        long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                        int priority, void *detach, void (*adjust)(void *task_data, void *arg),
                        void *adjust_arg)
{
    omp_task_t *parent = thr->task;
    omp_team_t *team = thr->ts.team;
    if (OMP_UNLIKELY(omp_global.cancellation) && (atomic_load_explicit(&team->cancelled, memory_order_relaxed) ||
                                                  group_cancelled(parent->taskgroup)))
        return; /* it would be discarded before it starts */
    bool has_deps = (flags & TASK_FLAG_DEPEND) && depend;
    bool is_detach = (flags & TASK_FLAG_DETACH) && detach;
    /* A team of one has nobody to hand a task to: it runs at once when its dependences allow (and if they
     * do not, later, so it keeps a copy of its data then). */
    bool alone = team->nthreads == 1;
    /* Throttled tasks run as undeferred ones (no copy of their data); those with dependences or
     * priorities stay queued, where their order is kept, and detachable ones too. */
    bool throttle = !alone && !has_deps && !is_detach && !(flags & TASK_FLAG_PRIORITY) &&
                    atomic_load_explicit(&team->tasks_queued, memory_order_relaxed) >
                        (long)THROTTLE_PER_THREAD * team->nthreads;
    bool undeferred = !if_clause || parent->final || throttle;
    if ((undeferred || alone) && !has_deps && !is_detach && !cpyfn && !adjust) {
        int prio = (flags & TASK_FLAG_PRIORITY) ? clamp_priority(priority) : 0;
        run_inline(thr, parent, fn, data, (flags & TASK_FLAG_FINAL) || parent->final, prio);
        return;
    }
    if (OMP_UNLIKELY(parent->on_stack))
        parent = promote(thr, parent);

    void *task_data;
    bool copy = (!undeferred && (!alone || has_deps)) || cpyfn || adjust;
    omp_task_t *t = task_alloc(thr, copy ? (size_t)arg_size : 0, (size_t)arg_align, &task_data);
    t->parent = parent;
    t->team = team;
    t->icv = parent->icv;
    t->fn = fn;
    t->member_of = parent->taskgroup;
    t->taskgroup = parent->taskgroup;
    t->final = (flags & TASK_FLAG_FINAL) || parent->final;
    t->undeferred = undeferred;
    t->creator = thr;
    t->detach = is_detach;
    if (flags & TASK_FLAG_PRIORITY)
        t->priority = clamp_priority(priority);
    atomic_init(&t->refs, 1);
    atomic_init(&t->votes, is_detach ? 2 : 1);
    atomic_init(&t->state, TASK_WAITING);
    /* The event handle goes to the detach variable and, where the task body reads it, to the first word
     * of the data block (GCC puts the event there), before the task's copy is made. */
    if (is_detach) {
        *(void **)detach = t;
        if (data && arg_size >= (long)sizeof(void *))
            *(void **)data = t;
    }
    if (copy) {
        if (cpyfn)
            cpyfn(task_data, data);
        else if (arg_size)
            memcpy(task_data, data, (size_t)arg_size);
        t->data = task_data;
        if (adjust)
            adjust(task_data, adjust_arg);
    } else {
        t->data = data;
    }

    atomic_fetch_add_explicit(&parent->refs, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&parent->children_pending, 1, memory_order_relaxed);
    if (t->member_of)
        atomic_fetch_add_explicit(&t->member_of->pending, 1, memory_order_relaxed);
    atomic_fetch_add(&team->tasks_pending, 1);
    if (!atomic_load_explicit(&team->tasks_seen, memory_order_relaxed))
        atomic_store_explicit(&team->tasks_seen, true, memory_order_relaxed);

    bool ready = true;
    if (has_deps)
        ready = omp_deps_register(parent, t, depend) == 0;

    if (!undeferred) {
        if (ready && alone) {
            atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed);
            run_task(thr, t);
            omp_task_unref(t);
        } else if (ready) {
            enqueue(t);
        }
        return; /* not ready: a predecessor's completion queues it */
    }
    /* Undeferred: wait for the predecessors (running siblings meanwhile), then run it here. */
    if (!ready) {
        deps_wait_t w = {t};
        while (!atomic_load_explicit(&t->deps_met, memory_order_acquire)) {
            if (omp_task_run_one(thr, TQ_CHILD, parent))
                continue;
            atomic_store(&parent->waiter, thr);
            omp_team_wait(thr, team, deps_met, &w);
            atomic_store(&parent->waiter, NULL);
        }
    }
    atomic_fetch_add_explicit(&t->refs, 1, memory_order_relaxed); /* keep it to watch its completion */
    run_task(thr, t);
    /* An undeferred detached task: the generating task waits for the event too. */
    while (atomic_load_explicit(&t->state, memory_order_acquire) != TASK_COMPLETE) {
        if (omp_task_run_one(thr, TQ_TEAM, NULL))
            continue;
        omp_team_wait(thr, team, complete_pred, t);
    }
    omp_task_unref(t);
}

/* ---- waiting */

static bool children_pred(void *arg)
{
    omp_task_t *t = arg;
    return atomic_load_explicit(&t->children_pending, memory_order_acquire) == 0 ||
           atomic_load_explicit(&t->children.count, memory_order_relaxed) > 0;
}

void omp_taskwait(omp_thread_t *thr)
{
    omp_task_t *task = thr->task;
    while (atomic_load_explicit(&task->children_pending, memory_order_acquire) > 0) {
        if (omp_task_run_one(thr, TQ_CHILD, task))
            continue;
        atomic_store(&task->waiter, thr);
        omp_team_wait(thr, thr->ts.team, children_pred, task);
        atomic_store(&task->waiter, NULL);
    }
    /* The completer of the last child may still hold the team lock with our waiter pointer. */
    omp_spin_lock(&thr->ts.team->task_lock);
    omp_spin_unlock(&thr->ts.team->task_lock);
    if (task->deps)
        omp_deps_clear(task);
}

void omp_taskwait_depend(omp_thread_t *thr, void **depend)
{
    /* An empty undeferred task with the dependences: it runs once its predecessors completed. */
    omp_task_create(thr, NULL, NULL, NULL, 0, 1, false, TASK_FLAG_DEPEND, depend, 0, NULL);
}

void omp_taskyield(omp_thread_t *thr)
{
    if (thr->ult)
        mpcrt_yield();
}

void omp_taskgroup_start(omp_thread_t *thr)
{
    omp_taskgroup_t *g = calloc(1, sizeof *g);
    if (!g)
        omp_fatal("out of memory creating a taskgroup");
    g->prev = thr->task->taskgroup;
    thr->task->taskgroup = g;
}

typedef struct {
    omp_taskgroup_t *group;
    omp_task_t *task;
    omp_team_t *team;
} group_wait_t;

static bool group_pred(void *arg)
{
    group_wait_t *w = arg;
    return atomic_load_explicit(&w->group->pending, memory_order_acquire) == 0 ||
           atomic_load_explicit(&w->group->queue.count, memory_order_relaxed) > 0 ||
           atomic_load_explicit(&w->task->children.count, memory_order_relaxed) > 0 ||
           (w->team->nthreads == 1 && atomic_load_explicit(&w->team->tasks_queued, memory_order_relaxed) > 0);
}

/* A task of the group may wait for a dependence on a task outside it: then run the waiting task's other
 * children (descendants, so the scheduling constraint holds), and in a team of one anything queued. */
static bool run_for_group(omp_thread_t *thr, omp_taskgroup_t *g)
{
    return omp_task_run_one(thr, TQ_GROUP, g) || omp_task_run_one(thr, TQ_CHILD, thr->task) ||
           (thr->ts.team->nthreads == 1 && omp_task_run_one(thr, TQ_TEAM, NULL));
}

void omp_taskgroup_end(omp_thread_t *thr)
{
    omp_taskgroup_t *g = thr->task->taskgroup;
    if (!g)
        return;
    group_wait_t w = {g, thr->task, thr->ts.team};
    while (atomic_load_explicit(&g->pending, memory_order_acquire) > 0) {
        if (run_for_group(thr, g))
            continue;
        atomic_store(&g->waiter, thr);
        atomic_store(&thr->task->waiter, thr);
        omp_team_wait(thr, thr->ts.team, group_pred, &w);
        atomic_store(&thr->task->waiter, NULL);
        atomic_store(&g->waiter, NULL);
    }
    /* The last completer updated g under the team lock: once we hold it, nobody touches g any more. */
    omp_spin_lock(&thr->ts.team->task_lock);
    omp_spin_unlock(&thr->ts.team->task_lock);
    thr->task->taskgroup = g->prev;
    while (g->reductions) {
        omp_taskred_t *r = g->reductions;
        g->reductions = r->next;
        free(r);
    }
    free(g);
}
