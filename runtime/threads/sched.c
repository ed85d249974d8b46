/* The scheduling core: picking the next ULT of a VP, switching to it, yielding, suspending and waking.
 * Every ULT runs only on its home VP, so a VP's run queue, poll list and current ULT are touched by that VP
 * alone; other threads reach a VP only through its inbox. That is what makes a wake-up race-free: the only
 * thread that can resume a ULT is the one that is running it until it has switched away. */
#include "context.h"
#include "log.h"
#include "sched_internal.h"

#include <sched.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

mpcrt_sched_t mpcrt_sched;
__thread mpcrt_vp_t *mpcrt_tls_vp __attribute__((tls_model("initial-exec")));
__thread int mpcrt_tls_rank __attribute__((tls_model("initial-exec"))) = -1;
__thread mpcrt_ult_t *mpcrt_tls_ult __attribute__((tls_model("initial-exec")));
__thread int mpcrt_tls_vp_index __attribute__((tls_model("initial-exec"))) = -1;

/* The privatization slots of DESIGN.md §5, read by code compiled with -fmpc-privatize. */
__attribute__((visibility("default"))) __thread intptr_t __mpc_priv_delta __attribute__((tls_model("initial-exec")));
__attribute__((visibility("default"))) __thread intptr_t __mpc_ult_delta __attribute__((tls_model("initial-exec")));

void mpcrt_sched_make_ready(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    atomic_store_explicit(&u->state, ULT_READY, memory_order_relaxed);
    mpcrt_rq_push(&vp->rq, u);
}

void mpcrt_sched_drain_inbox(mpcrt_vp_t *vp)
{
    mpcrt_ult_t *u = mpcrt_inbox_take_all(vp);
    while (u) {
        mpcrt_ult_t *next = u->inbox_next; /* read before clearing: a new wake-up may reuse the link */
        /* seq_cst: ordered against the creator's seq_cst state store and wake_pending exchange, so a wake
         * skipped because we still held it pending is seen here as state NEW. */
        atomic_exchange(&u->wake_pending, 0);
        int state = atomic_load(&u->state);
        if (atomic_load_explicit(&u->home, memory_order_relaxed) != vp) {
            /* A stale wake-up of a recycled ULT that now lives elsewhere: pass it on (harmless). */
            if (state == ULT_NEW || state == ULT_BLOCKED || state == ULT_PARKED)
                mpcrt_ult_wake(u);
        } else if (state == ULT_BLOCKED || state == ULT_NEW) {
            mpcrt_sched_make_ready(vp, u);
        } else if (state == ULT_PARKED) {
            mpcrt_sched_poke(vp, u);
        }
        u = next;
    }
}

void mpcrt_sched_park(mpcrt_vp_t *vp, mpcrt_ult_t *self)
{
    self->poll_prev = NULL;
    self->poll_next = vp->polls;
    if (vp->polls)
        vp->polls->poll_prev = self;
    vp->polls = self;
    vp->npolls++;
}

static void unpark(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    if (u->poll_prev)
        u->poll_prev->poll_next = u->poll_next;
    else
        vp->polls = u->poll_next;
    if (u->poll_next)
        u->poll_next->poll_prev = u->poll_prev;
    vp->npolls--;
    mpcrt_sched_make_ready(vp, u);
}

void mpcrt_sched_unpark_self(mpcrt_vp_t *vp, mpcrt_ult_t *self)
{
    /* Nobody on this VP ran since self was marked parked, so nobody poked it; a waker on another VP may
     * have queued it in the inbox, where the drain will find it running and leave it. */
    if (self->poll_prev)
        self->poll_prev->poll_next = self->poll_next;
    else
        vp->polls = self->poll_next;
    if (self->poll_next)
        self->poll_next->poll_prev = self->poll_prev;
    vp->npolls--;
    atomic_store_explicit(&self->state, ULT_RUNNING, memory_order_relaxed);
}

