/* Handle tables under concurrency (meant for TSan too): kernel threads create, look up and free objects at
 * the same time, look up shared long-lived objects while the table grows, and hand objects to each other
 * with the "pending operation" pattern (the receiver retains, the creator frees the handle, the receiver
 * releases). Every object must be destroyed exactly once and every lookup must return the right object. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mpi.h"
#include "mpi/core/handle.h"

enum { THREADS = 4, ROUNDS = 20000, SHARED = 64, MAILBOX = 16 };

typedef struct {
    mpcrt_object_t obj;
    int owner, serial;
} item_t;

static _Atomic long created, destroyed;
static int shared_handles[SHARED];
static item_t *shared_items[SHARED];
/* Single-slot mailboxes between neighbour threads: NULL or an object retained for the receiver. */
static _Atomic(item_t *) mailbox[THREADS][MAILBOX];
static _Atomic int failures;

static void destroy_item(mpcrt_object_t *obj)
{
    atomic_fetch_add(&destroyed, 1);
    free(obj);
}

static item_t *new_item(int owner, int serial)
{
    item_t *it = malloc(sizeof *it);
    mpcrt_object_init(&it->obj, MPCRT_OBJ_INTERNAL, destroy_item);
    it->owner = owner;
    it->serial = serial;
    atomic_fetch_add(&created, 1);
    return it;
}

static void check(bool ok)
{
    if (!ok)
        atomic_fetch_add(&failures, 1);
}

static void *worker(void *arg)
{
    int me = (int)(intptr_t)arg;
    int next = (me + 1) % THREADS;
    unsigned seed = (unsigned)me * 7919u + 1;
    int mine[8] = {0};
    for (int round = 0; round < ROUNDS; round++) {
        /* create and look up our own */
        int slot = round % 8;
        if (mine[slot]) {
            item_t *it = (item_t *)mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, mine[slot]);
            check(it && it->owner == me);
            check(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, mine[slot]) == 0);
        }
        item_t *it = new_item(me, round);
        check(mpcrt_handle_register(&it->obj, &mine[slot]) == 0);
        item_t *back = (item_t *)mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, mine[slot]);
        check(back == it && back->serial == round);

        /* shared objects: lookups and reference traffic from every thread */
        int s = (int)(rand_r(&seed) % SHARED);
        item_t *sh = (item_t *)mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, shared_handles[s]);
        check(sh == shared_items[s] && sh->serial == s);
        mpcrt_object_retain(&sh->obj);
        mpcrt_object_release(&sh->obj);

        /* Hand an object to the next thread as a pending operation would: the receiver holds a reference,
         * the creator frees its handle at once (MPI_Type_free right after MPI_Isend). */
        int box = round % MAILBOX;
        if (atomic_load_explicit(&mailbox[next][box], memory_order_acquire) == NULL) {
            item_t *gift = new_item(me, -1);
            int h;
            check(mpcrt_handle_register(&gift->obj, &h) == 0);
            mpcrt_object_retain(&gift->obj);
            atomic_store_explicit(&mailbox[next][box], gift, memory_order_release);
            check(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h) == 0);
            /* the handle is dead now, or its index already names another thread's new object */
            mpcrt_object_t *again = mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h);
            check(again != &gift->obj);
        }
        item_t *got = atomic_exchange_explicit(&mailbox[me][box], NULL, memory_order_acq_rel);
        if (got) {
            check(got->serial == -1 && got->owner == (me + THREADS - 1) % THREADS);
            mpcrt_object_release(&got->obj);
        }
    }
    for (int slot = 0; slot < 8; slot++)
        if (mine[slot])
            check(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, mine[slot]) == 0);
    return NULL;
}

static void concurrent_create_lookup_free_and_handoff(void **state)
{
    (void)state;
    for (int i = 0; i < SHARED; i++) {
        shared_items[i] = new_item(-1, i);
        assert_int_equal(mpcrt_handle_register(&shared_items[i]->obj, &shared_handles[i]), 0);
    }
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        assert_int_equal(pthread_create(&threads[t], NULL, worker, (void *)(intptr_t)t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    assert_int_equal(atomic_load(&failures), 0);
    /* gifts nobody collected */
    for (int t = 0; t < THREADS; t++) {
        for (int b = 0; b < MAILBOX; b++) {
            item_t *it = atomic_load(&mailbox[t][b]);
            if (it)
                mpcrt_object_release(&it->obj);
        }
    }
    for (int i = 0; i < SHARED; i++) {
        assert_int_equal(atomic_load(&shared_items[i]->obj.refs), 1);
        assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, shared_handles[i]), 0);
    }
    assert_int_equal(atomic_load(&destroyed), atomic_load(&created));
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 0);
}

/* Two threads racing to free the same handles: exactly one wins each, every object dies once. */
enum { RACED = 2000 };
static int raced_handles[RACED];
static _Atomic int race_wins;

static void *free_all(void *arg)
{
    (void)arg;
    for (int i = 0; i < RACED; i++)
        if (mpcrt_handle_free(MPCRT_OBJ_INTERNAL, raced_handles[i]) == 0)
            atomic_fetch_add(&race_wins, 1);
    return NULL;
}

static void racing_frees_of_one_handle_free_it_once(void **state)
{
    (void)state;
    long before = atomic_load(&destroyed);
    for (int i = 0; i < RACED; i++) {
        item_t *it = new_item(0, i);
        assert_int_equal(mpcrt_handle_register(&it->obj, &raced_handles[i]), 0);
    }
    pthread_t a, b;
    assert_int_equal(pthread_create(&a, NULL, free_all, NULL), 0);
    assert_int_equal(pthread_create(&b, NULL, free_all, NULL), 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    assert_int_equal(atomic_load(&race_wins), RACED);
    assert_int_equal(atomic_load(&destroyed) - before, RACED);
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(concurrent_create_lookup_free_and_handoff),
        cmocka_unit_test(racing_frees_of_one_handle_free_it_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
