/* MPI_Type_get_envelope / MPI_Type_get_contents (and `_c`): every combiner returns exactly the constructor's
 * arguments, predefined types are MPI_COMBINER_NAMED, and inner types follow the handle rules (predefined:
 * the same handle; derived: a new handle to free, valid independently of the original). */
#include "dt_test_util.h"

typedef struct {
    int ni, na, nd, combiner;
    int ints[32];
    MPI_Aint aints[16];
    MPI_Datatype types[16];
} contents_t;

static contents_t get(MPI_Datatype t)
{
    contents_t c;
    memset(&c, 0, sizeof c);
    assert_int_equal(MPI_Type_get_envelope(t, &c.ni, &c.na, &c.nd, &c.combiner), MPI_SUCCESS);
    assert_true(c.ni <= 32 && c.na <= 16 && c.nd <= 16);
    assert_int_equal(MPI_Type_get_contents(t, c.ni, c.na, c.nd, c.ints, c.aints, c.types), MPI_SUCCESS);
    return c;
}

static void release(contents_t *c)
{
    for (int i = 0; i < c->nd; i++)
        free_if_derived(c->types[i]);
}

static void expect_envelope(const contents_t *c, int combiner, int ni, int na, int nd)
{
    assert_int_equal(c->combiner, combiner);
    assert_int_equal(c->ni, ni);
    assert_int_equal(c->na, na);
    assert_int_equal(c->nd, nd);
}

static void predefined_types_are_named(void **state)
{
    (void)state;
    const MPI_Datatype all[] = {MPI_INT, MPI_LB, MPI_UB, MPI_PACKED, MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT,
                                MPI_LONG_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT, MPI_COMPLEX32, MPI_AINT};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        int ni = -1, na = -1, nd = -1, combiner = -1;
        assert_int_equal(MPI_Type_get_envelope(all[i], &ni, &na, &nd, &combiner), MPI_SUCCESS);
        assert_int_equal(combiner, MPI_COMBINER_NAMED);
        assert_int_equal(ni + na + nd, 0);
        MPI_Count cni, cna, cnc, cnd;
        assert_int_equal(MPI_Type_get_envelope_c(all[i], &cni, &cna, &cnc, &cnd, &combiner), MPI_SUCCESS);
        assert_int_equal(combiner, MPI_COMBINER_NAMED);
        assert_int_equal(cni + cna + cnc + cnd, 0);
    }
}

