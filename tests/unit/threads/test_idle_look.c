/* An idle VP about to sleep in the kernel publishes `sleeping`, then looks at the progress hooks once more:
 * work published without an inbox push (a deferred collective start in its VP's start ring) right after the
 * VP's last look must be found then, not after the sleep's timeout. A publisher reads `sleeping` after its
 * store to decide whether to wake anyone (mpcrt_sched_wake_sleeping_vp), so work published just before the
 * VP stores `sleeping` is seen by neither side unless the VP looks again. */
#include "test_util.h"

#include "../../../runtime/threads/sched_internal.h"

#include <time.h>

/* Quiet this long before work appears: within an idle VP's 200 us of spinning and yielding, so that the
 * work is there, unannounced, when the VP decides to sleep (once it has slept, `sleeping` stays published
 * until it finds work, and a real publisher would see it and wake the VP). */
#define QUIET_NS 100000L
#define ROUNDS 5

typedef struct {
    /* Written by its VP only (the hook runs on whichever VP idles, and picks its own entry). */
    _Alignas(64) bool pending;
    uint64_t sleeps_at_publish;
    struct timespec quiet_since;
    /* Read by the test's thread. */
    _Atomic long published, taken_awake, taken_after_sleep;
} vp_work_t;

static vp_work_t work[2];
static _Atomic bool armed;

static long ns_since(const struct timespec *t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - t->tv_sec) * 1000000000L + (now.tv_nsec - t->tv_nsec);
}

/* The work: an item published by a look of the idle loop once the VP has been quiet for QUIET_NS, as if
 * another thread had published it just after that look. It is taken only by a look made while the VP's
 * `sleeping` is set (the look just before a sleep), or after a sleep (the bug: the VP slept with work
 * waiting). */
static int hook(void *arg)
{
    (void)arg;
    int id = mpcrt_self_vp();
    if (!atomic_load(&armed) || id < 0 || id > 1)
        return 0;
    vp_work_t *w = &work[id];
    mpcrt_vp_t *vp = &mpcrt_sched.vps[id];
    uint64_t sleeps = vp->stats.futex_sleeps; /* this VP's own counter */
    if (w->pending) {
        if (sleeps != w->sleeps_at_publish)
            atomic_fetch_add(&w->taken_after_sleep, 1);
        else if (atomic_load(&vp->sleeping))
            atomic_fetch_add(&w->taken_awake, 1);
        else
            return 0; /* an ordinary look of the idle loop: leave it for the look before the sleep */
        w->pending = false;
        clock_gettime(CLOCK_MONOTONIC, &w->quiet_since);
        return 1;
    }
    /* Not by the look before a sleep: work published after `sleeping` is set is the publisher's to wake
     * the VP for (it sees `sleeping`). */
    if (!atomic_load(&vp->sleeping) && ns_since(&w->quiet_since) >= QUIET_NS) {
        w->pending = true;
        w->sleeps_at_publish = sleeps;
        atomic_fetch_add(&w->published, 1);
    }
    return 0;
}

static long taken(void)
{
    long n = 0;
    for (int i = 0; i < 2; i++)
        n += atomic_load(&work[i].taken_awake) + atomic_load(&work[i].taken_after_sleep);
    return n;
}

static void *nothing(void *arg)
{
    return arg;
}

static void test_work_published_before_sleeping_is_found(void **state)
{
    (void)state;
    assert_true(mpcrt_sched_num_vps() >= 2);
    assert_int_equal(mpcrt_sched_add_progress_hook(hook, NULL), 0);
    atomic_store(&armed, true);
    /* A VP that fell asleep before the hook existed sleeps without a timeout until a wake-up comes. */
    for (int vp = 0; vp < 2; vp++)
        run_on_vp(nothing, NULL, vp);
    /* No timing assertion: wait for ROUNDS items, however long the loaded machine takes. */
    while (taken() < ROUNDS) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    atomic_store(&armed, false);
    long awake = 0, after_sleep = 0;
    for (int i = 0; i < 2; i++) {
        awake += atomic_load(&work[i].taken_awake);
        after_sleep += atomic_load(&work[i].taken_after_sleep);
    }
    assert_int_equal(after_sleep, 0);
    assert_true(awake >= ROUNDS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_work_published_before_sleeping_is_found),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
