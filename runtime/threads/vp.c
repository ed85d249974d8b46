/* Virtual processors: one kernel thread bound to one core, running the scheduler loop whenever none of its
 * ULTs is ready. An idle VP runs progress hooks (collaborative polling) and idle hooks, then backs off:
 * pause, then sched_yield, then (passive policy) sleep on its futex until a wake-up reaches its inbox. */
#define _GNU_SOURCE
#include "log.h"
#include "sched_internal.h"
#include "topology.h"

#include <dlfcn.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

/* Idle back-off by elapsed time, not by rounds, so that it behaves the same on fast and slow cores:
 * poll with one pause per round (reacts within ~100 ns), then sched_yield (lets other processes of an
 * oversubscribed machine run), then, with the passive policy, sleep on the futex. */
#define SPIN_NS 50000L
#define YIELD_NS 200000L
#define SHORT_SLEEP_NS 20000L
#define LONG_SLEEP_NS 2000000L

static long elapsed_ns(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000000000L + (now.tv_nsec - since->tv_nsec);
}

/* The VP found something to do: it no longer sleeps for wakers' purposes (see sleep_or_spin). A VP
 * running a ULT must not look asleep: mpcrt_sched_wake_sleeping_vp wakes the first VP that does. */
static inline void awake(mpcrt_vp_t *vp)
{
    if (atomic_load_explicit(&vp->sleeping, memory_order_relaxed))
        atomic_store_explicit(&vp->sleeping, 0, memory_order_relaxed);
}

/* Spins, yields or sleeps, by the time the VP has been idle; true when its last look before a sleep found
 * something to do instead (the VP is no longer idle). */
static bool sleep_or_spin(mpcrt_vp_t *vp, unsigned round, const struct timespec *idle_since, bool timed,
                          bool (*done)(void *), void *arg)
{
    if (round % 64 != 63) {
        mpcrt_spin_relax();
        return false;
    }
    long idle_ns = elapsed_ns(idle_since);
    if (idle_ns < SPIN_NS)
        return false;
    if (idle_ns < YIELD_NS || !mpcrt_sched.passive) {
        sched_yield();
        return false;
    }
    /* With a doorbell (and timed: hooks may find work) the VP sleeps on it: a peer process that queues a
     * packet for us rings it. Its `sleeping` is then 2, so that local wake-ups ring it as well. */
    _Atomic uint32_t *bell = timed ? atomic_load_explicit(&mpcrt_sched.bell, memory_order_acquire) : NULL;
    _Atomic uint32_t *sleepers = bell ? atomic_load(&mpcrt_sched.sleepers) : NULL;
    if (!sleepers)
        bell = NULL;
    _Atomic uint32_t *word = bell ? bell : &vp->wake_seq;
    uint32_t seq = atomic_load_explicit(word, memory_order_acquire);
    /* With hooks to look at, work published without an inbox push (a deferred collective start's ring slot)
     * is looked for below, after `sleeping` is visible: the publisher reads `sleeping` after its store
     * (mpcrt_sched_wake_sleeping_vp) with no fence of its own, so this is the heavy side of that Dekker
     * pair. Without it, a start published between this VP's last pass and its `sleeping` store saw it
     * awake, did not wake it, and waited for its timeout (20 us to 2 ms). `sleeping` stays published from
     * one sleep to the next while the VP finds nothing (mpcrt_vp_idle_loop clears it when it does), so the
     * system call and its interrupts of the cores running this process come once per idle period, not
     * once per timeout (up to 500 a second). */
    bool look = timed && mpcrt_sched.collab_poll, found = false;
    int sleeping = bell ? 2 : 1;
    if (atomic_load_explicit(&vp->sleeping, memory_order_relaxed) != sleeping) {
        atomic_store(&vp->sleeping, sleeping); /* seq_cst: Dekker pair with mpcrt_vp_notify */
        if (look && mpcrt_sched.heavy_fence)
            syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
    }
    /* Counted before the last look at the hooks (seq_cst RMW): a peer that published a packet after that
     * look sees the count and rings. */
    if (bell && atomic_fetch_add(sleepers, 1) == 0 &&
        atomic_load_explicit(&mpcrt_sched.doorbell_watchers, memory_order_relaxed))
        mpcrt_futex_wake_shared(sleepers, 0x7fffffff); /* a socket watcher waits for sleepers */
    /* done is re-checked once `sleeping` is published: whoever makes it true and then notifies the VP
     * (mpcrt_waiter_wake) either sees it sleeping or is seen here. */
    if (!atomic_load(&vp->inbox) && !atomic_load(&vp->stop) && !(done && done(arg)) &&
        !(look && mpcrt_sched_progress() > 0)) {
        long timeout = 0;
        if (timed) {
            /* Grows with the idle time: parked predicates of a long wait are re-checked less often. */
            timeout = idle_ns / 16 > SHORT_SLEEP_NS ? idle_ns / 16 : SHORT_SLEEP_NS;
            if (timeout > LONG_SLEEP_NS)
                timeout = LONG_SLEEP_NS;
        }
        vp->stats.futex_sleeps++;
        if (bell)
            mpcrt_futex_wait_shared(bell, seq, timeout);
        else
            mpcrt_futex_wait(&vp->wake_seq, seq, timeout);
    } else {
        awake(vp); /* work came: the idle loop takes it */
        found = true;
    }
    if (bell)
        atomic_fetch_sub(sleepers, 1);
    return found;
}

