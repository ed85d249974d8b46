/* Prints "rank R cpu C" so the test can check that -c gives ranks distinct cores. */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d cpu %d\n", rank, sched_getcpu());
    MPI_Finalize();
    return 0;
}
