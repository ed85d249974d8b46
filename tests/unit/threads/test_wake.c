/* Cross-VP wake-ups: ULTs on different VPs and plain kernel threads waking each other. */
#include "test_util.h"

#include <pthread.h>

#define ROUNDS 20000

typedef struct {
    mpcrt_mutex_t lock;
    mpcrt_cond_t changed;
    long turn; /* even: ping's turn, odd: pong's */
} pingpong_t;

typedef struct {
    pingpong_t *pp;
    int parity;
    long done;
} player_t;

static void *play(void *arg)
{
    player_t *p = arg;
    for (long i = 0; i < ROUNDS; i++) {
        mpcrt_mutex_lock(&p->pp->lock);
        while ((p->pp->turn & 1) != p->parity)
            mpcrt_cond_wait(&p->pp->changed, &p->pp->lock);
        p->pp->turn++;
        p->done++;
        mpcrt_cond_signal(&p->pp->changed);
        mpcrt_mutex_unlock(&p->pp->lock);
    }
    return NULL;
}

static void *play_on_kernel_thread(void *arg)
{
    return play(arg);
}

static void check_pingpong(int ping_vp, int pong_vp, bool pong_is_kernel_thread)
{
    pingpong_t pp = {MPCRT_MUTEX_INITIALIZER, MPCRT_COND_INITIALIZER, 0};
    player_t ping = {&pp, 0, 0}, pong = {&pp, 1, 0};
    mpcrt_ult_t *a = spawn(play, &ping, ping_vp, 0);
    pthread_t kt;
    mpcrt_ult_t *b = NULL;
    if (pong_is_kernel_thread)
        assert_int_equal(pthread_create(&kt, NULL, play_on_kernel_thread, &pong), 0);
    else
        b = spawn(play, &pong, pong_vp, 0);
    join(a);
    if (b)
        join(b);
    else
        pthread_join(kt, NULL);
    assert_int_equal(ping.done, ROUNDS);
    assert_int_equal(pong.done, ROUNDS);
    assert_int_equal(pp.turn, 2 * ROUNDS);
}

static void test_pingpong_between_vps(void **state)
{
    (void)state;
    check_pingpong(0, mpcrt_sched_num_vps() - 1, false);
}

static void test_pingpong_on_one_vp(void **state)
{
    (void)state;
    check_pingpong(0, 0, false);
}

static void test_pingpong_with_kernel_thread(void **state)
{
    (void)state;
    check_pingpong(mpcrt_sched_num_vps() - 1, -1, true);
}

static mpcrt_ult_t *_Atomic sleeper;
static _Atomic int wake_flag;

static void *suspend_until_flag(void *arg)
{
    (void)arg;
    atomic_store(&sleeper, mpcrt_ult_self());
    int suspensions = 0;
    while (!atomic_load(&wake_flag)) {
        mpcrt_ult_suspend();
        suspensions++;
    }
    return (void *)(intptr_t)suspensions;
}

static void test_kernel_thread_wakes_suspended_ult(void **state)
{
    (void)state;
    atomic_store(&sleeper, NULL);
    atomic_store(&wake_flag, 0);
    mpcrt_ult_t *u = spawn(suspend_until_flag, NULL, 0, 0);
    while (!atomic_load(&sleeper))
        ;
    atomic_store(&wake_flag, 1);
    mpcrt_ult_wake(atomic_load(&sleeper)); /* from the test's kernel thread, not a VP */
    intptr_t suspensions = (intptr_t)join(u);
    assert_true(suspensions >= 0 && suspensions <= 2);
}

static void *return_self(void *arg)
{
    (void)arg;
    return mpcrt_ult_self();
}

static void *create_remote_and_join(void *arg)
{
    (void)arg;
    int other = (mpcrt_self_vp() + 1) % mpcrt_sched_num_vps();
    mpcrt_ult_t *u[64];
    for (int i = 0; i < 64; i++)
        u[i] = spawn(return_self, NULL, other, 0);
    long on_other = 0;
    for (int i = 0; i < 64; i++)
        on_other += join(u[i]) != NULL;
    return (void *)on_other;
}

static void test_ults_created_for_another_vp_run_there(void **state)
{
    (void)state;
    assert_int_equal((long)run_on_vp(create_remote_and_join, NULL, 0), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pingpong_between_vps),
        cmocka_unit_test(test_pingpong_on_one_vp),
        cmocka_unit_test(test_pingpong_with_kernel_thread),
        cmocka_unit_test(test_kernel_thread_wakes_suspended_ult),
        cmocka_unit_test(test_ults_created_for_another_vp_run_there),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
