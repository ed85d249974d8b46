/* Teams: fork and join of parallel regions. Team members are OMP_WORKER ULTs placed on the VPs; a team
 * descriptor and its worker ULTs are created once and reused by every later region of the same master at
 * the same nesting depth (BOLT's lesson: reuse, don't recreate). Idle workers spin, then block; the master
 * starts them through a tree of `go` counters (fan-out MPCRT_OMP_FORK_WAYS) so a large team starts in
 * logarithmic depth. Nested regions create ULTs, never kernel threads. */
#include "../omp_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern __thread intptr_t __mpc_priv_delta __attribute__((tls_model("initial-exec")));

/* Keys of the privatized per-thread copies (apply_priv_delta): each team descriptor owns `capacity` of
 * them for its whole life. 0 is never used (thread 0 is the encountering thread, with its own copy). */
static _Atomic int next_priv_key = 1;

/* The fork writes a field only when its value changes. A team is reused region after region with the
 * same values, and a worker reads them at each start: a line the master did not write stays in both
 * cores' caches, where a rewrite of the same value would cost the worker a miss per line. */
#define SET_IF_CHANGED(lhs, value)                                                                           \
    do {                                                                                                     \
        __typeof__(lhs) v_ = (value);                                                                        \
        if ((lhs) != v_)                                                                                     \
            (lhs) = v_;                                                                                      \
    } while (0)

static void zero_if_set(_Atomic uint64_t *word)
{
    if (atomic_load_explicit(word, memory_order_relaxed) != 0)
        atomic_store_explicit(word, 0, memory_order_relaxed);
}

static void *alloc_lines(size_t bytes)
{
    size_t size = (bytes + OMP_CACHE_LINE - 1) / OMP_CACHE_LINE * OMP_CACHE_LINE;
    void *p = omp_malloc_aligned(OMP_CACHE_LINE, size);
    memset(p, 0, size);
    return p;
}

static omp_team_t *team_alloc(unsigned capacity)
{
    omp_team_t *team = omp_malloc_aligned(OMP_CACHE_LINE, sizeof *team);
    memset(team, 0, sizeof *team);
    team->capacity = capacity;
    team->priv_key_base = atomic_fetch_add_explicit(&next_priv_key, (int)capacity, memory_order_relaxed);
    team->threads = alloc_lines(sizeof *team->threads * capacity);
    team->worker_ults = calloc(capacity, sizeof *team->worker_ults);
    team->worker_vp = malloc(sizeof(int) * capacity);
    /* Lines of their own: the master writes threads[0] and the places only when they change. */
    team->thread_place = alloc_lines(sizeof(int) * 3 * capacity); /* place, partition first, length */
    team->implicit = alloc_lines(sizeof *team->implicit * capacity);
    team->deques = alloc_lines(sizeof *team->deques * capacity);
    team->worker_states = omp_malloc_aligned(OMP_CACHE_LINE, sizeof(omp_thread_t) * capacity);
    memset(team->worker_states, 0, sizeof(omp_thread_t) * capacity);
    if (!team->threads || !team->worker_ults || !team->worker_vp || !team->thread_place || !team->implicit ||
        !team->deques)
        omp_fatal("out of memory creating a team of %u threads", capacity);
    for (unsigned i = 0; i < capacity; i++)
        team->worker_vp[i] = -1;
    return team;
}

static void team_free(omp_team_t *team)
{
    for (int i = 0; i < OMP_WS_RING; i++) {
        free((void *)team->ws_ring[i].posted);
        free(team->ws_ring[i].dims);
        free(team->ws_ring[i].mem);
        free(team->ws_ring[i].shares);
    }
    for (unsigned i = 0; i < team->capacity; i++)
        if (team->implicit[i].deps)
            omp_deps_clear(&team->implicit[i]);
    omp_task_free_batches(team);
    for (unsigned i = 0; i < team->capacity; i++)
        omp_taskq_free(&team->deques[i]);
    free(team->threads);
    free(team->worker_ults);
    free(team->worker_vp);
    free(team->thread_place);
    free(team->implicit);
    free(team->deques);
    free(team->worker_states);
    free(team);
}

