/* Argument checking: every misuse raises the right error class through mpcrt_mpi_error. Errors are fatal
 * until error handlers exist (the process exits with the class as its status), so each case runs in a child
 * process and the test checks its exit status and its one-line message. */
#include "dt_test_util.h"

#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child; returns its exit status and leaves its stderr in `message`. */
static int run_child(void (*fn)(void), char *message, size_t size)
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

static void expect_error(void (*fn)(void), int error_class, const char *function)
{
    char message[1024];
    int code = run_child(fn, message, sizeof message);
    if (code != error_class)
        fail_msg("expected error class %d from %s, got exit status %d: %s", error_class, function, code, message);
    if (!strstr(message, function))
        fail_msg("the message does not name %s: %s", function, message);
}

static MPI_Datatype t;

static void negative_count(void) { MPI_Type_vector(-1, 1, 1, MPI_INT, &t); }
static void null_oldtype(void) { MPI_Type_contiguous(1, MPI_DATATYPE_NULL, &t); }
static void comm_as_datatype(void) { MPI_Type_contiguous(1, (MPI_Datatype)MPI_COMM_WORLD, &t); }
static void freed_handle(void)
{
    MPI_Datatype a, stale;
    MPI_Type_contiguous(2, MPI_INT, &a);
    stale = a;
    MPI_Type_free(&a);
    int size;
    MPI_Type_size(stale, &size);
}
static void negative_blocklength(void)
{
    int bl[] = {1, -1}, disp[] = {0, 4};
    MPI_Type_indexed(2, bl, disp, MPI_INT, &t);
}
static void null_newtype(void) { MPI_Type_dup(MPI_INT, NULL); }
static void null_displacements(void)
{
    int bl[] = {1};
    MPI_Type_create_hindexed(1, bl, NULL, MPI_INT, &t);
}
static void bad_struct_member(void)
{
    int bl[] = {1, 1};
    MPI_Aint disp[] = {0, 8};
    MPI_Datatype types[] = {MPI_INT, MPI_OP_NULL};
    MPI_Type_create_struct(2, bl, disp, types, &t);
}
static void pack_uncommitted(void)
{
    MPI_Datatype a;
    int in[2] = {0}, pos = 0;
    char out[8];
    MPI_Type_contiguous(2, MPI_INT, &a);
    MPI_Pack(in, 1, a, out, 8, &pos, MPI_COMM_WORLD);
}
static void pack_overflow(void)
{
    int in[3] = {0}, pos = 4;
    char out[12];
    MPI_Pack(in, 3, MPI_INT, out, 12, &pos, MPI_COMM_WORLD);
}
static void unpack_short_input(void)
{
    int out[3], pos = 0;
    char in[8] = {0};
    MPI_Unpack(in, 8, &pos, out, 3, MPI_INT, MPI_COMM_WORLD);
}
static void pack_null_comm(void)
{
    int in = 0, pos = 0;
    char out[4];
    MPI_Pack(&in, 1, MPI_INT, out, 4, &pos, MPI_COMM_NULL);
}
static void free_predefined(void)
{
    MPI_Datatype a = MPI_INT;
    MPI_Type_free(&a);
}
static void contents_of_named(void)
{
    int i;
    MPI_Aint a;
    MPI_Datatype d;
    MPI_Type_get_contents(MPI_INT, 1, 1, 1, &i, &a, &d);
}
static void contents_arrays_too_small(void)
{
    int ints[2];
    MPI_Aint a[1];
    MPI_Datatype d[1];
    MPI_Type_vector(2, 1, 2, MPI_INT, &t);
    MPI_Type_get_contents(t, 2, 0, 1, ints, a, d);
}
static void classic_envelope_of_large_type(void)
{
    int ni, na, nd, c;
    MPI_Type_contiguous_c(3, MPI_INT, &t);
    MPI_Type_get_envelope(t, &ni, &na, &nd, &c);
}
static void match_size_unknown(void) { MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t); }
static void match_size_bad_class(void) { MPI_Type_match_size(42, 4, &t); }
static void native_datarep(void)
{
    int in = 0;
    char out[4];
    MPI_Aint pos = 0;
    MPI_Pack_external("native", &in, 1, MPI_INT, out, 4, &pos);
}
static void f90_real(void) { MPI_Type_create_f90_real(6, 30, &t); }
static void subarray_out_of_range(void)
{
    int sizes[] = {4}, sub[] = {3}, starts[] = {2};
    MPI_Type_create_subarray(1, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t);
}
static void subarray_bad_order(void)
{
    int sizes[] = {4}, sub[] = {3}, starts[] = {0};
    MPI_Type_create_subarray(1, sizes, sub, starts, 7, MPI_INT, &t);
}
static void darray_bad_grid(void)
{
    int g[] = {8}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[] = {3};
    MPI_Type_create_darray(4, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
}
static void darray_small_blocks(void)
{
    int g[] = {8}, dist[] = {MPI_DISTRIBUTE_BLOCK}, darg[] = {2}, ps[] = {2};
    MPI_Type_create_darray(2, 0, 1, g, dist, darg, ps, MPI_ORDER_C, MPI_INT, &t);
}
static void count_with_status_ignore(void)
{
    int n;
    MPI_Get_count(MPI_STATUS_IGNORE, MPI_INT, &n);
}
static void set_negative_elements(void)
{
    MPI_Status s;
    MPI_Status_set_elements(&s, MPI_INT, -3);
}
static void commit_null(void) { MPI_Type_commit(NULL); }
static void valid_calls_raise_nothing(void)
{
    MPI_Datatype a;
    MPI_Type_contiguous(0, MPI_INT, &a);
    MPI_Type_commit(&a);
    int pos = 0;
    MPI_Pack(NULL, 0, a, NULL, 0, &pos, MPI_COMM_SELF);
    MPI_Type_free(&a);
}

static void errors_raise_their_class(void **state)
{
    (void)state;
    expect_error(negative_count, MPI_ERR_COUNT, "MPI_Type_vector");
    expect_error(null_oldtype, MPI_ERR_TYPE, "MPI_Type_contiguous");
    expect_error(comm_as_datatype, MPI_ERR_TYPE, "MPI_Type_contiguous");
    expect_error(freed_handle, MPI_ERR_TYPE, "MPI_Type_size");
    expect_error(negative_blocklength, MPI_ERR_ARG, "MPI_Type_indexed");
    expect_error(null_newtype, MPI_ERR_ARG, "MPI_Type_dup");
    expect_error(null_displacements, MPI_ERR_ARG, "MPI_Type_create_hindexed");
    expect_error(bad_struct_member, MPI_ERR_TYPE, "MPI_Type_create_struct");
    expect_error(pack_uncommitted, MPI_ERR_TYPE, "MPI_Pack");
    expect_error(pack_overflow, MPI_ERR_TRUNCATE, "MPI_Pack");
    expect_error(unpack_short_input, MPI_ERR_TRUNCATE, "MPI_Unpack");
    expect_error(pack_null_comm, MPI_ERR_COMM, "MPI_Pack");
    expect_error(free_predefined, MPI_ERR_TYPE, "MPI_Type_free");
    expect_error(contents_of_named, MPI_ERR_TYPE, "MPI_Type_get_contents");
    expect_error(contents_arrays_too_small, MPI_ERR_ARG, "MPI_Type_get_contents");
    expect_error(classic_envelope_of_large_type, MPI_ERR_TYPE, "MPI_Type_get_envelope");
    expect_error(match_size_unknown, MPI_ERR_ARG, "MPI_Type_match_size");
    expect_error(match_size_bad_class, MPI_ERR_ARG, "MPI_Type_match_size");
    expect_error(native_datarep, MPI_ERR_UNSUPPORTED_DATAREP, "MPI_Pack_external");
    expect_error(f90_real, MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Type_create_f90_real");
    expect_error(subarray_out_of_range, MPI_ERR_ARG, "MPI_Type_create_subarray");
    expect_error(subarray_bad_order, MPI_ERR_ARG, "MPI_Type_create_subarray");
    expect_error(darray_bad_grid, MPI_ERR_ARG, "MPI_Type_create_darray");
    expect_error(darray_small_blocks, MPI_ERR_ARG, "MPI_Type_create_darray");
    expect_error(count_with_status_ignore, MPI_ERR_ARG, "MPI_Get_count");
    expect_error(set_negative_elements, MPI_ERR_COUNT, "MPI_Status_set_elements");
    expect_error(commit_null, MPI_ERR_ARG, "MPI_Type_commit");
    char message[256];
    assert_int_equal(run_child(valid_calls_raise_nothing, message, sizeof message), 0);
    assert_string_equal(message, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(errors_raise_their_class),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
