/* A spinlock biased to the VP that takes it first: that VP's kernel thread takes and releases it with plain
 * stores, every other thread with an atomic exchange once the bias is revoked (for good, the first time a
 * thread of another VP or no VP wants the lock). Part of sched.h's interface.
 *
 * Why: two ranks of one core exchange a message with two lock acquisitions per hop (the receiver's match
 * lock, taken by the sender and by the receiver posting its next receive), and the exchange's store-buffer
 * drain was 2.2 ns of a 0.028 us hop. ULTs of one VP never hold a spinlock across a switch, so the kernel
 * thread alone orders them; only other kernel threads need the exchange.
 *
 * Protocol (an asymmetric Dekker pair, as in biased locking of Java monitors): the owner stores `held`, then
 * reads `bias` again with only a compiler barrier between; a revoker marks `bias` revoking with a CAS, runs
 * membarrier (every running thread of the process executes a full barrier), then waits for `held` to be 0.
 * Either the owner's store is visible to the revoker after the membarrier, or the owner's second read comes
 * after the CAS and sees the mark, and backs off. Then `bias` turns off and everyone uses `lock`.
 * Requires the scheduler's membarrier registration (mpcrt_sched.heavy_fence); without it locks start off.
 *
 * Same rules as mpcrt_spin_lock: short critical sections, never held across a switch, not recursive. */
#ifndef MPCRT_THREADS_BIASED_LOCK_H
#define MPCRT_THREADS_BIASED_LOCK_H

#include <stdatomic.h>
#include <stdbool.h>

/* `bias`: the owning VP's key (its index + 1) while biased; flags above the key bits otherwise. */
enum {
    MPCRT_BIAS_KEY_MASK = 0x00ffffff,
    MPCRT_BIAS_UNCLAIMED = 1 << 28, /* the first VP to take the lock gets the bias */
    MPCRT_BIAS_REVOKING = 1 << 29,  /* with the former owner's key */
    MPCRT_BIAS_OFF = 1 << 30,       /* with the former owner's key, if any: `lock` only, for good */
};

typedef struct {
    _Atomic int bias;
    _Atomic unsigned char held; /* written by the owning VP only */
    _Atomic unsigned char lock; /* test-and-set, once the bias is off */
} mpcrt_biased_lock_t;

extern __thread int mpcrt_tls_vp_index __attribute__((tls_model("initial-exec")));

void mpcrt_biased_lock_init(mpcrt_biased_lock_t *l);
void mpcrt_biased_lock_slow(mpcrt_biased_lock_t *l);
bool mpcrt_biased_trylock_slow(mpcrt_biased_lock_t *l);
/* Whether l is still biased to a VP (tests and statistics). */
bool mpcrt_biased_lock_is_biased(const mpcrt_biased_lock_t *l);

/* The owner's attempt: true when it holds l. */
static inline bool mpcrt_biased_lock_owner(mpcrt_biased_lock_t *l, int key)
{
    atomic_store_explicit(&l->held, 1, memory_order_relaxed);
    /* Only the compiler must keep the store before the load: a revoker's membarrier supplies the fence
     * (see above). acquire is not needed either: every earlier holder was this kernel thread. */
    atomic_signal_fence(memory_order_seq_cst);
    if (__builtin_expect(atomic_load_explicit(&l->bias, memory_order_relaxed) == key, 1))
        return true;
    atomic_store_explicit(&l->held, 0, memory_order_release); /* being revoked: back off */
    return false;
}

/* One attempt, inline: the owner's plain stores, or once the bias is off one exchange (a lock that other
 * VPs take is off, and then it costs what a spinlock does, plus a read of the same line). */
static inline bool mpcrt_biased_lock_fast(mpcrt_biased_lock_t *l)
{
    int key = mpcrt_tls_vp_index + 1; /* 0 on a kernel thread that is no VP: never a biased state */
    int bias = atomic_load_explicit(&l->bias, memory_order_relaxed);
    if (__builtin_expect(bias == key, 1)) /* laid out in line: the owner's path is the short one */
        return mpcrt_biased_lock_owner(l, key);
    /* acquire: the critical section of the previous holder happens before ours. */
    return (bias & MPCRT_BIAS_OFF) && !__atomic_exchange_n((unsigned char *)&l->lock, 1, __ATOMIC_ACQUIRE);
}

static inline void mpcrt_biased_lock(mpcrt_biased_lock_t *l)
{
    if (__builtin_expect(!mpcrt_biased_lock_fast(l), 0))
        mpcrt_biased_lock_slow(l);
}

static inline bool mpcrt_biased_trylock(mpcrt_biased_lock_t *l)
{
    return mpcrt_biased_lock_fast(l) || mpcrt_biased_trylock_slow(l);
}

/* `lock` is set only while the bias is off, and then `held` is never the holder's: an owner holding by
 * its fast path sees `lock` clear (a revoker waits for `held` before anyone may set it), and any other
 * holder took `lock`. `held` may be 1 for a moment then, an owner backing off; it is not looked at. */
static inline void mpcrt_biased_unlock(mpcrt_biased_lock_t *l)
{
    /* release: publishes the critical section, to a revoker (reading `held`) or the next taker of `lock`. */
    if (__builtin_expect(atomic_load_explicit(&l->lock, memory_order_relaxed), 0))
        atomic_store_explicit(&l->lock, 0, memory_order_release);
    else
        atomic_store_explicit(&l->held, 0, memory_order_release);
}

#endif
