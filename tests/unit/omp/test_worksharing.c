/* Worksharing: every loop schedule covers each iteration exactly once (signed, unsigned, downward, with
 * large steps), ordered runs in iteration order, doacross honours sink dependences, sections, single with
 * copyprivate, nowait chains longer than the work-share ring, GOMP_loop_* called directly, and nonmonotonic
 * dynamic loops (work stealing) with lastprivate and linear. */
#include "omp_test.h"

#include <limits.h>
#include <string.h>
#include <unistd.h>

#define N 1000

static void check_once(_Atomic int *hits, int n)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(atomic_load(&hits[i]), 1);
}

static void test_every_schedule_covers_each_iteration_once(void **state)
{
    (void)state;
    static _Atomic int hits[N];
    int chunks[] = {1, 3, 64};
    for (int c = 0; c < 3; c++) {
        int chunk = chunks[c];
#define RUN(clause)                                                                                           \
    do {                                                                                                      \
        memset(hits, 0, sizeof hits);                                                                         \
        _Pragma("omp parallel num_threads(3)") {                                                              \
            _Pragma(clause) for (int i = 0; i < N; i++) atomic_fetch_add(&hits[i], 1);                        \
        }                                                                                                     \
        check_once(hits, N);                                                                                  \
    } while (0)
        RUN("omp for schedule(static)");
        RUN("omp for schedule(static, chunk)");
        RUN("omp for schedule(dynamic, chunk)");
        RUN("omp for schedule(guided, chunk)");
        RUN("omp for schedule(monotonic: dynamic, chunk)");
        RUN("omp for schedule(nonmonotonic: guided, chunk)");
        RUN("omp for schedule(runtime)");
        RUN("omp for schedule(auto)");
        RUN("omp for schedule(dynamic, chunk) nowait");
        omp_set_schedule(omp_sched_guided, chunk);
        RUN("omp for schedule(runtime)");
        omp_set_schedule(omp_sched_static, 0);
        RUN("omp for schedule(runtime)");
        omp_set_schedule(omp_sched_dynamic, 1);
#undef RUN
    }
}

static void test_unsigned_and_downward_loops(void **state)
{
    (void)state;
    unsigned long long sum = 0, expected = 0;
    for (unsigned long long i = ULLONG_MAX - 1000; i < ULLONG_MAX - 10; i += 7)
        expected += i;
#pragma omp parallel for schedule(dynamic, 5) reduction(+ : sum) num_threads(3)
    for (unsigned long long i = ULLONG_MAX - 1000; i < ULLONG_MAX - 10; i += 7)
        sum += i;
    assert_true(sum == expected);
    long lsum = 0, lexpected = 0;
    for (long i = 500; i > -500; i -= 3)
        lexpected += i;
#pragma omp parallel for schedule(guided, 2) reduction(+ : lsum) num_threads(2)
    for (long i = 500; i > -500; i -= 3)
        lsum += i;
    assert_int_equal(lsum, lexpected);
    unsigned long long down = 0, down_expected = 0;
    for (unsigned long long i = 1000; i > 10; i -= 9)
        down_expected += i;
#pragma omp parallel for schedule(static, 4) reduction(+ : down) num_threads(3)
    for (unsigned long long i = 1000; i > 10; i -= 9)
        down += i;
    assert_true(down == down_expected);
}

static void test_direct_gomp_loop_calls(void **state)
{
    (void)state;
    extern bool GOMP_loop_dynamic_start(long, long, long, long, long *, long *);
    extern bool GOMP_loop_dynamic_next(long *, long *);
    extern void GOMP_loop_end(void);
    /* Outside parallel: the initial thread is a team of one and gets every chunk in order. */
    long start, end, expect = 10, count = 0;
    for (bool more = GOMP_loop_dynamic_start(10, 50, 4, 3, &start, &end); more;
         more = GOMP_loop_dynamic_next(&start, &end)) {
        assert_int_equal(start, expect);
        for (long i = start; i < end; i += 4)
            count++;
        expect = end;
    }
    GOMP_loop_end();
    assert_int_equal(count, 10);
}

