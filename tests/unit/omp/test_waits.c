/* OpenMP waits run the scheduler's progress hooks (DESIGN.md section 3: an OpenMP thread waiting in a
 * barrier progresses MPI because MPI registered a hook). Each test parks the master in one kind of wait
 * that only a progress round run by the master itself can end: another thread spins in user code until
 * the hook has run on the master's kernel thread during that wait. */
#include "omp_test.h"

#include <pthread.h>
#include <time.h>

static _Atomic(pthread_t) master_kthread; /* written by each test's setup while idle workers run the hook */
static _Atomic int master_waiting, hook_ran_in_wait;

static int progress_hook(void *arg)
{
    (void)arg;
    if (atomic_load(&master_waiting) && pthread_equal(pthread_self(), atomic_load(&master_kthread)))
        atomic_store(&hook_ran_in_wait, 1);
    return 0;
}

/* Spins in user code (no runtime call) until the hook ran in the master's wait; false after 20 s. */
static bool spin_until_hook_ran(void)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (!atomic_load(&hook_ran_in_wait)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - start.tv_sec > 20) return false;
    }
    return true;
}

static int setup(void **state)
{
    (void)state;
    static bool registered;
    atomic_store(&master_kthread, pthread_self());
    atomic_store(&master_waiting, 0);
    atomic_store(&hook_ran_in_wait, 0);
    if (!registered) {
        omp_get_max_threads(); /* starts the scheduler */
        registered = mpcrt_sched_add_progress_hook(progress_hook, NULL) == 0;
    }
    return registered ? 0 : -1;
}

static void test_barrier_wait_runs_progress_hooks(void **state)
{
    (void)state;
    bool ok = true;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            atomic_store(&master_waiting, 1);
        else
            ok = spin_until_hook_ran();
#pragma omp barrier
        atomic_store(&master_waiting, 0);
    }
    assert_true(ok);
}

static void test_lock_wait_runs_progress_hooks(void **state)
{
    (void)state;
    omp_lock_t lock;
    omp_init_lock(&lock);
    bool ok = true;
    _Atomic int held = 0;
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 1) {
            omp_set_lock(&lock);
            atomic_store(&held, 1);
            ok = spin_until_hook_ran();
            omp_unset_lock(&lock);
        } else {
            while (!atomic_load(&held))
                ;
            atomic_store(&master_waiting, 1);
            omp_set_lock(&lock);
            atomic_store(&master_waiting, 0);
            omp_unset_lock(&lock);
        }
    }
    omp_destroy_lock(&lock);
    assert_true(ok);
}

static void test_taskwait_runs_progress_hooks(void **state)
{
    (void)state;
    bool ok = true;
#pragma omp parallel num_threads(2)
#pragma omp master
    {
        /* The other thread runs the task (it waits at the region's end); the master spins until it has. */
        _Atomic int started = 0;
#pragma omp task shared(ok, started)
        {
            atomic_store(&started, 1);
            ok = spin_until_hook_ran();
        }
        while (!atomic_load(&started))
            ;
        atomic_store(&master_waiting, 1);
#pragma omp taskwait
        atomic_store(&master_waiting, 0);
    }
    assert_true(ok);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_barrier_wait_runs_progress_hooks, setup),
        cmocka_unit_test_setup(test_lock_wait_runs_progress_hooks, setup),
        cmocka_unit_test_setup(test_taskwait_runs_progress_hooks, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
