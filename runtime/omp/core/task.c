/* Explicit tasks (OpenMP 5.1 section 2.12). Tasks are stackless work items: whichever team thread takes
 * one runs it on its own stack, at a task scheduling point (barrier, join, taskwait, taskgroup end).
 * Ready tasks wait in their creator's deque (core/taskq.c). Counters say when a wait is over: a task's
 * pending children (in one word with its reference count), a taskgroup's pending tasks, and for the
 * barrier each implicit task's pending explicit tasks (those rooted there: the creator and the completer
 * of a task of one producer then both write the producer's line, not a team-wide one). A counter leaves
 * zero without a lock, and reaches zero only under the team task lock, where its last completer also
 * reads the waiter and checks the barrier: a waiter that saw zero takes that lock once and then knows
 * nobody touches the task, the taskgroup or the team for that count any more. Reference counts keep a
 * task alive while a child, a dependence table or its own completion may still touch it. */
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

/* ---- allocation */

static size_t small_size(void)
{
    return (sizeof(omp_task_t) + 63) / 64 * 64 + SMALL_TASK_DATA;
}

/* Every field zero. Field by field rather than one memset of the block: gcc makes the memset a `rep
 * stos`, whose start-up was a third of task creation's cycles (perf, EPCC task benchmark). */
static void task_clear_head(omp_task_t *t)
{
    t->parent = t->root = NULL;
    t->taskgroup = t->member_of = NULL;
    t->team = NULL;
    t->fn = NULL;
    t->data = NULL;
    t->q_next = t->q_prev = NULL;
    t->seq = t->mark = 0;
    t->depth = t->creator_num = 0;
    t->priority = 0;
    t->implicit = t->final = t->undeferred = t->detach = t->on_stack = t->in_prio = false;
    t->promoted = NULL;
    atomic_init(&t->state, 0);
    atomic_init(&t->votes, 0);
    atomic_init(&t->deps_met, false);
    t->creator = NULL;
    t->deps = NULL;
    atomic_init(&t->npredecessors, 0);
    atomic_init(&t->dep_lock, 0);
    t->dep_complete = false;
    t->successors = NULL;
    t->nsuccessors = t->successors_cap = 0;
    t->alloc_size = 0;
}

static void task_clear(omp_task_t *t)
{
    task_clear_head(t);
    atomic_init(&t->cnt, 0);
    atomic_init(&t->pending, 0);
    atomic_init(&t->waiter, NULL);
}

/* Take every batch given back to the team into the caller's (empty) free list. A producer's blocks are
 * freed by the threads that ran its tasks: without this it allocated every block from malloc while the
 * others freed theirs, contending with it on glibc's arena lock (futex waits in perf). */
static void take_batches(omp_thread_t *thr, omp_team_t *team)
{
    if (!atomic_load_explicit(&team->free_batches, memory_order_relaxed))
        return;
    /* acquire: the blocks' last writes (their completion) before we reuse them. */
    omp_task_t *b = atomic_exchange_explicit(&team->free_batches, NULL, memory_order_acquire);
    omp_task_t *tail = NULL;
    int n = 0;
    while (b) {
        omp_task_t *next = b->q_next; /* batch head: q_next the next batch, q_prev its last block */
        if (tail)
            tail->parent = b;
        else
            thr->free_tasks = b;
        tail = b->q_prev;
        n += (int)b->seq;
        b = next;
    }
    if (tail) {
        tail->parent = NULL;
        thr->free_tail = tail;
        thr->nfree_tasks = n;
    }
}

static void give_batch(omp_thread_t *thr, omp_team_t *team)
{
    omp_task_t *b = thr->free_tasks;
    b->q_prev = thr->free_tail;
    b->seq = (unsigned long)thr->nfree_tasks;
    omp_task_t *head = atomic_load_explicit(&team->free_batches, memory_order_relaxed);
    do
        b->q_next = head;
    while (!atomic_compare_exchange_weak_explicit(&team->free_batches, &head, b, memory_order_release,
                                                  memory_order_relaxed));
    thr->free_tasks = thr->free_tail = NULL;
    thr->nfree_tasks = 0;
}

void omp_task_free_batches(omp_team_t *team)
{
    omp_task_t *b = atomic_exchange(&team->free_batches, NULL);
    while (b) {
        omp_task_t *next = b->q_next;
        for (omp_task_t *t = b, *n; t; t = n) {
            n = t->parent;
            free(t);
        }
        b = next;
    }
}

