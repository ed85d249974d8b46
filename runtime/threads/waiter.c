/* One blocked thread, ULT or kernel thread alike: the building block of every lock and barrier here. */
#include "sched_internal.h"

/* The VP whose scheduler loop the calling kernel thread must run while it waits, if any: the thread that
 * hosts a VP (a plain program's main thread became VP 0) leaves the loop for user code, so the VP's ULTs
 * run only while it waits; sleeping in the kernel instead could wait for one of them forever. Not from
 * inside the VP's progress hooks, which must not block anyway. */
mpcrt_vp_t *mpcrt_hosted_vp_self(void)
{
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    return vp && vp->hosted && vp->current == &vp->native && !vp->in_progress ? vp : NULL;
}

void mpcrt_waiter_init(mpcrt_waiter_t *w)
{
    w->next = NULL;
    w->ult = mpcrt_ult_self(); /* NULL on a kernel thread or a VP's own context: they sleep on the futex */
    w->vp = w->ult ? NULL : mpcrt_hosted_vp_self();
    atomic_store_explicit(&w->woken, 0, memory_order_relaxed);
}

static bool woken(void *arg)
{
    return atomic_load_explicit(&((mpcrt_waiter_t *)arg)->woken, memory_order_acquire) != 0;
}

void mpcrt_waiter_sleep(mpcrt_waiter_t *w)
{
    if (w->vp) {
        mpcrt_vp_idle_loop(w->vp, woken, w); /* returns once woken */
        return;
    }
    if (w->ult) {
        /* acquire: pairs with the release in wake, so the waker's critical section is visible. Loops
         * because a suspended ULT may be woken spuriously (a late wake-up meant for an earlier wait). */
        while (!atomic_load_explicit(&w->woken, memory_order_acquire))
            mpcrt_ult_suspend();
        return;
    }
    for (int i = 0; i < 200; i++) {
        if (atomic_load_explicit(&w->woken, memory_order_acquire))
            return;
        mpcrt_cpu_relax();
    }
    while (!atomic_load_explicit(&w->woken, memory_order_acquire))
        mpcrt_futex_wait(&w->woken, 0, 0);
}

void mpcrt_waiter_wake(mpcrt_waiter_t *w)
{
    mpcrt_waiter_wake_with(w, 1);
}

void mpcrt_waiter_wake_with(mpcrt_waiter_t *w, uint32_t value)
{
    /* Read the ULT first: once woken is set, the waiter may return and its stack frame (w) is gone. */
    mpcrt_ult_t *ult = w->ult;
    mpcrt_vp_t *vp = w->vp;
    /* seq_cst: Dekker pair with the hosted VP, which publishes `sleeping` then re-checks woken. */
    atomic_store_explicit(&w->woken, value, vp ? memory_order_seq_cst : memory_order_release);
    if (ult)
        mpcrt_ult_wake(ult);
    else if (vp)
        mpcrt_vp_notify(vp);
    else
        mpcrt_futex_wake(&w->woken, 1); /* a stale address at worst: spurious futex wake-ups are harmless */
}