static void test_ordered_runs_in_iteration_order(void **state)
{
    (void)state;
    const char *clauses[] = {"static,1", "dynamic,3", "guided"};
    for (int k = 0; k < 3; k++) {
        int order[200], next = 0;
        if (k == 0) {
#pragma omp parallel for ordered schedule(static, 1) num_threads(4)
            for (int i = 0; i < 200; i++) {
#pragma omp ordered
                order[next++] = i;
            }
        } else if (k == 1) {
#pragma omp parallel for ordered schedule(dynamic, 3) num_threads(4)
            for (int i = 0; i < 200; i++) {
                if (i % 5 == 0)
                    continue; /* iterations without an ordered region must not stall the others */
#pragma omp ordered
                order[next++] = i;
            }
        } else {
#pragma omp parallel for ordered schedule(guided) num_threads(3)
            for (int i = 0; i < 200; i++) {
#pragma omp ordered
                order[next++] = i;
            }
        }
        int prev = -1;
        for (int i = 0; i < next; i++) {
            assert_true(order[i] > prev);
            prev = order[i];
        }
        assert_int_equal(next, k == 1 ? 160 : 200);
        (void)clauses;
    }
}

static void test_doacross_sink_waits_for_source(void **state)
{
    (void)state;
    enum { R = 40, C = 30 };
    static unsigned a[R][C]; /* wraps: only the recurrence is checked */
    memset(a, 0, sizeof a);
    for (int j = 0; j < C; j++)
        a[0][j] = 1;
#pragma omp parallel for ordered(2) schedule(dynamic, 1) num_threads(4)
    for (int i = 1; i < R; i++)
        for (int j = 0; j < C; j++) {
#pragma omp ordered depend(sink : i - 1, j) depend(sink : i, j - 1)
            a[i][j] = a[i - 1][j] + (j ? a[i][j - 1] : 0);
#pragma omp ordered depend(source)
        }
    /* Pascal's triangle by rows, computed in a wavefront: each cell saw its finished neighbours. */
    for (int i = 1; i < R; i++)
        for (int j = 1; j < C; j++)
            assert_true(a[i][j] == a[i - 1][j] + a[i][j - 1]);
}

static void test_sections_each_once(void **state)
{
    (void)state;
    _Atomic int hits[4] = {0};
#pragma omp parallel sections num_threads(3)
    {
#pragma omp section
        atomic_fetch_add(&hits[0], 1);
#pragma omp section
        atomic_fetch_add(&hits[1], 1);
#pragma omp section
        atomic_fetch_add(&hits[2], 1);
#pragma omp section
        atomic_fetch_add(&hits[3], 1);
    }
    check_once(hits, 4);
}

static void test_single_and_copyprivate(void **state)
{
    (void)state;
    _Atomic int executed = 0, wrong = 0;
#pragma omp parallel num_threads(4)
    {
        for (int round = 0; round < 50; round++) {
#pragma omp single nowait
            atomic_fetch_add(&executed, 1);
        }
        int value;
#pragma omp single copyprivate(value)
        value = 42 + omp_get_thread_num() * 0;
        if (value != 42)
            atomic_fetch_add(&wrong, 1);
    }
    assert_int_equal(atomic_load(&executed), 50);
    assert_int_equal(atomic_load(&wrong), 0);
}

static void test_nowait_chain_longer_than_the_ring(void **state)
{
    (void)state;
    static _Atomic int hits[20][64];
    memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(3)
    {
        for (int k = 0; k < 20; k++) {
#pragma omp for schedule(dynamic, 2) nowait
            for (int i = 0; i < 64; i++)
                atomic_fetch_add(&hits[k][i], 1);
        }
    }
    for (int k = 0; k < 20; k++)
        check_once(hits[k], 64);
}

/* A construct that ends with a barrier frees its ring slot through the barrier (thread 0 frees it once
 * it is past the barrier), a nowait one by counting the threads that left: mixed over many ring wraps,
 * with thread 0 late after each barrier so that the others reach the slot before it is freed. */
/* Guided chunk sizes divide what remains by the team size, by a shift for a power of two. */
static void test_guided_with_teams_of_a_power_of_two(void **state)
{
    (void)state;
    static _Atomic int hits[N];
    int sizes[] = {1, 2, 4}, chunks[] = {1, 5};
    for (int t = 0; t < 3; t++)
        for (int c = 0; c < 2; c++) {
            int chunk = chunks[c];
            _Atomic int first_sizes_ok = 1;
            memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(sizes[t])
            {
                long lo = -1, hi = -1;
#pragma omp for schedule(guided, chunk)
                for (int i = 0; i < N; i++) {
                    if (i != hi) { /* a new chunk */
                        if (lo == 0 && hi - lo < (N + sizes[t] - 1) / sizes[t])
                            atomic_store(&first_sizes_ok, 0); /* the first chunk is ceil(N / n) */
                        lo = i;
                    }
                    hi = i + 1;
                    atomic_fetch_add(&hits[i], 1);
                }
                if (lo == 0 && hi - lo < (N + sizes[t] - 1) / sizes[t])
                    atomic_store(&first_sizes_ok, 0);
            }
            check_once(hits, N);
            assert_int_equal(atomic_load(&first_sizes_ok), 1);
        }
}

