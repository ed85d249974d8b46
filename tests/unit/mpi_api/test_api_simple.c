/* The small real definitions of runtime/mpi/api/simple.c: handle conversions called as functions (mpi.h
 * also has them as macros), status conversions between C, Fortran and Fortran 2008, address arithmetic,
 * MPI_Pcontrol. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <mpi.h>

static void handle_conversions_are_identities_as_functions(void **state)
{
    (void)state;
    /* the parentheses call the functions rather than the macros */
    assert_int_equal((MPI_Comm_c2f)(MPI_COMM_WORLD), MPI_Comm_c2f(MPI_COMM_WORLD));
    assert_int_equal((MPI_Comm_f2c)((MPI_Comm_c2f)(MPI_COMM_SELF)), MPI_COMM_SELF);
    assert_int_equal((PMPI_Comm_f2c)((PMPI_Comm_c2f)(MPI_COMM_SELF)), MPI_COMM_SELF);
    assert_int_equal((MPI_Type_f2c)((MPI_Type_c2f)(MPI_DOUBLE)), MPI_DOUBLE);
    assert_int_equal((MPI_Group_f2c)((MPI_Group_c2f)(MPI_GROUP_EMPTY)), MPI_GROUP_EMPTY);
    assert_int_equal((MPI_Info_f2c)((MPI_Info_c2f)(MPI_INFO_ENV)), MPI_INFO_ENV);
    assert_int_equal((MPI_Request_f2c)((MPI_Request_c2f)(MPI_REQUEST_NULL)), MPI_REQUEST_NULL);
    assert_int_equal((MPI_Op_f2c)((MPI_Op_c2f)(MPI_SUM)), MPI_SUM);
    assert_int_equal((MPI_Errhandler_f2c)((MPI_Errhandler_c2f)(MPI_ERRORS_RETURN)), MPI_ERRORS_RETURN);
    assert_int_equal((MPI_Win_f2c)((MPI_Win_c2f)(MPI_WIN_NULL)), MPI_WIN_NULL);
    assert_int_equal((MPI_Message_f2c)((MPI_Message_c2f)(MPI_MESSAGE_NO_PROC)), MPI_MESSAGE_NO_PROC);
    assert_int_equal((MPI_Session_f2c)((MPI_Session_c2f)(MPI_SESSION_NULL)), MPI_SESSION_NULL);
}

static void the_null_file_converts_both_ways(void **state)
{
    (void)state;
    assert_int_equal(MPI_File_c2f(MPI_FILE_NULL), 0);
    assert_null(MPI_File_f2c(0));
    assert_null(PMPI_File_f2c(PMPI_File_c2f(MPI_FILE_NULL)));
}

static void statuses_survive_every_conversion(void **state)
{
    (void)state;
    const MPI_Status c = {.count_lo = 123456, .count_hi_and_cancelled = 3, .MPI_SOURCE = 7, .MPI_TAG = 42,
                          .MPI_ERROR = MPI_ERR_TRUNCATE};
    MPI_Fint f[MPI_F_STATUS_SIZE];
    MPI_F08_status f08;
    MPI_Status back;

    assert_int_equal(MPI_Status_c2f(&c, f), MPI_SUCCESS);
    assert_int_equal(f[MPI_F_SOURCE], 7);
    assert_int_equal(f[MPI_F_TAG], 42);
    assert_int_equal(f[MPI_F_ERROR], MPI_ERR_TRUNCATE);
    assert_int_equal(MPI_Status_f2f08(f, &f08), MPI_SUCCESS);
    assert_int_equal(f08.MPI_SOURCE, 7);
    assert_int_equal(f08.count_lo, 123456);
    assert_int_equal(MPI_Status_f082c(&f08, &back), MPI_SUCCESS);
    assert_memory_equal(&back, &c, sizeof c);

    MPI_Fint f2[MPI_F_STATUS_SIZE];
    assert_int_equal(MPI_Status_c2f08(&c, &f08), MPI_SUCCESS);
    assert_int_equal(MPI_Status_f082f(&f08, f2), MPI_SUCCESS);
    assert_memory_equal(f2, f, sizeof f);
    assert_int_equal(PMPI_Status_f2c(f2, &back), MPI_SUCCESS);
    assert_memory_equal(&back, &c, sizeof c);

}

static void address_arithmetic_wraps_like_unsigned(void **state)
{
    (void)state;
    char buf[64];
    MPI_Aint base = (MPI_Aint)(size_t)buf;
    assert_int_equal(MPI_Aint_add(base, 40), (MPI_Aint)(size_t)(buf + 40));
    assert_int_equal(MPI_Aint_diff((MPI_Aint)(size_t)(buf + 40), base), 40);
    assert_int_equal(PMPI_Aint_diff(base, (MPI_Aint)(size_t)(buf + 8)), -8);
}

static void pcontrol_accepts_any_level(void **state)
{
    (void)state;
    assert_int_equal(MPI_Pcontrol(0), MPI_SUCCESS);
    assert_int_equal(MPI_Pcontrol(2, "extra", 3.5), MPI_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(handle_conversions_are_identities_as_functions),
        cmocka_unit_test(the_null_file_converts_both_ways),
        cmocka_unit_test(statuses_survive_every_conversion),
        cmocka_unit_test(address_arithmetic_wraps_like_unsigned),
        cmocka_unit_test(pcontrol_accepts_any_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
