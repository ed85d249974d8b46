/* Locks under stress: ULTs of a team and user kernel threads (initial threads) contend together on a simple
 * lock, a nested lock, the unnamed critical and a named one. Each section checks that it is alone (an
 * occupancy count) and updates a plain counter in a read, yield, write sequence that a second holder
 * would break; holders sometimes yield or sleep inside, so waiters on the holder's VP must let it run
 * and waiters elsewhere exhaust their spin and park (the release must then wake them: a lost wake-up
 * hangs the test). */
#include "omp_test.h"

#include <pthread.h>
#include <time.h>

enum { ULTS = 6, KTHREADS = 2, ITERS = 600 };

typedef struct {
    omp_lock_t lock;
    omp_nest_lock_t nest;
    _Atomic int inside[4];
    _Atomic int errors;
    long count[4];
} shared_t;

static void pause_inside(int i)
{
    if (i % 7 == 0) {
        mpcrt_yield(); /* a ULT: the VP runs another, maybe a waiter for this lock; a kernel thread yields */
    } else if (i % 97 == 0) {
        /* Long enough for every waiter to park (its spin is about 60 us). A busy wait: a ULT's nanosleep
         * is the scheduler's own sleep, a wait of its own that would test other code. */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do
            clock_gettime(CLOCK_MONOTONIC, &t);
        while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 200000);
    }
}

static void section(shared_t *s, int which, int i)
{
    if (atomic_fetch_add(&s->inside[which], 1) != 0)
        atomic_fetch_add(&s->errors, 1);
    long v = s->count[which];
    pause_inside(i);
    s->count[which] = v + 1;
    atomic_fetch_sub(&s->inside[which], 1);
}

static void contend(shared_t *s)
{
    for (int i = 0; i < ITERS; i++) {
        omp_set_lock(&s->lock);
        section(s, 0, i);
        omp_unset_lock(&s->lock);

        omp_set_nest_lock(&s->nest);
        omp_set_nest_lock(&s->nest); /* nested: the owner takes it again */
        section(s, 1, i);
        omp_unset_nest_lock(&s->nest);
        omp_unset_nest_lock(&s->nest);

#pragma omp critical
        section(s, 2, i + 1);

#pragma omp critical(lock_stress_named)
        section(s, 3, i + 2);
    }
}

static void *kthread_main(void *arg)
{
    contend(arg);
    return NULL;
}

static void test_mixed_ults_and_kernel_threads(void **state)
{
    (void)state;
    static shared_t s;
    omp_init_lock(&s.lock);
    omp_init_nest_lock(&s.nest);
    pthread_t k[KTHREADS];
    for (int t = 0; t < KTHREADS; t++)
        assert_int_equal(pthread_create(&k[t], NULL, kthread_main, &s), 0);
#pragma omp parallel num_threads(ULTS)
    contend(&s);
    for (int t = 0; t < KTHREADS; t++)
        assert_int_equal(pthread_join(k[t], NULL), 0);
    assert_int_equal(atomic_load(&s.errors), 0);
    for (int w = 0; w < 4; w++)
        assert_int_equal(s.count[w], (long)(ULTS + KTHREADS) * ITERS);
    omp_destroy_lock(&s.lock);
    omp_destroy_nest_lock(&s.nest);
}

/* Short sections in a tight loop (the EPCC pattern that the waiters' backoff is tuned for): the holder
 * re-acquires at once, and a waiter that polls rarely must still get in, or the test does not end. */
static void test_tight_loop_progress(void **state)
{
    (void)state;
    static omp_lock_t lock;
    omp_init_lock(&lock);
    long by_lock = 0, by_critical = 0;
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 20000; i++) {
        omp_set_lock(&lock);
        by_lock++;
        omp_unset_lock(&lock);
#pragma omp critical
        by_critical++;
    }
    assert_int_equal(by_lock, 80000);
    assert_int_equal(by_critical, 80000);
    omp_destroy_lock(&lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mixed_ults_and_kernel_threads),
        cmocka_unit_test(test_tight_loop_progress),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
