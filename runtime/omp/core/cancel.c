/* Cancellation (OpenMP 5.1 section 2.20), active only with OMP_CANCELLATION=true. Cancelling a parallel
 * region releases the threads waiting in cancellable barriers and discards tasks that have not started;
 * cancelling a loop or sections marks the construct; cancelling a taskgroup discards its tasks that have
 * not started. Threads notice at cancellation points and jump to the end of the construct. */
#include "../omp_internal.h"

bool omp_cancellation_point(omp_thread_t *thr, int which)
{
    if (!omp_global.cancellation)
        return false;
    omp_team_t *team = thr->ts.team;
    if (atomic_load_explicit(&team->cancelled, memory_order_acquire))
        return true;
    switch (which) {
    case OMP_CANCEL_LOOP:
    case OMP_CANCEL_SECTIONS:
        return thr->ts.ws && atomic_load_explicit(&thr->ts.ws->cancelled, memory_order_acquire);
    case OMP_CANCEL_TASKGROUP:
        for (omp_taskgroup_t *g = thr->task->taskgroup; g; g = g->prev)
            if (atomic_load_explicit(&g->cancelled, memory_order_acquire))
                return true;
        return false;
    default:
        return false;
    }
}

bool omp_cancel(omp_thread_t *thr, int which, bool do_cancel)
{
    if (!omp_global.cancellation)
        return false;
    if (!do_cancel)
        return omp_cancellation_point(thr, which);
    omp_team_t *team = thr->ts.team;
    switch (which) {
    case OMP_CANCEL_PARALLEL:
        atomic_store_explicit(&team->cancelled, true, memory_order_release);
        omp_team_notify(team);
        break;
    case OMP_CANCEL_LOOP:
    case OMP_CANCEL_SECTIONS:
        if (thr->ts.ws)
            atomic_store_explicit(&thr->ts.ws->cancelled, true, memory_order_release);
        break;
    case OMP_CANCEL_TASKGROUP: {
        /* The innermost taskgroup region: not a worksharing construct's reduction pseudo group. */
        omp_taskgroup_t *g = thr->task->taskgroup;
        while (g && g->reduction_only)
            g = g->prev;
        if (g)
            atomic_store_explicit(&g->cancelled, true, memory_order_release);
        break;
    }
    default:
        return false;
    }
    return true;
}
