/* Mutex, condition, barrier and once, used by ULTs on every VP and by kernel threads at the same time. */
#include "test_util.h"

#include <pthread.h>

#if defined(__SANITIZE_THREAD__)
enum { ULTS = 8, KTHREADS = 2, INCREMENTS = 2000 }; /* TSan makes every lock hand-off ~100x slower */
#else
enum { ULTS = 8, KTHREADS = 2, INCREMENTS = 5000 };
#endif

static mpcrt_mutex_t counter_lock = MPCRT_MUTEX_INITIALIZER;
static long counter;
static _Atomic int inside;

/* How many times a thread increments the counter, and how often it switches away while holding the lock
 * (mpcrt_yield: to another ULT of its VP, or sched_yield on a kernel thread). */
typedef struct {
    int increments, pause_every;
} counting_t;

static void *increment(void *arg)
{
    const counting_t *c = arg;
    for (int i = 0; i < c->increments; i++) {
        mpcrt_mutex_lock(&counter_lock);
        assert_int_equal(atomic_fetch_add(&inside, 1), 0); /* mutual exclusion */
        long v = counter;
        if (i % c->pause_every == 0)
            mpcrt_yield(); /* holding the lock across a switch must still exclude the others */
        counter = v + 1;
        atomic_fetch_sub(&inside, 1);
        mpcrt_mutex_unlock(&counter_lock);
    }
    return NULL;
}

/* ults ULTs spread over the VPs and kthreads kernel threads count together under counter_lock; the lock
 * must exclude them all and lose no waiter (a lost one would hang the join). */
static void count_together(int ults, int kthreads, const counting_t *counting)
{
    enum { MAX_THREADS = 16 };
    assert_true(ults <= MAX_THREADS && kthreads <= MAX_THREADS);
    counter = 0;
    mpcrt_ult_t *u[MAX_THREADS];
    pthread_t kt[MAX_THREADS];
    for (int i = 0; i < kthreads; i++)
        pthread_create(&kt[i], NULL, increment, (void *)counting);
    for (int i = 0; i < ults; i++)
        u[i] = spawn(increment, (void *)counting, i % mpcrt_sched_num_vps(), 0);
    for (int i = 0; i < ults; i++)
        join(u[i]);
    for (int i = 0; i < kthreads; i++)
        pthread_join(kt[i], NULL);
    assert_int_equal(counter, (long)(ults + kthreads) * counting->increments);
}

static void test_mutex_excludes_ults_and_kernel_threads(void **state)
{
    (void)state;
    static const counting_t counting = {INCREMENTS, 64};
    count_together(ULTS, KTHREADS, &counting);
}

/* More kernel threads than cores, each pausing inside the critical section now and then: a waiting kernel
 * thread is woken to compete (mutex.c) while others stay queued, loses to a running thread, and queues
 * again. */
static void test_mutex_kernel_threads_compete(void **state)
{
    (void)state;
    static const counting_t counting = {3000, 16};
    count_together(4, 6, &counting);
    /* Free again, with nobody queued: the fast path takes it. */
    assert_true(mpcrt_mutex_trylock(&counter_lock));
    mpcrt_mutex_unlock(&counter_lock);
}

static void test_trylock(void **state)
{
    (void)state;
    mpcrt_mutex_t m;
    mpcrt_mutex_init(&m);
    assert_true(mpcrt_mutex_trylock(&m));
    assert_false(mpcrt_mutex_trylock(&m));
    mpcrt_mutex_unlock(&m);
    assert_true(mpcrt_mutex_trylock(&m));
    mpcrt_mutex_unlock(&m);
}

/* Bounded queue: producers and consumers on all VPs and a kernel thread. */
enum { CAPACITY = 4, ITEMS = 5000 };
static struct {
    mpcrt_mutex_t lock;
    mpcrt_cond_t not_full, not_empty;
    int items[CAPACITY];
    int head, count;
} queue = {MPCRT_MUTEX_INITIALIZER, MPCRT_COND_INITIALIZER, MPCRT_COND_INITIALIZER, {0}, 0, 0};

static void *produce(void *arg)
{
    int base = (int)(intptr_t)arg;
    for (int i = 0; i < ITEMS; i++) {
        mpcrt_mutex_lock(&queue.lock);
        while (queue.count == CAPACITY)
            mpcrt_cond_wait(&queue.not_full, &queue.lock);
        queue.items[(queue.head + queue.count++) % CAPACITY] = base + i;
        mpcrt_cond_signal(&queue.not_empty);
        mpcrt_mutex_unlock(&queue.lock);
    }
    return NULL;
}

static void *consume(void *arg)
{
    long long sum = 0;
    for (int i = 0; i < (int)(intptr_t)arg; i++) {
        mpcrt_mutex_lock(&queue.lock);
        while (queue.count == 0)
            mpcrt_cond_wait(&queue.not_empty, &queue.lock);
        sum += queue.items[queue.head];
        queue.head = (queue.head + 1) % CAPACITY;
        queue.count--;
        mpcrt_cond_signal(&queue.not_full);
        mpcrt_mutex_unlock(&queue.lock);
    }
    return (void *)(intptr_t)sum;
}

