/* Where team members run: proc_bind close/spread over the default places (one per VP), nested regions
 * as ULTs on the existing VPs (never new kernel threads), and a rank's teams on its own cores
 * (mpcrun -c, here MPCRT_CORES_PER_RANK=1 with 2 local ranks in the test's environment). */
#include "omp_test.h"

#include <pthread.h>

static int place_vp(int place)
{
    int id = -1;
    assert_int_equal(omp_get_place_num_procs(place), 1);
    omp_get_place_proc_ids(place, &id);
    return id;
}

static void test_close_fills_places_in_order(void **state)
{
    (void)state;
    int nplaces = omp_get_num_places(), place[4], vp[4];
    assert_int_equal(nplaces, 2);
#pragma omp parallel num_threads(4) proc_bind(close)
    {
        int t = omp_get_thread_num();
        place[t] = omp_get_place_num();
        vp[t] = mpcrt_self_vp();
    }
    /* 4 threads on 2 places: two consecutive threads per place, from the master's place on. */
    assert_int_equal(place[1], place[0]);
    assert_int_equal(place[3], place[2]);
    assert_int_equal(place[2], (place[0] + 1) % nplaces);
    for (int t = 0; t < 4; t++)
        if (vp[t] >= 0) /* the master of a plain program is a kernel thread outside the VPs */
            assert_int_equal(vp[t], place_vp(place[t]));
}

static void test_spread_gives_each_thread_its_partition(void **state)
{
    (void)state;
    int place[2], part[2], vp[2];
#pragma omp parallel num_threads(2) proc_bind(spread)
    {
        int t = omp_get_thread_num();
        place[t] = omp_get_place_num();
        part[t] = omp_get_partition_num_places();
        vp[t] = mpcrt_self_vp();
    }
    assert_int_not_equal(place[0], place[1]);
    assert_int_equal(part[0], 1);
    assert_int_equal(part[1], 1);
    assert_int_equal(vp[1], place_vp(place[1]));
}

static void test_nested_regions_add_no_kernel_threads(void **state)
{
    (void)state;
    omp_set_max_active_levels(3);
    pthread_t seen[64];
    _Atomic int nseen = 0, not_worker = 0;
#pragma omp parallel num_threads(4)
#pragma omp parallel num_threads(4)
#pragma omp parallel num_threads(2)
    {
        mpcrt_ult_t *self = mpcrt_ult_self();
        if (omp_get_thread_num() > 0 && (!self || mpcrt_ult_kind(self) != MPCRT_ULT_OMP_WORKER))
            atomic_fetch_add(&not_worker, 1);
        seen[atomic_fetch_add(&nseen, 1)] = pthread_self();
    }
    omp_set_max_active_levels(1);
    assert_int_equal(atomic_load(&nseen), 32);
    assert_int_equal(atomic_load(&not_worker), 0);
    /* 32 threads ran on the VPs' kernel threads plus the master's own. */
    int distinct = 0;
    for (int i = 0; i < 32; i++) {
        int first = 1;
        for (int j = 0; j < i; j++)
            first &= !pthread_equal(seen[i], seen[j]);
        distinct += first;
    }
    assert_true(distinct <= mpcrt_sched_num_vps() + 1);
}

typedef struct {
    int procs, max_threads, team, off_core;
} rank_view_t;

static void *rank_region(void *arg)
{
    rank_view_t *v = arg;
    int home = mpcrt_self_vp();
    v->procs = omp_get_num_procs();
    v->max_threads = omp_get_max_threads();
    _Atomic int off = 0;
#pragma omp parallel num_threads(3)
    {
        if (mpcrt_self_vp() != home) atomic_fetch_add(&off, 1);
#pragma omp single
        v->team = omp_get_num_threads();
    }
    v->off_core = atomic_load(&off);
    return NULL;
}

static void *as_local_rank(void *arg)
{
    rank_view_t *v = arg;
    mpcrt_ult_set_rank(mpcrt_ult_self(), v->team); /* the rank number arrives in .team */
    return rank_region(arg);
}

static void test_rank_teams_stay_on_the_rank_cores(void **state)
{
    (void)state;
    for (int rank = 0; rank < 2; rank++) {
        rank_view_t v = {.team = rank};
        run_in_ult(as_local_rank, &v, mpcrt_job_rank_vp(rank), MPCRT_ULT_RANK);
        assert_int_equal(v.procs, 1);       /* one core per rank */
        assert_int_equal(v.max_threads, 1); /* the default team: one thread per core */
        assert_int_equal(v.team, 3);        /* num_threads still asks for more */
        assert_int_equal(v.off_core, 0);    /* ... all on the rank's core */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_close_fills_places_in_order),
        cmocka_unit_test(test_spread_gives_each_thread_its_partition),
        cmocka_unit_test(test_nested_regions_add_no_kernel_threads),
        cmocka_unit_test(test_rank_teams_stay_on_the_rank_cores),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
