/* Barrier for ULTs and kernel threads: the last arrival wakes the whole round's waiters at once. */
#include "sched_internal.h"

#include <errno.h>

int mpcrt_barrier_init(mpcrt_barrier_t *b, unsigned count)
{
    if (count == 0)
        return -EINVAL;
    atomic_init(&b->guard, 0);
    b->count = count;
    b->arrived = 0;
    b->generation = 0;
    b->head = NULL;
    return 0;
}

bool mpcrt_barrier_wait(mpcrt_barrier_t *b)
{
    mpcrt_waiter_t w;
    mpcrt_spin_lock(&b->guard);
    if (++b->arrived == b->count) {
        mpcrt_waiter_t *waiters = b->head;
        b->head = NULL;
        b->arrived = 0;
        b->generation++;
        mpcrt_spin_unlock(&b->guard);
        while (waiters) {
            mpcrt_waiter_t *next = waiters->next;
            mpcrt_waiter_wake(waiters);
            waiters = next;
        }
        return true;
    }
    mpcrt_waiter_init(&w);
    w.next = b->head;
    b->head = &w;
    mpcrt_spin_unlock(&b->guard);
    mpcrt_waiter_sleep(&w);
    return false;
}
