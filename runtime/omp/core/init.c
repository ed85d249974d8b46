/* Start-up of the OpenMP layer and the per-thread state lookup. A thread's OpenMP state hangs off its ULT
 * (slot MPCRT_ULT_SLOT_OMP) or, for a kernel thread that is not a ULT (a plain program's main thread, a
 * user pthread), off a __thread pointer; both are created on first use as an initial thread. */
#include "../omp_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

omp_global_t omp_global = {.hosted_vp = -1};
__thread omp_thread_t *omp_kthread_self __attribute__((tls_model("initial-exec")));

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_key_t kthread_key;
/* Every live initial thread (ranks, the main thread, user pthreads): their teams stay reachable until
 * they are released, and omp_pause_resource_all can find them. */
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static omp_thread_t *registry;

static void registry_add(omp_thread_t *thr)
{
    pthread_mutex_lock(&registry_lock);
    thr->registry_next = registry;
    if (registry)
        registry->registry_prev = thr;
    registry = thr;
    pthread_mutex_unlock(&registry_lock);
}

void omp_registry_remove(omp_thread_t *thr)
{
    pthread_mutex_lock(&registry_lock);
    if (thr->registry_prev)
        thr->registry_prev->registry_next = thr->registry_next;
    else
        registry = thr->registry_next;
    if (thr->registry_next)
        thr->registry_next->registry_prev = thr->registry_prev;
    pthread_mutex_unlock(&registry_lock);
}

_Noreturn void omp_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpcrt (OpenMP): ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    abort();
}

void *omp_malloc_aligned(size_t align, size_t size)
{
    if (align < sizeof(void *))
        align = sizeof(void *);
    void *p = NULL;
    if (posix_memalign(&p, align, size ? size : 1) != 0)
        omp_fatal("out of memory allocating %zu bytes", size);
    return p;
}

/* A ULT that held OpenMP state is finishing: release its teams (workers have their own life cycle). */
static void ult_exit_hook(mpcrt_ult_t *ult)
{
    omp_thread_t *thr = mpcrt_ult_slot(ult, MPCRT_ULT_SLOT_OMP);
    if (thr && !thr->is_worker) {
        mpcrt_ult_set_slot(ult, MPCRT_ULT_SLOT_OMP, NULL);
        omp_thread_release(thr);
    }
}

static void kthread_exit(void *arg)
{
    omp_thread_t *thr = arg;
    if (thr) {
        omp_kthread_self = NULL;
        omp_thread_release(thr);
    }
}

static void initialize(void)
{
    if (!mpcrt_sched_is_initialized()) {
        /* A plain OpenMP program (no mpcrt_main, no MPI_Init yet): its main thread hosts VP 0 rather than
         * sharing a core with it, runs VP 0's ULTs whenever it waits, and leaves VP 0 to teams it
         * masters (omp_thread_vp_for). Another first thread (a user pthread) gets VPs of its own. */
        bool main_thread = getpid() == (pid_t)syscall(SYS_gettid);
        int rc = main_thread ? mpcrt_sched_init_here() : mpcrt_sched_init();
        if (rc == 0 && main_thread)
            omp_global.hosted_vp = mpcrt_self_vp();
        else if (rc == -EBUSY)
            rc = 0; /* started meanwhile by another thread */
        if (rc != 0)
            omp_fatal("cannot start the scheduler (error %d)", rc);
    }
    omp_env_init();
    mpcrt_sched_add_ult_exit_hook(ult_exit_hook);
    pthread_key_create(&kthread_key, kthread_exit);
    if (omp_global.display_env)
        omp_display_env_print(omp_global.display_env == 2);
    mpcrt_log(MPCRT_LOG_OMP, "OpenMP layer ready: %u threads by default on %d VPs", omp_global.initial.nthreads,
              mpcrt_sched_num_vps());
}

void omp_runtime_init(void)
{
    pthread_once(&init_once, initialize);
}

/* A rank's teams live on its own cores (mpcrun -c): they default to one thread per core and spread
 * over those cores, and binding stays inside the places of those cores. Other initial threads (a plain
 * program, user pthreads) have every VP. */
static void init_cores(omp_thread_t *thr)
{
    thr->cores_first = 0;
    thr->cores_count = mpcrt_sched_num_vps();
    int rank = thr->ult ? mpcrt_ult_rank(thr->ult) : -1;
    if (rank < 0 || mpcrt_ult_kind(thr->ult) != MPCRT_ULT_RANK)
        return;
    thr->cores_count = mpcrt_job_rank_cores(rank - mpcrt_job_first_rank(), &thr->cores_first);
    if (thr->cores_count >= mpcrt_sched_num_vps())
        return;
    if (omp_global.nthreads_list_len == 0) /* OMP_NUM_THREADS wins over the core count */
        thr->initial_task.icv.nthreads = thr->task->icv.nthreads = (unsigned)thr->cores_count;
    omp_places_of_cores(thr->cores_first, thr->cores_count, &thr->ts.part_first, &thr->ts.part_len);
    thr->initial_team->saved.part_first = thr->ts.part_first;
    thr->initial_team->saved.part_len = thr->ts.part_len;
}

omp_thread_t *omp_self_slow(void)
{
    omp_runtime_init();
    omp_thread_t *thr = omp_malloc_aligned(OMP_CACHE_LINE, sizeof *thr);
    memset(thr, 0, sizeof *thr);
    mpcrt_ult_t *u = mpcrt_ult_self();
    thr->ult = u;
    thr->vp = u ? mpcrt_ult_vp(u) : mpcrt_self_vp(); /* a kernel thread: -1, or 0 if it hosts VP 0 */
    thr->ts.place = -1;
    atomic_init(&thr->cg_own, 1);
    thr->cg_busy = &thr->cg_own;
    omp_team_init_initial(thr);
    init_cores(thr);
    registry_add(thr);
    if (u) {
        mpcrt_ult_set_slot(u, MPCRT_ULT_SLOT_OMP, thr);
    } else {
        omp_kthread_self = thr;
        pthread_setspecific(kthread_key, thr);
    }
    return thr;
}
