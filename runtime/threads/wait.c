/* wait_until: the one way anything in mpcrt waits for a condition another thread or a progress hook will
 * make true (DESIGN.md §3). A ULT spins only while its VP has nothing else to run, and the spin adapts:
 * it doubles after a wait that the spin satisfied and halves after one that had to park. */
#include "sched_internal.h"

#include <sched.h>
#include <time.h>

#define MIN_SPIN 16

static void wait_on_kernel_thread(bool (*pred)(void *), void *arg)
{
    for (unsigned round = 0; !pred(arg); round++) {
        mpcrt_sched_progress();
        if (round < 128) {
            mpcrt_cpu_relax();
        } else if (round < 256) {
            sched_yield();
        } else {
            unsigned shift = round - 256 < 7 ? round - 256 : 7;
            struct timespec ts = {0, 1000L << shift}; /* 1 us doubling to 128 us */
            nanosleep(&ts, NULL);
        }
    }
}

void mpcrt_wait_until(bool (*pred)(void *), void *arg)
{
    if (pred(arg))
        return;
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (!vp || vp->current == &vp->native) {
        mpcrt_vp_t *hosted = mpcrt_hosted_vp_self();
        if (hosted)
            mpcrt_vp_idle_loop(hosted, pred, arg); /* its ULTs may be what the caller waits for */
        else
            wait_on_kernel_thread(pred, arg);
        return;
    }
    unsigned budget = vp->spin_budget;
    for (unsigned i = 0; i < budget; i++) {
        if (vp->rq.count || vp->poked || atomic_load_explicit(&vp->inbox, memory_order_relaxed))
            break; /* someone else could use this core: stop spinning */
        mpcrt_sched_progress();
        if (pred(arg)) {
            unsigned grown = budget * 2;
            vp->spin_budget = grown < mpcrt_sched.spin_max ? grown : mpcrt_sched.spin_max;
            return;
        }
        mpcrt_cpu_relax();
    }
    vp->spin_budget = budget / 2 > MIN_SPIN ? budget / 2 : MIN_SPIN;
    mpcrt_ult_t *self = vp->current;
    while (!pred(arg)) {
        self->park_pred = pred;
        self->park_arg = arg;
        mpcrt_sched_park(vp, self);
        atomic_store_explicit(&self->state, ULT_PARKED, memory_order_relaxed);
        /* Pairs with mpcrt_ult_poke: a poker that saw us running relies on this second look. */
        atomic_thread_fence(memory_order_seq_cst);
        if (pred(arg)) {
            mpcrt_sched_unpark_self(vp, self);
            return;
        }
        mpcrt_sched_switch_away(vp);
    }
}
