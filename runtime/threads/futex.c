/* Thin wrappers over the Linux futex syscall, used to sleep VPs and kernel-thread waiters. */
#include "sched_internal.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

void mpcrt_futex_wait(_Atomic uint32_t *word, uint32_t expected, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, expected, timeout_ns > 0 ? &ts : NULL, NULL, 0);
}

void mpcrt_futex_wake(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
}

void mpcrt_futex_wait_shared(_Atomic uint32_t *word, uint32_t expected, long timeout_ns)
{
    struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT, expected, timeout_ns > 0 ? &ts : NULL, NULL, 0);
}

void mpcrt_futex_wake_shared(_Atomic uint32_t *word, int count)
{
    syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE, count, NULL, NULL, 0);
}

void mpcrt_sched_set_doorbell(_Atomic uint32_t *bell, _Atomic uint32_t *sleepers)
{
    atomic_store(&mpcrt_sched.sleepers, sleepers);
    atomic_store(&mpcrt_sched.bell, bell);
}

bool mpcrt_sched_has_doorbell(void)
{
    return atomic_load(&mpcrt_sched.bell) != NULL;
}

void mpcrt_doorbell_ring(_Atomic uint32_t *bell)
{
    atomic_fetch_add_explicit(bell, 1, memory_order_release);
    mpcrt_futex_wake_shared(bell, 0x7fffffff);
}

bool mpcrt_sched_await_sleepers(long timeout_ns)
{
    atomic_store(&mpcrt_sched.doorbell_watchers, 1);
    _Atomic uint32_t *sleepers = atomic_load(&mpcrt_sched.sleepers);
    if (!sleepers) {
        /* No doorbell (yet, or any more): nothing to watch for; do not spin. */
        struct timespec ts = {timeout_ns / 1000000000L, timeout_ns % 1000000000L};
        nanosleep(&ts, NULL);
        return false;
    }
    /* The VP that counts itself in first wakes us (vp.c); seq_cst store above pairs with its RMW. */
    if (atomic_load(sleepers) == 0)
        mpcrt_futex_wait_shared(sleepers, 0, timeout_ns);
    return atomic_load(sleepers) != 0;
}

void mpcrt_sched_release_watchers(void)
{
    _Atomic uint32_t *sleepers = atomic_load(&mpcrt_sched.sleepers);
    if (sleepers)
        mpcrt_futex_wake_shared(sleepers, 0x7fffffff);
}

void mpcrt_sched_ring(void)
{
    _Atomic uint32_t *bell = atomic_load(&mpcrt_sched.bell);
    if (bell)
        mpcrt_doorbell_ring(bell);
}
