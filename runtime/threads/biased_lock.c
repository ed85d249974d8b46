/* Biased spinlocks (biased_lock.h): claiming the bias, revoking it, and the exchange once it is off. */
#include "config.h"
#include "log.h"
#include "sched_internal.h"

#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>

void mpcrt_biased_lock_init(mpcrt_biased_lock_t *l)
{
    bool on = mpcrt_sched.heavy_fence && mpcrt_config_int(MPCRT_CFG_BIASED_LOCKS);
    atomic_init(&l->bias, on ? MPCRT_BIAS_UNCLAIMED : MPCRT_BIAS_OFF);
    atomic_init(&l->held, 0);
    atomic_init(&l->lock, 0);
}

bool mpcrt_biased_lock_is_biased(const mpcrt_biased_lock_t *l)
{
    int bias = atomic_load_explicit(&((mpcrt_biased_lock_t *)l)->bias, memory_order_relaxed);
    return bias > 0 && bias <= MPCRT_BIAS_KEY_MASK;
}

/* Turns the bias off (whoever is revoking, we or another thread): when this returns, `bias` is off and no
 * owner holds l by its fast path, nor will again. */
static void revoke_bias(mpcrt_biased_lock_t *l)
{
    for (;;) {
        /* acquire: pairs with the revoker's release of OFF, so that the owner's last critical section
         * (published to that revoker by its release of `held`) happens before ours. */
        int bias = atomic_load_explicit(&l->bias, memory_order_acquire);
        if (bias & MPCRT_BIAS_OFF)
            return;
        if (bias & MPCRT_BIAS_REVOKING) {
            mpcrt_spin_relax();
            continue;
        }
        int key = bias & MPCRT_BIAS_KEY_MASK;
        if (!atomic_compare_exchange_weak_explicit(&l->bias, &bias, MPCRT_BIAS_REVOKING | key,
                                                   memory_order_relaxed, memory_order_relaxed))
            continue;
        if (key) {
            /* The owner's store of `held` before its second read of `bias` is now visible, or that read
             * sees the mark (biased_lock.h). */
            long rc = syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0);
            MPCRT_ASSERT(rc == 0, "membarrier works once the process registered for it");
            /* acquire: the owner's release of `held` published its critical section. */
            while (atomic_load_explicit(&l->held, memory_order_acquire))
                mpcrt_spin_relax();
            mpcrt_log(MPCRT_LOG_SCHED, "lock %p: bias of VP %d revoked by VP %d", (void *)l, key - 1,
                      mpcrt_tls_vp_index);
        }
        atomic_store_explicit(&l->bias, MPCRT_BIAS_OFF | key, memory_order_release);
        return;
    }
}

/* Claims an unclaimed lock for the calling VP: true when it is now biased to it (or already was). */
static bool claim_bias(mpcrt_biased_lock_t *l)
{
    int key = mpcrt_tls_vp_index + 1;
    int expected = MPCRT_BIAS_UNCLAIMED;
    if (key <= 0)
        return false;
    /* relaxed: nobody held the lock before it was claimed. */
    return atomic_compare_exchange_strong_explicit(&l->bias, &expected, key, memory_order_relaxed,
                                                   memory_order_relaxed) ||
           expected == key;
}

/* The fast path failed: claim the bias, or revoke it; in both cases hold l when this returns true. */
static bool take(mpcrt_biased_lock_t *l, bool wait)
{
    for (;;) {
        int bias = atomic_load_explicit(&l->bias, memory_order_relaxed);
        int key = mpcrt_tls_vp_index + 1;
        if (bias == MPCRT_BIAS_UNCLAIMED && claim_bias(l) && mpcrt_biased_lock_owner(l, key))
            return true;
        if (!(bias & MPCRT_BIAS_OFF)) {
            if (bias == key && mpcrt_biased_lock_owner(l, key))
                return true;
            revoke_bias(l);
        }
        /* acquire: the critical section of the previous holder happens before ours. */
        if (!__atomic_exchange_n((unsigned char *)&l->lock, 1, __ATOMIC_ACQUIRE))
            return true;
        if (!wait)
            return false;
        while (atomic_load_explicit(&l->lock, memory_order_relaxed))
            __builtin_ia32_pause();
    }
}

void mpcrt_biased_lock_slow(mpcrt_biased_lock_t *l)
{
    take(l, true);
}

bool mpcrt_biased_trylock_slow(mpcrt_biased_lock_t *l)
{
    return take(l, false);
}
