/* The OMP_1.0 lock entry points (omp_init_lock@OMP_1.0 ...), which programs linked against a pre-3.0
 * libgomp call: the 2.5 layouts (a nested lock is {int owner; int count}, owned by a thread), depth and
 * ownership, mutual exclusion under contention, and the Fortran forms on the same layouts. */
#include "omp_test.h"

#include <string.h>

typedef struct {
    int owner, count;
} nest_lock_25_t;

/* Bind these names to the OMP_1.0 versions, as a program linked against an old libgomp does. */
#define V1(ret, name, type)                                                                                  \
    ret name##_v1(type *lock);                                                                               \
    __asm__(".symver " #name "_v1," #name "@OMP_1.0");
V1(void, omp_init_lock, int)
V1(void, omp_destroy_lock, int)
V1(void, omp_set_lock, int)
V1(void, omp_unset_lock, int)
V1(int, omp_test_lock, int)
V1(void, omp_init_nest_lock, nest_lock_25_t)
V1(void, omp_destroy_nest_lock, nest_lock_25_t)
V1(void, omp_set_nest_lock, nest_lock_25_t)
V1(void, omp_unset_nest_lock, nest_lock_25_t)
V1(int, omp_test_nest_lock, nest_lock_25_t)
V1(void, omp_init_nest_lock_, nest_lock_25_t)
V1(void, omp_set_nest_lock_, nest_lock_25_t)
V1(void, omp_unset_nest_lock_, nest_lock_25_t)
V1(int, omp_test_nest_lock_, nest_lock_25_t)

static void test_simple_lock_v1(void **state)
{
    (void)state;
    int lock = -1;
    omp_init_lock_v1(&lock);
    assert_int_equal(omp_test_lock_v1(&lock), 1);
    assert_int_equal(omp_test_lock_v1(&lock), 0);
    omp_unset_lock_v1(&lock);
    long counter = 0;
#pragma omp parallel num_threads(6)
    for (int i = 0; i < 1000; i++) {
        omp_set_lock_v1(&lock);
        long v = counter;
        if (i % 50 == 0)
            mpcrt_yield();
        counter = v + 1;
        omp_unset_lock_v1(&lock);
    }
    omp_destroy_lock_v1(&lock);
    assert_int_equal(counter, 6000);
}

static void test_nest_lock_v1_layout_depth_owner(void **state)
{
    (void)state;
    struct {
        nest_lock_25_t lock;
        unsigned char guard[8];
    } s;
    memset(&s, 0xa5, sizeof s);
    omp_init_nest_lock_v1(&s.lock);
    assert_int_equal(s.lock.owner, 0);
    assert_int_equal(s.lock.count, 0);
    assert_int_equal(omp_test_nest_lock_v1(&s.lock), 1);
    omp_set_nest_lock_v1(&s.lock);
    assert_int_equal(omp_test_nest_lock_v1(&s.lock), 3);
    assert_int_not_equal(s.lock.owner, 0); /* the owning thread's id */
    assert_int_equal(s.lock.count, 3);
    int other = -1;
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1)
        other = omp_test_nest_lock_v1(&s.lock); /* another thread: not the owner */
    assert_int_equal(other, 0);
    omp_unset_nest_lock_v1(&s.lock);
    omp_unset_nest_lock_v1(&s.lock);
    omp_unset_nest_lock_v1(&s.lock);
    assert_int_equal(s.lock.owner, 0);
#pragma omp parallel num_threads(2)
    if (omp_get_thread_num() == 1) {
        other = omp_test_nest_lock_v1(&s.lock);
        omp_unset_nest_lock_v1(&s.lock);
    }
    assert_int_equal(other, 1);
    omp_destroy_nest_lock_v1(&s.lock);
    for (int i = 0; i < 8; i++)
        assert_int_equal(s.guard[i], 0xa5); /* 8 bytes, as libgomp 2.5's layout */
}

static void test_nest_lock_v1_contended(void **state)
{
    (void)state;
    nest_lock_25_t lock;
    omp_init_nest_lock_v1(&lock);
    long counter = 0;
#pragma omp parallel num_threads(6)
    for (int i = 0; i < 500; i++) {
        omp_set_nest_lock_v1(&lock);
        omp_set_nest_lock_v1(&lock); /* recursive: the same thread */
        long v = counter;
        if (i % 50 == 0)
            mpcrt_yield(); /* another ULT of this VP contends while we hold it */
        counter = v + 1;
        omp_unset_nest_lock_v1(&lock);
        omp_unset_nest_lock_v1(&lock);
    }
    assert_int_equal(counter, 3000);
    assert_int_equal(lock.owner, 0);
    omp_destroy_nest_lock_v1(&lock);
}

static void test_fortran_nest_lock_v1(void **state)
{
    (void)state;
    nest_lock_25_t lock; /* omp_nest_lock_kind = 8 holds the 2.5 layout itself */
    omp_init_nest_lock__v1(&lock);
    omp_set_nest_lock__v1(&lock);
    assert_int_equal(omp_test_nest_lock__v1(&lock), 2);
    assert_int_equal(lock.count, 2);
    omp_unset_nest_lock__v1(&lock);
    omp_unset_nest_lock__v1(&lock);
    assert_int_equal(lock.owner, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_simple_lock_v1),
        cmocka_unit_test(test_nest_lock_v1_layout_depth_owner),
        cmocka_unit_test(test_nest_lock_v1_contended),
        cmocka_unit_test(test_fortran_nest_lock_v1),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