void mpcrt_sched_poke(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    if (u->poked)
        return;
    u->poked = true;
    u->poke_next = vp->poked;
    vp->poked = u;
}

/* The poked ULTs whose predicates now hold become ready. Emptied before any sweep, so that no ULT made
 * ready (and maybe finished) by a sweep stays on the list. */
static void take_poked(mpcrt_vp_t *vp)
{
    mpcrt_ult_t *u = vp->poked;
    vp->poked = NULL;
    while (u) {
        mpcrt_ult_t *next = u->poke_next;
        u->poked = false;
        if (atomic_load_explicit(&u->state, memory_order_relaxed) == ULT_PARKED && u->park_pred(u->park_arg))
            unpark(vp, u);
        u = next;
    }
}

bool mpcrt_sched_sweep(mpcrt_vp_t *vp)
{
    take_poked(vp);
    vp->picks_since_sweep = 0;
    if (!vp->polls)
        return false;
    vp->stats.sweeps++;
    mpcrt_sched_progress();
    bool any = false;
    for (mpcrt_ult_t *u = vp->polls, *next; u; u = next) {
        next = u->poll_next;
        if (u->park_pred(u->park_arg)) {
            unpark(vp, u);
            any = true;
        }
    }
    return any;
}

/* Sweeps are amortized: at most one per max(64, parked) picks unless the run queue is empty or a parked
 * ULT was poked, so 10^5 parked ULTs do not make every switch O(10^5). */
static void take_wakeups(mpcrt_vp_t *vp)
{
    if (atomic_load_explicit(&vp->inbox, memory_order_relaxed))
        mpcrt_sched_drain_inbox(vp);
    if (vp->poked)
        take_poked(vp);
}

static mpcrt_ult_t *pick_next(mpcrt_vp_t *vp)
{
    take_wakeups(vp);
    if (vp->polls) {
        unsigned period = vp->npolls > 64 ? (unsigned)vp->npolls : 64;
        if (vp->rq.count == 0 || ++vp->picks_since_sweep >= period)
            mpcrt_sched_sweep(vp);
    }
    return mpcrt_rq_pop(&vp->rq);
}

void mpcrt_sched_arrived(mpcrt_vp_t *vp, mpcrt_ult_t *self)
{
#if defined(__SANITIZE_ADDRESS__)
    const void *prev_bottom;
    size_t prev_size;
    __sanitizer_finish_switch_fiber(self->asan_fake_stack, &prev_bottom, &prev_size);
    /* The VP's native stack is not ours: learn its bounds the first time we leave it. */
    if (vp->prev == &vp->native && !vp->native.asan_stack_bottom) {
        vp->native.asan_stack_bottom = prev_bottom;
        vp->native.asan_stack_size = prev_size;
    }
#else
    (void)self;
#endif
    mpcrt_sched_after_switch(vp);
}

void mpcrt_sched_after_switch(mpcrt_vp_t *vp)
{
    if (vp->exited) {
        mpcrt_ult_t *u = vp->exited;
        vp->exited = NULL;
        mpcrt_ult_finish_exited(vp, u);
    }
}

/* to_ult (a constant): the caller knows `to` is a ULT, not the VP's native context, and the tests of it
 * fold away (mpcrt_wait_yield_once, which takes it from the run queue). */
