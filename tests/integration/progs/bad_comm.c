/* An invalid communicator under MPI_ERRORS_ARE_FATAL: a one-line error naming the function, non-zero exit. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank((MPI_Comm)0x12345, &rank);
    MPI_Finalize();
    return 0;
}
