/* One-time initialization for ULTs and kernel threads (pthread_once would block a whole VP). */
#include "sched_internal.h"

enum { NOT_RUN, RUNNING, DONE };

void mpcrt_once(mpcrt_once_t *once, void (*fn)(void))
{
    /* acquire: callers that see DONE see everything fn wrote. */
    if (atomic_load_explicit(&once->state, memory_order_acquire) == DONE)
        return;
    mpcrt_mutex_lock(&once->lock);
    int state = atomic_load_explicit(&once->state, memory_order_relaxed);
    if (state == NOT_RUN) {
        atomic_store_explicit(&once->state, RUNNING, memory_order_relaxed);
        mpcrt_mutex_unlock(&once->lock);
        fn();
        mpcrt_mutex_lock(&once->lock);
        atomic_store_explicit(&once->state, DONE, memory_order_release);
        mpcrt_cond_broadcast(&once->done);
    } else {
        while (atomic_load_explicit(&once->state, memory_order_relaxed) != DONE)
            mpcrt_cond_wait(&once->done, &once->lock);
    }
    mpcrt_mutex_unlock(&once->lock);
}
