/* wait_until: the one way anything in mpcrt waits for a condition another thread or a progress hook will
 * make true (DESIGN.md §3). A ULT spins only while its VP has nothing else to run, and the spin adapts:
 * it doubles after a wait that the spin satisfied and halves after one that had to park. */
#include "sched_internal.h"

#include <sched.h>
#include <stdint.h>
#include <time.h>

/* The spin never drops below this (about 10-25 us of rounds): a park costs the waker a cross-VP wake-up and,
 * once the VP sleeps in the kernel, tens of microseconds, which then read as a long wait and shrank the
 * spin further. The spin only runs while the VP has nothing else to do. */
#define MIN_SPIN 256
#define SHORT_PARK_TICKS 50000 /* time-stamp counter ticks: about 20 us at 2.5 GHz */

/* Yields a waiter may spend on one other ready ULT before it parks: enough for a peer to answer, few
 * enough that a wait that needs more than that peer does not keep two ULTs cycling. */
#define MAX_WAIT_YIELDS 4

/* Exactly one ULT other than the caller could run now (queued, or parked and poked); inbox wake-ups count
 * as more, since they are not sorted yet. */
static bool one_other_ready(const mpcrt_vp_t *vp)
{
    if (atomic_load_explicit(&vp->inbox, memory_order_relaxed))
        return false;
    size_t poked = vp->poked ? (vp->poked->poke_next ? 2 : 1) : 0;
    return vp->rq.count + poked == 1;
}

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

/* After a wait that had to park. A spin cut short because other ULTs were ready says nothing: keep the
 * budget. A wait that ended soon after parking would have been cheaper to spin through (the core had
 * nothing else to do, and parking may put the VP to sleep in the kernel): grow. Only a long wait shrinks
 * it. Without the first rule, a ping-pong whose round trip outlasted the spin once halved the budget at
 * every message and stayed parked for good (1 us per hop instead of 0.3). */
static void adapt_spin(mpcrt_vp_t *vp, unsigned budget, bool cut_short, uint64_t parked_ticks)
{
    if (cut_short)
        return;
    if (parked_ticks < SHORT_PARK_TICKS) {
        unsigned grown = budget * 2;
        vp->spin_budget = grown < mpcrt_sched.spin_max ? grown : mpcrt_sched.spin_max;
    } else {
        vp->spin_budget = budget / 2 > MIN_SPIN ? budget / 2 : MIN_SPIN;
    }
}

/* The spin hooks, once per wait that spins (not for a quiet wait, as the park hooks). */
static void announce_spin(mpcrt_ult_t *self)
{
    int n = self->quiet ? 0 : atomic_load_explicit(&mpcrt_sched.nspin, memory_order_acquire);
    for (int i = 0; i < n; i++)
        mpcrt_sched.spin_hooks[i](self);
}

/* The spin of a wait on a ULT: while no other ULT of vp could run, test pred and run the progress hooks,
 * for at most the VP's budget; with max_yields > 0, switch to a single ready peer that many times instead
 * of stopping. True once pred holds (grow: the budget doubles, a spin that sufficed); false when the
 * budget ran out or, *cut_short, others could use the core. */
