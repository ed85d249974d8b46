/* Tasks: every task runs once, taskwait waits for children only, dependences order writers and readers
 * (also through depobj and taskwait depend), taskgroup waits for descendants, taskloop covers its range,
 * detached tasks complete on omp_fulfill_event, final tasks are included, task reductions combine, and
 * tasks keep working when the team has more threads than VPs; one producer's tasks run on every member,
 * nested producers, taskwait with stolen children, dependence chains and orphan chains (deques with
 * stealing, core/taskq.c). */
#include "omp_test.h"

#include <string.h>

static long fib(int n)
{
    if (n < 2)
        return n;
    long a, b;
#pragma omp task shared(a) if (n > 12)
    a = fib(n - 1);
#pragma omp task shared(b) if (n > 12)
    b = fib(n - 2);
#pragma omp taskwait
    return a + b;
}

static void test_recursive_tasks_with_taskwait(void **state)
{
    (void)state;
    long r = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
    r = fib(22);
    assert_int_equal(r, 17711);
}

static void test_every_task_runs_once(void **state)
{
    (void)state;
    static _Atomic int hits[5000];
    memset(hits, 0, sizeof hits);
#pragma omp parallel num_threads(3)
    {
#pragma omp for
        for (int i = 0; i < 5000; i++) {
#pragma omp task firstprivate(i)
            atomic_fetch_add(&hits[i], 1);
        }
    }
    for (int i = 0; i < 5000; i++)
        assert_int_equal(atomic_load(&hits[i]), 1);
}

static void test_dependences_order_writers_and_readers(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        int x = 0, y = 0, bad = 0;
        omp_depend_t obj;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
#pragma omp depobj(obj) depend(inout : y)
            for (int k = 0; k < 30; k++) {
#pragma omp task depend(inout : x)
                x++;
#pragma omp task depend(in : x) shared(bad) firstprivate(k)
                if (x != k + 1) {
#pragma omp atomic
                    bad++;
                }
#pragma omp task depend(in : x) shared(bad) firstprivate(k)
                if (x != k + 1) {
#pragma omp atomic
                    bad++;
                }
#pragma omp task depend(depobj : obj)
                y += 2;
#pragma omp task depend(mutexinoutset : y)
                y -= 1;
            }
#pragma omp taskwait depend(in : y)
            if (y != 30)
                bad++;
#pragma omp depobj(obj) destroy
        }
        assert_int_equal(bad, 0);
        assert_int_equal(x, 30);
    }
}

static void test_taskgroup_waits_for_descendants(void **state)
{
    (void)state;
    _Atomic int done = 0;
    int seen = -1;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskgroup
        {
            for (int i = 0; i < 10; i++) {
#pragma omp task
                {
                    for (int j = 0; j < 10; j++) {
#pragma omp task
                        atomic_fetch_add(&done, 1);
                    }
                }
            }
        }
        seen = atomic_load(&done);
    }
    assert_int_equal(seen, 100);
}

static void test_taskloop_covers_its_range(void **state)
{
    (void)state;
    static _Atomic int hits[1000];
    memset(hits, 0, sizeof hits);
    long sum = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp taskloop grainsize(17)
        for (int i = 0; i < 1000; i++)
            atomic_fetch_add(&hits[i], 1);
#pragma omp taskloop num_tasks(7) reduction(+ : sum)
        for (int i = 0; i < 1000; i++)
            sum += i;
    }
    for (int i = 0; i < 1000; i++)
        assert_int_equal(atomic_load(&hits[i]), 1);
    assert_int_equal(sum, 499500);
}

static void test_detached_task_completes_on_fulfill(void **state)
{
    (void)state;
    int x = 0, y = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        omp_event_handle_t ev;
#pragma omp task detach(ev) depend(out : x) shared(x)
        x = 1;
#pragma omp task depend(in : x) shared(x, y)
        y = x + 1;
        /* The dependent task cannot run before the event is fulfilled. */
        omp_fulfill_event(ev);
#pragma omp taskwait
    }
    assert_int_equal(y, 2);
}