static inline __attribute__((always_inline)) void switch_body(mpcrt_vp_t *vp, mpcrt_ult_t *from,
                                                              mpcrt_ult_t *to, bool to_ult)
{
    bool to_native = !to_ult && to == &vp->native;
    atomic_store_explicit(&to->state, ULT_RUNNING, memory_order_relaxed);
    mpcrt_vp_set_free(vp, to_native); /* back to the idle loop, or a ULT with work of its own */
    vp->current = to;
    mpcrt_tls_ult = to_native ? NULL : to;
    mpcrt_tls_rank = to->rank;
    __mpc_priv_delta = to->priv_task_delta;
    __mpc_ult_delta = to->priv_ult_delta;
    vp->stats.switches++;
#if defined(__SANITIZE_ADDRESS__)
    bool leaving_for_good = atomic_load_explicit(&from->state, memory_order_relaxed) == ULT_EXITED;
    __sanitizer_start_switch_fiber(leaving_for_good ? NULL : &from->asan_fake_stack, to->asan_stack_bottom,
                                   to->asan_stack_size);
#endif
#if defined(__SANITIZE_THREAD__)
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    vp->prev = from;
    mpcrt_ctx_switch(&from->sp, to->sp);
#if defined(__SANITIZE_ADDRESS__)
    mpcrt_sched_arrived(vp, from); /* runs mpcrt_sched_after_switch */
#else
    /* The VP read again rather than kept across the switch (a ULT never changes VPs): with nothing live
     * across it, a caller such as mpcrt_wait_yield_once saves no registers of its own. */
    mpcrt_sched_after_switch(mpcrt_tls_vp);
#endif
}

static __attribute__((noinline, cold)) void switch_with_hooks(mpcrt_vp_t *vp, mpcrt_ult_t *from,
                                                              mpcrt_ult_t *to)
{
    int nhooks = atomic_load_explicit(&mpcrt_sched.nswitch, memory_order_acquire);
    for (int i = 0; i < nhooks; i++)
        mpcrt_sched.switch_hooks[i](from, to);
    switch_body(vp, from, to, false);
}

/* Inlined into the general switch and into mpcrt_wait_yield_once, the same-core message path. The hooks'
 * switch is a call of its own, in tail position: nothing stays live across a call here, so the callers
 * save no registers for it. */
static inline __attribute__((always_inline)) void switch_to(mpcrt_vp_t *vp, mpcrt_ult_t *from,
                                                            mpcrt_ult_t *to, bool to_ult)
{
    if (__builtin_expect(atomic_load_explicit(&mpcrt_sched.nswitch, memory_order_acquire) > 0, 0))
        switch_with_hooks(vp, from, to);
    else
        switch_body(vp, from, to, to_ult);
}

void mpcrt_sched_switch(mpcrt_vp_t *vp, mpcrt_ult_t *from, mpcrt_ult_t *to)
{
    switch_to(vp, from, to, false);
}

void mpcrt_sched_switch_away(mpcrt_vp_t *vp)
{
    mpcrt_ult_t *self = vp->current;
    bool yielding = atomic_load_explicit(&self->state, memory_order_relaxed) == ULT_READY;
    if (yielding) {
        /* Behind the ULTs woken meanwhile: a waiter yields to the peer it just poked (mpcrt_wait_until). */
        take_wakeups(vp);
        mpcrt_rq_push(&vp->rq, self);
    }
    /* A yield with nothing parked has no sweep due and its wake-ups taken: straight to the queue. */
    mpcrt_ult_t *next = yielding && !vp->polls ? mpcrt_rq_pop(&vp->rq) : pick_next(vp);
    if (next == self) {
        atomic_store_explicit(&self->state, ULT_RUNNING, memory_order_relaxed);
        return;
    }
    mpcrt_sched_switch(vp, self, next ? next : &vp->native);
}

void mpcrt_yield(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (!vp || vp->current == &vp->native) {
        sched_yield();
        return;
    }
    if (vp->rq.count == 0 && !atomic_load_explicit(&vp->inbox, memory_order_relaxed) && !vp->polls &&
        !vp->poked)
        return;
    atomic_store_explicit(&vp->current->state, ULT_READY, memory_order_relaxed);
    mpcrt_sched_switch_away(vp);
}

bool mpcrt_wait_yield_once(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (!vp)
        return false;
    mpcrt_ult_t *self = vp->current;
    /* What mpcrt_sched_switch_away does for a yield, when nothing is parked or being woken and exactly one
     * ULT is queued: queue the caller behind it and run it, unless the caller's priority would pick the
     * caller again (then the general wait decides). */
    if (self == &vp->native || vp->rq.count != 1 || vp->polls || vp->poked ||
        atomic_load_explicit(&vp->inbox, memory_order_relaxed))
        return false;
    int level = 31 - __builtin_clz(vp->rq.nonempty);
    if (self->cur_prio > level)
        return false;
    atomic_store_explicit(&self->state, ULT_READY, memory_order_relaxed);
    switch_to(vp, self, mpcrt_rq_swap_single(&vp->rq, self, level), true);
    return true;
}

