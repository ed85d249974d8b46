/* barrier_rounds: every rank goes through R barriers (default 3); rank 0 reports the time. Used to check
 * that very many ranks (mpcrun -n 10000 --oversubscribe) start and synchronize on two cores. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 3;
    MPI_Init(&argc, &argv);
    double start = MPI_Wtime();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < rounds; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks passed %d barriers in %.3f s\n", size, rounds, MPI_Wtime() - start);
    MPI_Finalize();
    return 0;
}