void omp_team_wait(omp_thread_t *thr, omp_team_t *team, bool (*pred)(void *), void *arg)
{
    omp_spin_t spin;
    omp_spin_init(&spin);
    while (!pred(arg)) {
        if (omp_spin_until(thr, &spin, pred, arg))
            continue;
        atomic_fetch_add(&team->nsleeping, 1); /* seq_cst: see omp_team_notify */
        omp_block(thr, pred, arg);
        atomic_fetch_sub(&team->nsleeping, 1);
    }
}

void omp_team_notify(omp_team_t *team)
{
    /* The caller made some predicate true; seq_cst orders that store before this load, against the
     * sleeper's increment of nsleeping before its last predicate check. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&team->nsleeping, memory_order_relaxed) == 0)
        return;
    for (unsigned i = 0; i < team->capacity; i++) {
        omp_thread_t *t = team->threads[i];
        if (t)
            omp_wake(t);
    }
}

void omp_team_notify_after_rmw(omp_team_t *team)
{
    /* The caller made the predicate true with a seq_cst read-modify-write, which a sleeper's predicate
     * reads seq_cst: with the sleeper's seq_cst increment of nsleeping, the four are in one total order,
     * so the caller sees the increment or the sleeper sees the update. No fence (on x86 the locked
     * instruction was one). */
    if (atomic_load(&team->nsleeping) == 0)
        return;
    for (unsigned i = 0; i < team->capacity; i++) {
        omp_thread_t *t = team->threads[i];
        if (t)
            omp_wake(t);
    }
}

void omp_team_notify_one(omp_team_t *team)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&team->nsleeping, memory_order_relaxed) == 0)
        return;
    for (unsigned i = 0; i < team->capacity; i++) {
        omp_thread_t *t = team->threads[i];
        if (t && atomic_load_explicit(&t->sleeper, memory_order_relaxed)) {
            omp_wake(t);
            return;
        }
    }
}

/* ---- workers */

static void release_children(omp_team_t *team, unsigned i)
{
    unsigned ways = omp_global.fork_ways;
    unsigned long first = (unsigned long)i * ways + 1;
    for (unsigned long c = first; c < first + ways && c < team->nthreads; c++) {
        omp_thread_t *w = team->threads[c];
        /* release: the team's region fields, written before, are visible to the worker (and, through
         * its own release, to its children). */
        w->go_region = atomic_load_explicit(&team->region, memory_order_relaxed);
        atomic_fetch_add_explicit(&w->go, 1, memory_order_release);
        omp_wake(w);
    }
}

static bool worker_has_work(void *arg)
{
    omp_thread_t *w = arg;
    omp_team_t *team = w->home_team;
    return atomic_load_explicit(&w->go, memory_order_acquire) != w->go_seen ||
           (omp_team_has_tasks(team) &&
            atomic_load_explicit(&team->region, memory_order_relaxed) == w->last_region);
}

/* Workers see the rank's globals (its task delta) and have their own copy of threadprivate/__thread data:
 * one per (rank, team descriptor, thread number), created on first use and kept for the rank's life.
 * A master reuses its team descriptor for every region of the same depth, so threadprivate values
 * persist across the rank's regions (thread 0 is the rank's own copy), and two nested teams that run at
 * the same time (the nested regions of two members of one team) are two descriptors, hence two sets of
 * copies; keying by (level, thread number) made their members of equal number share one. */
static void apply_priv_delta(omp_thread_t *w, const omp_team_t *team, unsigned num)
{
    intptr_t delta = team->priv_delta, wanted_ult = 0, task_delta, ult_delta;
    if (delta && mpcrt_priv_thread_delta(delta, team->priv_key_base + (int)num - 1, &wanted_ult) != 0)
        wanted_ult = 0;
    mpcrt_ult_get_priv_deltas(w->ult, &task_delta, &ult_delta);
    if (task_delta != delta || ult_delta != wanted_ult)
        mpcrt_ult_set_priv_deltas(w->ult, delta, wanted_ult);
}

