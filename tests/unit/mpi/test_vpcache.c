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
#include "mpi/core/handle.h"
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

/* Request handles registered by two VPs: their table slots, which each VP writes whenever its ranks make or
 * free a request, never share a cache line (8 slots). */
enum { REQUESTS = 20 };
static mpcrt_object_t requests[2][REQUESTS];
static int handles[2][REQUESTS];

static void *register_requests(void *arg)
{
    int vp = *(int *)arg;
    for (int i = 0; i < REQUESTS; i++) {
        mpcrt_object_init(&requests[vp][i], MPCRT_OBJ_REQUEST, NULL);
        assert_int_equal(mpcrt_handle_register(&requests[vp][i], &handles[vp][i]), 0);
    }
    return NULL;
}

static void request_slots_of_two_vps_share_no_line(void **state)
{
    (void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    skip(); /* no stashes: every index comes from the shared free list */
#endif
    if (mpcrt_sched_num_vps() < 2)
        skip();
    int vps[2] = {0, 1};
    /* VP 0 first, then VP 1: handed out one at a time, their indices met in one line. */
    run_on_vp(register_requests, &vps[0], 0);
    run_on_vp(register_requests, &vps[1], 1);
    for (int i = 0; i < REQUESTS; i++)
        for (int j = 0; j < REQUESTS; j++)
            assert_int_not_equal(mpcrt_handle_index(handles[0][i]) / 8,
                                 mpcrt_handle_index(handles[1][j]) / 8);
    for (int vp = 0; vp < 2; vp++)
        for (int i = 0; i < REQUESTS; i++)
            assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_REQUEST, handles[vp][i]), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(blocks_freed_on_another_vp_return_to_their_own),
        cmocka_unit_test(blocks_freed_on_their_own_vp_are_reused_there),
        cmocka_unit_test(request_slots_of_two_vps_share_no_line),
    };
    return cmocka_run_group_tests(tests, start_scheduler, stop_scheduler);
}
