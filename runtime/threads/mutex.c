/* Mutex usable from ULTs and kernel threads: one CAS to take or release it uncontended; contended waiters
 * queue in FIFO order. A ULT waiter (or a hosted VP's thread, which runs its VP while it waits) receives the
 * lock directly from the releasing thread (hand-off), which keeps ULTs on one VP from starving each other.
 * A kernel-thread waiter is woken to compete for it instead: handing the lock to a thread asleep in the
 * kernel left it held by nobody running for a scheduling delay at every such hand-off, and with other
 * processes on the cores each one took milliseconds (unit.threads.test_sync: 0.6 s alone, 100-116 s beside
 * 8 busy loops). */
#include "sched_internal.h"

/* FREE_QUEUED: free, with waiters still queued (a kernel thread was woken to compete). Like HELD_WAITERS, it
 * keeps every acquirer and releaser off the fast paths, so the queue is never forgotten: whoever takes the
 * lock from it holds HELD_WAITERS, and its unlock wakes the next waiter. */
enum { FREE = 0, HELD = 1, HELD_WAITERS = 2, FREE_QUEUED = 3 };
/* mpcrt_waiter_t.woken: the lock was handed over, or the waiter must compete for it again. */
enum { WOKEN_OWNER = 1, WOKEN_COMPETE = 2 };

void mpcrt_mutex_init(mpcrt_mutex_t *m)
{
    atomic_init(&m->locked, FREE);
    atomic_init(&m->guard, 0);
    m->head = m->tail = NULL;
}

bool mpcrt_mutex_trylock(mpcrt_mutex_t *m)
{
    int expected = FREE;
    /* acquire: the critical section sees the previous owner's writes. */
    if (atomic_compare_exchange_strong_explicit(&m->locked, &expected, HELD, memory_order_acquire,
                                                memory_order_relaxed))
        return true;
    return expected == FREE_QUEUED &&
           atomic_compare_exchange_strong_explicit(&m->locked, &expected, HELD_WAITERS, memory_order_acquire,
                                                   memory_order_relaxed);
}

static bool looks_free(mpcrt_mutex_t *m)
{
    int state = atomic_load_explicit(&m->locked, memory_order_relaxed);
    return state == FREE || state == FREE_QUEUED;
}

void mpcrt_mutex_lock(mpcrt_mutex_t *m)
{
    if (mpcrt_mutex_trylock(m))
        return;
    for (;;) {
        /* A short spin helps kernel threads on other cores; ULTs skip it when their VP has other work. */
        for (int i = 0; i < 64; i++) {
            mpcrt_cpu_relax();
            if (looks_free(m) && mpcrt_mutex_trylock(m))
                return;
        }
        mpcrt_waiter_t w;
        mpcrt_spin_lock(&m->guard);
        for (;;) {
            if (mpcrt_mutex_trylock(m)) { /* FREE or FREE_QUEUED */
                mpcrt_spin_unlock(&m->guard);
                return;
            }
            int state = atomic_load_explicit(&m->locked, memory_order_relaxed);
            if (state == FREE || state == FREE_QUEUED)
                continue;
            /* Mark it contended so that unlock takes the slow path; races with a fast unlock (1 -> 0). */
            if (state == HELD_WAITERS ||
                atomic_compare_exchange_strong_explicit(&m->locked, &state, HELD_WAITERS,
                                                        memory_order_relaxed, memory_order_relaxed))
                break;
        }
        mpcrt_waiter_init(&w);
        if (m->tail)
            m->tail->next = &w;
        else
            m->head = &w;
        m->tail = &w;
        mpcrt_spin_unlock(&m->guard);
        mpcrt_waiter_sleep(&w);
        if (atomic_load_explicit(&w.woken, memory_order_acquire) == WOKEN_OWNER)
            return; /* handed over: the releaser's critical section is visible (its release store) */
        /* WOKEN_COMPETE: a kernel thread, out of the queue; take the lock or queue again at the tail. */
    }
}

void mpcrt_mutex_unlock(mpcrt_mutex_t *m)
{
    int expected = HELD;
    /* release: publishes the critical section to the next owner. */
    if (atomic_compare_exchange_strong_explicit(&m->locked, &expected, FREE, memory_order_release,
                                                memory_order_relaxed))
        return;
    mpcrt_spin_lock(&m->guard);
    mpcrt_waiter_t *w = m->head;
    if (!w) { /* not expected: HELD_WAITERS is only held while someone is queued */
        atomic_store_explicit(&m->locked, FREE, memory_order_release);
        mpcrt_spin_unlock(&m->guard);
        return;
    }
    m->head = w->next;
    if (!m->head)
        m->tail = NULL;
    /* Read before the wake: once woken, the waiter may return and its frame (w) is gone. */
    bool hand_off = w->ult || w->vp;
    if (hand_off) {
        if (!m->head)
            atomic_store_explicit(&m->locked, HELD, memory_order_relaxed); /* owned by w, nobody queued */
    } else {
        /* release: the next owner, whoever wins, sees our critical section. */
        atomic_store_explicit(&m->locked, m->head ? FREE_QUEUED : FREE, memory_order_release);
    }
    mpcrt_spin_unlock(&m->guard);
    /* Its release store orders our critical section before w's. */
    mpcrt_waiter_wake_with(w, hand_off ? WOKEN_OWNER : WOKEN_COMPETE);
}
