/* The omp_* API outside of teams: time, schedule and nesting ICVs, devices (host only), target memory
 * routines, allocators with traits and fallbacks, places, and target/teams host fallback. */
#include "omp_test.h"

#include <errno.h>
#include <string.h>

static void test_wtime_is_monotonic(void **state)
{
    (void)state;
    double t0 = omp_get_wtime();
    double t1 = omp_get_wtime();
    assert_true(t1 >= t0);
    assert_true(omp_get_wtick() > 0 && omp_get_wtick() < 1e-3);
}

static void test_schedule_icv_round_trip(void **state)
{
    (void)state;
    omp_sched_t kind;
    int chunk;
    omp_set_schedule(omp_sched_guided, 5);
    omp_get_schedule(&kind, &chunk);
    assert_int_equal(kind, omp_sched_guided);
    assert_int_equal(chunk, 5);
    omp_set_schedule(omp_sched_static, -3);
    omp_get_schedule(&kind, &chunk);
    assert_int_equal(kind, omp_sched_static);
    assert_int_equal(chunk, 0);
    /* Data environments: a change inside a region is private to that implicit task. */
    omp_set_num_threads(3);
    int inner_max = 0;
#pragma omp parallel num_threads(2)
    {
        omp_set_num_threads(7);
#pragma omp barrier
#pragma omp master
        inner_max = omp_get_max_threads();
    }
    assert_int_equal(inner_max, 7);
    assert_int_equal(omp_get_max_threads(), 3);
    omp_set_num_threads(mpcrt_sched_num_vps());
}

static void test_host_is_the_only_device(void **state)
{
    (void)state;
    assert_int_equal(omp_get_num_devices(), 0);
    assert_true(omp_is_initial_device());
    int dev = omp_get_initial_device();
    char src[16] = "hello", dst[16] = {0};
    void *p = omp_target_alloc(16, dev);
    assert_non_null(p);
    assert_int_equal(omp_target_memcpy(p, src, 6, 0, 0, dev, dev), 0);
    assert_int_equal(omp_target_memcpy(dst, p, 6, 0, 0, dev, dev), 0);
    assert_string_equal(dst, "hello");
    assert_int_equal(omp_target_memcpy(dst, p, 6, 0, 0, dev + 1, dev), EINVAL);
    omp_target_free(p, dev);
    int x = 1, in_target = 0, teams = 0;
#pragma omp target map(tofrom : x, in_target)
    {
        x += 41;
        in_target = omp_is_initial_device() && omp_get_level() == 0;
    }
    assert_int_equal(x, 42);
    assert_true(in_target);
#pragma omp target teams num_teams(3) map(tofrom : teams) reduction(+ : teams)
    teams += omp_get_team_num() + 1;
    assert_true(teams >= 1);
}

static void test_allocators(void **state)
{
    (void)state;
    void *p = omp_aligned_alloc(256, 1000, omp_default_mem_alloc);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 256, 0);
    omp_free(p, omp_default_mem_alloc);
    omp_alloctrait_t traits[] = {{omp_atk_pool_size, 4096}, {omp_atk_fallback, omp_atv_null_fb},
                                 {omp_atk_alignment, 64}};
    omp_allocator_handle_t a = omp_init_allocator(omp_default_mem_space, 3, traits);
    assert_true(a != omp_null_allocator);
    void *q = omp_alloc(3000, a);
    assert_non_null(q);
    assert_int_equal((uintptr_t)q % 64, 0);
    assert_null(omp_alloc(3000, a)); /* the pool is exhausted and the fallback is null */
    q = omp_realloc(q, 100, a, a);
    assert_non_null(q);
    void *r = omp_calloc(10, 100, a);
    assert_non_null(r);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(((char *)r)[i], 0);
    omp_free(r, a);
    omp_free(q, a);
    omp_destroy_allocator(a);
    omp_alloctrait_t bad[] = {{omp_atk_alignment, 3}};
    assert_true(omp_init_allocator(omp_default_mem_space, 1, bad) == omp_null_allocator);
}

static void test_places_cover_the_vps(void **state)
{
    (void)state;
    int n = omp_get_num_places();
    assert_int_equal(n, mpcrt_sched_num_vps());
    for (int p = 0; p < n; p++) {
        assert_int_equal(omp_get_place_num_procs(p), 1);
        int id = -1;
        omp_get_place_proc_ids(p, &id);
        assert_int_equal(id, p);
    }
    int place = -2;
#pragma omp parallel num_threads(2) proc_bind(close)
    if (omp_get_thread_num() == 1)
        place = omp_get_place_num();
    assert_true(place >= 0 && place < n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wtime_is_monotonic),
        cmocka_unit_test(test_schedule_icv_round_trip),
        cmocka_unit_test(test_host_is_the_only_device),
        cmocka_unit_test(test_allocators),
        cmocka_unit_test(test_places_cover_the_vps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
