/* Sizes, bounds, extents and true extents (all forms), names and MPI_Type_match_size, for predefined
 * types (MPICH's pair layouts, MPI_LB/MPI_UB) and derived ones, against hand-computed values. */
#include "dt_test_util.h"

#include <limits.h>

typedef struct {
    MPI_Datatype t;
    const char *name;
    int size;
    MPI_Aint extent, true_extent;
} predefined_case_t;

static const predefined_case_t predefined_cases[] = {
    {MPI_CHAR, "MPI_CHAR", 1, 1, 1},
    {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", 1, 1, 1},
    {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 1, 1},
    {MPI_BYTE, "MPI_BYTE", 1, 1, 1},
    {MPI_WCHAR, "MPI_WCHAR", 4, 4, 4},
    {MPI_SHORT, "MPI_SHORT", 2, 2, 2},
    {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", 2, 2, 2},
    {MPI_INT, "MPI_INT", 4, 4, 4},
    {MPI_UNSIGNED, "MPI_UNSIGNED", 4, 4, 4},
    {MPI_LONG, "MPI_LONG", 8, 8, 8},
    {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", 8, 8, 8},
    {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", 8, 8, 8},
    {MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", 8, 8, 8},
    {MPI_FLOAT, "MPI_FLOAT", 4, 4, 4},
    {MPI_DOUBLE, "MPI_DOUBLE", 8, 8, 8},
    {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", 16, 16, 16},
    {MPI_PACKED, "MPI_PACKED", 1, 1, 1},
    {MPI_LB, "MPI_LB", 0, 0, 0},
    {MPI_UB, "MPI_UB", 0, 0, 0},
    {MPI_INT8_T, "MPI_INT8_T", 1, 1, 1},
    {MPI_INT16_T, "MPI_INT16_T", 2, 2, 2},
    {MPI_INT32_T, "MPI_INT32_T", 4, 4, 4},
    {MPI_INT64_T, "MPI_INT64_T", 8, 8, 8},
    {MPI_UINT8_T, "MPI_UINT8_T", 1, 1, 1},
    {MPI_UINT16_T, "MPI_UINT16_T", 2, 2, 2},
    {MPI_UINT32_T, "MPI_UINT32_T", 4, 4, 4},
    {MPI_UINT64_T, "MPI_UINT64_T", 8, 8, 8},
    {MPI_C_BOOL, "MPI_C_BOOL", 1, 1, 1},
    {MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", 8, 8, 8}, /* one handle, MPICH's name */
    {MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 16, 16, 16},
    {MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", 32, 32, 32},
    {MPI_AINT, "MPI_AINT", 8, 8, 8},
    {MPI_OFFSET, "MPI_OFFSET", 8, 8, 8},
    {MPI_COUNT, "MPI_COUNT", 8, 8, 8},
    {MPI_CXX_BOOL, "MPI_CXX_BOOL", 1, 1, 1},
    {MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", 8, 8, 8},
    {MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", 16, 16, 16},
    {MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", 32, 32, 32},
    {MPI_CHARACTER, "MPI_CHARACTER", 1, 1, 1},
    {MPI_LOGICAL, "MPI_LOGICAL", 4, 4, 4},
    {MPI_INTEGER, "MPI_INTEGER", 4, 4, 4},
    {MPI_REAL, "MPI_REAL", 4, 4, 4},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", 8, 8, 8},
    {MPI_COMPLEX, "MPI_COMPLEX", 8, 8, 8},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", 16, 16, 16},
    {MPI_INTEGER1, "MPI_INTEGER1", 1, 1, 1},
    {MPI_INTEGER2, "MPI_INTEGER2", 2, 2, 2},
    {MPI_INTEGER4, "MPI_INTEGER4", 4, 4, 4},
    {MPI_INTEGER8, "MPI_INTEGER8", 8, 8, 8},
    {MPI_REAL4, "MPI_REAL4", 4, 4, 4},
    {MPI_REAL8, "MPI_REAL8", 8, 8, 8},
    {MPI_REAL16, "MPI_REAL16", 16, 16, 16},
    {MPI_COMPLEX8, "MPI_COMPLEX8", 8, 8, 8},
    {MPI_COMPLEX16, "MPI_COMPLEX16", 16, 16, 16},
    {MPI_COMPLEX32, "MPI_COMPLEX32", 32, 32, 32},
    /* pairs: C structs {T value; int index;} (MPICH layouts) and the contiguous ones */
    {MPI_2INT, "MPI_2INT", 8, 8, 8},
    {MPI_2INTEGER, "MPI_2INTEGER", 8, 8, 8},
    {MPI_2REAL, "MPI_2REAL", 8, 8, 8},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", 16, 16, 16},
    {MPI_FLOAT_INT, "MPI_FLOAT_INT", 8, 8, 8},
    {MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 12, 16, 12},
    {MPI_LONG_INT, "MPI_LONG_INT", 12, 16, 12},
    {MPI_SHORT_INT, "MPI_SHORT_INT", 6, 8, 8},
    {MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 20, 32, 20},
};

static void predefined_sizes_extents_and_names(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof predefined_cases / sizeof predefined_cases[0]; i++) {
        const predefined_case_t *c = &predefined_cases[i];
        int size;
        MPI_Count size_x, size_c, lb_x, extent_x;
        MPI_Aint lb, extent, true_lb, true_extent;
        assert_int_equal(MPI_Type_size(c->t, &size), MPI_SUCCESS);
        assert_int_equal(size, c->size);
        MPI_Type_size_x(c->t, &size_x);
        MPI_Type_size_c(c->t, &size_c);
        assert_int_equal(size_x, c->size);
        assert_int_equal(size_c, c->size);
        MPI_Type_get_extent(c->t, &lb, &extent);
        assert_int_equal(lb, 0);
        assert_int_equal(extent, c->extent);
        MPI_Type_get_extent_x(c->t, &lb_x, &extent_x);
        assert_int_equal(extent_x, c->extent);
        MPI_Type_get_extent_c(c->t, &lb_x, &extent_x);
        assert_int_equal(extent_x, c->extent);
        MPI_Type_get_true_extent(c->t, &true_lb, &true_extent);
        assert_int_equal(true_lb, 0);
        assert_int_equal(true_extent, c->true_extent);
        /* the handle's size byte agrees, for builtin handles */
        if (((unsigned)c->t >> 30) == 1 && c->size)
            assert_int_equal(((unsigned)c->t >> 8) & 0xff, (unsigned)c->size);
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        assert_int_equal(MPI_Type_get_name(c->t, name, &len), MPI_SUCCESS);
        assert_string_equal(name, c->name);
        assert_int_equal(len, (int)strlen(c->name));
    }
    /* aliases share their handle, hence their name */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_get_name(MPI_LONG_LONG, name, &len);
    assert_string_equal(name, "MPI_LONG_LONG_INT");
    MPI_Type_get_name(MPI_C_FLOAT_COMPLEX, name, &len);
    assert_string_equal(name, "MPI_C_COMPLEX");
}

static void deprecated_bound_queries(void **state)
{
    (void)state;
    MPI_Aint extent, lb, ub;
    MPI_Type_extent(MPI_DOUBLE_INT, &extent);
    MPI_Type_lb(MPI_DOUBLE_INT, &lb);
    MPI_Type_ub(MPI_DOUBLE_INT, &ub);
    assert_int_equal(extent, 16);
    assert_int_equal(lb, 0);
    assert_int_equal(ub, 16);
}

typedef struct {
    MPI_Count size;
    MPI_Aint lb, extent, true_lb, true_extent;
} bounds_t;

static void expect_bounds(MPI_Datatype t, bounds_t b)
{
    MPI_Count size;
    MPI_Aint lb, extent, true_lb, true_extent;
    MPI_Count lb_c, extent_c, tlb_c, text_c;
    MPI_Type_size_x(t, &size);
    MPI_Type_get_extent(t, &lb, &extent);
    MPI_Type_get_true_extent(t, &true_lb, &true_extent);
    MPI_Type_get_extent_c(t, &lb_c, &extent_c);
    MPI_Type_get_true_extent_x(t, &tlb_c, &text_c);
    assert_int_equal(size, b.size);
    assert_int_equal(lb, b.lb);
    assert_int_equal(extent, b.extent);
    assert_int_equal(true_lb, b.true_lb);
    assert_int_equal(true_extent, b.true_extent);
    assert_int_equal(lb_c, b.lb);
    assert_int_equal(extent_c, b.extent);
    assert_int_equal(tlb_c, b.true_lb);
    assert_int_equal(text_c, b.true_extent);
}

static void vectors_and_indexed(void **state)
{
    (void)state;
    MPI_Datatype t;
    MPI_Type_vector(3, 2, 4, MPI_INT, &t); /* ints 0-1, 4-5, 8-9 */
    expect_bounds(t, (bounds_t){24, 0, 40, 0, 40});
    MPI_Type_free(&t);
    MPI_Type_vector(3, 1, -2, MPI_INT, &t); /* ints 0, -2, -4 */
    expect_bounds(t, (bounds_t){12, -16, 20, -16, 20});
    MPI_Type_free(&t);
    MPI_Type_create_hvector(2, 3, -10, MPI_SHORT, &t); /* bytes [0,6) and [-10,-4) */
    expect_bounds(t, (bounds_t){12, -10, 16, -10, 16});
    MPI_Type_free(&t);
    const int bl[] = {2, 0, 3, 1}, disp[] = {5, 0, -3, 9}; /* the empty block has no bound */
    MPI_Type_indexed(4, bl, disp, MPI_INT, &t);
    expect_bounds(t, (bounds_t){24, -12, 52, -12, 52});
    MPI_Type_free(&t);
    const MPI_Aint hd[] = {3, 100};
    MPI_Type_create_hindexed_block(2, 2, hd, MPI_DOUBLE, &t);
    expect_bounds(t, (bounds_t){32, 3, 113, 3, 113});
    MPI_Type_free(&t);
    MPI_Type_contiguous(0, MPI_INT, &t);
    expect_bounds(t, (bounds_t){0, 0, 0, 0, 0});
    MPI_Type_free(&t);
}

static void structs_are_padded_to_their_alignment(void **state)
{
    (void)state;
    MPI_Datatype t;
    int bl[] = {1, 1, 1};
    MPI_Aint disp[] = {0, 8, 16};
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, bl, disp, types, &t); /* data ends at 20, aligned to 8: 24 */
    expect_bounds(t, (bounds_t){13, 0, 24, 0, 20});
    MPI_Type_free(&t);
    MPI_Aint disp2[] = {0, 4};
    MPI_Datatype types2[] = {MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(2, bl, disp2, types2, &t); /* 5 -> 8 */
    expect_bounds(t, (bounds_t){5, 0, 8, 0, 5});
    MPI_Type_free(&t);
    MPI_Aint disp3[] = {0, 16};
    MPI_Datatype types3[] = {MPI_CHAR, MPI_LONG_DOUBLE};
    MPI_Type_create_struct(2, bl, disp3, types3, &t); /* long double aligns to 16: 32 */
    expect_bounds(t, (bounds_t){17, 0, 32, 0, 32});
    MPI_Type_free(&t);
    /* a vector of a padded struct steps by the padded extent */
    MPI_Datatype s, v;
    MPI_Type_create_struct(2, bl, disp2, types2, &s);
    MPI_Type_contiguous(3, s, &v);
    expect_bounds(v, (bounds_t){15, 0, 24, 0, 21});
    MPI_Type_free(&v);
    MPI_Type_free(&s);
}

static void lb_and_ub_markers_are_sticky(void **state)
{
    (void)state;
    MPI_Datatype t, c;
    int bl[] = {1, 2, 1, 1};
    MPI_Aint disp[] = {-8, 4, 24, 2};
    MPI_Datatype types[] = {MPI_LB, MPI_INT, MPI_UB, MPI_CHAR};
    MPI_Type_create_struct(4, bl, disp, types, &t); /* data [2, 12): no padding with markers */
    expect_bounds(t, (bounds_t){9, -8, 32, 2, 10});
    MPI_Type_contiguous(2, t, &c); /* markers at -8, 24 (lb) and 24, 56 (ub) */
    expect_bounds(c, (bounds_t){18, -8, 64, 2, 42});
    MPI_Type_free(&c);
    /* a marker in one component overrides the other components' bounds */
    int bl2[] = {1, 1};
    MPI_Aint disp2[] = {0, -100};
    MPI_Datatype types2[] = {t, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl2, disp2, types2, &c);
    expect_bounds(c, (bounds_t){17, -8, 32, -100, 112});
    MPI_Type_free(&c);
    MPI_Type_free(&t);
    /* only an upper marker: the lower bound comes from the data */
    int bl3[] = {1, 1};
    MPI_Aint disp3[] = {4, 40};
    MPI_Datatype types3[] = {MPI_INT, MPI_UB};
    MPI_Type_create_struct(2, bl3, disp3, types3, &t);
    expect_bounds(t, (bounds_t){4, 4, 36, 4, 4});
    MPI_Type_free(&t);
    /* a marker bounds only its side: {(MPI_LB, 10)} has ub 0 (MPICH's reading; its suite checks it) */
    int one = 1;
    MPI_Aint ten = 10;
    MPI_Datatype lb_only = MPI_LB;
    MPI_Type_create_struct(1, &one, &ten, &lb_only, &t);
    expect_bounds(t, (bounds_t){0, 10, -10, 0, 0});
    MPI_Type_free(&t);
    /* and a marker-only component does not widen the other side of a type with data */
    int bl4[] = {1, 1};
    MPI_Aint disp4[] = {-50, 8};
    MPI_Datatype types4[] = {MPI_UB, MPI_INT};
    MPI_Type_create_struct(2, bl4, disp4, types4, &t);
    expect_bounds(t, (bounds_t){4, 8, -58, 8, 4});
    MPI_Type_free(&t);
}

static void resized_types(void **state)
{
    (void)state;
    MPI_Datatype c, r, v;
    MPI_Type_contiguous(3, MPI_INT, &c);
    MPI_Type_create_resized(c, -8, 20, &r);
    expect_bounds(r, (bounds_t){12, -8, 20, 0, 12});
    MPI_Type_vector(2, 1, 2, r, &v); /* instances at 0 and 40: lb -8, ub 40 - 8 + 20 */
    expect_bounds(v, (bounds_t){24, -8, 60, 0, 52});
    MPI_Type_free(&v);
    MPI_Count lb_c, ext_c;
    MPI_Datatype rc;
    MPI_Type_create_resized_c(c, 1000, 1 << 20, &rc);
    MPI_Type_get_extent_c(rc, &lb_c, &ext_c);
    assert_int_equal(lb_c, 1000);
    assert_int_equal(ext_c, 1 << 20);
    MPI_Type_free(&rc);
    /* a resized type is contiguous when its extent matches its data */
    MPI_Type_create_resized(c, 0, 12, &v);
    assert_true(mpcrt_datatype_is_contiguous(mpcrt_datatype_get(v)));
    assert_false(mpcrt_datatype_is_contiguous(mpcrt_datatype_get(r)));
    MPI_Type_free(&v);
    MPI_Type_free(&r);
    MPI_Type_free(&c);
}

static void large_types_and_large_count_constructors(void **state)
{
    (void)state;
    MPI_Datatype big, three;
    MPI_Type_contiguous(1 << 30, MPI_CHAR, &big);
    MPI_Type_contiguous(3, big, &three);
    int size;
    MPI_Count size_x;
    MPI_Type_size(three, &size);
    MPI_Type_size_x(three, &size_x);
    assert_int_equal(size, MPI_UNDEFINED);
    assert_int_equal(size_x, 3L << 30);
    MPI_Type_free(&three);
    MPI_Type_free(&big);
    MPI_Type_contiguous_c(5L << 30, MPI_SHORT, &big);
    MPI_Type_size_c(big, &size_x);
    assert_int_equal(size_x, 10L << 30);
    MPI_Type_free(&big);
    MPI_Type_vector_c(3, 2, 4, MPI_INT, &big);
    expect_bounds(big, (bounds_t){24, 0, 40, 0, 40});
    MPI_Type_free(&big);
    const MPI_Count bl[] = {2, 3}, disp[] = {-3, 10};
    MPI_Type_indexed_c(2, bl, disp, MPI_INT, &big);
    expect_bounds(big, (bounds_t){20, -12, 64, -12, 64});
    MPI_Type_free(&big);
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE};
    const MPI_Count sdisp[] = {0, 8}, sbl[] = {1, 1};
    MPI_Type_create_struct_c(2, sbl, sdisp, types, &big);
    expect_bounds(big, (bounds_t){9, 0, 16, 0, 16});
    MPI_Type_free(&big);
}

static void names_can_be_set_and_are_not_inherited(void **state)
{
    (void)state;
    MPI_Datatype t, d;
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_contiguous(2, MPI_INT, &t);
    MPI_Type_get_name(t, name, &len);
    assert_string_equal(name, "");
    assert_int_equal(len, 0);
    MPI_Type_set_name(t, "pair of ints");
    MPI_Type_get_name(t, name, &len);
    assert_string_equal(name, "pair of ints");
    assert_int_equal(len, 12);
    MPI_Type_dup(t, &d);
    MPI_Type_get_name(d, name, &len);
    assert_string_equal(name, "");
    /* longer names are truncated */
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    MPI_Type_set_name(d, longname);
    MPI_Type_get_name(d, name, &len);
    assert_int_equal(len, MPI_MAX_OBJECT_NAME - 1);
    MPI_Type_free(&d);
    MPI_Type_free(&t);
    /* predefined types can be renamed */
    MPI_Type_set_name(MPI_BYTE, "octet");
    MPI_Type_get_name(MPI_BYTE, name, &len);
    assert_string_equal(name, "octet");
    MPI_Type_set_name(MPI_BYTE, "MPI_BYTE");
}

static void match_size_returns_fortran_types(void **state)
{
    (void)state;
    MPI_Datatype t;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t);
    assert_int_equal(t, MPI_REAL4);
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t);
    assert_int_equal(t, MPI_REAL8);
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 16, &t);
    assert_int_equal(t, MPI_REAL16);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 1, &t);
    assert_int_equal(t, MPI_INTEGER1);
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 8, &t);
    assert_int_equal(t, MPI_INTEGER8);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &t);
    assert_int_equal(t, MPI_COMPLEX16);
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 32, &t);
    assert_int_equal(t, MPI_COMPLEX32);
}

static void basic_type_for_reductions(void **state)
{
    (void)state;
    MPI_Datatype c, s;
    MPI_Count n;
    MPI_Type_contiguous(4, MPI_DOUBLE_INT, &c);
    assert_int_equal(mpcrt_datatype_basic_type(mpcrt_datatype_get(c), &n), MPI_DOUBLE_INT);
    assert_int_equal(n, 4);
    MPI_Type_vector(3, 2, 5, c, &s);
    assert_int_equal(mpcrt_datatype_basic_type(mpcrt_datatype_get(s), &n), MPI_DOUBLE_INT);
    assert_int_equal(n, 24);
    MPI_Type_free(&s);
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &s);
    assert_int_equal(mpcrt_datatype_basic_type(mpcrt_datatype_get(s), &n), MPI_DATATYPE_NULL);
    MPI_Type_free(&s);
    assert_int_equal(mpcrt_datatype_basic_type(mpcrt_datatype_get(MPI_FLOAT), &n), MPI_FLOAT);
    assert_int_equal(n, 1);
    MPI_Type_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predefined_sizes_extents_and_names),
        cmocka_unit_test(deprecated_bound_queries),
        cmocka_unit_test(vectors_and_indexed),
        cmocka_unit_test(structs_are_padded_to_their_alignment),
        cmocka_unit_test(lb_and_ub_markers_are_sticky),
        cmocka_unit_test(resized_types),
        cmocka_unit_test(large_types_and_large_count_constructors),
        cmocka_unit_test(names_can_be_set_and_are_not_inherited),
        cmocka_unit_test(match_size_returns_fortran_types),
        cmocka_unit_test(basic_type_for_reductions),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