static omp_task_t *task_alloc(omp_thread_t *thr, size_t data_bytes, size_t align, void **data)
{
    size_t header = (sizeof(omp_task_t) + 63) / 64 * 64;
    if (align < 1)
        align = 1;
    size_t need = header + data_bytes + (align > 64 ? align : 0);
    omp_task_t *t;
    size_t size;
    if (need <= small_size() && !thr->free_tasks && thr->ts.team)
        take_batches(thr, thr->ts.team);
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
    if (thr && t->alloc_size == small_size()) {
        if (thr->nfree_tasks >= FREE_LIST_MAX && thr->ts.team && thr->ts.team->capacity > 1)
            give_batch(thr, thr->ts.team);
        if (thr->nfree_tasks < FREE_LIST_MAX) {
            if (!thr->free_tasks)
                thr->free_tail = t;
            t->parent = thr->free_tasks;
            thr->free_tasks = t;
            thr->nfree_tasks++;
            return;
        }
    }
    free(t);
}

void omp_task_ref(omp_task_t *t)
{
    atomic_fetch_add_explicit(&t->cnt, OMP_TASK_REF, memory_order_relaxed);
}

void omp_task_unref(omp_task_t *t)
{
    /* acq_rel: the last reference sees every other holder's writes before freeing. */
    if ((uint32_t)atomic_fetch_sub_explicit(&t->cnt, OMP_TASK_REF, memory_order_acq_rel) == 1 && !t->implicit)
        omp_task_free(t);
}

