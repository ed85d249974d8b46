/* Kernel threads created by the program (pthread_create in a rank, THREAD_MULTIPLE) stay kernel threads,
 * but inherit their creator's identity: its rank (so MPI calls act for that rank) and its privatization
 * view (so they see the rank's globals); and a rank joining one waits through the scheduler instead of
 * blocking its core. libmpcrt precedes libc in every program's lookup order, so these definitions
 * interpose pthread_create and pthread_join for the program and its libraries; the real ones are libc's.
 * (Other blocking calls made by a rank, such as sleep or a pthread mutex held by another thread, still
 * block its core until they return.) */
#define _GNU_SOURCE
#include "sched_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

extern __thread intptr_t __mpc_priv_delta, __mpc_ult_delta;

/* One per thread created by a rank; kept until it is joined (or forever if detached: a few bytes). */
typedef struct start {
    void *(*fn)(void *);
    void *arg;
    int rank;
    intptr_t task_delta, ult_delta;
    pthread_t thread;
    _Atomic int finished;
    struct start *next;
} start_t;

static start_t *started;
static _Atomic int started_lock;

/* Not instrumented by ThreadSanitizer: under TSan, the routine these two wrap is TSan's own thread start
 * (its pthread_create interceptor comes first in the lookup order and calls ours), so they run before it
 * has set the thread up and after it has torn it down; instrumented, their first call faults. */
#if defined(__SANITIZE_THREAD__)
#define OUTSIDE_TSAN_THREAD __attribute__((no_sanitize_thread))
#else
#define OUTSIDE_TSAN_THREAD
#endif

OUTSIDE_TSAN_THREAD static void mark_finished(void *arg)
{
    start_t *start = arg;
    /* release: the thread's work is visible to the joiner that sees `finished`. */
    atomic_store_explicit(&start->finished, 1, memory_order_release);
}

OUTSIDE_TSAN_THREAD static void *start_with_identity(void *arg)
{
    start_t *start = arg;
    mpcrt_tls_rank = start->rank;
    __mpc_priv_delta = start->task_delta;
    __mpc_ult_delta = start->ult_delta;
    void *result;
    pthread_cleanup_push(mark_finished, start); /* also on pthread_exit and cancellation */
    result = start->fn(start->arg);
    pthread_cleanup_pop(1);
    return result;
}

static start_t *take_started(pthread_t thread)
{
    mpcrt_spin_lock(&started_lock);
    start_t **link = &started;
    while (*link && !pthread_equal((*link)->thread, thread))
        link = &(*link)->next;
    start_t *found = *link;
    if (found)
        *link = found->next;
    mpcrt_spin_unlock(&started_lock);
    return found;
}

static bool thread_finished(void *arg)
{
    return atomic_load_explicit(&((start_t *)arg)->finished, memory_order_acquire);
}

typedef int (*join_fn)(pthread_t, void **);

/* A rank (a ULT) joining its thread must not block its core in the kernel: the other ranks of the core may
 * be the ones the thread is waiting for. It waits through the scheduler, then reaps the finished thread. */
__attribute__((visibility("default"))) int pthread_join(pthread_t thread, void **result)
{
    static join_fn real;
    if (!real)
        real = (join_fn)dlsym(RTLD_NEXT, "pthread_join");
    if (mpcrt_ult_self()) {
        start_t *start = take_started(thread);
        if (start) {
            /* Quiet: under ThreadSanitizer this runs inside its pthread_join interceptor, which records
             * no synchronization until the real join returns; MPI matching done here from the hooks
             * then looked racy to it. Nothing the hooks do is needed for the join. */
            mpcrt_wait_until_quiet(thread_finished, start);
            int rc = real(thread, result); /* returns at once: the thread is past its function */
            free(start);
            return rc;
        }
    }
    return real(thread, result);
}

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

__attribute__((visibility("default"))) int pthread_create(pthread_t *thread, const pthread_attr_t *attr,
                                                          void *(*fn)(void *), void *arg)
{
    static create_fn real;
    if (!real)
        real = (create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (!real)
        return 38; /* ENOSYS: cannot happen with a dynamically linked libc */
    int rank = mpcrt_self_rank();
    if (rank < 0 && !__mpc_priv_delta && !__mpc_ult_delta)
        return real(thread, attr, fn, arg); /* nothing to inherit (VPs, helper threads) */
    start_t *start = malloc(sizeof *start);
    if (!start)
        return 11; /* EAGAIN */
    *start = (start_t){fn, arg, rank, __mpc_priv_delta, __mpc_ult_delta, 0, 0, NULL};
    /* Registered before the thread exists, under the lock, so a join always finds it. */
    mpcrt_spin_lock(&started_lock);
    int rc = real(&start->thread, attr, start_with_identity, start);
    if (rc == 0) {
        start->next = started;
        started = start;
    }
    mpcrt_spin_unlock(&started_lock);
    if (rc)
        free(start);
    else
        *thread = start->thread;
    return rc;
}