static void run_region(omp_thread_t *w, omp_team_t *team)
{
    unsigned i = (unsigned)(w - team->worker_states);
    release_children(team, i);
    apply_priv_delta(w, team, i);
    memset(&w->ts, 0, sizeof w->ts);
    w->ts.team = team;
    w->ts.num = i;
    w->ts.place = team->thread_place[i];
    w->ts.part_first = omp_thread_part_first(team, i);
    w->ts.part_len = omp_thread_part_len(team, i);
    w->cg_busy = team->master->cg_busy;
    w->in_target = team->master->in_target;
    w->team_num = team->master->team_num;
    w->num_teams = team->master->num_teams;
    omp_task_t *task = &team->implicit[i];
    omp_task_init_implicit(task, team, &team->child_icv);
    task->parent = team->saved_task;
    w->task = task;
    team->fn(team->data);
    w->task = &w->initial_task;
    w->last_region = w->go_region; /* team->region, without reading the line the fork wrote */
    /* Read before arriving: once everyone arrived, the master may start the next region. */
    omp_thread_t *master = team->threads[0];
    unsigned others = team->nthreads - 1;
    /* release: the region's writes are visible to the master once it sees every arrival. */
    unsigned arrived = atomic_fetch_add_explicit(&team->join_arrived, 1, memory_order_acq_rel) + 1;
    if (arrived == others)
        omp_wake(master);
}

static void release_cached(omp_thread_t *thr);

static void *worker_main(void *arg)
{
    omp_thread_t *w = arg;
    omp_team_t *team = w->home_team;
    w->ult = mpcrt_ult_self();
    mpcrt_ult_set_slot(w->ult, MPCRT_ULT_SLOT_OMP, w);
    for (;;) {
        if (!worker_has_work(w))
            omp_team_wait(w, team, worker_has_work, w);
        uint64_t go = atomic_load_explicit(&w->go, memory_order_acquire);
        if (go != w->go_seen) {
            w->go_seen = go;
            if (atomic_load_explicit(&team->shutdown, memory_order_acquire))
                break;
            run_region(w, team);
        } else {
            omp_task_run_one(w, NULL, w->last_region);
        }
    }
    release_cached(w); /* teams this worker created as the master of nested regions */
    mpcrt_ult_set_slot(w->ult, MPCRT_ULT_SLOT_OMP, NULL);
    return NULL;
}

static void stop_worker(omp_team_t *team, unsigned i)
{
    omp_thread_t *w = &team->worker_states[i];
    atomic_store_explicit(&team->shutdown, true, memory_order_release);
    atomic_fetch_add_explicit(&w->go, 1, memory_order_release);
    omp_wake(w);
    mpcrt_ult_join(team->worker_ults[i], NULL);
    team->worker_ults[i] = NULL;
    team->worker_vp[i] = -1;
    atomic_store_explicit(&team->shutdown, false, memory_order_relaxed);
}

static void start_worker(omp_thread_t *master, omp_team_t *team, unsigned i, int vp)
{
    if (team->worker_ults[i])
        stop_worker(team, i); /* it lives on another VP: placement changed */
    omp_thread_t *w = &team->worker_states[i];
    memset(w, 0, sizeof *w);
    w->is_worker = true;
    w->home_team = team;
    w->vp = vp;
    w->ts.num = i;
    w->ts.place = -1;
    w->task = &w->initial_task;
    w->cg_busy = master->cg_busy;
    w->cores_first = master->cores_first;
    w->cores_count = master->cores_count;
    team->threads[i] = w;
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.kind = MPCRT_ULT_OMP_WORKER;
    attr.vp = vp;
    attr.stack_size = omp_global.stacksize;
    attr.rank = master->ult ? mpcrt_ult_rank(master->ult) : -1;
    int rc = mpcrt_ult_create(&team->worker_ults[i], worker_main, w, &attr);
    if (rc != 0)
        omp_fatal("cannot create an OpenMP worker ULT (error %d)", rc);
    team->worker_vp[i] = vp;
}

static void team_shutdown(omp_team_t *team)
{
    for (unsigned i = 1; i < team->capacity; i++)
        if (team->worker_ults[i])
            stop_worker(team, i);
}