static void simple_constructors(void **state)
{
    (void)state;
    MPI_Datatype t;
    contents_t c;
    MPI_Type_contiguous(7, MPI_DOUBLE, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    assert_int_equal(c.ints[0], 7);
    assert_int_equal(c.types[0], MPI_DOUBLE);
    MPI_Type_free(&t);

    MPI_Type_vector(3, 2, -5, MPI_SHORT, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_VECTOR, 3, 0, 1);
    assert_int_equal(c.ints[0], 3);
    assert_int_equal(c.ints[1], 2);
    assert_int_equal(c.ints[2], -5);
    assert_int_equal(c.types[0], MPI_SHORT);
    MPI_Type_free(&t);

    MPI_Type_create_hvector(4, 1, 1001, MPI_CHAR, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_HVECTOR, 2, 1, 1);
    assert_int_equal(c.ints[0], 4);
    assert_int_equal(c.ints[1], 1);
    assert_int_equal(c.aints[0], 1001);
    MPI_Type_free(&t);

    MPI_Type_create_resized(MPI_INT, -4, 12, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_RESIZED, 0, 2, 1);
    assert_int_equal(c.aints[0], -4);
    assert_int_equal(c.aints[1], 12);
    assert_int_equal(c.types[0], MPI_INT);
    MPI_Type_free(&t);

    MPI_Type_dup(MPI_FLOAT_INT, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_DUP, 0, 0, 1);
    assert_int_equal(c.types[0], MPI_FLOAT_INT);
    MPI_Type_free(&t);
}

static void block_list_constructors(void **state)
{
    (void)state;
    MPI_Datatype t;
    contents_t c;
    const int bl[] = {2, 0, 5}, disp[] = {-1, 4, 9};
    MPI_Type_indexed(3, bl, disp, MPI_INT, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_INDEXED, 7, 0, 1);
    const int expect_indexed[] = {3, 2, 0, 5, -1, 4, 9};
    assert_memory_equal(c.ints, expect_indexed, sizeof expect_indexed);
    MPI_Type_free(&t);

    const MPI_Aint hdisp[] = {-16, 0, 1 << 20};
    MPI_Type_create_hindexed(3, bl, hdisp, MPI_DOUBLE, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_HINDEXED, 4, 3, 1);
    const int expect_hindexed[] = {3, 2, 0, 5};
    assert_memory_equal(c.ints, expect_hindexed, sizeof expect_hindexed);
    assert_memory_equal(c.aints, hdisp, sizeof hdisp);
    MPI_Type_free(&t);

    MPI_Type_create_indexed_block(3, 4, disp, MPI_BYTE, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_INDEXED_BLOCK, 5, 0, 1);
    const int expect_iblock[] = {3, 4, -1, 4, 9};
    assert_memory_equal(c.ints, expect_iblock, sizeof expect_iblock);
    MPI_Type_free(&t);

    MPI_Type_create_hindexed_block(3, 4, hdisp, MPI_BYTE, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_HINDEXED_BLOCK, 2, 3, 1);
    assert_int_equal(c.ints[0], 3);
    assert_int_equal(c.ints[1], 4);
    assert_memory_equal(c.aints, hdisp, sizeof hdisp);
    MPI_Type_free(&t);

    int sbl[] = {1, 3, 1};
    MPI_Aint sdisp[] = {0, 8, 40};
    MPI_Datatype stypes[] = {MPI_CHAR, MPI_DOUBLE, MPI_UB};
    MPI_Type_create_struct(3, sbl, sdisp, stypes, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_STRUCT, 4, 3, 3);
    const int expect_struct[] = {3, 1, 3, 1};
    assert_memory_equal(c.ints, expect_struct, sizeof expect_struct);
    assert_memory_equal(c.aints, sdisp, sizeof sdisp);
    assert_memory_equal(c.types, stypes, sizeof stypes);
    MPI_Type_free(&t);
}

static void subarray_and_darray(void **state)
{
    (void)state;
    MPI_Datatype t;
    contents_t c;
    const int sizes[] = {8, 9}, subsizes[] = {2, 3}, starts[] = {1, 4};
    MPI_Type_create_subarray(2, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_INT, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_SUBARRAY, 8, 0, 1);
    const int expect_sub[] = {2, 8, 9, 2, 3, 1, 4, MPI_ORDER_FORTRAN};
    assert_memory_equal(c.ints, expect_sub, sizeof expect_sub);
    assert_int_equal(c.types[0], MPI_INT);
    MPI_Type_free(&t);

    const int gs[] = {10, 6}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
              dargs[] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[] = {2, 3};
    MPI_Type_create_darray(6, 4, 2, gs, dist, dargs, ps, MPI_ORDER_C, MPI_DOUBLE, &t);
    c = get(t);
    expect_envelope(&c, MPI_COMBINER_DARRAY, 12, 0, 1);
    const int expect_dar[] = {6, 4, 2, 10, 6, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                              MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 3, MPI_ORDER_C};
    assert_memory_equal(c.ints, expect_dar, sizeof expect_dar);
    assert_int_equal(c.types[0], MPI_DOUBLE);
    MPI_Type_free(&t);
}

static void derived_inner_types_come_back_as_new_handles(void **state)
{
    (void)state;
    MPI_Datatype inner, outer;
    MPI_Type_vector(2, 1, 3, MPI_INT, &inner);
    MPI_Type_contiguous(5, inner, &outer);
    contents_t c = get(outer);
    expect_envelope(&c, MPI_COMBINER_CONTIGUOUS, 1, 0, 1);
    MPI_Datatype returned = c.types[0];
    assert_int_not_equal(returned, inner); /* a handle of its own, to be freed by the caller */
    contents_t ic = get(returned);         /* it decodes like the original */
    expect_envelope(&ic, MPI_COMBINER_VECTOR, 3, 0, 1);
    assert_int_equal(ic.ints[2], 3);
    /* the original and the returned handle are independent */
    MPI_Type_free(&inner);
    MPI_Count size;
    assert_int_equal(MPI_Type_size_x(returned, &size), MPI_SUCCESS);
    assert_int_equal(size, 8);
    /* a second call gives yet another handle */
    contents_t again = get(outer);
    assert_int_not_equal(again.types[0], returned);
    release(&again);
    assert_int_equal(MPI_Type_free(&returned), MPI_SUCCESS);
    /* the outer type still works after every inner handle is gone */
    check_pack(outer, 2);
    MPI_Type_free(&outer);
}

static void large_count_constructors_use_the_count_array(void **state)
{
    (void)state;
    MPI_Datatype t;
    MPI_Count ni, na, nc, nd;
    int combiner;
    const MPI_Count bl[] = {1, 2}, disp[] = {3, 1L << 33};
    MPI_Type_create_hindexed_c(2, bl, disp, MPI_CHAR, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner);
    assert_int_equal(combiner, MPI_COMBINER_HINDEXED);
    assert_int_equal(ni, 0);
    assert_int_equal(na, 0);
    assert_int_equal(nc, 5);
    assert_int_equal(nd, 1);
    MPI_Count counts[5];
    MPI_Datatype types[1];
    assert_int_equal(MPI_Type_get_contents_c(t, 0, 0, 5, 1, NULL, NULL, counts, types), MPI_SUCCESS);
    const MPI_Count expect[] = {2, 1, 2, 3, 1L << 33};
    assert_memory_equal(counts, expect, sizeof expect);
    assert_int_equal(types[0], MPI_CHAR);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    assert_int_equal(lb, 3);
    assert_int_equal(extent, (1L << 33) + 2 - 3);
    MPI_Type_free(&t);

    const MPI_Count sizes[] = {4, 5}, sub[] = {2, 2}, st[] = {1, 3};
    MPI_Type_create_subarray_c(2, sizes, sub, st, MPI_ORDER_C, MPI_INT, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner);
    assert_int_equal(combiner, MPI_COMBINER_SUBARRAY);
    assert_int_equal(ni, 2);
    assert_int_equal(nc, 6);
    int ints[2];
    MPI_Count sc[6];
    MPI_Type_get_contents_c(t, 2, 0, 6, 1, ints, NULL, sc, types);
    assert_int_equal(ints[0], 2);
    assert_int_equal(ints[1], MPI_ORDER_C);
    const MPI_Count expect_sc[] = {4, 5, 2, 2, 1, 3};
    assert_memory_equal(sc, expect_sc, sizeof expect_sc);
    MPI_Type_free(&t);

    /* the `_c` query on a type built the classic way: no large counts */
    MPI_Type_vector(2, 2, 2, MPI_INT, &t);
    MPI_Type_get_envelope_c(t, &ni, &na, &nc, &nd, &combiner);
    assert_int_equal(ni, 3);
    assert_int_equal(nc, 0);
    MPI_Type_free(&t);
}

static void dup_keeps_the_committed_state(void **state)
{
    (void)state;
    long live = mpcrt_handle_count(MPCRT_OBJ_DATATYPE);
    MPI_Datatype t, d1, d2, d3;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_dup(t, &d1);
    assert_false(mpcrt_datatype_is_committed(mpcrt_datatype_get(d1)));
    MPI_Type_commit(&t);
    MPI_Type_dup(t, &d2);
    assert_true(mpcrt_datatype_is_committed(mpcrt_datatype_get(d2)));
    MPI_Type_dup(MPI_INT, &d3); /* predefined types are committed */
    assert_true(mpcrt_datatype_is_committed(mpcrt_datatype_get(d3)));
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_DATATYPE), live + 4);
    MPI_Type_free(&d1);
    MPI_Type_free(&d2);
    MPI_Type_free(&d3);
    MPI_Type_free(&t);
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_DATATYPE), live);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predefined_types_are_named),
        cmocka_unit_test(simple_constructors),
        cmocka_unit_test(block_list_constructors),
        cmocka_unit_test(subarray_and_darray),
        cmocka_unit_test(derived_inner_types_come_back_as_new_handles),
        cmocka_unit_test(large_count_constructors_use_the_count_array),
        cmocka_unit_test(dup_keeps_the_committed_state),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
