/* Environment variables (set by CTest for this program): OMP_NUM_THREADS list, OMP_SCHEDULE,
 * OMP_MAX_ACTIVE_LEVELS, OMP_PROC_BIND list, OMP_MAX_TASK_PRIORITY, OMP_CANCELLATION, OMP_DYNAMIC, and
 * task priorities and cancellation that need them. */
#include "omp_test.h"

static void test_num_threads_list_per_level(void **state)
{
    (void)state;
    assert_int_equal(omp_get_max_threads(), 3);
    int outer = 0, inner = 0, inner_max = 0;
#pragma omp parallel
    {
#pragma omp master
        {
            outer = omp_get_num_threads();
            inner_max = omp_get_max_threads();
        }
#pragma omp parallel
#pragma omp master
        if (omp_get_ancestor_thread_num(1) == 0)
            inner = omp_get_num_threads();
    }
    assert_int_equal(outer, 3);
    assert_int_equal(inner_max, 2);
    assert_int_equal(inner, 2);
}

static void test_schedule_and_levels(void **state)
{
    (void)state;
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    assert_int_equal(kind & ~omp_sched_monotonic, omp_sched_guided);
    assert_int_equal(chunk, 7);
    assert_int_equal(omp_get_max_active_levels(), 4);
    assert_true(omp_get_dynamic());
    assert_int_equal(omp_get_proc_bind(), omp_proc_bind_spread);
    int inner_bind = -1;
#pragma omp parallel num_threads(2)
#pragma omp master
    inner_bind = omp_get_proc_bind();
    assert_int_equal(inner_bind, omp_proc_bind_close);
    assert_int_equal(omp_get_max_task_priority(), 9);
    assert_true(omp_get_cancellation());
}

static void test_priorities_order_queued_tasks(void **state)
{
    (void)state;
    /* A team of one queues nothing (it runs tasks at once); with two threads, thread 1 is held in a
     * barrier-free spin while thread 0 queues, then thread 0 alone drains the queue in priority order. */
    int order[6], n = 0;
    _Atomic int go = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            while (!atomic_load(&go))
                mpcrt_yield();
        } else {
            for (int p = 0; p < 6; p++) {
#pragma omp task priority(p) shared(order, n) firstprivate(p)
                order[n++] = p;
            }
#pragma omp taskwait
            atomic_store(&go, 1);
        }
    }
    assert_int_equal(n, 6);
    for (int i = 0; i < 6; i++)
        assert_int_equal(order[i], 5 - i);
}

static void test_cancel_parallel_and_taskgroup(void **state)
{
    (void)state;
    _Atomic int after = 0;
#pragma omp parallel num_threads(4)
    {
        if (omp_get_thread_num() == 0) {
#pragma omp cancel parallel
        }
#pragma omp barrier
        atomic_fetch_add(&after, 1); /* cancelled threads leave at the barrier, a cancellation point */
    }
    assert_true(atomic_load(&after) < 4);
    _Atomic int ran = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskgroup
        {
#pragma omp task
            {
#pragma omp cancel taskgroup
            }
#pragma omp taskwait
            for (int i = 0; i < 100; i++) {
#pragma omp task
                atomic_fetch_add(&ran, 1);
            }
        }
    }
    assert_int_equal(atomic_load(&ran), 0); /* created after the cancellation: discarded */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_num_threads_list_per_level),
        cmocka_unit_test(test_schedule_and_levels),
        cmocka_unit_test(test_priorities_order_queued_tasks),
        cmocka_unit_test(test_cancel_parallel_and_taskgroup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
