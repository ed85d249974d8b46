/* hello: every rank prints its rank and the job size. `mpcrun -n 4 ./hello` prints four distinct ranks. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    printf("hello from rank %d of %d\n", rank, size);
    MPI_Finalize();
    return 0;
}
