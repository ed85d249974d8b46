/* Argument checking: every misuse raises the right error class through mpcrt_mpi_error. Fatal errors end the
 * process with the class as its exit status, so each case runs once in a child process (its exit status and
 * one-line message are checked), then in-process under MPI_ERRORS_RETURN (its return value). */
#include "dt_test_util.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child; returns its exit status and leaves its stderr in `message`. */
static int run_child(int (*fn)(void), char *message, size_t size)
{
    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(pipefd[0]);
        dup2(pipefd[1], 2);
        fn();
        _exit(0); /* no error raised */
    }
    close(pipefd[1]);
    size_t n = 0;
    ssize_t r;
    while (n + 1 < size && (r = read(pipefd[0], message + n, size - 1 - n)) > 0)
        n += (size_t)r;
    message[n] = '\0';
    close(pipefd[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static void expect_fatal(int (*fn)(void), int error_class, const char *function)
{
    char message[1024];
    int code = run_child(fn, message, sizeof message);
    if (code != error_class)
        fail_msg("expected error class %d from %s, got exit status %d: %s", error_class, function, code, message);
    if (!strstr(message, function))
        fail_msg("the message does not name %s: %s", function, message);
}

static MPI_Datatype t;

static int negative_count(void) { return MPI_Type_vector(-1, 1, 1, MPI_INT, &t); }
static int null_oldtype(void) { return MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t); }
static int comm_as_datatype(void) { return MPI_Type_contiguous(1, (MPI_Datatype)MPI_COMM_WORLD, &t); }
static int freed_handle(void)
{
    MPI_Datatype a, stale;
    MPI_Type_contiguous(2, MPI_INT, &a);
    stale = a;
    MPI_Type_free(&a);
    int size;
    return MPI_Type_size(stale, &size);
}
static int negative_blocklength(void)
{
    int bl[] = {1, -1}, disp[] = {0, 4};
    return MPI_Type_indexed(2, bl, disp, MPI_INT, &t);
}
static int null_newtype(void) { return MPI_Type_dup(MPI_INT, NULL); }
static int null_displacements(void)
{
    int bl[] = {1};
    return MPI_Type_create_hindexed(1, bl, NULL, MPI_INT, &t);
}
static int bad_struct_member(void)
{
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_OP_NULL};
    return MPI_Type_create_struct(2, bl, disp, types, &t);
}
static int pack_uncommitted(void)
{
    int in[2] = {0}, pos = 0;
    char out[8];
    MPI_Type_contiguous(2, MPI_INT, &t);
    return MPI_Pack(in, 1, t, out, 8, &pos, MPI_COMM_WORLD);
}
static int pack_overflow(void)
{
    int in[3] = {0}, pos = 4;
    char out[12];
    return MPI_Pack(in, 3, MPI_INT, out, 12, &pos, MPI_COMM_WORLD);
}
static int unpack_short_input(void)
{
    int out[3], pos = 0;
    char in[8] = {0};
    return MPI_Unpack(in, 8, &pos, out, 3, MPI_INT, MPI_COMM_WORLD);
}
static int pack_null_comm(void)
{
    int in = 0, pos = 0;
    char out[4];
    return MPI_Pack(&in, 1, MPI_INT, out, 4, &pos, MPI_COMM_NULL);
}
static int free_predefined(void)
{
    MPI_Datatype a = MPI_INT;
    return MPI_Type_free(&a);
}
static int contents_of_named(void)
{
    int i;
    MPI_Aint a;
    MPI_Datatype d;
    return MPI_Type_get_contents(MPI_INT, 1, 1, 1, &i, &a, &d);
}
static int contents_arrays_too_small(void)
{
    int ints[2];
    MPI_Aint a[1];
    MPI_Datatype d[1];
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    return MPI_Type_get_contents(t, 2, 0, 1, ints, a, d);
}
static int classic_envelope_of_large_type(void)
{
    int ni, na, nd, c;
    MPI_Type_contiguous_c(3, MPI_INT, &t);
    return MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
}
static int match_size_unknown(void) { return MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t); }
static int match_size_bad_class(void) { return MPI_Type_match_size(42, 4, &t); }
static int native_datarep(void)
{
    int in = 0;
    char out[4];
    MPI_Aint pos = 0;
    return MPI_Pack_external("native", &in, 1, MPI_INT, out, 4, &pos);
}
static int f90_real(void) { return MPI_Type_create_f90_real(6, 30, &t); }
static int subarray_out_of_range(void)
{
    int sizes[] = {4}, sub[] = {3}, starts[] = {2};
    return MPI_Type_create_subarray(1, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
}
static int subarray_bad_order(void)
{
    int sizes[] = {4}, sub[] = {3}, starts[] = {0};
    return MPI_Type_create_subarray(1, sizes, sub, starts, 7, MPI_INT, &t);
}
static int darray_bad_grid(void)
{
    int g[] = {8}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {3};
    return MPI_Type_create_darray(4, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
}
static int darray_small_blocks(void)
{
    int g[] = {8}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {2}, ps[] = {2};
    return MPI_Type_create_darray(2, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
}
static int count_with_status_ignore(void)
{
    int n;
    return MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n);
}
static int set_negative_elements(void)
{
    MPI_Status s;
    return MPI_Status_set_elements(&s, MPI_INT, -3);
}
static int commit_null(void) { return MPI_Type_commit(NULL); }
static int valid_calls_raise_nothing(void)
{
    MPI_Datatype a;
    MPI_Type_contiguous(0, MPI_INT, &a);
    MPI_Type_commit(&a);
    int pos = 0;
    MPI_Pack(NULL, 0, a, NULL, 0, &pos, MPI_COMM_SELF);
    return MPI_Type_free(&a);
}

typedef struct {
    int (*fn)(void);
    int error_class;
    const char *function;
} error_case_t;

static const error_case_t cases[] = {
    {negative_count, MPI_ERR_COUNT, "MPI_Type_vector"},
    {null_oldtype, MPI_ERR_TYPE, "MPI_Type_contiguous"},
    {comm_as_datatype, MPI_ERR_TYPE, "MPI_Type_contiguous"},
    {freed_handle, MPI_ERR_TYPE, "MPI_Type_size"},
    {negative_blocklength, MPI_ERR_ARG, "MPI_Type_indexed"},
    {null_newtype, MPI_ERR_ARG, "MPI_Type_dup"},
    {null_displacements, MPI_ERR_ARG, "MPI_Type_create_hindexed"},
    {bad_struct_member, MPI_ERR_TYPE, "MPI_Type_create_struct"},
    {pack_uncommitted, MPI_ERR_TYPE, "MPI_Pack"},
    {pack_overflow, MPI_ERR_TRUNCATE, "MPI_Pack"},
    {unpack_short_input, MPI_ERR_TRUNCATE, "MPI_Unpack"},
    {pack_null_comm, MPI_ERR_COMM, "MPI_Pack"},
    {free_predefined, MPI_ERR_TYPE, "MPI_Type_free"},
    {contents_of_named, MPI_ERR_TYPE, "MPI_Type_get_contents"},
    {contents_arrays_too_small, MPI_ERR_ARG, "MPI_Type_get_contents"},
    {classic_envelope_of_large_type, MPI_ERR_TYPE, "MPI_Type_get_envelope"},
    {match_size_unknown, MPI_ERR_ARG, "MPI_Type_match_size"},
    {match_size_bad_class, MPI_ERR_ARG, "MPI_Type_match_size"},
    {native_datarep, MPI_ERR_UNSUPPORTED_DATAREP, "MPI_Pack_external"},
    {f90_real, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Type_create_f90_real"},
    {subarray_out_of_range, MPI_ERR_ARG, "MPI_Type_create_subarray"},
    {subarray_bad_order, MPI_ERR_ARG, "MPI_Type_create_subarray"},
    {darray_bad_grid, MPI_ERR_ARG, "MPI_Type_create_darray"},
    {darray_small_blocks, MPI_ERR_ARG, "MPI_Type_create_darray"},
    {count_with_status_ignore, MPI_ERR_ARG, "MPI_Get_count"},
    {set_negative_elements, MPI_ERR_COUNT, "MPI_Status_set_elements"},
    {commit_null, MPI_ERR_ARG, "MPI_Type_commit"},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* Before MPI_Init every error is fatal: the job ends with the class as its exit status. */
static void fatal_errors_end_the_job_with_their_class(void **state)
{
    (void)state;
    for (size_t i = 0; i < NCASES; i++)
        expect_fatal(cases[i].fn, cases[i].error_class, cases[i].function);
    char message[256];
    assert_int_equal(run_child(valid_calls_raise_nothing, message, sizeof message), 0);
    assert_string_equal(message, "");
}

/* Under MPI_ERRORS_RETURN the same calls return their class, leave nothing behind and the engine keeps
 * working (MPICH's tests set the handler on MPI_COMM_WORLD; calls without a communicator follow it). */
static void errors_return_their_class_under_errors_return(void **state)
{
    (void)state;
    assert_int_equal(MPI_Init(NULL, NULL), MPI_SUCCESS);
    assert_int_equal(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), MPI_SUCCESS);
    long live = mpcrt_handle_count(MPCRT_OBJ_DATATYPE);
    for (size_t i = 0; i < NCASES; i++) {
        t = MPI_DATATYPE_NULL;
        int rc = cases[i].fn();
        if (rc != cases[i].error_class)
            fail_msg("%s: expected error class %d, got %d", cases[i].function, cases[i].error_class, rc);
        if (t != MPI_DATATYPE_NULL && mpcrt_datatype_get(t) && !mpcrt_datatype_is_predefined(mpcrt_datatype_get(t)))
            MPI_Type_free(&t); /* a type the case built before the failing call */
        if (mpcrt_handle_count(MPCRT_OBJ_DATATYPE) != live)
            fail_msg("%s (case %zu) left a datatype handle behind", cases[i].function, i);
    }
    assert_int_equal(valid_calls_raise_nothing(), MPI_SUCCESS);
    check_pack(MPI_DOUBLE_INT, 3);
    assert_int_equal(MPI_Finalize(), MPI_SUCCESS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fatal_errors_end_the_job_with_their_class),
        cmocka_unit_test(errors_return_their_class_under_errors_return),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
