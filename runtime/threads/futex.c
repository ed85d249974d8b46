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
