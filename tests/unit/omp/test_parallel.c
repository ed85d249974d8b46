/* Parallel regions: team sizes, thread numbers, nesting queries, team reuse, oversubscription (more
 * threads than VPs), masters that are ULTs or kernel threads, and the privatization delta handed to
 * workers. */
#include "omp_test.h"

#include <pthread.h>
#include <string.h>

static void test_team_has_requested_size_and_distinct_numbers(void **state)
{
    (void)state;
    for (int n = 1; n <= 7; n++) {
        _Atomic int seen[8] = {0};
        int size = -1;
#pragma omp parallel num_threads(n)
        {
            atomic_fetch_add(&seen[omp_get_thread_num()], 1);
#pragma omp master
            size = omp_get_num_threads();
        }
        assert_int_equal(size, n);
        for (int i = 0; i < n; i++)
            assert_int_equal(atomic_load(&seen[i]), 1);
    }
}

static void test_default_team_is_one_thread_per_vp(void **state)
{
    (void)state;
    int size = 0;
#pragma omp parallel
#pragma omp single
    size = omp_get_num_threads();
    assert_int_equal(size, mpcrt_sched_num_vps());
    assert_int_equal(omp_get_max_threads(), mpcrt_sched_num_vps());
}

static void test_serial_queries(void **state)
{
    (void)state;
    assert_int_equal(omp_get_thread_num(), 0);
    assert_int_equal(omp_get_num_threads(), 1);
    assert_int_equal(omp_get_level(), 0);
    assert_int_equal(omp_get_active_level(), 0);
    assert_false(omp_in_parallel());
    assert_int_equal(omp_get_ancestor_thread_num(0), 0);
    assert_int_equal(omp_get_team_size(0), 1);
    assert_int_equal(omp_get_ancestor_thread_num(1), -1);
}

static void test_nested_levels_and_ancestors(void **state)
{
    (void)state;
    omp_set_max_active_levels(2);
    _Atomic int errors = 0, inner_regions = 0;
#pragma omp parallel num_threads(2)
    {
        int outer = omp_get_thread_num();
#pragma omp parallel num_threads(3)
        {
            if (omp_get_level() != 2 || omp_get_active_level() != 2 || omp_get_num_threads() != 3 ||
                omp_get_ancestor_thread_num(1) != outer || omp_get_team_size(1) != 2 ||
                omp_get_team_size(2) != 3 || omp_get_ancestor_thread_num(2) != omp_get_thread_num())
                atomic_fetch_add(&errors, 1);
#pragma omp master
            atomic_fetch_add(&inner_regions, 1);
            /* Beyond max-active-levels, a region is serialized but still a level. */
#pragma omp parallel num_threads(4)
            if (omp_get_num_threads() != 1 || omp_get_level() != 3 || omp_get_active_level() != 2)
                atomic_fetch_add(&errors, 1);
        }
    }
    assert_int_equal(atomic_load(&errors), 0);
    assert_int_equal(atomic_load(&inner_regions), 2);
    omp_set_max_active_levels(1);
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(2)
        if (omp_get_num_threads() != 1)
            atomic_fetch_add(&errors, 1);
    }
    assert_int_equal(atomic_load(&errors), 0);
}

static void test_many_regions_reuse_the_team(void **state)
{
    (void)state;
    long total = 0;
    for (int r = 0; r < 20000; r++) {
        int count = 0;
#pragma omp parallel num_threads(2) reduction(+ : count)
        count++;
        total += count;
    }
    assert_int_equal(total, 40000);
}

static void test_more_threads_than_vps(void **state)
{
    (void)state;
    /* 64 ULTs on 2 VPs, meeting in barriers: waits must let the other ULTs of a VP run. */
    _Atomic int phase_errors = 0;
    _Atomic int arrived = 0;
#pragma omp parallel num_threads(64)
    {
        for (int phase = 1; phase <= 5; phase++) {
            atomic_fetch_add(&arrived, 1);
#pragma omp barrier
            if (atomic_load(&arrived) != 64 * phase)
                atomic_fetch_add(&phase_errors, 1);
#pragma omp barrier
        }
    }
    assert_int_equal(atomic_load(&phase_errors), 0);
}

static _Atomic intptr_t worker_deltas[4];

