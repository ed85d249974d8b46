/* wait_until: predicates satisfied by progress hooks, by other ULTs' plain writes, idle hooks, and the
 * kernel-thread path; spin hooks. */
#include "test_util.h"

#include <pthread.h>
#include <time.h>

static _Atomic int hook_calls, hook_target, hook_flag;
static mpcrt_ult_t *_Atomic counted_ult; /* its own progress rounds are counted in own_rounds */
static _Atomic int own_rounds;

static int counting_hook(void *arg)
{
    (void)arg;
    if (!atomic_load(&hook_target))
        return 0;
    mpcrt_ult_t *self = mpcrt_ult_self();
    if (self && self == atomic_load(&counted_ult))
        atomic_fetch_add(&own_rounds, 1);
    if (atomic_fetch_add(&hook_calls, 1) + 1 >= atomic_load(&hook_target))
        atomic_store(&hook_flag, 1);
    return 0;
}

static bool flag_set(void *arg)
{
    return atomic_load((_Atomic int *)arg) != 0;
}

static void *wait_for_hook_flag(void *arg)
{
    (void)arg;
    mpcrt_wait_until(flag_set, &hook_flag);
    return NULL;
}

static void test_progress_hooks_drive_the_predicate(void **state)
{
    (void)state;
    atomic_store(&hook_calls, 0);
    atomic_store(&hook_flag, 0);
    atomic_store(&hook_target, 500);
    run_on_vp(wait_for_hook_flag, NULL, 0);
    assert_true(atomic_load(&hook_calls) >= 500);
    atomic_store(&hook_target, 0);
}

static _Atomic int spin_calls;
static mpcrt_ult_t *_Atomic spin_ult;

static void spin_hook(mpcrt_ult_t *ult)
{
    atomic_fetch_add(&spin_calls, 1);
    atomic_store(&spin_ult, ult);
}

static void *wait_for_hook_flag_counted(void *arg)
{
    (void)arg;
    atomic_store(&counted_ult, mpcrt_ult_self());
    mpcrt_wait_until(flag_set, &hook_flag);
    return NULL;
}

/* A wait that spins (its VP has nothing else to run) runs the spin hooks once, on the waiting ULT, before
 * its progress rounds. (Idle VPs run progress hooks too, so on a loaded machine the flag may come before
 * the waiter spun at all: then no spin hook may have run.) */
static void test_spin_hooks_run_once_per_spinning_wait(void **state)
{
    (void)state;
    atomic_store(&spin_calls, 0);
    atomic_store(&spin_ult, NULL);
    atomic_store(&own_rounds, 0);
    atomic_store(&hook_calls, 0);
    atomic_store(&hook_flag, 0);
    atomic_store(&hook_target, 500);
    run_on_vp(wait_for_hook_flag_counted, NULL, 0);
    atomic_store(&hook_target, 0);
    mpcrt_ult_t *waiter = atomic_exchange(&counted_ult, NULL);
    assert_true(atomic_load(&spin_calls) <= 1);
    if (atomic_load(&own_rounds) > 0 || atomic_load(&spin_calls) > 0) {
        assert_int_equal(atomic_load(&spin_calls), 1);
        assert_ptr_equal(atomic_load(&spin_ult), waiter);
    }
}

static _Atomic int quiet_flag;

static void *set_flag_from_kernel_thread(void *arg);

static void *wait_quietly(void *arg)
{
    (void)arg;
    mpcrt_wait_until_quiet(flag_set, &quiet_flag);
    return NULL;
}

/* A quiet wait runs no hooks: no spin hook either. */
static void test_quiet_wait_runs_no_spin_hook(void **state)
{
    (void)state;
    atomic_store(&spin_calls, 0);
    atomic_store(&quiet_flag, 0);
    pthread_t setter;
    assert_int_equal(pthread_create(&setter, NULL, set_flag_from_kernel_thread, &quiet_flag), 0);
    run_on_vp(wait_quietly, NULL, 0);
    pthread_join(setter, NULL);
    assert_int_equal(atomic_load(&spin_calls), 0);
}

static _Atomic int written_flag;

static void *write_flag_later(void *arg)
{
    (void)arg;
    for (int i = 0; i < 10; i++)
        mpcrt_yield();
    atomic_store(&written_flag, 1); /* a plain write: no explicit wake-up of the waiter */
    return NULL;
}

