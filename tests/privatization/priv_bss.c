/* Privatized data that is all zero-initialized (only .bss.mpc_privz, no mpc_priv section): a regression
 * test for the bounds of the task range when one of its sections is empty. */
#include <mpi.h>

#include "check.h"

int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));
static int rank;
static int size;

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int mine = rank;
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(mine, rank == mine);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d checks, %d failures\n", size, priv_checks, priv_failures);
    MPI_Finalize();
    return priv_failures != 0;
}