bool mpcrt_yield_would_switch(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    return vp && vp->current != &vp->native &&
           (vp->rq.count != 0 || atomic_load_explicit(&vp->inbox, memory_order_relaxed));
}

void mpcrt_ult_suspend(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    MPCRT_ASSERT(vp && vp->current != &vp->native, "only a ULT can suspend");
    /* seq_cst: a waker on another VP that pushed us before this store is found by the drain below. */
    atomic_store(&vp->current->state, ULT_BLOCKED);
    mpcrt_sched_switch_away(vp);
}

/* On u's own VP while u is not running: no other thread can touch u's scheduling state. */
static inline void wake_local(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    int state = atomic_load_explicit(&u->state, memory_order_relaxed);
    if (state == ULT_BLOCKED || state == ULT_NEW)
        mpcrt_sched_make_ready(vp, u);
    else if (state == ULT_PARKED)
        mpcrt_sched_poke(vp, u);
}

void mpcrt_ult_wake(mpcrt_ult_t *u)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    mpcrt_vp_t *home = atomic_load_explicit(&u->home, memory_order_relaxed);
    if (vp == home && vp->current != u) {
        wake_local(vp, u);
        return;
    }
    if (vp == home && atomic_load_explicit(&u->state, memory_order_relaxed) == ULT_RUNNING)
        return; /* u is the caller: whatever it waits for, it checks again before it parks or blocks */
    /* seq_cst exchange: see mpcrt_sched_drain_inbox. */
    if (atomic_exchange(&u->wake_pending, 1) == 0)
        mpcrt_inbox_push(home, u);
}

void mpcrt_ult_poke_slow(mpcrt_ult_t *u)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    /* No test of vp: a live ULT has a home, so a kernel thread that is no VP's (vp NULL) goes below. */
    if (atomic_load_explicit(&u->home, memory_order_relaxed) == vp) {
        /* u lives on our VP, so it is not running (or it is us): it parked before we ran, in program order on
         * this kernel thread, and needs no fence. A ping-pong between two ranks of one core pokes at every
         * message, and the fence was a tenth of a hop. */
        if (vp->current != u)
            wake_local(vp, u);
        return;
    }
    /* Pairs with the fence in mpcrt_wait_until after the parked mark: either the waiter sees the predicate
     * true, or we see it parked and wake it. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&u->state, memory_order_relaxed) == ULT_RUNNING)
        return;
    mpcrt_ult_wake(u);
}

void mpcrt_ult_set_priority(mpcrt_ult_t *u, int base, int current)
{
    if (base < MPCRT_PRIO_MIN) base = MPCRT_PRIO_MIN;
    if (base > MPCRT_PRIO_MAX) base = MPCRT_PRIO_MAX;
    if (current < MPCRT_PRIO_MIN) current = MPCRT_PRIO_MIN;
    if (current > MPCRT_PRIO_MAX) current = MPCRT_PRIO_MAX;
    bool queued = atomic_load_explicit(&u->state, memory_order_relaxed) == ULT_READY && u->home == mpcrt_tls_vp;
    if (queued)
        mpcrt_rq_remove(&u->home->rq, u);
    u->base_prio = base;
    u->cur_prio = current;
    if (queued)
        mpcrt_rq_push(&u->home->rq, u);
}

void mpcrt_ult_get_priority(const mpcrt_ult_t *u, int *base, int *current)
{
    *base = u->base_prio;
    *current = u->cur_prio;
}

void mpcrt_sched_vp_stats(int vp, mpcrt_vp_stats_t *out)
{
    *out = mpcrt_sched.vps[vp].stats;
}
