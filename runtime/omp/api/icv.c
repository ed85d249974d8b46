/* The omp_* routines that read or set ICVs and describe the current team (OpenMP 5.1 section 3.2). */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <limits.h>
#include <stdio.h>

OMP_EXPORT void omp_set_num_threads(int n)
{
    if (n > 0)
        omp_self()->task->icv.nthreads = (unsigned)n;
}

OMP_EXPORT int omp_get_num_threads(void)
{
    return (int)omp_self()->ts.team->nthreads;
}

OMP_EXPORT int omp_get_max_threads(void)
{
    unsigned n = omp_self()->task->icv.nthreads;
    return n > INT_MAX ? INT_MAX : (int)n;
}

OMP_EXPORT int omp_get_thread_num(void)
{
    return (int)omp_self()->ts.num;
}

OMP_EXPORT int omp_get_num_procs(void)
{
    return omp_self()->cores_count; /* a rank's cores (mpcrun -c), else every VP */
}

OMP_EXPORT int omp_in_parallel(void)
{
    return omp_self()->ts.team->active_level > 0;
}

OMP_EXPORT void omp_set_dynamic(int value)
{
    omp_self()->task->icv.dyn = value != 0;
}

OMP_EXPORT int omp_get_dynamic(void)
{
    return omp_self()->task->icv.dyn;
}

OMP_EXPORT void omp_set_nested(int value)
{
    omp_icv_t *icv = &omp_self()->task->icv;
    if (value) {
        if (icv->max_active_levels <= 1)
            icv->max_active_levels = omp_global.supported_active_levels;
    } else if (icv->max_active_levels > 1) {
        icv->max_active_levels = 1;
    }
}

OMP_EXPORT int omp_get_nested(void)
{
    omp_icv_t *icv = &omp_self()->task->icv;
    return icv->max_active_levels > 1;
}

OMP_EXPORT void omp_set_schedule(omp_sched_t kind, int chunk)
{
    int base = kind & OMP_SCHED_KIND_MASK;
    if (base < OMP_SCHED_STATIC || base > OMP_SCHED_AUTO)
        return;
    omp_icv_t *icv = &omp_self()->task->icv;
    if (chunk < 1)
        chunk = base == OMP_SCHED_STATIC || base == OMP_SCHED_AUTO ? 0 : 1;
    if (base == OMP_SCHED_AUTO)
        chunk = 0;
    icv->run_sched = (int)kind;
    icv->run_chunk = chunk;
}

OMP_EXPORT void omp_get_schedule(omp_sched_t *kind, int *chunk)
{
    omp_icv_t *icv = &omp_self()->task->icv;
    *kind = (omp_sched_t)icv->run_sched;
    *chunk = (int)icv->run_chunk;
}

OMP_EXPORT int omp_get_thread_limit(void)
{
    unsigned limit = omp_self()->task->icv.thread_limit;
    return limit > INT_MAX ? INT_MAX : (int)limit;
}

OMP_EXPORT void omp_set_max_active_levels(int levels)
{
    if (levels >= 0)
        omp_self()->task->icv.max_active_levels =
            levels > omp_global.supported_active_levels ? omp_global.supported_active_levels : levels;
}

OMP_EXPORT int omp_get_max_active_levels(void)
{
    return omp_self()->task->icv.max_active_levels;
}

OMP_EXPORT int omp_get_supported_active_levels(void)
{
    omp_runtime_init();
    return omp_global.supported_active_levels;
}

OMP_EXPORT int omp_get_level(void)
{
    return (int)omp_self()->ts.team->level;
}

OMP_EXPORT int omp_get_active_level(void)
{
    return (int)omp_self()->ts.team->active_level;
}

OMP_EXPORT int omp_get_ancestor_thread_num(int level)
{
    omp_thread_t *thr = omp_self();
    omp_team_t *team = thr->ts.team;
    if (level < 0 || level > (int)team->level)
        return -1;
    unsigned num = thr->ts.num;
    while ((int)team->level > level) {
        num = team->parent_num;
        team = team->parent_team;
    }
    return (int)num;
}

OMP_EXPORT int omp_get_team_size(int level)
{
    omp_thread_t *thr = omp_self();
    omp_team_t *team = thr->ts.team;
    if (level < 0 || level > (int)team->level)
        return -1;
    while ((int)team->level > level)
        team = team->parent_team;
    return (int)team->nthreads;
}

OMP_EXPORT int omp_in_final(void)
{
    return omp_task_in_final(omp_self());
}

OMP_EXPORT int omp_get_cancellation(void)
{
    omp_runtime_init();
    return omp_global.cancellation;
}

OMP_EXPORT omp_proc_bind_t omp_get_proc_bind(void)
{
    return (omp_proc_bind_t)omp_self()->task->icv.bind;
}

OMP_EXPORT int omp_get_max_task_priority(void)
{
    omp_runtime_init();
    return omp_global.max_task_priority;
}

OMP_EXPORT void omp_set_default_device(int device)
{
    omp_self()->task->icv.default_device = device < 0 ? 0 : device;
}

OMP_EXPORT int omp_get_default_device(void)
{
    return omp_self()->task->icv.default_device;
}

OMP_EXPORT int omp_get_num_devices(void)
{
    return 0;
}

OMP_EXPORT int omp_get_device_num(void)
{
    return 0; /* the host, which is the initial device */
}

OMP_EXPORT int omp_is_initial_device(void)
{
    return 1;
}

OMP_EXPORT int omp_get_initial_device(void)
{
    return 0; /* = omp_get_num_devices() */
}

OMP_EXPORT int omp_get_num_teams(void)
{
    int n = omp_self()->num_teams;
    return n > 0 ? n : 1;
}

OMP_EXPORT int omp_get_team_num(void)
{
    return omp_self()->team_num;
}

OMP_EXPORT void omp_set_num_teams(int n)
{
    omp_runtime_init();
    if (n > 0)
        omp_global.num_teams = n;
}

OMP_EXPORT int omp_get_max_teams(void)
{
    omp_runtime_init();
    return omp_global.num_teams;
}

OMP_EXPORT void omp_set_teams_thread_limit(int n)
{
    omp_runtime_init();
    if (n >= 0)
        omp_global.teams_thread_limit = n;
}

OMP_EXPORT int omp_get_teams_thread_limit(void)
{
    omp_runtime_init();
    return omp_global.teams_thread_limit;
}

OMP_EXPORT void omp_fulfill_event(omp_event_handle_t event)
{
    omp_task_fulfill((void *)event);
}

OMP_EXPORT void omp_display_env(int verbose)
{
    omp_runtime_init();
    omp_display_env_print(verbose != 0);
}

OMP_EXPORT int omp_pause_resource(omp_pause_resource_t kind, int device)
{
    if (device != 0 || (kind != omp_pause_soft && kind != omp_pause_hard))
        return -1; /* the host is the only device */
    return omp_pause(omp_self());
}

OMP_EXPORT int omp_pause_resource_all(omp_pause_resource_t kind)
{
    return omp_pause_resource(kind, 0);
}
