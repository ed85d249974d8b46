/* Handle tables (runtime/mpi/core/handle.c): encoding, lookup validation, reference counts, index reuse,
 * growth. Objects of kind MPCRT_OBJ_INTERNAL are private to this program. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <cmocka.h>

#include "mpi.h"
#include "mpi/core/handle.h"

typedef struct {
    mpcrt_object_t obj;
    int tag;
    int *destroyed; /* incremented by destroy */
} thing_t;

static void destroy_thing(mpcrt_object_t *obj)
{
    thing_t *t = (thing_t *)obj;
    (*t->destroyed)++;
    free(t);
}

static thing_t *new_thing(int tag, int *destroyed)
{
    thing_t *t = calloc(1, sizeof *t);
    assert_non_null(t);
    mpcrt_object_init(&t->obj, MPCRT_OBJ_INTERNAL, destroy_thing);
    t->tag = tag;
    t->destroyed = destroyed;
    return t;
}

static int register_thing(thing_t *t)
{
    int h = 0;
    assert_int_equal(mpcrt_handle_register(&t->obj, &h), 0);
    return h;
}

static void predefined_handles_resolve_to_their_objects(void **state)
{
    (void)state;
    mpcrt_object_t *o = mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_INT);
    assert_non_null(o);
    assert_int_equal(o->handle, MPI_INT);
    assert_true(o->flags & MPCRT_OBJECT_PREDEFINED);
    /* direct handles (the MPICH pair types) */
    o = mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_LONG_DOUBLE_INT);
    assert_non_null(o);
    assert_int_equal(o->handle, MPI_LONG_DOUBLE_INT);
    /* every builtin datatype of the header answers */
    const MPI_Datatype all[] = {MPI_CHAR,
                                MPI_BYTE,
                                MPI_WCHAR,
                                MPI_LONG_DOUBLE,
                                MPI_PACKED,
                                MPI_LB,
                                MPI_UB,
                                MPI_2INT,
                                MPI_C_LONG_DOUBLE_COMPLEX,
                                MPI_COUNT,
                                MPI_CXX_BOOL,
                                MPI_COMPLEX32,
                                MPI_2DOUBLE_PRECISION,
                                MPI_FLOAT_INT,
                                MPI_SHORT_INT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        assert_non_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, all[i]));
}

static void invalid_handles_are_rejected(void **state)
{
    (void)state;
    /* null handles of every kind */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_DATATYPE_NULL));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_COMM, MPI_COMM_NULL));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_REQUEST, MPI_REQUEST_NULL));
    /* a handle of another kind */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_COMM_WORLD));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_SUM));
    /* MPI_INT's index with the wrong size bits, an unused builtin index, an unused direct index */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, 0x4c000805));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, 0x4c0001ff));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, (int)0x8c000077));
    /* an indirect handle never issued, in a chunk that does not exist */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL,
                                    mpcrt_handle_make(MPCRT_HANDLE_INDIRECT, MPCRT_OBJ_INTERNAL, 0x3ffffff)));
    /* garbage */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, 0));
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, -1));
    /* predefined objects cannot be freed */
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_DATATYPE, MPI_INT), -EINVAL);
}

static void registered_objects_get_indirect_handles_of_their_kind(void **state)
{
    (void)state;
    int destroyed = 0;
    thing_t *t = new_thing(7, &destroyed);
    int h = register_thing(t);
    assert_int_equal(mpcrt_handle_kind(h), MPCRT_HANDLE_INDIRECT);
    assert_int_equal(mpcrt_handle_obj_kind(h), MPCRT_OBJ_INTERNAL);
    assert_int_equal(((unsigned)h >> 30), 3u);
    assert_int_equal(((unsigned)h >> 26) & 0xf, 12u);
    assert_int_equal(t->obj.handle, h);
    assert_ptr_equal(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h), &t->obj);
    /* the same bits looked up as another kind */
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, h));
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 1);

    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h), 0);
    assert_int_equal(destroyed, 1);
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h));
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h), -EINVAL); /* double free */
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 0);
}

static void pending_references_keep_a_freed_object_alive(void **state)
{
    (void)state;
    int destroyed = 0;
    thing_t *t = new_thing(1, &destroyed);
    int h = register_thing(t);
    mpcrt_object_retain(&t->obj); /* e.g. a pending MPI_Isend */
    mpcrt_object_retain(&t->obj); /* and a second one */
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h), 0);
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h)); /* the handle is gone at once */
    assert_int_equal(destroyed, 0);
    assert_int_equal(t->tag, 1);
    mpcrt_object_release(&t->obj);
    assert_int_equal(destroyed, 0);
    mpcrt_object_release(&t->obj);
    assert_int_equal(destroyed, 1);
}

/* The completion calls' free of a request handle (no exchange): the handle goes, the object with its last
 * reference; a second free, or a handle of another kind, is refused. */
static void completed_request_handles_are_freed_once(void **state)
{
    (void)state;
    int destroyed = 0;
    thing_t *t = calloc(1, sizeof *t);
    assert_non_null(t);
    mpcrt_object_init(&t->obj, MPCRT_OBJ_REQUEST, destroy_thing);
    t->destroyed = &destroyed;
    int h = register_thing(t);
    mpcrt_object_retain(&t->obj); /* the operation still holds it */
    assert_int_equal(mpcrt_handle_free_request(h), 0);
    assert_null(mpcrt_handle_lookup(MPCRT_OBJ_REQUEST, h));
    assert_int_equal(destroyed, 0);
    assert_int_equal(mpcrt_handle_free_request(h), -EINVAL);
    mpcrt_object_release(&t->obj);
    assert_int_equal(destroyed, 1);
    thing_t *other = new_thing(2, &destroyed);
    int oh = register_thing(other);
    assert_int_equal(mpcrt_handle_free_request(oh), -EINVAL);
    assert_ptr_equal(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, oh), &other->obj);
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, oh), 0);
    assert_int_equal(destroyed, 2);
}

