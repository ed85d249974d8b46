/* Helpers shared by the OpenMP layer's unit tests. */
#ifndef MPCRT_OMP_TEST_H
#define MPCRT_OMP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <omp.h>

#include "../../../runtime/threads/sched.h"

/* Runs fn(arg) in a ULT on VP `vp` (as an MPI rank's code would) and waits for it. */
static inline void *run_in_ult(void *(*fn)(void *), void *arg, int vp, mpcrt_ult_kind_t kind)
{
    if (!mpcrt_sched_is_initialized())
        assert_int_equal(mpcrt_sched_init(), 0);
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = vp;
    attr.kind = kind;
    attr.stack_size = 1 << 20;
    mpcrt_ult_t *u = NULL;
    assert_int_equal(mpcrt_ult_create(&u, fn, arg, &attr), 0);
    void *ret = NULL;
    assert_int_equal(mpcrt_ult_join(u, &ret), 0);
    return ret;
}

#endif