static void reset_ws_ring(omp_team_t *team)
{
    for (long i = 0; i < OMP_WS_RING; i++) {
        /* Unused slots keep their values: no store, so their lines stay shared (see SET_IF_CHANGED). */
        omp_ws_t *ws = &team->ws_ring[i];
        if (atomic_load_explicit(&ws->state, memory_order_relaxed) != OMP_WS_READY(i - OMP_WS_RING))
            atomic_store_explicit(&ws->state, OMP_WS_READY(i - OMP_WS_RING), memory_order_relaxed);
        if (atomic_load_explicit(&ws->free_for, memory_order_relaxed) != i)
            atomic_store_explicit(&ws->free_for, i, memory_order_relaxed);
        if (atomic_load_explicit(&ws->left, memory_order_relaxed) != 0)
            atomic_store_explicit(&ws->left, 0, memory_order_relaxed);
    }
}

/* ---- teams of a master */

static omp_team_t *take_team(omp_thread_t *thr, unsigned n)
{
    omp_team_t **link = &thr->cached_team;
    for (omp_team_t *t = thr->cached_team; t; link = &t->next_cached, t = t->next_cached) {
        if (t->in_use)
            continue;
        if (t->capacity >= n)
            return t;
        /* Too small: replace it by a larger one (teams rarely grow). */
        *link = t->next_cached;
        team_shutdown(t);
        team_free(t);
        break;
    }
    omp_team_t *team = team_alloc(n);
    team->owner = thr;
    team->next_cached = thr->cached_team;
    thr->cached_team = team;
    return team;
}

omp_team_t *omp_team_new_initial(omp_thread_t *thr)
{
    omp_team_t *team = team_alloc(1);
    team->initial = true;
    team->nthreads = 1;
    team->in_use = true;
    team->threads[0] = thr;
    team->master = thr;
    team->saved.part_first = 0;
    team->saved.part_len = omp_global.nplaces;
    reset_ws_ring(team);
    return team;
}

void omp_team_free(omp_team_t *team)
{
    team_free(team);
}

void omp_team_init_initial(omp_thread_t *thr)
{
    omp_team_t *team = team_alloc(1);
    reset_ws_ring(team);
    team->initial = true;
    team->nthreads = 1;
    team->in_use = true;
    team->threads[0] = thr;
    team->master = thr;
    team->saved.part_first = 0;
    team->saved.part_len = omp_global.nplaces;
    thr->initial_team = team;
    thr->ts.team = team;
    thr->ts.num = 0;
    thr->ts.part_first = 0;
    thr->ts.part_len = omp_global.nplaces;
    thr->ts.place = -1;
    omp_task_init_implicit(&team->implicit[0], team, &omp_global.initial);
    thr->task = &team->implicit[0];
    thr->initial_task.team = team;
    thr->initial_task.icv = omp_global.initial;
    thr->num_teams = 1;
}

static void release_cached(omp_thread_t *thr)
{
    while (thr->cached_team) {
        omp_team_t *t = thr->cached_team;
        team_shutdown(t); /* may block: t stays reachable meanwhile */
        thr->cached_team = t->next_cached;
        team_free(t);
    }
    while (thr->free_tasks) {
        omp_task_t *t = thr->free_tasks;
        thr->free_tasks = t->parent;
        free(t);
    }
    thr->free_tail = NULL;
    thr->nfree_tasks = 0;
}

void omp_thread_release(omp_thread_t *thr)
{
    release_cached(thr);
    /* Stays listed until here: releasing the teams may block (joining workers) while the process exits. */
    omp_registry_remove(thr);
    if (thr->initial_team)
        team_free(thr->initial_team);
    free(thr);
}

unsigned omp_resolve_nthreads(omp_thread_t *thr, unsigned requested, bool if_clause)
{
    if (!if_clause)
        return 1;
    omp_icv_t *icv = &thr->task->icv;
    omp_team_t *team = thr->ts.team;
    if ((int)team->active_level >= icv->max_active_levels)
        return 1;
    unsigned n = requested ? requested : icv->nthreads;
    if (n <= 1)
        return 1;
    /* thread-limit-var bounds the threads of the contention group: those busy now plus the new ones. */
    unsigned limit = icv->thread_limit;
    if (limit != ~0u) {
        int busy = atomic_load_explicit(thr->cg_busy, memory_order_relaxed);
        unsigned available = busy >= (int)limit ? 1 : limit - (unsigned)busy + 1;
        if (n > available)
            n = available;
    }
    return n ? n : 1;
}

