/* How a job ends on an error, chosen by argv[1], raised by rank 1 only (the others wait in a barrier that
 * never completes, so only the error can end the job):
 *   fatal     an invalid rank under the initial MPI_ERRORS_ARE_FATAL
 *   abort     the same under MPI_ERRORS_ABORT
 *   nocomm    an error without a communicator (MPI_Info_free of MPI_INFO_NULL): MPI_COMM_SELF's handler
 *   usercode  MPI_Comm_call_errhandler with a user code that has a string, under MPI_ERRORS_ARE_FATAL
 *   return    MPI_ERRORS_RETURN: MPI_Send returns MPI_ERR_RANK and the job finishes normally */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "fatal";
    int rank, size, buf = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (strcmp(mode, "abort") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ABORT);
    if (strcmp(mode, "return") == 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (rank == 1) {
        if (strcmp(mode, "nocomm") == 0) {
            MPI_Info info = MPI_INFO_NULL;
            MPI_Info_free(&info);
        } else if (strcmp(mode, "usercode") == 0) {
            int cls, code;
            MPI_Add_error_class(&cls);
            MPI_Add_error_code(cls, &code);
            MPI_Add_error_string(code, "the application's own failure");
            MPI_Comm_call_errhandler(MPI_COMM_WORLD, code);
        } else {
            int rc = MPI_Send(&buf, 1, MPI_INT, size + 1, 0, MPI_COMM_WORLD);
            if (rc != MPI_ERR_RANK) {
                fprintf(stderr, "rank 1: MPI_Send returned %d, expected MPI_ERR_RANK\n", rc);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Finalize();
            return 0;
        }
        fprintf(stderr, "rank 1: the error handler returned\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
