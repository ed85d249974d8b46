/* Sleeps of user-level threads. A rank or OpenMP thread that calls usleep, nanosleep, sleep or
 * clock_nanosleep would block its whole VP, so every other ULT of that core would sleep too (MPICH's
 * coll/nonblocking3 sleeps in a rank while 4 other ranks of the core wait for it). These definitions
 * interpose libc's (libmpcrt comes first in the link): on a ULT the sleep is a wait_until on the deadline,
 * so the VP runs the others meanwhile; a parked deadline is looked at at every sweep of the VP and at least
 * every 2 ms by an idle VP (vp.c), which bounds the oversleep. Kernel threads, and clocks other than
 * CLOCK_REALTIME and CLOCK_MONOTONIC, go to libc. Signals do not interrupt a ULT's sleep (the VP's kernel
 * thread takes them): the remaining time is always 0. */
#define _GNU_SOURCE
#include "sched_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_nanosleep_fn)(clockid_t, int, const struct timespec *, struct timespec *);

static clock_nanosleep_fn libc_clock_nanosleep(void)
{
    static _Atomic(clock_nanosleep_fn) fn;
    /* relaxed: every thread that looks it up finds the same address. */
    clock_nanosleep_fn f = atomic_load_explicit(&fn, memory_order_relaxed);
    if (!f) {
        f = (clock_nanosleep_fn)dlsym(RTLD_NEXT, "clock_nanosleep");
        atomic_store_explicit(&fn, f, memory_order_relaxed);
    }
    return f;
}

typedef struct {
    clockid_t clock;
    struct timespec deadline;
} deadline_t;

static bool deadline_passed(void *arg)
{
    const deadline_t *d = arg;
    struct timespec now;
    clock_gettime(d->clock, &now);
    return now.tv_sec > d->deadline.tv_sec ||
           (now.tv_sec == d->deadline.tv_sec && now.tv_nsec >= d->deadline.tv_nsec);
}

/* Sleeps the calling ULT until `req` (absolute, or relative to now) on `clock`; false when the caller is
 * not a ULT or the clock is not one this handles (the caller then asks libc). */
static bool ult_sleep(clockid_t clock, bool absolute, const struct timespec *req)
{
    if (!mpcrt_ult_self() || (clock != CLOCK_REALTIME && clock != CLOCK_MONOTONIC))
        return false;
    deadline_t d = {clock, *req};
    if (!absolute) {
        clock_gettime(clock, &d.deadline);
        d.deadline.tv_sec += req->tv_sec;
        d.deadline.tv_nsec += req->tv_nsec;
        if (d.deadline.tv_nsec >= 1000000000L) {
            d.deadline.tv_sec++;
            d.deadline.tv_nsec -= 1000000000L;
        }
    }
    mpcrt_wait_until(deadline_passed, &d);
    return true;
}

static bool valid(const struct timespec *t)
{
    return t && t->tv_sec >= 0 && t->tv_nsec >= 0 && t->tv_nsec < 1000000000L;
}

__attribute__((visibility("default"))) int clock_nanosleep(clockid_t clock, int flags, const struct timespec *req,
                                                           struct timespec *rem)
{
    if (valid(req) && ult_sleep(clock, flags & TIMER_ABSTIME, req)) {
        if (rem && !(flags & TIMER_ABSTIME))
            *rem = (struct timespec){0, 0};
        return 0;
    }
    return libc_clock_nanosleep()(clock, flags, req, rem);
}

__attribute__((visibility("default"))) int nanosleep(const struct timespec *req, struct timespec *rem)
{
    int rc = clock_nanosleep(CLOCK_MONOTONIC, 0, req, rem);
    if (rc) {
        errno = rc;
        return -1;
    }
    return 0;
}

__attribute__((visibility("default"))) int usleep(useconds_t usec)
{
    struct timespec t = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000L};
    return nanosleep(&t, NULL);
}

__attribute__((visibility("default"))) unsigned int sleep(unsigned int seconds)
{
    struct timespec t = {(time_t)seconds, 0}, rem = {0, 0};
    if (nanosleep(&t, &rem) == 0)
        return 0;
    return (unsigned int)rem.tv_sec + (rem.tv_nsec > 0); /* interrupted (libc's sleep on a kernel thread) */
}