static void *wait_for_written_flag(void *arg)
{
    (void)arg;
    mpcrt_wait_until(flag_set, &written_flag);
    return (void *)1;
}

static void test_parked_predicate_rechecked_by_vp(void **state)
{
    (void)state;
    for (int vp = 0; vp < mpcrt_sched_num_vps(); vp++) {
        atomic_store(&written_flag, 0);
        mpcrt_ult_t *waiter = spawn(wait_for_written_flag, NULL, 0, 0);
        mpcrt_ult_t *writer = spawn(write_flag_later, NULL, vp, 0);
        assert_ptr_equal(join(waiter), (void *)1);
        join(writer);
    }
}

static _Atomic int idle_runs;

static int idle_hook(void *arg)
{
    (void)arg;
    atomic_fetch_add(&idle_runs, 1);
    return 0;
}

static void test_idle_hooks_run_when_nothing_is_ready(void **state)
{
    (void)state;
    atomic_store(&idle_runs, 0);
    for (int i = 0; i < 2000 && atomic_load(&idle_runs) < 3; i++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    assert_true(atomic_load(&idle_runs) >= 3);
}

static void *set_flag_from_kernel_thread(void *arg)
{
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    atomic_store((_Atomic int *)arg, 1);
    return NULL;
}

static void test_kernel_thread_can_wait(void **state)
{
    (void)state;
    _Atomic int flag = 0;
    pthread_t t;
    pthread_create(&t, NULL, set_flag_from_kernel_thread, (void *)&flag);
    mpcrt_wait_until(flag_set, (void *)&flag); /* the test thread is not a ULT */
    assert_int_equal(atomic_load(&flag), 1);
    pthread_join(t, NULL);
}

typedef struct {
    _Atomic int *generation;
    int rounds;
    int nwaiters;
    _Atomic int *arrived;
} rounds_t;

typedef struct {
    rounds_t *r;
    int target;
} gen_wait_t;

static bool generation_reached(void *arg)
{
    gen_wait_t *w = arg;
    return atomic_load(w->r->generation) >= w->target;
}

/* Each round, every ULT arrives; the last one opens the next generation; all wait with wait_until. */
static void *wait_in_rounds(void *arg)
{
    rounds_t *r = arg;
    for (int g = 1; g <= r->rounds; g++) {
        if (atomic_fetch_add(r->arrived, 1) + 1 == g * r->nwaiters)
            atomic_store(r->generation, g);
        gen_wait_t w = {r, g};
        mpcrt_wait_until(generation_reached, &w);
    }
    return NULL;
}

static void test_many_parked_ults_released_by_generation(void **state)
{
    (void)state;
    enum { N = 2000, ROUNDS = 5 };
    _Atomic int generation = 0, arrived = 0;
    rounds_t r = {&generation, ROUNDS, N, &arrived};
    static mpcrt_ult_t *u[N];
    for (int i = 0; i < N; i++)
        u[i] = spawn(wait_in_rounds, &r, i % mpcrt_sched_num_vps(), 0);
    for (int i = 0; i < N; i++)
        join(u[i]);
    assert_int_equal(atomic_load(&generation), ROUNDS);
    assert_int_equal(atomic_load(&arrived), N * ROUNDS);
}

static int register_hooks(void **state)
{
    int rc = start_scheduler(state);
    rc |= mpcrt_sched_add_progress_hook(counting_hook, NULL);
    rc |= mpcrt_sched_add_idle_hook(idle_hook, NULL);
    rc |= mpcrt_sched_add_spin_hook(spin_hook);
    return rc;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_hooks_drive_the_predicate),
        cmocka_unit_test(test_spin_hooks_run_once_per_spinning_wait),
        cmocka_unit_test(test_quiet_wait_runs_no_spin_hook),
        cmocka_unit_test(test_parked_predicate_rechecked_by_vp),
        cmocka_unit_test(test_idle_hooks_run_when_nothing_is_ready),
        cmocka_unit_test(test_kernel_thread_can_wait),
        cmocka_unit_test(test_many_parked_ults_released_by_generation),
    };
    return cmocka_run_group_tests(tests, register_hooks, stop_scheduler);
}
