/* Statuses and addresses: MPI_Get_count / MPI_Get_elements (and `_x`, `_c`) for basic, pair and mixed
 * types, MPI_Status_set_elements(_x) with MPICH's count_lo / count_hi_and_cancelled layout, the cancelled
 * flag, MPI_Get_address, MPI_Aint_add / MPI_Aint_diff. */
#include "dt_test_util.h"

#include <limits.h>

static MPI_Status fresh(void)
{
    MPI_Status s;
    memset(&s, 0, sizeof s);
    s.MPI_SOURCE = 3;
    s.MPI_TAG = 9;
    return s;
}

static int count_of(const MPI_Status *s, MPI_Datatype t)
{
    int n = -99;
    assert_int_equal(MPI_Get_count(s, t, &n), MPI_SUCCESS);
    return n;
}

static int elements_of(const MPI_Status *s, MPI_Datatype t)
{
    int n = -99;
    assert_int_equal(MPI_Get_elements(s, t, &n), MPI_SUCCESS);
    return n;
}

static void counts_of_basic_types(void **state)
{
    (void)state;
    MPI_Status s = fresh();
    assert_int_equal(MPI_Status_set_elements(&s, MPI_INT, 5), MPI_SUCCESS);
    assert_int_equal(s.count_lo, 20); /* bytes */
    assert_int_equal(s.count_hi_and_cancelled, 0);
    assert_int_equal(s.MPI_SOURCE, 3); /* other fields untouched */
    assert_int_equal(s.MPI_TAG, 9);
    assert_int_equal(count_of(&s, MPI_INT), 5);
    assert_int_equal(count_of(&s, MPI_SHORT), 10);
    assert_int_equal(count_of(&s, MPI_DOUBLE), MPI_UNDEFINED); /* 20 bytes = 2.5 doubles */
    assert_int_equal(elements_of(&s, MPI_DOUBLE), MPI_UNDEFINED); /* same as the count on basic types */
    assert_int_equal(count_of(&s, MPI_LB), 0); /* zero-size type: count 0 */
    MPI_Status_set_elements(&s, MPI_INT, 0);
    assert_int_equal(count_of(&s, MPI_INT), 0);
    assert_int_equal(elements_of(&s, MPI_INT), 0);
}

static void counts_of_pair_and_mixed_types(void **state)
{
    (void)state;
    MPI_Status s = fresh();
    /* MPI_DOUBLE_INT: 12 bytes and two elements per item */
    MPI_Status_set_elements(&s, MPI_DOUBLE_INT, 4);
    assert_int_equal(s.count_lo, 24);
    assert_int_equal(count_of(&s, MPI_DOUBLE_INT), 2);
    assert_int_equal(elements_of(&s, MPI_DOUBLE_INT), 4);
    MPI_Status_set_elements(&s, MPI_DOUBLE_INT, 3); /* one item and its double */
    assert_int_equal(s.count_lo, 20);
    assert_int_equal(count_of(&s, MPI_DOUBLE_INT), MPI_UNDEFINED);
    assert_int_equal(elements_of(&s, MPI_DOUBLE_INT), 3);

    /* struct {int; double; char[3]}: 3 element kinds, 15 bytes, 5 elements per instance */
    MPI_Datatype t;
    int bl[] = {1, 1, 3};
    MPI_Aint disp[] = {0, 8, 16};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Type_create_struct(3, bl, disp, types, &t);
    MPI_Status_set_elements(&s, t, 5 + 2); /* one instance, then an int and a double */
    assert_int_equal(s.count_lo, 15 + 12);
    assert_int_equal(elements_of(&s, t), 7);
    assert_int_equal(count_of(&s, t), MPI_UNDEFINED);
    MPI_Status_set_elements(&s, t, 10);
    assert_int_equal(count_of(&s, t), 2);
    /* bytes that end inside an element did not come from this type signature */
    MPI_Status_set_elements(&s, MPI_CHAR, 15 + 4 + 5);
    assert_int_equal(elements_of(&s, t), MPI_UNDEFINED);
    MPI_Count n = 0;
    MPI_Get_elements_x(&s, t, &n);
    assert_int_equal(n, MPI_UNDEFINED);
    MPI_Type_free(&t);

    /* a vector of a single type counts elements by size, whatever the layout */
    MPI_Type_vector(3, 2, 7, MPI_SHORT, &t);
    MPI_Status_set_elements(&s, MPI_BYTE, 10);
    assert_int_equal(elements_of(&s, t), 5);
    assert_int_equal(count_of(&s, t), MPI_UNDEFINED);
    MPI_Type_free(&t);
}