static void test_final_tasks_are_included(void **state)
{
    (void)state;
    int in_final = 0, outer_thread = -1, inner_thread = -2;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task final(1) shared(in_final, outer_thread, inner_thread)
        {
            outer_thread = omp_get_thread_num();
#pragma omp task shared(in_final, inner_thread)
            {
                in_final = omp_in_final();
                inner_thread = omp_get_thread_num();
            }
        }
#pragma omp taskwait
    }
    assert_true(in_final);
    assert_int_equal(outer_thread, inner_thread);
}

static void test_task_reduction_and_in_reduction(void **state)
{
    (void)state;
    int sum = 0;
#pragma omp parallel num_threads(3)
#pragma omp single
    {
#pragma omp taskgroup task_reduction(+ : sum)
        {
            for (int i = 1; i <= 100; i++) {
#pragma omp task in_reduction(+ : sum) firstprivate(i)
                sum += i;
            }
        }
    }
    assert_int_equal(sum, 5050);
    int prod = 1;
#pragma omp parallel reduction(task, * : prod) num_threads(2)
    {
#pragma omp task in_reduction(* : prod)
        prod *= 3;
    }
    assert_int_equal(prod, 9);
}

static void test_tasks_on_an_oversubscribed_team(void **state)
{
    (void)state;
    _Atomic int count = 0;
#pragma omp parallel num_threads(16)
    {
        for (int i = 0; i < 100; i++) {
#pragma omp task
            atomic_fetch_add(&count, 1);
        }
#pragma omp barrier
        if (atomic_load(&count) != 1600)
            atomic_fetch_add(&count, 1000000); /* the barrier completes every task of the team */
    }
    assert_int_equal(atomic_load(&count), 1600);
}

static void test_a_full_queue_runs_new_tasks_in_their_creator(void **state)
{
    (void)state;
    enum { TASKS = 2000 };
    static _Atomic int ran[TASKS];
    _Atomic int creating = 1, in_creator = 0, priority_in_creator = 0;
    for (int i = 0; i < TASKS; i++)
        atomic_store(&ran[i], 0);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0) {
            for (int i = 0; i < TASKS; i++) {
#pragma omp task firstprivate(i)
                {
                    atomic_fetch_add(&ran[i], 1);
                    if (atomic_load(&creating) && omp_get_thread_num() == 0)
                        atomic_fetch_add(&in_creator, 1);
                }
            }
            /* Tasks with a priority keep their queue (and order) whatever its length. */
            for (int i = 0; i < 100; i++) {
#pragma omp task priority(1)
                if (atomic_load(&creating))
                    atomic_fetch_add(&priority_in_creator, 1);
            }
            atomic_store(&creating, 0);
        } else {
            while (atomic_load(&creating)) /* the other member takes no task until all are created */
                ;
        }
    }
    for (int i = 0; i < TASKS; i++)
        assert_int_equal(atomic_load(&ran[i]), 1);
    /* At most 64 queued per member (2 members) before new tasks run at once in their creator. */
    assert_true(atomic_load(&in_creator) >= TASKS - 64 * 2 - 1);
    assert_int_equal(atomic_load(&priority_in_creator), 0);
}

/* An undeferred task runs inline on its creator's stack until it creates a child: children that outlive
 * it (no taskwait), with dependences between them, a taskgroup inside it, and undeferred tasks nested in
 * it must all see a live parent. */