static void *region_in_ult(void *arg)
{
    (void)arg;
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), 4096 * 3, 0);
#pragma omp parallel num_threads(4)
    {
        intptr_t task_delta, ult_delta;
        mpcrt_ult_get_priv_deltas(mpcrt_ult_self(), &task_delta, &ult_delta);
        atomic_store(&worker_deltas[omp_get_thread_num()], task_delta + ult_delta);
    }
    /* The next region of another delta (another rank reusing nothing, or the same one after a change). */
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), 4096 * 5, 0);
    intptr_t second = -1;
#pragma omp parallel num_threads(4)
    if (omp_get_thread_num() == 3) {
        intptr_t task_delta, ult_delta;
        mpcrt_ult_get_priv_deltas(mpcrt_ult_self(), &task_delta, &ult_delta);
        second = task_delta;
    }
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), 0, 0);
    return (void *)second;
}

static void test_workers_get_the_encountering_task_delta(void **state)
{
    (void)state;
    intptr_t second = (intptr_t)run_in_ult(region_in_ult, NULL, 1, MPCRT_ULT_RANK);
    for (int i = 0; i < 4; i++)
        assert_int_equal(atomic_load(&worker_deltas[i]), 4096 * 3);
    assert_int_equal(second, 4096 * 5);
}

static void *workers_are_ults(void *arg)
{
    (void)arg;
    _Atomic int bad = 0;
    int master_vp = mpcrt_self_vp(), nvps = mpcrt_sched_num_vps();
#pragma omp parallel num_threads(4)
    {
        mpcrt_ult_t *self = mpcrt_ult_self();
        int n = omp_get_thread_num();
        /* Round robin from the master's VP, except VP 0: the test's main thread hosts it and runs it only
         * while it waits for its own teams. */
        int expected = (master_vp + n) % nvps;
        if (expected == 0 && master_vp != 0)
            expected = 1 % nvps;
        if (!self)
            atomic_fetch_add(&bad, 1);
        else if (n > 0 && (mpcrt_ult_kind(self) != MPCRT_ULT_OMP_WORKER || mpcrt_ult_vp(self) != expected))
            atomic_fetch_add(&bad, 1);
        else if (n > 0 && mpcrt_ult_rank(self) != 7)
            atomic_fetch_add(&bad, 1); /* workers belong to the encountering rank */
    }
    return (void *)(intptr_t)atomic_load(&bad);
}

static void *as_rank_7(void *arg)
{
    mpcrt_ult_set_rank(mpcrt_ult_self(), 7);
    return workers_are_ults(arg);
}

static void test_workers_are_omp_worker_ults_placed_round_robin(void **state)
{
    (void)state;
    assert_int_equal((intptr_t)run_in_ult(as_rank_7, NULL, 1, MPCRT_ULT_RANK), 0);
}

static void *pthread_region(void *arg)
{
    int *out = arg;
    int sum = 0;
#pragma omp parallel num_threads(3) reduction(+ : sum)
    sum += omp_get_thread_num() + 1;
    *out = sum;
    return NULL;
}

static void test_user_pthreads_are_initial_threads(void **state)
{
    (void)state;
    pthread_t t[3];
    int sums[3];
    for (int i = 0; i < 3; i++)
        assert_int_equal(pthread_create(&t[i], NULL, pthread_region, &sums[i]), 0);
    for (int i = 0; i < 3; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(sums[i], 6);
    }
}

static void test_if_clause_serializes(void **state)
{
    (void)state;
    int n = -1, zero = 0;
#pragma omp parallel if (zero) num_threads(4)
    n = omp_get_num_threads();
    assert_int_equal(n, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_serial_queries),
        cmocka_unit_test(test_team_has_requested_size_and_distinct_numbers),
        cmocka_unit_test(test_default_team_is_one_thread_per_vp),
        cmocka_unit_test(test_nested_levels_and_ancestors),
        cmocka_unit_test(test_many_regions_reuse_the_team),
        cmocka_unit_test(test_more_threads_than_vps),
        cmocka_unit_test(test_workers_get_the_encountering_task_delta),
        cmocka_unit_test(test_workers_are_omp_worker_ults_placed_round_robin),
        cmocka_unit_test(test_user_pthreads_are_initial_threads),
        cmocka_unit_test(test_if_clause_serializes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
