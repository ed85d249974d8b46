/* Rank 0 never reaches the barrier: the job hangs until mpcrun's timeout ends it. */
#include <mpi.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0)
        MPI_Barrier(MPI_COMM_WORLD);
    else
        for (;;)
            pause();
    MPI_Finalize();
    return 0;
}