static void large_counts_use_the_high_bits(void **state)
{
    (void)state;
    MPI_Status s = fresh();
    MPI_Count big = (5L << 32) + 7;
    assert_int_equal(MPI_Status_set_elements_x(&s, MPI_CHAR, big), MPI_SUCCESS);
    assert_int_equal(s.count_lo, 7);
    assert_int_equal(s.count_hi_and_cancelled, 5 << 1);
    MPI_Count n;
    MPI_Get_elements_x(&s, MPI_CHAR, &n);
    assert_int_equal(n, big);
    MPI_Get_elements_c(&s, MPI_CHAR, &n);
    assert_int_equal(n, big);
    MPI_Get_count_c(&s, MPI_CHAR, &n);
    assert_int_equal(n, big);
    assert_int_equal(count_of(&s, MPI_CHAR), MPI_UNDEFINED); /* does not fit an int */
    assert_int_equal(elements_of(&s, MPI_CHAR), MPI_UNDEFINED);
    /* 3 * 2^31 bytes of ints: the count fits an int */
    MPI_Status_set_elements_x(&s, MPI_INT, 3L << 29);
    assert_int_equal(count_of(&s, MPI_INT), 3 << 29);
    assert_int_equal((unsigned)s.count_lo, 0x80000000u);
    /* the MPI 4.0 large-count form writes the same fields */
    assert_int_equal(MPI_Status_set_elements_c(&s, MPI_SHORT, (1L << 33) + 3), MPI_SUCCESS);
    MPI_Get_elements_c(&s, MPI_SHORT, &n);
    assert_int_equal(n, (1L << 33) + 3);
    assert_int_equal(s.count_lo, 6);
    assert_int_equal(s.count_hi_and_cancelled, 4 << 1);
}

static void cancelled_flag_is_bit_zero(void **state)
{
    (void)state;
    MPI_Status s = fresh();
    int flag = -1;
    MPI_Test_cancelled(&s, &flag);
    assert_int_equal(flag, 0);
    MPI_Status_set_elements_x(&s, MPI_BYTE, (3L << 32) + 1);
    assert_int_equal(MPI_Status_set_cancelled(&s, 1), MPI_SUCCESS);
    MPI_Test_cancelled(&s, &flag);
    assert_int_equal(flag, 1);
    assert_int_equal(s.count_hi_and_cancelled, (3 << 1) | 1);
    MPI_Count n;
    MPI_Get_count_c(&s, MPI_BYTE, &n); /* the count does not see the flag */
    assert_int_equal(n, (3L << 32) + 1);
    MPI_Status_set_elements(&s, MPI_BYTE, 10); /* and setting the count keeps it */
    MPI_Test_cancelled(&s, &flag);
    assert_int_equal(flag, 1);
    MPI_Status_set_cancelled(&s, 0);
    MPI_Test_cancelled(&s, &flag);
    assert_int_equal(flag, 0);
    assert_int_equal(count_of(&s, MPI_BYTE), 10);
}

static void addresses(void **state)
{
    (void)state;
    double a[4] = {0};
    MPI_Aint p0, p3;
    MPI_Get_address(&a[0], &p0);
    MPI_Get_address(&a[3], &p3);
    assert_int_equal(p0, (MPI_Aint)(uintptr_t)&a[0]);
    assert_int_equal(MPI_Aint_diff(p3, p0), 24);
    assert_int_equal(MPI_Aint_add(p0, 24), p3);
    assert_int_equal(MPI_Aint_add(p3, -24), p0);
    assert_int_equal(PMPI_Aint_diff(p0, p3), -24);
    MPI_Aint old;
    MPI_Address(&a[1], &old);
    assert_int_equal(old, p0 + 8);
    MPI_Aint bottom;
    MPI_Get_address(MPI_BOTTOM, &bottom);
    assert_int_equal(bottom, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_of_basic_types),
        cmocka_unit_test(counts_of_pair_and_mixed_types),
        cmocka_unit_test(large_counts_use_the_high_bits),
        cmocka_unit_test(cancelled_flag_is_bit_zero),
        cmocka_unit_test(addresses),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
