/* Per-VP block caches (runtime/mpi/core/vpcache.c): a block goes back to the cache of the VP that allocated
 * it, also when another VP frees it (a stream between two cores: the receiver frees the sender's eager
 * cells). Sanitizer builds bypass the caches (every block from malloc), so there is nothing to check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../threads/test_util.h"
#include "mpi/core/vpcache.h"

enum { BLOCKS = 100 };

static void *blocks[BLOCKS], *again[BLOCKS];

static void *allocate(void *out)
{
    void **into = out;
    for (int i = 0; i < BLOCKS; i++) {
        into[i] = mpcrt_vpcache_alloc(MPCRT_VPCACHE_CELL);
        memset(into[i], i, MPCRT_VPCACHE_CELL_BYTES); /* the whole block is the caller's */
    }
    return NULL;
}

static void *release(void *in)
{
    void **from = in;
    for (int i = 0; i < BLOCKS; i++)
        mpcrt_vpcache_free(MPCRT_VPCACHE_CELL, from[i]);
    return NULL;
}

static bool was_given_before(void *block)
{
    for (int i = 0; i < BLOCKS; i++)
        if (blocks[i] == block)
            return true;
    return false;
}

/* Allocates BLOCKS cells on VP 0, frees them on VP free_vp, allocates again on VP 0: the same blocks. */
static void cells_come_back_to_vp0(int free_vp)
{
    run_on_vp(allocate, blocks, 0);
    run_on_vp(release, blocks, free_vp);
    run_on_vp(allocate, again, 0);
    for (int i = 0; i < BLOCKS; i++)
        assert_true(was_given_before(again[i]));
    run_on_vp(release, again, 0);
}

static void blocks_freed_on_another_vp_return_to_their_own(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip();
#endif
    if (mpcrt_sched_num_vps() < 2)
        skip();
    cells_come_back_to_vp0(1);
}

static void blocks_freed_on_their_own_vp_are_reused_there(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip();
#endif
    cells_come_back_to_vp0(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_freed_on_another_vp_return_to_their_own),
        cmocka_unit_test(blocks_freed_on_their_own_vp_are_reused_there),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