#define OMP_TEST_RING 8 /* OMP_WS_RING */
static void test_barrier_and_nowait_constructs_share_the_ring(void **state)
{
    (void)state;
    enum { CONSTRUCTS = 40, EVERY = OMP_TEST_RING + 3 }; /* nowait runs longer than the ring */
    static _Atomic int hits[CONSTRUCTS][64];
    memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(3)
    {
        for (int k = 0; k < CONSTRUCTS; k++) {
            if (k % EVERY == 0) {
#pragma omp for schedule(guided, 2)
                for (int i = 0; i < 64; i++)
                    atomic_fetch_add(&hits[k][i], 1);
                if (omp_get_thread_num() == 0)
                    usleep(2000);
            } else {
#pragma omp for schedule(dynamic, 3) nowait
                for (int i = 0; i < 64; i++)
                    atomic_fetch_add(&hits[k][i], 1);
            }
        }
    }
    for (int k = 0; k < CONSTRUCTS; k++)
        check_once(hits[k], 64);
}

/* Nonmonotonic dynamic loops hand chunks out by work stealing: with more threads than VPs, and with
 * members that do nothing but take chunks, each iteration still runs once, and the thread that ran the
 * last iteration copies lastprivate and linear values out (GCC's copy-out assumes that thread takes no
 * chunk after the last one). Monotonic dynamic loops stay in order per thread. */
static void test_nonmonotonic_dynamic_stealing(void **state)
{
    (void)state;
    static _Atomic int hits[N];
    for (int rep = 0; rep < 50; rep++) {
        int threads = 2 + rep % 5, chunk = 1 + rep % 4;
        memset(hits, 0, sizeof hits);
        int last = -1, lin = 7;
#pragma omp parallel num_threads(threads)
#pragma omp for schedule(nonmonotonic : dynamic, chunk) lastprivate(last) linear(lin : 3)
        for (int i = 0; i < N; i++) {
            atomic_fetch_add(&hits[i], 1);
            last = i;
            lin += 3;
        }
        check_once(hits, N);
        assert_int_equal(last, N - 1);
        assert_int_equal(lin, 7 + 3 * N);
        /* A short collapsed loop: fewer chunks than threads at times. */
        int li = 0, lj = 0, cnt = 0;
#pragma omp parallel num_threads(threads) reduction(+ : cnt)
#pragma omp for collapse(2) schedule(dynamic) lastprivate(li, lj)
        for (li = 0; li < 2; li++)
            for (lj = 0; lj < 3; lj++)
                cnt++;
        assert_int_equal(cnt, 6);
        assert_int_equal(li, 2);
        assert_int_equal(lj, 3);
    }
    int ordered_ok = 1;
#pragma omp parallel num_threads(4) reduction(& : ordered_ok)
    {
        long prev = -1;
#pragma omp for schedule(monotonic : dynamic, 2)
        for (long i = 0; i < N; i++) {
            ordered_ok &= i > prev;
            prev = i;
        }
    }
    assert_true(ordered_ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_schedule_covers_each_iteration_once),
        cmocka_unit_test(test_unsigned_and_downward_loops),
        cmocka_unit_test(test_direct_gomp_loop_calls),
        cmocka_unit_test(test_ordered_runs_in_iteration_order),
        cmocka_unit_test(test_doacross_sink_waits_for_source),
        cmocka_unit_test(test_sections_each_once),
        cmocka_unit_test(test_single_and_copyprivate),
        cmocka_unit_test(test_nowait_chain_longer_than_the_ring),
        cmocka_unit_test(test_barrier_and_nowait_constructs_share_the_ring),
        cmocka_unit_test(test_guided_with_teams_of_a_power_of_two),
        cmocka_unit_test(test_nonmonotonic_dynamic_stealing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
