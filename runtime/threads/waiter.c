/* One blocked thread, ULT or kernel thread alike: the building block of every lock and barrier here. */
#include "sched_internal.h"

void mpcrt_waiter_init(mpcrt_waiter_t *w)
{
    w->next = NULL;
    w->ult = mpcrt_ult_self(); /* NULL on a kernel thread or a VP's own context: they sleep on the futex */
    atomic_store_explicit(&w->woken, 0, memory_order_relaxed);
}

void mpcrt_waiter_sleep(mpcrt_waiter_t *w)
{
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
    /* Read the ULT first: once woken is set, the waiter may return and its stack frame (w) is gone. */
    mpcrt_ult_t *ult = w->ult;
    atomic_store_explicit(&w->woken, 1, memory_order_release);
    if (ult)
        mpcrt_ult_wake(ult);
    else
        mpcrt_futex_wake(&w->woken, 1); /* a stale address at worst: spurious futex wake-ups are harmless */
}
