/* A hosted VP (mpcrt_sched_init_here, as a plain OpenMP program's main thread does): its kernel thread
 * leaves for its own code between waits, so every way it can wait (a waiter, wait_until, a join) must
 * run VP 0's ULTs meanwhile. Each test waits for something only a ULT of VP 0 can do: without that the
 * test hangs (and CTest's timeout fails it). */
#include "test_util.h"

static _Atomic int flag;

static bool flag_set(void *arg)
{
    (void)arg;
    return atomic_load(&flag) != 0;
}

static mpcrt_ult_t *on_vp(void *(*fn)(void *), void *arg, int vp, bool joinable)
{
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.vp = vp;
    attr.detached = !joinable;
    mpcrt_ult_t *u = NULL;
    assert_int_equal(mpcrt_ult_create(joinable ? &u : NULL, fn, arg, &attr), 0);
    return u;
}

static void *set_flag_on_vp0(void *arg)
{
    (void)arg;
    assert_int_equal(mpcrt_self_vp(), 0);
    atomic_store(&flag, 1);
    return (void *)(intptr_t)42;
}

static void test_run_until_runs_vp0_ults(void **state)
{
    (void)state;
    atomic_store(&flag, 0);
    on_vp(set_flag_on_vp0, NULL, 0, false);
    mpcrt_sched_run_until(flag_set, NULL);
    assert_true(flag_set(NULL));
}

static void test_wait_until_runs_vp0_ults(void **state)
{
    (void)state;
    atomic_store(&flag, 0);
    on_vp(set_flag_on_vp0, NULL, 0, false);
    mpcrt_wait_until(flag_set, NULL);
    assert_true(flag_set(NULL));
}

static void *wake_waiter(void *arg)
{
    mpcrt_waiter_wake(arg);
    return NULL;
}

static void test_waiter_sleep_runs_vp0_ults(void **state)
{
    (void)state;
    mpcrt_waiter_t w;
    mpcrt_waiter_init(&w);
    on_vp(wake_waiter, &w, 0, false);
    mpcrt_waiter_sleep(&w);
}

static void test_join_of_a_vp0_ult(void **state)
{
    (void)state;
    atomic_store(&flag, 0);
    void *ret = NULL;
    assert_int_equal(mpcrt_ult_join(on_vp(set_flag_on_vp0, NULL, 0, true), &ret), 0);
    assert_int_equal((intptr_t)ret, 42);
}

/* Another VP wakes the hosted thread while it may sleep in VP 0's loop: the wake must reach it (it
 * notifies VP 0; a timed re-check would also end the wait, so this checks completion, not latency). */
static void test_waiter_woken_from_another_vp(void **state)
{
    (void)state;
    for (int i = 0; i < 20; i++) {
        mpcrt_waiter_t w;
        mpcrt_waiter_init(&w);
        on_vp(wake_waiter, &w, 1, false);
        mpcrt_waiter_sleep(&w);
    }
}

int main(void)
{
    if (mpcrt_sched_init_here() != 0 || mpcrt_sched_num_vps() < 2)
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_until_runs_vp0_ults),      cmocka_unit_test(test_wait_until_runs_vp0_ults),
        cmocka_unit_test(test_waiter_sleep_runs_vp0_ults),   cmocka_unit_test(test_join_of_a_vp0_ult),
        cmocka_unit_test(test_waiter_woken_from_another_vp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
