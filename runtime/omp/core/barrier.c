/* The team barrier. Arrivals are cumulative over a region: barrier number g (counted from 0 by every
 * thread) completes when n * (g + 1) threads have arrived and no explicit task of the team is pending
 * (each implicit task counts the explicit tasks rooted in it: once every member has arrived, only a
 * pending task can create one, so a count read as zero stays zero);
 * whoever observes both (an arriving thread, or the one that completes the last task) advances the
 * generation with a CAS, so exactly one releases. Waiting threads run queued tasks (a barrier is a task
 * scheduling point) and otherwise spin, then block. */
#include "../omp_internal.h"

static bool complete(omp_team_t *team, uint64_t gen)
{
    /* seq_cst loads: paired with the seq_cst arrival and task-completion updates, so the last of an
     * arrival and a task completion always sees the other. */
    return atomic_load(&team->bar_arrived) >= (uint64_t)team->nthreads * (gen + 1) &&
           !omp_team_tasks_pending(team);
}

static void try_release(omp_team_t *team, uint64_t gen)
{
    if (!complete(team, gen))
        return;
    uint64_t expected = gen;
    /* release: the barrier's phase (everyone's writes before arriving) happens before every exit.
     * seq_cst, as bar_pred's load: omp_team_notify_after_rmw needs no fence then. */
    if (atomic_compare_exchange_strong_explicit(&team->bar_gen, &expected, gen + 1, memory_order_seq_cst,
                                                memory_order_relaxed))
        omp_team_notify_after_rmw(team);
}

void omp_barrier_check(omp_team_t *team)
{
    if (team->nthreads > 1) {
        uint64_t gen = atomic_load_explicit(&team->bar_gen, memory_order_acquire);
        try_release(team, gen);
    }
    /* The master may wait for this in its join. */
    omp_team_notify(team);
}

typedef struct {
    omp_team_t *team;
    uint64_t gen;
    bool cancellable;
} bar_wait_t;

static bool bar_pred(void *arg)
{
    bar_wait_t *b = arg;
    omp_team_t *team = b->team;
    return atomic_load(&team->bar_gen) > b->gen || omp_team_has_tasks(team) || complete(team, b->gen) ||
           (b->cancellable && atomic_load_explicit(&team->cancelled, memory_order_relaxed));
}

static bool tasks_pred(void *arg)
{
    omp_team_t *team = arg;
    return !omp_team_tasks_pending(team) || omp_team_has_tasks(team);
}

static bool barrier_wait(omp_thread_t *thr, bool cancellable)
{
    omp_team_t *team = thr->ts.team;
    if (team->nthreads == 1) {
        /* Only tasks can be pending (a detached one may wait for another thread's omp_fulfill_event). */
        while (omp_team_tasks_pending(team)) {
            if (!omp_task_run_one(thr, NULL, 0))
                omp_team_wait(thr, team, tasks_pred, team);
        }
        return cancellable && atomic_load_explicit(&team->cancelled, memory_order_relaxed);
    }
    bar_wait_t b = {team, thr->ts.bar_gen, cancellable};
    if (cancellable && atomic_load_explicit(&team->cancelled, memory_order_acquire))
        return true;
    atomic_fetch_add(&team->bar_arrived, 1); /* seq_cst: see complete() */
    try_release(team, b.gen);
    for (;;) {
        if (atomic_load_explicit(&team->bar_gen, memory_order_acquire) > b.gen)
            break;
        if (cancellable && atomic_load_explicit(&team->cancelled, memory_order_acquire))
            return true;
        if (omp_task_run_one(thr, NULL, 0)) {
            try_release(team, b.gen);
            continue;
        }
        try_release(team, b.gen);
        omp_team_wait(thr, team, bar_pred, &b);
    }
    thr->ts.bar_gen = b.gen + 1;
    return cancellable && atomic_load_explicit(&team->cancelled, memory_order_acquire);
}

void omp_barrier(omp_thread_t *thr)
{
    barrier_wait(thr, false);
}

bool omp_barrier_cancel(omp_thread_t *thr)
{
    return barrier_wait(thr, true);
}