static intptr_t encountering_priv_delta(omp_thread_t *thr)
{
    if (thr->ult) {
        intptr_t task_delta, ult_delta;
        mpcrt_ult_get_priv_deltas(thr->ult, &task_delta, &ult_delta);
        return task_delta;
    }
    return __mpc_priv_delta;
}

void omp_team_fork(omp_thread_t *thr, void (*fn)(void *), void *data, unsigned n, unsigned flags,
                   omp_ws_init_fn ws_init, void *ws_arg)
{
    omp_team_t *parent = thr->ts.team;
    omp_team_t *team = take_team(thr, n);
    team->in_use = true;
    SET_IF_CHANGED(team->nthreads, n);
    SET_IF_CHANGED(team->level, parent->level + 1);
    SET_IF_CHANGED(team->active_level, parent->active_level + (n > 1 ? 1 : 0));
    SET_IF_CHANGED(team->parent_team, parent);
    SET_IF_CHANGED(team->parent_num, thr->ts.num);
    if (memcmp(&team->saved, &thr->ts, sizeof thr->ts) != 0)
        team->saved = thr->ts;
    SET_IF_CHANGED(team->saved_task, thr->task);
    SET_IF_CHANGED(team->master, thr);
    SET_IF_CHANGED(team->threads[0], thr);
    SET_IF_CHANGED(team->fn, fn);
    SET_IF_CHANGED(team->data, data);
    SET_IF_CHANGED(team->priv_delta, encountering_priv_delta(thr));
    SET_IF_CHANGED(team->par_reductions.array, thr->next_par_reductions);
    SET_IF_CHANGED(team->par_reductions.next, NULL);
    SET_IF_CHANGED(thr->next_par_reductions, NULL);

    /* ICVs of the implicit tasks: the encountering task's, with the per-level list entries. */
    omp_icv_t child_icv = thr->task->icv;
    if ((int)team->level < omp_global.nthreads_list_len)
        child_icv.nthreads = omp_global.nthreads_list[team->level];
    int bind = (flags & 7) ? (int)(flags & 7) : child_icv.bind;
    if ((int)team->level < omp_global.bind_list_len)
        child_icv.bind = omp_global.bind_list[team->level];
    omp_icv_t *icv = &team->child_icv;
    if (memcmp(icv, &child_icv, sizeof child_icv) != 0)
        *icv = child_icv;

    zero_if_set(&team->bar_arrived);
    zero_if_set(&team->bar_gen);
    atomic_store_explicit(&team->join_arrived, 0, memory_order_relaxed);
    atomic_store_explicit(&team->cancelled, false, memory_order_relaxed);
    if (atomic_load_explicit(&team->single_count, memory_order_relaxed) != 0)
        atomic_store_explicit(&team->single_count, 0, memory_order_relaxed);
    reset_ws_ring(team);
    omp_spin_lock(&team->task_lock);
    /* Before any task of the new region is queued: an idle worker that takes a task under a queue's
     * lock checks the region there (core/taskq.c), and sees this once it sees such a task. */
    atomic_fetch_add_explicit(&team->region, 1, memory_order_relaxed);
    omp_spin_unlock(&team->task_lock);
    if (n > 1)
        atomic_fetch_add_explicit(thr->cg_busy, (int)n - 1, memory_order_relaxed);

    int master_vp = thr->vp >= 0 ? thr->vp : 0;
    omp_assign_places(thr, team, bind);

    if (ws_init) {
        omp_ws_t *ws = &team->ws_ring[0];
        ws_init(ws, ws_arg);
        atomic_store_explicit(&ws->state, OMP_WS_READY(0), memory_order_relaxed);
    }

    /* The master becomes thread 0 of the new team. */
    memset(&thr->ts, 0, sizeof thr->ts);
    thr->ts.team = team;
    thr->ts.num = 0;
    thr->ts.place = team->thread_place[0];
    thr->ts.part_first = omp_thread_part_first(team, 0);
    thr->ts.part_len = omp_thread_part_len(team, 0);
    omp_task_t *task = &team->implicit[0];
    omp_task_init_implicit(task, team, icv);
    task->parent = team->saved_task;
    thr->task = task;

    for (unsigned i = 1; i < n; i++) {
        int vp = omp_thread_vp_for(team, i, master_vp);
        if (!team->worker_ults[i] || team->worker_vp[i] != vp)
            start_worker(thr, team, i, vp);
    }
    if (ws_init && n > 1)
        atomic_thread_fence(memory_order_release);
    release_children(team, 0);
    if (OMP_UNLIKELY(omp_global.display_affinity)) {
        char line[512];
        omp_format_affinity(line, sizeof line, omp_global.affinity_format, thr);
        fprintf(stderr, "%s\n", line);
    }
}

