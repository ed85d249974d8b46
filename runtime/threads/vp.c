/* Virtual processors: one kernel thread bound to one core, running the scheduler loop whenever none of its
 * ULTs is ready. An idle VP runs progress hooks (collaborative polling) and idle hooks, then backs off:
 * pause, then sched_yield, then (passive policy) sleep on its futex until a wake-up reaches its inbox. */
#include "log.h"
#include "sched_internal.h"
#include "topology.h"

#include <sched.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#define PAUSE_ROUNDS 64
#define YIELD_ROUNDS 96
#define SHORT_SLEEP_NS 20000L
#define LONG_SLEEP_NS 2000000L

static void sleep_or_spin(mpcrt_vp_t *vp, unsigned round, bool timed)
{
    if (round < PAUSE_ROUNDS) {
        for (int i = 0; i < 16; i++)
            mpcrt_cpu_relax();
        return;
    }
    if (round < YIELD_ROUNDS || !mpcrt_sched.passive) {
        sched_yield();
        return;
    }
    uint32_t seq = atomic_load_explicit(&vp->wake_seq, memory_order_acquire);
    atomic_store(&vp->sleeping, 1); /* seq_cst: Dekker pair with mpcrt_vp_notify */
    if (!atomic_load(&vp->inbox) && !atomic_load(&vp->stop)) {
        long timeout = 0;
        if (timed) {
            unsigned shift = round - YIELD_ROUNDS < 7 ? round - YIELD_ROUNDS : 7;
            timeout = SHORT_SLEEP_NS << shift;
            if (timeout > LONG_SLEEP_NS)
                timeout = LONG_SLEEP_NS;
        }
        vp->stats.futex_sleeps++;
        mpcrt_futex_wait(&vp->wake_seq, seq, timeout);
    }
    atomic_store_explicit(&vp->sleeping, 0, memory_order_relaxed);
}

void mpcrt_vp_idle_loop(mpcrt_vp_t *vp, bool (*done)(void *), void *arg)
{
    unsigned idle_rounds = 0;
    for (;;) {
        if (done ? done(arg) : atomic_load_explicit(&vp->stop, memory_order_acquire))
            return;
        mpcrt_ult_t *next = NULL;
        mpcrt_sched_drain_inbox(vp);
        if (vp->polls)
            mpcrt_sched_sweep(vp);
        next = mpcrt_rq_pop(&vp->rq);
        if (next) {
            mpcrt_sched_switch(vp, &vp->native, next);
            idle_rounds = 0;
            continue;
        }
        int events = mpcrt_sched_progress();
        events += mpcrt_run_hooks(mpcrt_sched.idle, &mpcrt_sched.nidle);
        if (events) {
            idle_rounds = 0;
            continue;
        }
        /* Sleep without a timeout only when nothing but an inbox push can create work. */
        bool timed = vp->polls || done || atomic_load_explicit(&mpcrt_sched.nprogress, memory_order_relaxed) ||
                     atomic_load_explicit(&mpcrt_sched.nidle, memory_order_relaxed);
        sleep_or_spin(vp, idle_rounds++, timed);
    }
}

static void enter_vp(mpcrt_vp_t *vp)
{
    mpcrt_tls_vp = vp;
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
    return NULL;
}

void mpcrt_vp_enter_here(mpcrt_vp_t *vp)
{
    vp->thread = pthread_self(); /* VPs started by mpcrt_vp_start get it from pthread_create */
    enter_vp(vp);
}

int mpcrt_vp_start(mpcrt_vp_t *vp)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1 << 20);
    int rc = pthread_create(&vp->thread, &attr, vp_thread_main, vp);
    pthread_attr_destroy(&attr);
    return -rc;
}

void mpcrt_vp_stop(mpcrt_vp_t *vp)
{
    atomic_store(&vp->stop, 1);
    /* Wake it even if it is between its checks and the futex: the sequence change makes the wait fail. */
    atomic_fetch_add(&vp->wake_seq, 1);
    mpcrt_futex_wake(&vp->wake_seq, 1);
    pthread_join(vp->thread, NULL);
}
