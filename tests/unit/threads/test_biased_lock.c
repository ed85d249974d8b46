/* Biased spinlocks: the first VP to take one keeps it biased while it is alone; a thread of another VP or
 * no VP revokes the bias, at any moment, and the lock still excludes everyone. */
#include "test_util.h"

#include <pthread.h>
#include <stdlib.h>

#if defined(__SANITIZE_THREAD__)
enum { INCREMENTS = 4000, ROUNDS = 8 };
#else
enum { INCREMENTS = 20000, ROUNDS = 16 };
#endif

static mpcrt_biased_lock_t lock;
static long counter;
static bool
    enabled; /* biased locks are on: MPCRT_BIASED_LOCKS is not 0 (ctest runs this program both ways) */
static _Atomic int inside;

/* Each critical section lasts a while (a read, pauses, the write): the owner's last longer than a
 * revocation's membarrier, so that a revoker finds the owner inside and must wait for it. */
static int owner_pauses = 50;
static void count_pausing(int increments, int pauses)
{
    for (int i = 0; i < increments; i++) {
        mpcrt_biased_lock(&lock);
        assert_int_equal(atomic_fetch_add_explicit(&inside, 1, memory_order_relaxed), 0);
        long v = counter;
        for (int k = 0; k < pauses; k++)
            __builtin_ia32_pause();
        counter = v + 1;
        atomic_fetch_sub_explicit(&inside, 1, memory_order_relaxed);
        mpcrt_biased_unlock(&lock);
    }
}

static void count(int increments)
{
    count_pausing(increments, 50);
}

static void *count_long_ult(void *arg)
{
    count_pausing((int)(intptr_t)arg, owner_pauses);
    return NULL;
}

static void *count_ult(void *arg)
{
    count((int)(intptr_t)arg);
    return NULL;
}

static void *count_and_yield(void *arg)
{
    for (int i = 0; i < (int)(intptr_t)arg; i++) {
        count(100);
        mpcrt_yield(); /* to the other ULTs of the VP, between critical sections */
    }
    return NULL;
}

static void *biased_after(void *arg)
{
    (void)arg;
    return (void *)(intptr_t)mpcrt_biased_lock_is_biased(&lock);
}

/* ULTs of one VP only: the lock is biased to it and stays so, and counts right. */
static void test_one_vp_keeps_the_bias(void **state)
{
    (void)state;
    mpcrt_biased_lock_init(&lock);
    counter = 0;
    assert_false(mpcrt_biased_lock_is_biased(&lock));
    mpcrt_ult_t *u[4];
    for (int i = 0; i < 4; i++)
        u[i] = spawn(count_and_yield, (void *)(intptr_t)(INCREMENTS / 400), 0, 0);
    for (int i = 0; i < 4; i++)
        join(u[i]);
    assert_int_equal(counter, 4L * (INCREMENTS / 400) * 100);
    assert_int_equal((intptr_t)run_on_vp(biased_after, NULL, 0), enabled);
}

/* The owner VP counts while a ULT of the other VP and a kernel thread of no VP start counting too: the
 * first of them revokes the bias in the middle of the owner's loop. */
static void *count_kthread(void *arg)
{
    count((int)(intptr_t)arg);
    return NULL;
}

static void test_revoked_while_the_owner_counts(void **state)
{
    (void)state;
    assert_true(mpcrt_sched_num_vps() >= 2);
    for (int round = 0; round < ROUNDS; round++) {
        mpcrt_biased_lock_init(&lock);
        counter = 0;
        owner_pauses = 1000;
        mpcrt_ult_t *owner = spawn(count_long_ult, (void *)(intptr_t)(INCREMENTS / 40), 0, 0);
        /* Let the owner claim the bias (it keeps it until the others come). */
        while (enabled && !mpcrt_biased_lock_is_biased(&lock))
            sched_yield();
        mpcrt_ult_t *other = spawn(count_ult, (void *)(intptr_t)(INCREMENTS / 4), 1, 0);
        pthread_t kt;
        pthread_create(&kt, NULL, count_kthread, (void *)(intptr_t)(INCREMENTS / 4));
        join(owner);
        join(other);
        pthread_join(kt, NULL);
        assert_int_equal(counter, INCREMENTS / 40 + 2L * (INCREMENTS / 4));
        assert_false(mpcrt_biased_lock_is_biased(&lock)); /* revoked, for good */
    }
}

/* A kernel thread of no VP never gets the bias; a lock it took first is off from then on. */
static void test_kernel_thread_turns_it_off(void **state)
{
    (void)state;
    mpcrt_biased_lock_init(&lock);
    counter = 0;
    count(10);
    assert_false(mpcrt_biased_lock_is_biased(&lock));
    run_on_vp(count_ult, (void *)(intptr_t)10, 0);
    assert_false(mpcrt_biased_lock_is_biased(&lock));
    assert_int_equal(counter, 20);
}

static void *try_from_vp(void *arg)
{
    (void)arg;
    bool got = mpcrt_biased_trylock(&lock);
    if (got)
        mpcrt_biased_unlock(&lock);
    return (void *)(intptr_t)got;
}

/* The owner's try, on a free lock biased to it. */
static void *lock_then_try(void *arg)
{
    (void)arg;
    mpcrt_biased_lock(&lock);
    mpcrt_biased_unlock(&lock);
    bool own = mpcrt_biased_trylock(&lock);
    if (own)
        mpcrt_biased_unlock(&lock);
    return (void *)(intptr_t)own;
}

static void *hold_lock(void *arg)
{
    _Atomic int *phase = arg;
    mpcrt_biased_lock(&lock);
    atomic_store(phase, 1);
    while (atomic_load(phase) != 2)
        ; /* a spinlock holder never switches: spin, the other VP tries meanwhile */
    mpcrt_biased_unlock(&lock);
    return NULL;
}

static void test_trylock(void **state)
{
    (void)state;
    mpcrt_biased_lock_init(&lock);
    assert_true((intptr_t)run_on_vp(lock_then_try, NULL, 0));
    assert_int_equal(mpcrt_biased_lock_is_biased(&lock), enabled);
    /* Off (a kernel thread's try revokes): a held lock refuses a try, a free one grants it. */
    assert_true(mpcrt_biased_trylock(&lock));
    assert_false(mpcrt_biased_lock_is_biased(&lock));
    assert_false((intptr_t)run_on_vp(try_from_vp, NULL, 1));
    mpcrt_biased_unlock(&lock);
    assert_true((intptr_t)run_on_vp(try_from_vp, NULL, 1));
    /* Held by a ULT of VP 0 while VP 1 tries. */
    _Atomic int phase = 0;
    mpcrt_ult_t *holder = spawn(hold_lock, &phase, 0, 0);
    while (atomic_load(&phase) != 1)
        sched_yield();
    assert_false((intptr_t)run_on_vp(try_from_vp, NULL, 1));
    atomic_store(&phase, 2);
    join(holder);
    assert_true((intptr_t)run_on_vp(try_from_vp, NULL, 1));
}

int main(void)
{
    const char *env = getenv("MPCRT_BIASED_LOCKS");
    enabled = !(env && env[0] == '0');
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_vp_keeps_the_bias),
        cmocka_unit_test(test_revoked_while_the_owner_counts),
        cmocka_unit_test(test_kernel_thread_turns_it_off),
        cmocka_unit_test(test_trylock),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