void omp_task_init_implicit(omp_task_t *task, omp_team_t *team, const omp_icv_t *icv)
{
    if (task->deps)
        omp_deps_clear(task);
    free(task->successors);
    task_clear_head(task);
    task->implicit = true;
    task->team = team;
    task->root = task;
    task->icv = *icv;
    atomic_init(&task->state, TASK_RUNNING);
    /* The counter line only if it changed: the join and the barriers read every implicit task's, and
     * after a region without tasks it then stays in every core's cache (parallel_for at 2 threads:
     * 1.08 us with the stores, the master's join missing on each worker's line). */
    if (atomic_load_explicit(&task->cnt, memory_order_relaxed) != OMP_TASK_REF)
        atomic_store_explicit(&task->cnt, OMP_TASK_REF, memory_order_relaxed);
    if (atomic_load_explicit(&task->pending, memory_order_relaxed) != 0)
        atomic_store_explicit(&task->pending, 0, memory_order_relaxed);
    if (atomic_load_explicit(&task->waiter, memory_order_relaxed) != NULL)
        atomic_store_explicit(&task->waiter, NULL, memory_order_relaxed);
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

/* The region has explicit tasks: before the first is counted or queued (seq_cst), so that a wait that
 * reads tasks_seen false after the arrivals it waits for knows there is none (omp_team_tasks_pending). */
static void note_tasks(omp_team_t *team)
{
    if (!atomic_load_explicit(&team->tasks_seen, memory_order_relaxed))
        atomic_store(&team->tasks_seen, true);
}

/* The implicit task that counts a new child of parent. A thread's own initial task (an idle worker's) is
 * no team's implicit task: its children count on the thread's implicit task in its team. */
static omp_task_t *root_of(omp_thread_t *thr, omp_task_t *parent)
{
    return OMP_LIKELY(parent->root != NULL) ? parent->root : &thr->ts.team->implicit[thr->ts.num];
}

/* ---- queueing */

/* Once queued, t may run, complete and be freed at once: nothing of it is read after the push. */
static void enqueue(omp_task_t *t)
{
    omp_team_t *team = t->team;
    omp_taskq_push(t);
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
    /* Released by a completer: the parent's thread (whose deque gets it) may wait for it. */
    omp_team_t *team = t->team;
    omp_thread_t *owner = team->threads[t->creator_num];
    omp_taskq_push(t);
    omp_wake(owner);
    omp_team_notify_one(team);
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

/* A count that stays above zero: one CAS (the guess fails only when the count is not 2; the retry then
 * finds the line already in this core's cache). False: it is 1, the caller takes it to 0 under the lock. */
static bool count_down(_Atomic long *c)
{
    long v = 2;
    while (v > 1)
        if (atomic_compare_exchange_weak(c, &v, v - 1)) /* seq_cst: the barrier's Dekker pairs */
            return true;
    return false;
}

static bool child_done(omp_task_t *parent)
{
    uint64_t v = 2 * OMP_TASK_CHILD;
    while ((v >> 32) > 1)
        if (atomic_compare_exchange_weak(&parent->cnt, &v, v - OMP_TASK_CHILD))
            return true; /* its references stay above its children: nothing to free */
    return false;
}

static void complete(omp_task_t *t)
{
    omp_team_t *team = t->team;
    omp_deps_release(t);
    if (t->deps)
        omp_deps_clear(t); /* no more children will be created */
    omp_task_t *parent = t->parent, *root = t->root;
    omp_taskgroup_t *group = t->member_of;
    atomic_store_explicit(&t->state, TASK_COMPLETE, memory_order_release);
    /* The parent first, the root last: a parent that is the root (an implicit task) is then done with
     * before the root's count can reach zero and let the region end. */
    bool parent_last = parent && !child_done(parent);
    bool group_last = group && !count_down(&group->pending);
    bool root_last = !count_down(&root->pending);
    if (parent_last || group_last || root_last) {
        omp_thread_t *wake_parent = NULL, *wake_group = NULL;
        bool free_parent = false;
        omp_spin_lock(&team->task_lock);
        if (parent_last) {
            /* seq_cst pairs: the waiter stores `waiter` then reads the count (Dekker). */
            uint64_t old = atomic_fetch_sub(&parent->cnt, OMP_TASK_CHILD);
            if ((old >> 32) == 1)
                wake_parent = atomic_load(&parent->waiter);
            free_parent = (uint32_t)old == 1 && !parent->implicit;
        }
        if (group_last && atomic_fetch_sub(&group->pending, 1) == 1)
            wake_group = atomic_load(&group->waiter);
        /* seq_cst: the barrier's completion test pairs this with the seq_cst arrivals. */
        if (root_last && atomic_fetch_sub(&root->pending, 1) == 1)
            omp_barrier_check(team); /* wakes only: never blocks or switches */
        omp_spin_unlock(&team->task_lock);
        if (wake_parent)
            omp_wake(wake_parent);
        if (wake_group && wake_group != wake_parent)
            omp_wake(wake_group);
        if (free_parent)
            omp_task_free(parent);
    }
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
    t->mark = atomic_load_explicit(&thr->ts.team->deques[thr->ts.num].pushes, memory_order_relaxed);
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
    omp_task_t *h = task_alloc(thr, 0, 1, &unused); /* every field cleared: s has only those run_inline set */
    h->parent = s->parent;
    h->root = s->root;
    h->taskgroup = s->taskgroup;
    h->member_of = s->member_of;
    h->team = s->team;
    h->fn = s->fn;
    h->data = s->data;
    h->mark = s->mark;
    h->depth = s->depth;
    h->creator_num = s->creator_num;
    h->priority = s->priority;
    h->final = s->final;
    h->undeferred = true;
    h->creator = s->creator;
    h->icv = s->icv;
    atomic_init(&h->state, TASK_RUNNING);
    atomic_init(&h->votes, 1);
    atomic_init(&h->cnt, 2 * OMP_TASK_REF); /* its own, and its runner's until it completes */
    atomic_fetch_add_explicit(&h->parent->cnt, OMP_TASK_CHILD, memory_order_relaxed);
    if (h->member_of)
        atomic_fetch_add_explicit(&h->member_of->pending, 1, memory_order_relaxed);
    note_tasks(h->team);
    atomic_fetch_add(&h->root->pending, 1);
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
    /* Only the fields that the task's own constructs read (taskwait: cnt and deps; creating a child
     * promotes it first, see promote): not task_clear, which is most of this path's stores. */
    omp_task_t t;
    t.parent = parent;
    t.root = root_of(thr, parent);
    t.depth = parent->depth + 1;
    t.creator_num = thr->ts.num;
    t.mark = atomic_load_explicit(&thr->ts.team->deques[thr->ts.num].pushes, memory_order_relaxed);
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
    t.implicit = t.detach = false;
    t.promoted = NULL;
    t.deps = NULL;
    atomic_init(&t.cnt, OMP_TASK_REF);
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

bool omp_task_run_one(omp_thread_t *thr, omp_task_t *within, unsigned long region)
{
    omp_task_t *t = omp_taskq_take(thr, within, region);
    if (!t)
        return false;
    run_task(thr, t);
    omp_taskq_ran(thr);
    return true;
}

/* ---- creation */

static int clamp_priority(int priority)
{
    return priority < 0 ? 0 : priority > omp_global.max_task_priority ? omp_global.max_task_priority : priority;
}

/* ---- waiting inside a task: run what the wait allows, else sleep until the wait is over or the
 * waiting thread's deque gets a new task (a child released by its dependences lands there). */

typedef struct {
    bool (*done)(void *);
    void *arg;
    _Atomic unsigned long *pushes;
    unsigned long seen;
    omp_team_t *alone; /* a team of one: any queued task wakes it */
} help_wait_t;

static bool help_pred(void *arg)
{
    help_wait_t *w = arg;
    return w->done(w->arg) || atomic_load(w->pushes) != w->seen || (w->alone && omp_team_has_tasks(w->alone));
}

/* Until done(arg): run tasks (descendants of `within`, or any if NULL), else wait, published in the
 * waiter slots given (seq_cst stores: the completer that makes done true reads them after its update). */
static void help_until(omp_thread_t *thr, omp_task_t *within, bool (*done)(void *), void *arg,
                       _Atomic(omp_thread_t *) *slot1, _Atomic(omp_thread_t *) *slot2)
{
    omp_team_t *team = thr->ts.team;
    help_wait_t w = {done, arg, &team->deques[thr->ts.num].pushes, 0, team->nthreads == 1 ? team : NULL};
    while (!done(arg)) {
        w.seen = atomic_load(w.pushes); /* before looking: a later push ends the wait */
        if (omp_task_run_one(thr, within, 0))
            continue;
        if (slot1)
            atomic_store(slot1, thr);
        if (slot2)
            atomic_store(slot2, thr);
        omp_team_wait(thr, team, help_pred, &w);
        if (slot2)
            atomic_store(slot2, NULL);
        if (slot1)
            atomic_store(slot1, NULL);
    }
}

static bool deps_done(void *arg)
{
    return atomic_load_explicit(&((omp_task_t *)arg)->deps_met, memory_order_acquire);
}

static bool task_done(void *arg)
{
    return atomic_load_explicit(&((omp_task_t *)arg)->state, memory_order_acquire) == TASK_COMPLETE;
}

static bool children_done(void *arg)
{
    return (atomic_load_explicit(&((omp_task_t *)arg)->cnt, memory_order_acquire) >> 32) == 0;
}

static bool group_done(void *arg)
{
    return atomic_load_explicit(&((omp_taskgroup_t *)arg)->pending, memory_order_acquire) == 0;
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
                    atomic_load_explicit(&team->deques[thr->ts.num].count, memory_order_relaxed) >
                        (long)OMP_THROTTLE_PER_THREAD * team->nthreads;
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
    t->root = root_of(thr, parent);
    t->depth = parent->depth + 1;
    t->creator_num = thr->ts.num;
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
    atomic_init(&t->cnt, OMP_TASK_REF);
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

    atomic_fetch_add_explicit(&parent->cnt, OMP_TASK_CHILD, memory_order_relaxed);
    if (t->member_of)
        atomic_fetch_add_explicit(&t->member_of->pending, 1, memory_order_relaxed);
    note_tasks(team);
    atomic_fetch_add(&t->root->pending, 1); /* seq_cst: see omp_barrier */

    bool ready = true;
    if (has_deps)
        ready = omp_deps_register(parent, t, depend) == 0;

    if (!undeferred) {
        if (ready && alone) {
            omp_task_ref(t);
            run_task(thr, t);
            omp_task_unref(t);
        } else if (ready) {
            enqueue(t);
        }
        return; /* not ready: a predecessor's completion queues it */
    }
    /* Undeferred: wait for the predecessors (running siblings meanwhile), then run it here. */
    if (!ready)
        help_until(thr, parent, deps_done, t, &parent->waiter, NULL);
    omp_task_ref(t); /* keep it to watch its completion */
    run_task(thr, t);
    /* An undeferred detached task: the generating task waits for the event too. */
    if (!task_done(t))
        help_until(thr, NULL, task_done, t, NULL, NULL);
    omp_task_unref(t);
}

/* ---- taskwait, taskgroup */

void omp_taskwait(omp_thread_t *thr)
{
    omp_task_t *task = thr->task;
    if (children_done(task))
        return;
    help_until(thr, task, children_done, task, &task->waiter, NULL);
    /* The count reached zero under the team lock, where its completer read our waiter slot. */
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

void omp_taskgroup_end(omp_thread_t *thr)
{
    omp_taskgroup_t *g = thr->task->taskgroup;
    if (!g)
        return;
    /* The group's tasks descend from this task. (A team of one also runs anything queued: help_pred.) */
    if (!group_done(g))
        help_until(thr, thr->ts.team->nthreads == 1 ? NULL : thr->task, group_done, g, &g->waiter,
                   &thr->task->waiter);
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