static bool join_done(omp_team_t *team)
{
    return atomic_load_explicit(&team->join_arrived, memory_order_acquire) == team->nthreads - 1 &&
           !omp_team_tasks_pending(team);
}

static bool join_pred(void *arg)
{
    omp_team_t *team = arg;
    return join_done(team) || omp_team_has_tasks(team);
}

void omp_team_join(omp_thread_t *thr)
{
    omp_team_t *team = thr->ts.team;
    while (!join_done(team)) {
        if (omp_task_run_one(thr, NULL, 0))
            continue;
        omp_team_wait(thr, team, join_pred, team);
    }
    /* The last task's completer finishes its bookkeeping under the task lock: wait for it to leave
     * before this team can be reset for another region. */
    if (atomic_load_explicit(&team->tasks_seen, memory_order_relaxed)) {
        omp_spin_lock(&team->task_lock);
        omp_spin_unlock(&team->task_lock);
        atomic_store_explicit(&team->tasks_seen, false, memory_order_relaxed);
    }
    if (team->nthreads > 1)
        atomic_fetch_sub_explicit(thr->cg_busy, (int)team->nthreads - 1, memory_order_relaxed);
    thr->ts = team->saved;
    thr->task = team->saved_task;
    team->in_use = false;
}

void omp_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags, omp_ws_init_fn ws_init,
                  void *ws_arg)
{
    omp_thread_t *thr = omp_self();
    unsigned n = omp_resolve_nthreads(thr, nthreads, true);
    omp_team_fork(thr, fn, data, n, flags, ws_init, ws_arg);
    fn(data);
    omp_team_join(thr);
}

void omp_parallel_loop(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags,
                       const omp_loop_desc_t *desc, bool fork_only)
{
    omp_thread_t *thr = omp_self();
    unsigned n = omp_resolve_nthreads(thr, nthreads, true);
    omp_loop_init_arg_t arg = {*desc, &thr->task->icv, n};
    omp_team_fork(thr, fn, data, n, flags, omp_loop_init_ws_cb, &arg);
    if (fork_only)
        return; /* GOMP_1.0: the caller runs fn and calls GOMP_parallel_end */
    fn(data);
    omp_team_join(thr);
}

void omp_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads, unsigned count, unsigned flags,
                           bool fork_only)
{
    omp_thread_t *thr = omp_self();
    unsigned n = omp_resolve_nthreads(thr, nthreads, true);
    omp_team_fork(thr, fn, data, n, flags, omp_sections_init_ws, (void *)(uintptr_t)count);
    if (fork_only)
        return;
    fn(data);
    omp_team_join(thr);
}

void omp_parallel_start(void (*fn)(void *), void *data, unsigned nthreads)
{
    omp_thread_t *thr = omp_self();
    omp_team_fork(thr, fn, data, omp_resolve_nthreads(thr, nthreads, true), 0, NULL, NULL);
}

void omp_parallel_end(void)
{
    omp_team_join(omp_self());
}

int omp_pause(omp_thread_t *thr)
{
    if (thr->ts.team->level > 0)
        return -1; /* inside a parallel region its team is in use */
    release_cached(thr);
    return 0;
}
