/* taskloop (OpenMP 5.1 section 2.12.2): the iterations are split into tasks, each receiving its bounds in
 * the first two fields of its copy of the data block (the GOMP ABI). grainsize(g): about g to 2g
 * iterations per task (exactly g with strict); num_tasks(n): min(n, iterations) tasks; neither: one task
 * per team thread. Unless nogroup, the tasks run inside an implicit taskgroup, which also carries the
 * taskloop's reductions (their GOMP array is the third field of the data block). */
#include "../omp_internal.h"

#define TL_FLAG_UP (1u << 8)
#define TL_FLAG_GRAINSIZE (1u << 9)
#define TL_FLAG_IF (1u << 10)
#define TL_FLAG_NOGROUP (1u << 11)
#define TL_FLAG_REDUCTION (1u << 12)
#define TL_FLAG_STRICT (1u << 14)
#define TASK_FLAG_FINAL (1u << 1)
#define TASK_FLAG_PRIORITY (1u << 4)

typedef struct {
    bool is_ull;
    uint64_t lo, hi; /* iteration range of this task */
    long start, step;
    unsigned long long ustart, ustep;
    uint64_t count;
    long end;
    unsigned long long uend;
} bounds_arg_t;

static void set_bounds(void *task_data, void *arg)
{
    bounds_arg_t *b = arg;
    if (b->is_ull) {
        unsigned long long *f = task_data;
        f[0] = b->ustart + b->lo * b->ustep;
        f[1] = b->hi == b->count ? b->uend : b->ustart + b->hi * b->ustep;
    } else {
        long *f = task_data;
        f[0] = (long)((uint64_t)b->start + b->lo * (uint64_t)b->step);
        f[1] = b->hi == b->count ? b->end : (long)((uint64_t)b->start + b->hi * (uint64_t)b->step);
    }
}

void omp_taskloop(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                  long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                  bool is_ull, long start, long end, long step, unsigned long long ustart,
                  unsigned long long uend, unsigned long long ustep)
{
    uint64_t count;
    if (is_ull) {
        if (flags & TL_FLAG_UP)
            count = ustart < uend ? (uend - ustart + ustep - 1) / ustep : 0;
        else
            count = ustart > uend ? (ustart - uend - ustep - 1) / -ustep : 0;
    } else if (step > 0) {
        count = start < end ? ((uint64_t)end - (uint64_t)start + (uint64_t)step - 1) / (uint64_t)step : 0;
    } else {
        count = start > end ? ((uint64_t)start - (uint64_t)end - (uint64_t)step - 1) / -(uint64_t)step : 0;
    }
    bool group = !(flags & TL_FLAG_NOGROUP);
    if (group)
        omp_taskgroup_start(thr);
    if ((flags & TL_FLAG_REDUCTION) && arg_size >= 3 * (long)sizeof(void *)) {
        uintptr_t *reductions = ((uintptr_t **)data)[2];
        omp_taskgroup_reduction_register(thr, reductions);
    }
    if (count > 0) {
        uint64_t ntasks, base, extra = 0, grain = 0;
        if (flags & TL_FLAG_GRAINSIZE) {
            grain = num_tasks ? num_tasks : 1;
            if (flags & TL_FLAG_STRICT) {
                ntasks = count / grain + (count % grain != 0);
            } else {
                ntasks = count / grain;
                if (ntasks == 0)
                    ntasks = 1;
            }
        } else if (num_tasks) {
            ntasks = num_tasks < count ? num_tasks : count;
        } else {
            unsigned n = thr->ts.team->nthreads;
            ntasks = n < count ? n : count;
        }
        if (!(flags & TL_FLAG_GRAINSIZE && flags & TL_FLAG_STRICT)) {
            base = count / ntasks;
            extra = count % ntasks;
        } else {
            base = grain;
        }
        bounds_arg_t b = {.is_ull = is_ull, .start = start, .step = step, .end = end, .ustart = ustart,
                          .ustep = ustep, .uend = uend, .count = count};
        unsigned task_flags = flags & (TASK_FLAG_FINAL | TASK_FLAG_PRIORITY);
        bool if_clause = (flags & TL_FLAG_IF) != 0;
        uint64_t lo = 0;
        for (uint64_t k = 0; k < ntasks && lo < count; k++) {
            uint64_t size = base + (k < extra ? 1 : 0);
            b.lo = lo;
            b.hi = count - lo > size ? lo + size : count;
            omp_task_create_ex(thr, fn, data, cpyfn, arg_size, arg_align, if_clause, task_flags, NULL, priority,
                               NULL, set_bounds, &b);
            lo = b.hi;
        }
    }
    if (group)
        omp_taskgroup_end(thr);
}
