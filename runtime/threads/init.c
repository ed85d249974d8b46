/* Start-up and shut-down of the scheduler: VPs on the cores given to the process. */
#include "config.h"
#include "log.h"
#include "sched_internal.h"
#include "topology.h"

#include <errno.h>
#include <linux/membarrier.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic bool initialized;
static bool caller_is_vp0;

static void init_vp(mpcrt_vp_t *vp, int id, int ncores)
{
    memset(vp, 0, sizeof *vp);
    vp->id = id;
    vp->core = mpcrt_config_int(MPCRT_CFG_BIND) ? id % ncores : -1;
    vp->native.kind = MPCRT_ULT_IDLE;
    vp->native.rank = -1;
    atomic_init(&vp->native.state, ULT_RUNNING);
    atomic_init(&vp->native.home, vp);
    vp->current = &vp->native;
    vp->spin_budget = mpcrt_sched.spin_max / 4 + 1;
}

static int start(bool here)
{
    pthread_mutex_lock(&init_lock);
    if (atomic_load(&initialized)) {
        pthread_mutex_unlock(&init_lock);
        return here ? -EBUSY : 0;
    }
    mpcrt_config_load();
    int ncores = mpcrt_topo_init();
    if (ncores < 0) {
        pthread_mutex_unlock(&init_lock);
        return ncores;
    }
    long nvps = mpcrt_config_int(MPCRT_CFG_VPS);
    if (nvps <= 0)
        nvps = ncores;
    mpcrt_sched.nvps = (int)nvps;
    mpcrt_sched.passive = strcmp(mpcrt_config_str(MPCRT_CFG_WAIT_POLICY), "active") != 0;
    mpcrt_sched.collab_poll = mpcrt_config_int(MPCRT_CFG_COLLAB_POLL) != 0;
    mpcrt_sched.spin_max = (unsigned)mpcrt_config_int(MPCRT_CFG_SPIN_ROUNDS);
    /* The cores mpcrun found for the job (its affinity mask, a cgroup), which may be fewer than the
     * machine's: two processes that taskset or a batch allocation put on one core oversubscribe it. */
    long cores = mpcrt_config_int(MPCRT_CFG_JOB_CORES);
    if (cores <= 0)
        cores = sysconf(_SC_NPROCESSORS_ONLN);
    mpcrt_sched.oversubscribed = mpcrt_config_int(MPCRT_CFG_OVERSUBSCRIBE) && cores > 0 &&
                                 (long)mpcrt_config_int(MPCRT_CFG_NUM_PROCS) * nvps > cores;
    mpcrt_sched.rank_stack_size = (size_t)mpcrt_config_int(MPCRT_CFG_RANK_STACK);
    mpcrt_sched.ult_stack_size = (size_t)mpcrt_config_int(MPCRT_CFG_ULT_STACK);
    /* Before the VP threads exist: registering then has no other thread to synchronize with. Without it
     * (an old kernel, a seccomp filter), wakers fence instead (mpcrt_sched_wake_sleeping_vp). */
    mpcrt_sched.heavy_fence = syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
    mpcrt_sched.vps = aligned_alloc(MPCRT_CACHE_LINE, sizeof(mpcrt_vp_t) * (size_t)nvps);
    if (!mpcrt_sched.vps) {
        pthread_mutex_unlock(&init_lock);
        return -ENOMEM;
    }
    for (int i = 0; i < nvps; i++)
        init_vp(&mpcrt_sched.vps[i], i, ncores);
    mpcrt_sched.init_thread = pthread_self();
    caller_is_vp0 = here;
    if (here)
        mpcrt_vp_enter_here(&mpcrt_sched.vps[0]);
    /* Published before the VP threads start so that they (and ULT creation) see a complete runtime. */
    atomic_store(&initialized, true);
    for (int i = here ? 1 : 0; i < nvps; i++) {
        int rc = mpcrt_vp_start(&mpcrt_sched.vps[i]);
        MPCRT_ASSERT(rc == 0, "a VP kernel thread can be created");
    }
    if (mpcrt_config_int(MPCRT_CFG_SHOW_CONFIG))
        mpcrt_config_print(stderr);
    mpcrt_log(MPCRT_LOG_SCHED, "%ld VP(s) on %d core(s), %s waiting%s", nvps, ncores,
              mpcrt_sched.passive ? "passive" : "active",
              mpcrt_sched.oversubscribed ? ", spins yield the core (the job oversubscribes the cores)" : "");
    pthread_mutex_unlock(&init_lock);
    return 0;
}