static void test_condition_producer_consumer(void **state)
{
    (void)state;
    int last = mpcrt_sched_num_vps() - 1;
    mpcrt_ult_t *p1 = spawn(produce, (void *)(intptr_t)0, 0, 0);
    mpcrt_ult_t *p2 = spawn(produce, (void *)(intptr_t)1000000, last, 0);
    mpcrt_ult_t *c1 = spawn(consume, (void *)(intptr_t)ITEMS, last, 0);
    pthread_t kt;
    pthread_create(&kt, NULL, consume, (void *)(intptr_t)ITEMS);
    join(p1);
    join(p2);
    long long total = (long long)(intptr_t)join(c1);
    void *ret;
    pthread_join(kt, &ret);
    total += (long long)(intptr_t)ret;
    long long expected = 2LL * ITEMS * (ITEMS - 1) / 2 + 1000000LL * ITEMS;
    assert_true(total == expected);
}

static void *broadcast_waiter(void *arg)
{
    int *released = arg;
    mpcrt_mutex_lock(&queue.lock);
    while (!*released)
        mpcrt_cond_wait(&queue.not_empty, &queue.lock);
    mpcrt_mutex_unlock(&queue.lock);
    return NULL;
}

static void test_condition_broadcast_wakes_all(void **state)
{
    (void)state;
    int released = 0;
    mpcrt_ult_t *u[16];
    for (int i = 0; i < 16; i++)
        u[i] = spawn(broadcast_waiter, &released, i % mpcrt_sched_num_vps(), 0);
    for (int i = 0; i < 100; i++)
        mpcrt_yield(); /* let them block (not required for correctness) */
    mpcrt_mutex_lock(&queue.lock);
    released = 1;
    mpcrt_cond_broadcast(&queue.not_empty);
    mpcrt_mutex_unlock(&queue.lock);
    for (int i = 0; i < 16; i++)
        join(u[i]);
}

enum { BARRIER_THREADS = 12, BARRIER_ROUNDS = 200 };
static mpcrt_barrier_t barrier;
static _Atomic int phase_arrivals[BARRIER_ROUNDS];
static _Atomic int serial_count;

static void *barrier_rounds(void *arg)
{
    (void)arg;
    for (int r = 0; r < BARRIER_ROUNDS; r++) {
        atomic_fetch_add(&phase_arrivals[r], 1);
        if (mpcrt_barrier_wait(&barrier))
            atomic_fetch_add(&serial_count, 1);
        /* No one leaves round r before everyone arrived in it. */
        assert_int_equal(atomic_load(&phase_arrivals[r]), BARRIER_THREADS);
    }
    return NULL;
}

static void test_barrier_rounds_ults_and_kernel_threads(void **state)
{
    (void)state;
    assert_int_equal(mpcrt_barrier_init(&barrier, BARRIER_THREADS), 0);
    mpcrt_ult_t *u[BARRIER_THREADS];
    pthread_t kt[2];
    for (int i = 0; i < BARRIER_THREADS - 2; i++)
        u[i] = spawn(barrier_rounds, NULL, i % mpcrt_sched_num_vps(), 0);
    for (int i = 0; i < 2; i++)
        pthread_create(&kt[i], NULL, barrier_rounds, NULL);
    for (int i = 0; i < BARRIER_THREADS - 2; i++)
        join(u[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(kt[i], NULL);
    assert_int_equal(atomic_load(&serial_count), BARRIER_ROUNDS);
    assert_int_equal(mpcrt_barrier_init(&barrier, 0), -22);
}

static mpcrt_once_t once = MPCRT_ONCE_INITIALIZER;
static _Atomic int once_runs;
static int once_value;

static void once_body(void)
{
    atomic_fetch_add(&once_runs, 1);
    mpcrt_yield(); /* others arrive while it runs */
    once_value = 42;
}

static void *call_once(void *arg)
{
    (void)arg;
    mpcrt_once(&once, once_body);
    return (void *)(intptr_t)once_value;
}

static void test_once_runs_exactly_once(void **state)
{
    (void)state;
    mpcrt_ult_t *u[32];
    for (int i = 0; i < 32; i++)
        u[i] = spawn(call_once, NULL, i % mpcrt_sched_num_vps(), 0);
    for (int i = 0; i < 32; i++)
        assert_int_equal((intptr_t)join(u[i]), 42);
    assert_int_equal(atomic_load(&once_runs), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutex_excludes_ults_and_kernel_threads),
        cmocka_unit_test(test_mutex_kernel_threads_compete),
        cmocka_unit_test(test_trylock),
        cmocka_unit_test(test_condition_producer_consumer),
        cmocka_unit_test(test_condition_broadcast_wakes_all),
        cmocka_unit_test(test_barrier_rounds_ults_and_kernel_threads),
        cmocka_unit_test(test_once_runs_exactly_once),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
