/* Mutex usable from ULTs and kernel threads: one CAS to take or release it uncontended; contended waiters
 * queue in FIFO order and receive the lock directly from the releasing thread (hand-off), which keeps
 * ULTs on one VP from starving each other. */
#include "sched_internal.h"

enum { FREE = 0, HELD = 1, HELD_WAITERS = 2 };

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
    return atomic_compare_exchange_strong_explicit(&m->locked, &expected, HELD, memory_order_acquire,
                                                   memory_order_relaxed);
}

void mpcrt_mutex_lock(mpcrt_mutex_t *m)
{
    if (mpcrt_mutex_trylock(m))
        return;
    /* A short spin helps kernel threads on other cores; ULTs skip it when their VP has other work. */
    for (int i = 0; i < 64; i++) {
        mpcrt_cpu_relax();
        if (atomic_load_explicit(&m->locked, memory_order_relaxed) == FREE && mpcrt_mutex_trylock(m))
            return;
    }
    mpcrt_waiter_t w;
    mpcrt_spin_lock(&m->guard);
    for (;;) {
        int state = atomic_load_explicit(&m->locked, memory_order_relaxed);
        if (state == FREE) {
            if (atomic_compare_exchange_strong_explicit(&m->locked, &state, HELD, memory_order_acquire,
                                                        memory_order_relaxed)) {
                mpcrt_spin_unlock(&m->guard);
                return;
            }
            continue;
        }
        /* Mark the lock contended so that unlock takes the slow path; races with a fast unlock (1 -> 0). */
        if (state == HELD_WAITERS || atomic_compare_exchange_strong_explicit(&m->locked, &state, HELD_WAITERS,
                                                                             memory_order_relaxed,
                                                                             memory_order_relaxed))
            break;
    }
    mpcrt_waiter_init(&w);
    if (m->tail)
        m->tail->next = &w;
    else
        m->head = &w;
    m->tail = &w;
    mpcrt_spin_unlock(&m->guard);
    mpcrt_waiter_sleep(&w); /* returns owning the lock (hand-off) */
    atomic_thread_fence(memory_order_acquire);
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
    /* HELD_WAITERS is only set under the guard with a waiter about to be queued, so the queue is not empty. */
    m->head = w->next;
    if (!m->head) {
        m->tail = NULL;
        atomic_store_explicit(&m->locked, HELD, memory_order_relaxed); /* owned by w, nobody queued */
    }
    mpcrt_spin_unlock(&m->guard);
    mpcrt_waiter_wake(w); /* its release store orders our critical section before w's */
}
