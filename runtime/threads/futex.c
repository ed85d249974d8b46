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

void mpcrt_doorbell_ring(_Atomic uint32_t *bell)
{
    atomic_fetch_add_explicit(bell, 1, memory_order_release);
    mpcrt_futex_wake_shared(bell, 0x7fffffff);
}