int mpcrt_sched_init(void)
{
    return start(false);
}

int mpcrt_sched_init_here(void)
{
    return start(true);
}

bool mpcrt_sched_is_initialized(void)
{
    return atomic_load_explicit(&initialized, memory_order_acquire);
}

int mpcrt_sched_num_vps(void)
{
    return mpcrt_sched.nvps;
}

int mpcrt_sched_free_vp(void)
{
    mpcrt_vp_t *self = mpcrt_tls_vp;
    for (int i = 0; i < mpcrt_sched.nvps; i++) {
        mpcrt_vp_t *vp = &mpcrt_sched.vps[i];
        if (vp != self && atomic_load_explicit(&vp->free, memory_order_relaxed))
            return i;
    }
    return -1;
}

bool mpcrt_sched_vp_is_free(int vp)
{
    /* Without collaborative polling an idle VP runs no progress hooks: free, but not for anyone's work. */
    return mpcrt_sched.collab_poll && vp >= 0 && vp < mpcrt_sched.nvps &&
           atomic_load_explicit(&mpcrt_sched.vps[vp].free, memory_order_relaxed);
}

void mpcrt_sched_wake_vp(int vp)
{
    if (vp >= 0 && vp < mpcrt_sched.nvps)
        mpcrt_vp_notify(&mpcrt_sched.vps[vp]);
}

int mpcrt_sched_wake_sleeping_vp(void)
{
    /* StoreLoad between the caller's publication of work (a plain or release store, e.g. a start-ring slot)
     * and the reads of `sleeping` below, against a VP that stores `sleeping` and then looks for work
     * (vp.c, sleep_or_spin): either it finds the work or we find it asleep. The VP runs the heavy side
     * (membarrier, which orders every running thread of the process), so here the compiler only must keep
     * the order; a hardware fence here would wait for the publication's line, which the free core polls,
     * on every deferred start (0.1-0.3 us of an 8 KiB MPI_Ialltoall call). */
    if (mpcrt_sched.heavy_fence)
        atomic_signal_fence(memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    mpcrt_vp_t *self = mpcrt_tls_vp;
    for (int i = 0; i < mpcrt_sched.nvps; i++) {
        mpcrt_vp_t *vp = &mpcrt_sched.vps[i];
        if (vp != self && atomic_load_explicit(&vp->sleeping, memory_order_relaxed)) {
            mpcrt_vp_notify(vp);
            return i;
        }
    }
    return -1;
}

int mpcrt_sched_vp_resource(int vp, const char *resource)
{
    if (vp < 0 || vp >= mpcrt_sched.nvps)
        return -1;
    return mpcrt_topo_resource_index(mpcrt_sched.vps[vp].core, resource);
}

void mpcrt_sched_run_until(bool (*done)(void *), void *arg)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    MPCRT_ASSERT(vp && vp->current == &vp->native, "run_until is called by a VP's own kernel thread");
    mpcrt_vp_idle_loop(vp, done, arg);
}

void mpcrt_sched_finalize(void)
{
    pthread_mutex_lock(&init_lock);
    if (!atomic_load(&initialized)) {
        pthread_mutex_unlock(&init_lock);
        return;
    }
    for (int i = caller_is_vp0 ? 1 : 0; i < mpcrt_sched.nvps; i++)
        mpcrt_vp_stop(&mpcrt_sched.vps[i]);
    /* Pooled ULT stacks go back to the stack allocator (which keeps them for the next start). */
    for (int i = 0; i < mpcrt_sched.nvps; i++) {
        mpcrt_vp_t *vp = &mpcrt_sched.vps[i];
        while (vp->local_pool) {
            mpcrt_ult_t *u = vp->local_pool;
            vp->local_pool = u->pool_next;
            mpcrt_stack_t stack = u->stack;
            mpcrt_stack_free(&stack);
        }
    }
    if (caller_is_vp0) {
        mpcrt_tls_vp = NULL;
        mpcrt_tls_vp_index = -1;
    }
    free(mpcrt_sched.vps);
    mpcrt_sched.vps = NULL;
    mpcrt_sched.nvps = 0;
    atomic_store(&initialized, false);
    pthread_mutex_unlock(&init_lock);
}