static inline __attribute__((always_inline)) bool spin_phase(mpcrt_vp_t *vp, bool (*pred)(void *), void *arg,
                                                             unsigned max_yields, bool grow, bool *cut_short)
{
    unsigned budget = vp->spin_budget, yields = 0;
    bool spun = false;
    mpcrt_vp_set_free(vp, 1); /* only spinning: work handed to this VP runs now (mpcrt_sched_free_vp) */
    for (unsigned i = 0; i < budget; i++) {
        if (vp->rq.count || vp->poked || atomic_load_explicit(&vp->inbox, memory_order_relaxed)) {
            if (yields < max_yields && one_other_ready(vp)) {
                /* One other ULT can run, most likely the peer we just answered: let it run and stay ready
                 * instead of parking. Its answer then finds us running, not parked, and nothing has to
                 * poke, unpark or fence: two ranks of one core ping-ponging switch once per message. */
                yields++;
                atomic_store_explicit(&vp->current->state, ULT_READY, memory_order_relaxed);
                mpcrt_sched_switch_away(vp); /* the switch back marked the VP busy */
                if (pred(arg))
                    return true;
                mpcrt_vp_set_free(vp, 1);
                continue;
            }
            *cut_short = true; /* others could use this core: stop spinning */
            break;
        }
        if (!spun) {
            spun = true;
            announce_spin(vp->current);
        }
        mpcrt_sched_progress();
        if (pred(arg)) {
            if (grow) {
                unsigned grown = budget * 2;
                vp->spin_budget = grown < mpcrt_sched.spin_max ? grown : mpcrt_sched.spin_max;
            }
            mpcrt_vp_set_free(vp, 0);
            return true;
        }
        mpcrt_spin_relax();
    }
    mpcrt_vp_set_free(vp, 0);
    return false;
}

bool mpcrt_wait_would_spin(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    return vp && vp->current != &vp->native && !vp->rq.count && !vp->poked &&
           !atomic_load_explicit(&vp->inbox, memory_order_relaxed);
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
    bool cut_short = false;
    if (spin_phase(vp, pred, arg, MAX_WAIT_YIELDS, true, &cut_short))
        return;
    if (!mpcrt_sched.collab_poll && atomic_load_explicit(&mpcrt_sched.nprogress, memory_order_relaxed)) {
        /* Without collaborative polling nobody else progresses for this waiter: it must not park. It
         * lets the other ULTs of its VP run, and the kernel threads sharing its core when there are none
         * (under SCHED_FIFO, another VP on this core would otherwise never run again). */
        while (!pred(arg)) {
            mpcrt_sched_progress();
            if (vp->rq.count || atomic_load_explicit(&vp->inbox, memory_order_relaxed))
                mpcrt_yield();
            else
                sched_yield();
        }
        return;
    }
    /* A spin cut short keeps its budget whatever the park lasts (adapt_spin): no need to time it, and the
     * two time-stamp reads cost a tenth of a hop between two ranks of one core. */
    uint64_t parked_at = cut_short ? 0 : __builtin_ia32_rdtsc();
    mpcrt_ult_t *self = vp->current;
    int nhooks = self->quiet ? 0 : atomic_load_explicit(&mpcrt_sched.npark, memory_order_acquire);
    for (int i = 0; i < nhooks; i++)
        mpcrt_sched.park_hooks[i](self);
    while (!pred(arg)) {
        self->park_pred = pred;
        self->park_arg = arg;
        mpcrt_sched_park(vp, self);
        atomic_store_explicit(&self->state, ULT_PARKED, memory_order_relaxed);
        /* Pairs with mpcrt_ult_poke: a poker that saw us running relies on this second look. */
        atomic_thread_fence(memory_order_seq_cst);
        if (pred(arg)) {
            mpcrt_sched_unpark_self(vp, self);
            break;
        }
        mpcrt_sched_switch_away(vp);
    }
    if (!cut_short)
        adapt_spin(vp, budget, false, __builtin_ia32_rdtsc() - parked_at);
}

bool mpcrt_wait_spin(bool (*pred)(void *), void *arg)
{
    if (pred(arg))
        return true;
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (!vp || vp->current == &vp->native)
        return false;
    bool cut_short = false;
    return spin_phase(vp, pred, arg, 0, false, &cut_short) || pred(arg);
}

void mpcrt_wait_until_quiet(bool (*pred)(void *), void *arg)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (!vp || vp->current == &vp->native) {
        while (!pred(arg))
            sched_yield(); /* a kernel thread: nothing of ours runs in its context anyway */
        return;
    }
    mpcrt_ult_t *self = vp->current;
    bool was_quiet = self->quiet;
    self->quiet = true;
    mpcrt_wait_until(pred, arg);
    self->quiet = was_quiet;
}
