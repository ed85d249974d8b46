/* Helpers shared by the scheduler's unit tests. */
#ifndef MPCRT_TEST_UTIL_H
#define MPCRT_TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <cmocka.h>

#include "../../../runtime/threads/sched.h"

static inline int start_scheduler(void **state)
{
    (void)state;
    return mpcrt_sched_init();
}

static inline int stop_scheduler(void **state)
{
    (void)state;
    mpcrt_sched_finalize();
    return 0;
}

/* Creates a joinable ULT of `kind` on `vp` and asserts success. */
static inline mpcrt_ult_t *spawn(void *(*fn)(void *), void *arg, int vp, int priority)
{
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = vp;
    attr.base_priority = priority;
    mpcrt_ult_t *u = NULL;
    assert_int_equal(mpcrt_ult_create(&u, fn, arg, &attr), 0);
    assert_non_null(u);
    return u;
}

static inline void *join(mpcrt_ult_t *u)
{
    void *ret = NULL;
    assert_int_equal(mpcrt_ult_join(u, &ret), 0);
    return ret;
}

/* Runs fn(arg) as a ULT on `vp` and waits for it from the test's kernel thread. */
static inline void *run_on_vp(void *(*fn)(void *), void *arg, int vp)
{
    return join(spawn(fn, arg, vp, 0));
}

#endif
