/* Cross-VP wake-ups: a lock-free multi-producer stack per VP that the owner empties in one exchange
 * (push-only CAS plus take-all is free of ABA), and the futex that wakes a sleeping VP. */
#include "sched_internal.h"
#include "lifo.h"

void mpcrt_inbox_push(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    /* seq_cst (not only release, which the owner's acquire needs): part of the Dekker pair in
     * mpcrt_vp_notify. */
    MPCRT_LIFO_PUSH(&vp->inbox, u, inbox_next, memory_order_seq_cst);
    mpcrt_vp_notify(vp);
}

mpcrt_ult_t *mpcrt_inbox_take_all(mpcrt_vp_t *vp)
{
    if (!atomic_load_explicit(&vp->inbox, memory_order_relaxed))
        return NULL;
    /* acquire: pairs with the release in push. */
    mpcrt_ult_t *taken = atomic_exchange_explicit(&vp->inbox, NULL, memory_order_acquire);
    MPCRT_LIFO_REVERSE(taken, inbox_next);
    return taken;
}

void mpcrt_vp_notify(mpcrt_vp_t *vp)
{
    /* Dekker with the VP, which stores `sleeping` then re-checks its inbox (both seq_cst): our push and
     * this read-modify-write are seq_cst too, so either the VP sees the push or we see it sleeping. An
     * RMW rather than a fence because ThreadSanitizer does not model fences. */
    int sleeping = atomic_fetch_or_explicit(&vp->sleeping, 0, memory_order_seq_cst);
    if (sleeping == 2) {
        /* Asleep on the doorbell (mpcrt_sched_set_doorbell); if it was just removed, the VP's timeout
         * wakes it. */
        _Atomic uint32_t *bell = atomic_load_explicit(&mpcrt_sched.bell, memory_order_acquire);
        if (bell)
            mpcrt_doorbell_ring(bell);
    } else if (sleeping) {
        atomic_fetch_add_explicit(&vp->wake_seq, 1, memory_order_release);
        mpcrt_futex_wake(&vp->wake_seq, 1);
    }
}
