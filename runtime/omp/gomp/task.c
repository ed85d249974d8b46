/* GOMP entry points of tasks: creation, waiting, taskgroups, taskloop, task reductions. */
#include "gomp.h"

GOMP_ENTRY void GOMP_task(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                          long arg_align, bool if_clause, unsigned flags, void **depend, int priority, void *detach)
{
    omp_task_create(omp_self(), fn, data, cpyfn, arg_size, arg_align, if_clause, flags, depend, priority, detach);
}

GOMP_ENTRY void GOMP_taskloop(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                              long arg_align, unsigned flags, unsigned long num_tasks, int priority, long start,
                              long end, long step)
{
    omp_taskloop(omp_self(), fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, false, start, end,
                 step, 0, 0, 0);
}

GOMP_ENTRY void GOMP_taskloop_ull(void (*fn)(void *), void *data, void (*cpyfn)(void *, void *), long arg_size,
                                  long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                                  unsigned long long start, unsigned long long end, unsigned long long step)
{
    omp_taskloop(omp_self(), fn, data, cpyfn, arg_size, arg_align, flags, num_tasks, priority, true, 0, 0, 0,
                 start, end, step);
}

GOMP_ENTRY void GOMP_taskwait(void)
{
    omp_taskwait(omp_self());
}

GOMP_ENTRY void GOMP_taskwait_depend(void **depend)
{
    omp_taskwait_depend(omp_self(), depend);
}

GOMP_ENTRY void GOMP_taskyield(void)
{
    omp_taskyield(omp_self());
}

GOMP_ENTRY void GOMP_taskgroup_start(void)
{
    omp_taskgroup_start(omp_self());
}

GOMP_ENTRY void GOMP_taskgroup_end(void)
{
    omp_taskgroup_end(omp_self());
}

GOMP_ENTRY void GOMP_taskgroup_reduction_register(uintptr_t *data)
{
    omp_taskgroup_reduction_register(omp_self(), data);
}

GOMP_ENTRY void GOMP_taskgroup_reduction_unregister(uintptr_t *data)
{
    omp_taskgroup_reduction_unregister(data);
}

GOMP_ENTRY void GOMP_task_reduction_remap(size_t cnt, size_t cntorig, void **ptrs)
{
    omp_taskred_remap(omp_self(), cnt, cntorig, ptrs);
}

GOMP_ENTRY void GOMP_workshare_task_reduction_unregister(bool cancelled)
{
    omp_ws_reduction_unregister(omp_self(), cancelled);
}