static void several_handles_may_name_one_object(void **state)
{
    (void)state;
    int destroyed = 0;
    thing_t *t = new_thing(2, &destroyed);
    int h1 = register_thing(t);
    mpcrt_object_retain(&t->obj);
    int h2 = register_thing(t);
    assert_int_not_equal(h1, h2);
    assert_int_equal(t->obj.handle, h1); /* the first handle stays the object's own */
    assert_ptr_equal(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h2), &t->obj);
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h1), 0);
    assert_int_equal(destroyed, 0);
    assert_ptr_equal(mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, h2), &t->obj);
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h2), 0);
    assert_int_equal(destroyed, 1);
}

static void last_freed_index_is_reused_first(void **state)
{
    (void)state;
    int destroyed = 0;
    /* Earlier tests left a few freed indices: take them all first, so that the list starts empty. */
    enum { DRAIN = 64 };
    int drained[DRAIN];
    for (int i = 0; i < DRAIN; i++)
        drained[i] = register_thing(new_thing(0, &destroyed));
    int a = register_thing(new_thing(0, &destroyed));
    int b = register_thing(new_thing(0, &destroyed));
    int c = register_thing(new_thing(0, &destroyed));
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, b), 0);
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, a), 0);
    int d = register_thing(new_thing(0, &destroyed));
    int e = register_thing(new_thing(0, &destroyed));
    int f = register_thing(new_thing(0, &destroyed));
    assert_int_equal(d, a); /* freed last, reused first (MPICH's order; its tests rely on it) */
    assert_int_equal(e, b);
    assert_int_not_equal(f, a);
    assert_int_not_equal(f, b);
    assert_int_not_equal(f, c);
    int all[] = {c, d, e, f};
    for (int i = 0; i < 4; i++)
        assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, all[i]), 0);
    for (int i = 0; i < DRAIN; i++)
        assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, drained[i]), 0);
    assert_int_equal(destroyed, 6 + DRAIN);
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 0);
}

static void tables_grow_past_one_chunk(void **state)
{
    (void)state;
    enum { N = 3 * MPCRT_HANDLE_CHUNK_SLOTS + 17 };
    int destroyed = 0;
    int *handles = malloc(N * sizeof *handles);
    thing_t **things = malloc(N * sizeof *things);
    for (int i = 0; i < N; i++) {
        things[i] = new_thing(i, &destroyed);
        handles[i] = register_thing(things[i]);
    }
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), N);
    for (int i = 0; i < N; i++) {
        thing_t *t = (thing_t *)mpcrt_handle_lookup(MPCRT_OBJ_INTERNAL, handles[i]);
        assert_ptr_equal(t, things[i]);
        assert_int_equal(t->tag, i);
    }
    /* all handles distinct: the indices are */
    for (int i = 1; i < N; i++)
        assert_int_not_equal(handles[i], handles[i - 1]);
    for (int i = 0; i < N; i++)
        assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, handles[i]), 0);
    assert_int_equal(destroyed, N);
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_INTERNAL), 0);
    free(handles);
    free(things);
}

static void predefined_objects_ignore_reference_counting(void **state)
{
    (void)state;
    mpcrt_object_t *o = mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_DOUBLE);
    int before = atomic_load(&o->refs);
    for (int i = 0; i < 10; i++)
        mpcrt_object_release(o);
    mpcrt_object_retain(o);
    assert_int_equal(atomic_load(&o->refs), before);
    assert_ptr_equal(mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, MPI_DOUBLE), o);
}

static void user_handles_never_collide_with_predefined_ones(void **state)
{
    (void)state;
    int destroyed = 0;
    int h = register_thing(new_thing(0, &destroyed));
    /* builtin handles have kind 01, direct 10, null handles 00; ours are 11 */
    const int predefined[] = {MPI_COMM_WORLD,    MPI_INT,          MPI_FLOAT_INT,
                              MPI_DATATYPE_NULL, MPI_REQUEST_NULL, MPI_MESSAGE_NO_PROC,
                              MPI_SUM,           MPI_INFO_ENV};
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
        assert_int_not_equal(mpcrt_handle_kind(predefined[i]), mpcrt_handle_kind(h));
    assert_int_equal(mpcrt_handle_free(MPCRT_OBJ_INTERNAL, h), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predefined_handles_resolve_to_their_objects),
        cmocka_unit_test(invalid_handles_are_rejected),
        cmocka_unit_test(registered_objects_get_indirect_handles_of_their_kind),
        cmocka_unit_test(pending_references_keep_a_freed_object_alive),
        cmocka_unit_test(completed_request_handles_are_freed_once),
        cmocka_unit_test(several_handles_may_name_one_object),
        cmocka_unit_test(last_freed_index_is_reused_first),
        cmocka_unit_test(tables_grow_past_one_chunk),
        cmocka_unit_test(predefined_objects_ignore_reference_counting),
        cmocka_unit_test(user_handles_never_collide_with_predefined_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
