/* Sleeps of ULTs (sleep.c): usleep, nanosleep, clock_nanosleep and sleep on a ULT let the other ULTs of its
 * VP run, and still last at least what was asked; on a kernel thread they are libc's. */
#include "test_util.h"

#include <errno.h>
#include <time.h>
#include <unistd.h>

static _Atomic int other_ran;

static double now_s(clockid_t clock)
{
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *set_flag(void *arg)
{
    (void)arg;
    atomic_store(&other_ran, 1);
    return NULL;
}

typedef struct {
    int how; /* 0 usleep, 1 nanosleep, 2 clock_nanosleep relative, 3 clock_nanosleep absolute (REALTIME) */
    double slept_s;
    int seen_during_sleep;
} sleeper_t;

#define SLEEP_S 0.05

/* Makes a ULT on its own VP ready (it would set other_ran at once), then sleeps: with a blocking sleep the
 * VP could not run it before the sleep ends. */
static void *sleep_while_other_is_ready(void *arg)
{
    sleeper_t *s = arg;
    atomic_store(&other_ran, 0);
    mpcrt_ult_t *other = spawn(set_flag, NULL, 0, 0);
    double t0 = now_s(CLOCK_MONOTONIC);
    struct timespec req = {0, (long)(SLEEP_S * 1e9)}, rem = {1, 1};
    switch (s->how) {
    case 0:
        assert_int_equal(usleep((useconds_t)(SLEEP_S * 1e6)), 0);
        break;
    case 1:
        assert_int_equal(nanosleep(&req, &rem), 0);
        assert_int_equal(rem.tv_sec, 0);
        assert_int_equal(rem.tv_nsec, 0);
        break;
    case 2:
        assert_int_equal(clock_nanosleep(CLOCK_MONOTONIC, 0, &req, NULL), 0);
        break;
    default: {
        struct timespec at;
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_nsec += req.tv_nsec;
        if (at.tv_nsec >= 1000000000L) {
            at.tv_sec++;
            at.tv_nsec -= 1000000000L;
        }
        assert_int_equal(clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &at, NULL), 0);
        break;
    }
    }
    s->seen_during_sleep = atomic_load(&other_ran);
    s->slept_s = now_s(CLOCK_MONOTONIC) - t0;
    join(other);
    return NULL;
}

static void test_sleep_lets_the_vp_run_others(void **state)
{
    (void)state;
    for (int how = 0; how < 4; how++) {
        sleeper_t s = {how, 0, 0};
        run_on_vp(sleep_while_other_is_ready, &s, 0);
        assert_int_equal(s.seen_during_sleep, 1);
        assert_true(s.slept_s >= SLEEP_S - 1e-4); /* never shorter than asked (clock granularity aside) */
    }
}

static void *sleep_one_second(void *arg)
{
    (void)arg;
    atomic_store(&other_ran, 0);
    mpcrt_ult_t *other = spawn(set_flag, NULL, 0, 0);
    double t0 = now_s(CLOCK_MONOTONIC);
    assert_int_equal(sleep(1), 0);
    assert_true(now_s(CLOCK_MONOTONIC) - t0 >= 1.0 - 1e-4);
    assert_int_equal(atomic_load(&other_ran), 1);
    join(other);
    return NULL;
}

static void test_sleep_seconds(void **state)
{
    (void)state;
    run_on_vp(sleep_one_second, NULL, 0);
}

static void test_invalid_and_kernel_thread_sleeps_are_libc(void **state)
{
    (void)state;
    struct timespec bad = {0, 1000000000L};
    errno = 0;
    assert_int_equal(nanosleep(&bad, NULL), -1);
    assert_int_equal(errno, EINVAL);
    double t0 = now_s(CLOCK_MONOTONIC);
    assert_int_equal(usleep(10000), 0); /* the test's own kernel thread: libc */
    assert_true(now_s(CLOCK_MONOTONIC) - t0 >= 0.01 - 1e-4);
}

static void *invalid_on_ult(void *arg)
{
    (void)arg;
    struct timespec bad = {-1, 0};
    assert_int_equal(clock_nanosleep(CLOCK_MONOTONIC, 0, &bad, NULL), EINVAL);
    return NULL;
}

static void test_invalid_on_ult(void **state)
{
    (void)state;
    run_on_vp(invalid_on_ult, NULL, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sleep_lets_the_vp_run_others),
        cmocka_unit_test(test_sleep_seconds),
        cmocka_unit_test(test_invalid_and_kernel_thread_sleeps_are_libc),
        cmocka_unit_test(test_invalid_on_ult),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