static void test_undeferred_tasks_whose_children_outlive_them(void **state)
{
    (void)state;
    for (int round = 0; round < 20; round++) {
        static _Atomic int done[64];
        memset(done, 0, sizeof done);
        int order[2] = {0, 0};
        int in_final = 0, grouped = 0;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            for (int i = 0; i < 16; i++) {
#pragma omp task if (0) firstprivate(i)
                {
#pragma omp task firstprivate(i)
                    atomic_fetch_add(&done[i], 1);
#pragma omp task if (0) firstprivate(i)
                    {
#pragma omp task firstprivate(i)
                        atomic_fetch_add(&done[16 + i], 1);
                    }
                }
            }
#pragma omp task if (0) shared(order)
            {
#pragma omp task depend(out : order[0]) shared(order)
                order[0] = 1;
#pragma omp task depend(in : order[0]) shared(order)
                order[1] = order[0] + 1;
            }
#pragma omp task if (0) shared(grouped)
            {
#pragma omp taskgroup
                {
#pragma omp task shared(grouped)
                    grouped = 1;
                }
                assert_int_equal(grouped, 1);
            }
#pragma omp task final(1) shared(in_final)
            {
#pragma omp task shared(in_final)
                in_final = omp_in_final();
            }
#pragma omp taskwait
        }
        for (int i = 0; i < 32; i++)
            assert_int_equal(atomic_load(&done[i]), 1);
        assert_int_equal(order[1], 2);
        assert_int_equal(in_final, 1);
    }
}

/* Tasks queued by one thread are run by every member: each task waits (yielding) until every member runs
 * one, so the test only ends if the others take tasks from the producer's deque (or from a thief's). In
 * a ULT (as a rank's code): a plain program's main thread does not yield to its VP's ULTs in taskyield. */
enum { ONE_PRODUCER_TASKS = 200, ONE_PRODUCER_THREADS = 4 };
static _Atomic int one_producer_ran[ONE_PRODUCER_TASKS], one_producer_by[ONE_PRODUCER_THREADS];

static void *one_producer(void *arg)
{
    (void)arg;
    _Atomic int threads_seen = 0;
#pragma omp parallel num_threads(ONE_PRODUCER_THREADS)
#pragma omp single
    for (int i = 0; i < ONE_PRODUCER_TASKS; i++) {
#pragma omp task firstprivate(i) shared(threads_seen)
        {
            atomic_fetch_add(&one_producer_ran[i], 1);
            if (atomic_fetch_add(&one_producer_by[omp_get_thread_num()], 1) == 0)
                atomic_fetch_add(&threads_seen, 1);
            while (atomic_load(&threads_seen) < ONE_PRODUCER_THREADS) {
#pragma omp taskyield
            }
        }
    }
    return NULL;
}

static void test_one_producers_tasks_run_on_every_thread(void **state)
{
    (void)state;
    for (int i = 0; i < ONE_PRODUCER_TASKS; i++)
        atomic_store(&one_producer_ran[i], 0);
    for (int t = 0; t < ONE_PRODUCER_THREADS; t++)
        atomic_store(&one_producer_by[t], 0);
    run_in_ult(one_producer, NULL, 0, MPCRT_ULT_RANK);
    for (int i = 0; i < ONE_PRODUCER_TASKS; i++)
        assert_int_equal(atomic_load(&one_producer_ran[i]), 1);
    for (int t = 0; t < ONE_PRODUCER_THREADS; t++)
        assert_true(atomic_load(&one_producer_by[t]) >= 1);
}

static void spawn_tree(_Atomic int *count, int children, int grandchildren)
{
    atomic_fetch_add(count, 1);
    for (int i = 0; i < children; i++) {
#pragma omp task
        spawn_tree(count, grandchildren, 0);
    }
}

/* Every member creates tasks that create tasks and return without waiting: the barrier (and a taskgroup)
 * must still wait for the whole tree, wherever its parts were queued and run. */
static void test_nested_producers_on_every_thread(void **state)
{
    (void)state;
    enum { PER_THREAD = 200, THREADS = 4, TREE = 1 + 5 + 5 * 2 };
    _Atomic int count = 0, grouped = 0;
    int after_group = -1;
#pragma omp parallel num_threads(THREADS)
    {
        for (int i = 0; i < PER_THREAD; i++) {
#pragma omp task
            spawn_tree(&count, 5, 2);
        }
#pragma omp barrier
        if (atomic_load(&count) != THREADS * PER_THREAD * TREE)
            atomic_fetch_add(&count, 1000000);
#pragma omp single
        {
#pragma omp taskgroup
            {
                for (int i = 0; i < PER_THREAD; i++) {
#pragma omp task
                    spawn_tree(&grouped, 5, 2);
                }
            }
            after_group = atomic_load(&grouped);
        }
    }
    assert_int_equal(atomic_load(&count), THREADS * PER_THREAD * TREE);
    assert_int_equal(after_group, PER_THREAD * TREE);
}

