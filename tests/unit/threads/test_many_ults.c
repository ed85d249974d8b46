/* Oversubscription: 10^5 ULTs on the VPs that all wait on each other in rounds, then finish. */
#include "test_util.h"

#include <stdlib.h>

#if defined(__SANITIZE_THREAD__)
enum { NULTS = 4000, ROUNDS = 3 }; /* TSan counts every fiber as a thread and stops at 8128 */
#else
enum { NULTS = 100000, ROUNDS = 3 };
#endif

static mpcrt_barrier_t barrier;
static _Atomic long passes;

static void *rounds(void *arg)
{
    (void)arg;
    for (int r = 0; r < ROUNDS; r++) {
        mpcrt_barrier_wait(&barrier);
        atomic_fetch_add_explicit(&passes, 1, memory_order_relaxed);
    }
    return NULL;
}

static void test_hundred_thousand_ults_in_barrier_rounds(void **state)
{
    (void)state;
    assert_int_equal(mpcrt_barrier_init(&barrier, NULTS), 0);
    mpcrt_ult_t **u = calloc(NULTS, sizeof *u);
    mpcrt_ult_attr_t attr;
    mpcrt_ult_attr_init(&attr);
    attr.stack_size = 16 * 1024;
    for (int i = 0; i < NULTS; i++) {
        attr.vp = i % mpcrt_sched_num_vps();
        assert_int_equal(mpcrt_ult_create(&u[i], rounds, NULL, &attr), 0);
    }
    for (int i = 0; i < NULTS; i++)
        join(u[i]);
    assert_int_equal(atomic_load(&passes), (long)NULTS * ROUNDS);
    free(u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hundred_thousand_ults_in_barrier_rounds),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
