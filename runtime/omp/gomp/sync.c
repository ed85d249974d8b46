/* GOMP entry points of synchronization and non-loop worksharing: barriers, critical, atomic, ordered and
 * doacross, single, sections, scope. */
#include "gomp.h"

GOMP_ENTRY void GOMP_barrier(void)
{
    omp_barrier(omp_self());
}

GOMP_ENTRY bool GOMP_barrier_cancel(void)
{
    return omp_barrier_cancel(omp_self());
}

GOMP_ENTRY void GOMP_critical_start(void)
{
    omp_critical_start();
}

GOMP_ENTRY void GOMP_critical_end(void)
{
    omp_critical_end();
}

GOMP_ENTRY void GOMP_critical_name_start(void **name)
{
    omp_critical_name_start(name);
}

GOMP_ENTRY void GOMP_critical_name_end(void **name)
{
    omp_critical_name_end(name);
}

GOMP_ENTRY void GOMP_atomic_start(void)
{
    omp_atomic_start();
}

GOMP_ENTRY void GOMP_atomic_end(void)
{
    omp_atomic_end();
}

GOMP_ENTRY void GOMP_ordered_start(void)
{
    omp_ordered_start(omp_self());
}

GOMP_ENTRY void GOMP_ordered_end(void)
{
    omp_ordered_end(omp_self());
}

GOMP_ENTRY void GOMP_doacross_post(long *counts)
{
    omp_doacross_post(omp_self(), (const uint64_t *)counts);
}

GOMP_ENTRY void GOMP_doacross_ull_post(unsigned long long *counts)
{
    omp_doacross_post(omp_self(), (const uint64_t *)counts);
}

GOMP_ENTRY void GOMP_doacross_wait(long first, ...)
{
    va_list ap;
    va_start(ap, first);
    omp_doacross_wait_va(omp_self(), (uint64_t)first, ap);
    va_end(ap);
}

GOMP_ENTRY void GOMP_doacross_ull_wait(unsigned long long first, ...)
{
    va_list ap;
    va_start(ap, first);
    omp_doacross_wait_va(omp_self(), first, ap);
    va_end(ap);
}

GOMP_ENTRY bool GOMP_single_start(void)
{
    return omp_single_start(omp_self());
}

GOMP_ENTRY void *GOMP_single_copy_start(void)
{
    return omp_single_copy_start(omp_self());
}

GOMP_ENTRY void GOMP_single_copy_end(void *data)
{
    omp_single_copy_end(omp_self(), data);
}

GOMP_ENTRY unsigned GOMP_sections_start(unsigned count)
{
    return omp_sections_start(omp_self(), count);
}

GOMP_ENTRY unsigned GOMP_sections2_start(unsigned count, uintptr_t *reductions, void **mem)
{
    return omp_sections_start_full(omp_self(), count, reductions, mem);
}

GOMP_ENTRY unsigned GOMP_sections_next(void)
{
    return omp_sections_next(omp_self());
}

GOMP_ENTRY void GOMP_sections_end(void)
{
    omp_loop_end(omp_self(), false);
}

GOMP_ENTRY void GOMP_sections_end_nowait(void)
{
    omp_loop_end(omp_self(), true);
}

GOMP_ENTRY bool GOMP_sections_end_cancel(void)
{
    return omp_loop_end_cancel(omp_self());
}

GOMP_ENTRY void GOMP_scope_start(uintptr_t *reductions)
{
    omp_scope_start(omp_self(), reductions);
}
