/* Task reductions (OpenMP 5.1 section 2.21.5): reduction(task,...) on parallel and worksharing constructs,
 * task_reduction on taskgroup, reduction on taskloop, and in_reduction on tasks. GCC builds one array
 * per construct: [0] number of variables, [1] bytes of one thread's private block, [2] on input its
 * alignment, then per variable i: [7+3i] the original's address, [8+3i] its offset in the block. The
 * runtime allocates a zeroed block per team thread, stores its address in [2] and the end in [6]; the
 * compiled code initializes a copy on first use (a flag beside it) and combines the blocks itself, then
 * calls the unregister entry point. A task's in_reduction finds the registration through its
 * taskgroups, then the team's. */
#include "../omp_internal.h"

#include <stdlib.h>
#include <string.h>

void omp_taskred_register(omp_thread_t *thr, uintptr_t *array, unsigned nthreads)
{
    (void)thr;
    size_t bytes = array[1] * nthreads;
    size_t align = array[2] ? array[2] : 8;
    void *data = omp_malloc_aligned(align, bytes);
    memset(data, 0, bytes);
    array[2] = (uintptr_t)data;
    array[6] = (uintptr_t)data + bytes;
}

void omp_taskred_unregister(uintptr_t *array)
{
    free((void *)array[2]);
    array[2] = 0;
}

void omp_taskgroup_reduction_register(omp_thread_t *thr, uintptr_t *array)
{
    omp_taskgroup_t *g = thr->task->taskgroup;
    omp_taskred_register(thr, array, thr->ts.team->nthreads);
    omp_taskred_t *node = malloc(sizeof *node);
    if (!node)
        omp_fatal("out of memory registering task reductions");
    node->array = array;
    node->next = g ? g->reductions : NULL;
    if (g)
        g->reductions = node;
    else
        free(node);
}

void omp_taskgroup_reduction_unregister(uintptr_t *array)
{
    omp_taskred_unregister(array);
}

static bool find_in(uintptr_t *array, void *addr, size_t *index)
{
    for (size_t i = 0; i < array[0]; i++)
        if ((void *)array[7 + 3 * i] == addr) {
            *index = i;
            return true;
        }
    return false;
}

/* addr may also be some thread's private copy (an outer reduction's): map it back to the variable. */
static bool find_private(uintptr_t *array, void *addr, size_t *index)
{
    uintptr_t a = (uintptr_t)addr;
    if (!array[2] || a < array[2] || a >= array[6])
        return false;
    size_t within = (a - array[2]) % array[1];
    for (size_t i = 0; i < array[0]; i++)
        if (array[8 + 3 * i] == within) {
            *index = i;
            return true;
        }
    return false;
}

typedef bool (*finder_t)(uintptr_t *, void *, size_t *);

static uintptr_t *search(omp_thread_t *thr, void *addr, size_t *index, finder_t find)
{
    for (omp_taskgroup_t *g = thr->task->taskgroup; g; g = g->prev)
        for (omp_taskred_t *r = g->reductions; r; r = r->next)
            if (find(r->array, addr, index))
                return r->array;
    for (omp_team_t *team = thr->ts.team; team; team = team->parent_team)
        for (omp_taskred_t *r = &team->par_reductions; r && r->array; r = r->next)
            if (find(r->array, addr, index))
                return r->array;
    return NULL;
}

void omp_taskred_remap(omp_thread_t *thr, size_t cnt, size_t cntorig, void **ptrs)
{
    size_t tid = thr->ts.num;
    for (size_t i = 0; i < cnt; i++) {
        size_t idx;
        uintptr_t *array = search(thr, ptrs[i], &idx, find_in);
        if (!array) /* a task inside an in_reduction task passes the private copy it was given */
            array = search(thr, ptrs[i], &idx, find_private);
        if (array && i < cntorig)
            ptrs[cnt + i] = (void *)array[7 + 3 * idx];
        if (!array)
            omp_fatal("in_reduction of %p: no enclosing task reduction registers it", ptrs[i]);
        ptrs[i] = (char *)array[2] + tid * array[1] + array[8 + 3 * idx];
    }
}

unsigned omp_parallel_reductions(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags)
{
    omp_thread_t *thr = omp_self();
    unsigned n = omp_resolve_nthreads(thr, nthreads, true);
    uintptr_t *array = *(uintptr_t **)data;
    omp_taskred_register(thr, array, n);
    thr->next_par_reductions = array; /* the fork publishes it in the team before starting anyone */
    omp_team_fork(thr, fn, data, n, flags, NULL, NULL);
    omp_team_t *team = thr->ts.team;
    fn(data);
    omp_team_join(thr);
    team->par_reductions.array = NULL;
    return n;
}

/* Worksharing constructs with reduction(task, ...): every thread passes its own copy of the array; the
 * construct's initializer allocates, the others copy the addresses into theirs. The reductions act as a
 * taskgroup of the implicit task until omp_ws_reduction_unregister. */
void omp_ws_attach_extras(omp_thread_t *thr, bool initializer, uintptr_t *reductions, void **mem)
{
    omp_ws_t *ws = thr->ts.ws;
    if (reductions) {
        if (initializer) {
            omp_taskred_register(thr, reductions, thr->ts.team->nthreads);
            ws->reductions = reductions;
        } else {
            reductions[2] = ws->reductions[2];
            reductions[6] = ws->reductions[6];
        }
        omp_taskgroup_t *g = calloc(1, sizeof *g);
        omp_taskred_t *node = malloc(sizeof *node);
        if (!g || !node)
            omp_fatal("out of memory registering task reductions");
        node->array = reductions;
        node->next = NULL;
        g->reductions = node;
        g->reduction_only = true;
        g->prev = thr->task->taskgroup;
        thr->task->taskgroup = g;
    }
    if (mem) {
        if (initializer) {
            size_t size = (size_t)(uintptr_t)*mem;
            ws->mem = calloc(1, size ? size : 1);
            if (!ws->mem)
                omp_fatal("out of memory for a worksharing construct");
        }
        *mem = ws->mem;
    }
}

void omp_ws_reduction_unregister(omp_thread_t *thr, bool cancelled)
{
    omp_taskgroup_t *g = thr->task->taskgroup;
    uintptr_t *array = NULL;
    if (g && g->reduction_only) {
        array = g->reductions->array;
        thr->task->taskgroup = g->prev;
        free(g->reductions);
        free(g);
    }
    /* Thread 0 combines the private blocks before calling this: nobody may free them before it did. */
    if (cancelled)
        omp_barrier_cancel(thr);
    else
        omp_barrier(thr);
    if (array && thr->ts.num == 0)
        omp_taskred_unregister(array);
}
