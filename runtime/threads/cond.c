/* Condition variable over mpcrt_mutex_t, for ULTs and kernel threads. */
#include "sched_internal.h"

void mpcrt_cond_init(mpcrt_cond_t *c)
{
    atomic_init(&c->guard, 0);
    c->head = c->tail = NULL;
}

void mpcrt_cond_wait(mpcrt_cond_t *c, mpcrt_mutex_t *m)
{
    mpcrt_waiter_t w;
    mpcrt_waiter_init(&w);
    mpcrt_spin_lock(&c->guard);
    if (c->tail)
        c->tail->next = &w;
    else
        c->head = &w;
    c->tail = &w;
    mpcrt_spin_unlock(&c->guard);
    /* Queued before the mutex is released, so a signal sent after our caller's check cannot be lost. */
    mpcrt_mutex_unlock(m);
    mpcrt_waiter_sleep(&w);
    mpcrt_mutex_lock(m);
}

static mpcrt_waiter_t *take(mpcrt_cond_t *c, bool all)
{
    mpcrt_spin_lock(&c->guard);
    mpcrt_waiter_t *taken = c->head;
    if (taken) {
        if (all || !taken->next) {
            c->head = c->tail = NULL;
        } else {
            c->head = taken->next;
            taken->next = NULL;
        }
    }
    mpcrt_spin_unlock(&c->guard);
    return taken;
}

void mpcrt_cond_signal(mpcrt_cond_t *c)
{
    mpcrt_waiter_t *w = take(c, false);
    if (w)
        mpcrt_waiter_wake(w);
}

void mpcrt_cond_broadcast(mpcrt_cond_t *c)
{
    mpcrt_waiter_t *w = take(c, true);
    while (w) {
        mpcrt_waiter_t *next = w->next; /* read before waking: w dies once woken */
        mpcrt_waiter_wake(w);
        w = next;
    }
}
