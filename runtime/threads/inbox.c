/* Cross-VP wake-ups: a lock-free multi-producer stack per VP that the owner empties in one exchange
 * (push-only CAS plus take-all is free of ABA), and the futex that wakes a sleeping VP. */
#include "sched_internal.h"

void mpcrt_inbox_push(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    mpcrt_ult_t *head = atomic_load_explicit(&vp->inbox, memory_order_relaxed);
    do {
        u->inbox_next = head;
        /* release: the owner that takes u must see everything written before the wake-up. */
    } while (!atomic_compare_exchange_weak_explicit(&vp->inbox, &head, u, memory_order_release,
                                                    memory_order_relaxed));
    mpcrt_vp_notify(vp);
}

mpcrt_ult_t *mpcrt_inbox_take_all(mpcrt_vp_t *vp)
{
    if (!atomic_load_explicit(&vp->inbox, memory_order_relaxed))
        return NULL;
    /* acquire: pairs with the release in push. */
    mpcrt_ult_t *lifo = atomic_exchange_explicit(&vp->inbox, NULL, memory_order_acquire);
    mpcrt_ult_t *fifo = NULL;
    while (lifo) {
        mpcrt_ult_t *next = lifo->inbox_next;
        lifo->inbox_next = fifo;
        fifo = lifo;
        lifo = next;
    }
    return fifo;
}

void mpcrt_vp_notify(mpcrt_vp_t *vp)
{
    /* seq_cst pairs with the VP's seq_cst store of `sleeping` before its last inbox check (Dekker): either
     * the VP sees our push or we see it sleeping. */
    atomic_thread_fence(memory_order_seq_cst);
    if (atomic_load_explicit(&vp->sleeping, memory_order_relaxed)) {
        atomic_fetch_add_explicit(&vp->wake_seq, 1, memory_order_release);
        mpcrt_futex_wake(&vp->wake_seq, 1);
    }
}
