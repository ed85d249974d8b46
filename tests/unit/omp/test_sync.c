/* Synchronization: simple and nested locks (ownership by task, test variants, hints), critical (unnamed and
 * named), atomic, barriers counting phases, and locks contended by more ULTs than VPs. */
#include "omp_test.h"

static void test_lock_mutual_exclusion(void **state)
{
    (void)state;
    omp_lock_t lock;
    omp_init_lock_with_hint(&lock, omp_sync_hint_contended);
    long counter = 0;
#pragma omp parallel num_threads(8)
    for (int i = 0; i < 2000; i++) {
        omp_set_lock(&lock);
        long v = counter;
        if (i % 100 == 0)
            mpcrt_yield(); /* let another ULT of this VP contend while we hold it */
        counter = v + 1;
        omp_unset_lock(&lock);
    }
    omp_destroy_lock(&lock);
    assert_int_equal(counter, 16000);
}

static void test_test_lock(void **state)
{
    (void)state;
    omp_lock_t lock;
    omp_init_lock(&lock);
    assert_int_equal(omp_test_lock(&lock), 1);
    assert_int_equal(omp_test_lock(&lock), 0);
    omp_unset_lock(&lock);
    assert_int_equal(omp_test_lock(&lock), 1);
    omp_unset_lock(&lock);
    omp_destroy_lock(&lock);
}

static void test_nest_lock_depth_and_ownership(void **state)
{
    (void)state;
    omp_nest_lock_t lock;
    omp_init_nest_lock(&lock);
    assert_int_equal(omp_test_nest_lock(&lock), 1);
    omp_set_nest_lock(&lock);
    assert_int_equal(omp_test_nest_lock(&lock), 3);
    int other = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        other = omp_test_nest_lock(&lock); /* another task: not the owner */
    assert_int_equal(other, 0);
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
    omp_unset_nest_lock(&lock);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        other = omp_test_nest_lock(&lock);
        omp_unset_nest_lock(&lock);
    }
    assert_int_equal(other, 1);
    omp_destroy_nest_lock(&lock);
}

static void test_critical_and_atomic(void **state)
{
    (void)state;
    long a = 0, b = 0, c = 0;
#pragma omp parallel num_threads(6)
    for (int i = 0; i < 1000; i++) {
#pragma omp critical
        a++;
#pragma omp critical(other_name)
        b += 2;
#pragma omp atomic
        c += 3;
    }
    assert_int_equal(a, 6000);
    assert_int_equal(b, 12000);
    assert_int_equal(c, 18000);
    long double ld = 0; /* no lock-free atomic for this: GOMP_atomic_start/end */
#pragma omp parallel num_threads(4)
    for (int i = 0; i < 100; i++) {
#pragma omp atomic
        ld += 1.0L;
    }
    assert_true(ld == 400.0L);
}

static void test_barrier_phases(void **state)
{
    (void)state;
    _Atomic int count = 0, errors = 0;
#pragma omp parallel num_threads(5)
    for (int phase = 1; phase <= 200; phase++) {
        atomic_fetch_add(&count, 1);
#pragma omp barrier
        if (atomic_load(&count) != 5 * phase)
            atomic_fetch_add(&errors, 1);
#pragma omp barrier
    }
    assert_int_equal(atomic_load(&errors), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock_mutual_exclusion),
        cmocka_unit_test(test_test_lock),
        cmocka_unit_test(test_nest_lock_depth_and_ownership),
        cmocka_unit_test(test_critical_and_atomic),
        cmocka_unit_test(test_barrier_phases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