/* taskwait while some children run on other threads (stolen) and others still wait in the queue. */
static void test_taskwait_with_stolen_children(void **state)
{
    (void)state;
    enum { CHILDREN = 64 };
    for (int round = 0; round < 10; round++) {
        _Atomic int started = 0, done = 0, release = 0;
        int seen = -1;
#pragma omp parallel num_threads(4)
#pragma omp single
        {
            for (int i = 0; i < CHILDREN; i++) {
#pragma omp task
                {
                    atomic_fetch_add(&started, 1);
                    while (!atomic_load(&release)) {
#pragma omp taskyield
                    }
                    atomic_fetch_add(&done, 1);
                }
            }
            while (atomic_load(&started) == 0) { /* another member took one: this thread ran none */
#pragma omp taskyield
            }
            atomic_store(&release, 1);
#pragma omp taskwait
            seen = atomic_load(&done);
        }
        assert_int_equal(seen, CHILDREN);
    }
}

/* A chain of dependent tasks from one creator that waits in taskwait: each is released by a completer
 * on any thread into the creator's deque, which must wake the creator or let another member run it. */
static void test_dependence_chain_released_to_a_waiting_creator(void **state)
{
    (void)state;
    enum { LINKS = 300 };
    static int order[LINKS];
    int next = 0, x = 0;
    (void)x;
#pragma omp parallel num_threads(4)
#pragma omp single
    {
        for (int i = 0; i < LINKS; i++) {
#pragma omp task depend(inout : x) firstprivate(i) shared(next)
            order[next++] = i;
        }
#pragma omp taskwait
    }
    assert_int_equal(next, LINKS);
    for (int i = 0; i < LINKS; i++)
        assert_int_equal(order[i], i);
}

static void chain(_Atomic int *count, int depth)
{
    atomic_fetch_add(count, 1);
    if (depth > 1) {
#pragma omp task
        chain(count, depth - 1);
    }
}

/* Each task creates one child and ends at once: the tasks pending at the barrier are never the children
 * of anything still running. */
static void test_barrier_waits_for_a_chain_of_orphans(void **state)
{
    (void)state;
    enum { DEPTH = 2000 };
    _Atomic int count = 0;
    int seen = -1;
#pragma omp parallel num_threads(3)
    {
#pragma omp single nowait
        {
#pragma omp task
            chain(&count, DEPTH);
        }
#pragma omp barrier
#pragma omp single
        seen = atomic_load(&count);
    }
    assert_int_equal(seen, DEPTH);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_recursive_tasks_with_taskwait),
        cmocka_unit_test(test_every_task_runs_once),
        cmocka_unit_test(test_dependences_order_writers_and_readers),
        cmocka_unit_test(test_taskgroup_waits_for_descendants),
        cmocka_unit_test(test_taskloop_covers_its_range),
        cmocka_unit_test(test_detached_task_completes_on_fulfill),
        cmocka_unit_test(test_final_tasks_are_included),
        cmocka_unit_test(test_task_reduction_and_in_reduction),
        cmocka_unit_test(test_tasks_on_an_oversubscribed_team),
        cmocka_unit_test(test_a_full_queue_runs_new_tasks_in_their_creator),
        cmocka_unit_test(test_undeferred_tasks_whose_children_outlive_them),
        cmocka_unit_test(test_one_producers_tasks_run_on_every_thread),
        cmocka_unit_test(test_nested_producers_on_every_thread),
        cmocka_unit_test(test_taskwait_with_stolen_children),
        cmocka_unit_test(test_dependence_chain_released_to_a_waiting_creator),
        cmocka_unit_test(test_barrier_waits_for_a_chain_of_orphans),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