void mpcrt_vp_idle_loop(mpcrt_vp_t *vp, bool (*done)(void *), void *arg)
{
    unsigned idle_rounds = 0;
    struct timespec idle_since;
    mpcrt_vp_set_free(vp, 1);
    for (;;) {
        if (done ? done(arg) : atomic_load_explicit(&vp->stop, memory_order_acquire)) {
            awake(vp);
            mpcrt_vp_set_free(vp, 0); /* a hosted VP goes back to its program's code */
            return;
        }
        mpcrt_ult_t *next = NULL;
        mpcrt_sched_drain_inbox(vp);
        if (vp->polls)
            mpcrt_sched_sweep(vp);
        next = mpcrt_rq_pop(&vp->rq);
        if (next) {
            awake(vp);
            mpcrt_sched_switch(vp, &vp->native, next);
            idle_rounds = 0;
            continue;
        }
        /* Collaborative polling: an idle VP progresses on everyone's behalf (unless measuring without). */
        int events = mpcrt_sched.collab_poll ? mpcrt_sched_progress() : 0;
        events += mpcrt_run_hooks(mpcrt_sched.idle, &mpcrt_sched.nidle);
        if (events) {
            awake(vp);
            idle_rounds = 0;
            continue;
        }
        if (idle_rounds == 0)
            clock_gettime(CLOCK_MONOTONIC, &idle_since);
        /* Sleep without a timeout only when nothing but an inbox push can create work. */
        bool timed = vp->polls || done || atomic_load_explicit(&mpcrt_sched.nprogress, memory_order_relaxed) ||
                     atomic_load_explicit(&mpcrt_sched.nidle, memory_order_relaxed);
        if (sleep_or_spin(vp, idle_rounds++, &idle_since, timed, done, arg))
            idle_rounds = 0;
    }
}

static void enter_vp(mpcrt_vp_t *vp)
{
    mpcrt_tls_vp = vp;
    mpcrt_tls_vp_index = vp->id;
#if defined(__SANITIZE_THREAD__)
    vp->native.tsan_fiber = __tsan_get_current_fiber();
#endif
    if (vp->core >= 0) {
        int rc = mpcrt_topo_bind_self(vp->core);
        if (rc)
            mpcrt_log(MPCRT_LOG_SCHED, "VP %d: binding to core %d failed (%d)", vp->id, vp->core, rc);
    }
}

static void *vp_thread_main(void *arg)
{
    mpcrt_vp_t *vp = arg;
    enter_vp(vp);
    mpcrt_vp_idle_loop(vp, NULL, NULL);
    mpcrt_tls_vp = NULL;
    mpcrt_tls_vp_index = -1;
    return NULL;
}

void mpcrt_vp_enter_here(mpcrt_vp_t *vp)
{
    vp->thread = pthread_self(); /* VPs started by mpcrt_vp_start get it from pthread_create */
    vp->hosted = true;
    enter_vp(vp);
}

/* The first pthread_create/pthread_join in the process's lookup order, not the interposers of kthread.c
 * that calls from this library bind to: a sanitizer runtime placed before libmpcrt must see VP threads. */
typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);

int mpcrt_vp_start(mpcrt_vp_t *vp)
{
    static create_fn create;
    if (!create)
        create = (create_fn)dlsym(RTLD_DEFAULT, "pthread_create");
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    int rc = create(&vp->thread, &attr, vp_thread_main, vp);
    pthread_attr_destroy(&attr);
    return -rc;
}

void mpcrt_vp_stop(mpcrt_vp_t *vp)
{
    atomic_store(&vp->stop, 1);
    /* Wake it even if it is between its checks and the futex: the sequence change makes the wait fail. */
    atomic_fetch_add(&vp->wake_seq, 1);
    mpcrt_futex_wake(&vp->wake_seq, 1);
    _Atomic uint32_t *bell = atomic_load(&mpcrt_sched.bell);
    if (bell)
        mpcrt_doorbell_ring(bell);
    static join_fn join;
    if (!join)
        join = (join_fn)dlsym(RTLD_DEFAULT, "pthread_join");
    join(vp->thread, NULL);
}
