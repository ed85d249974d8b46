/* MPI for the Fortran privatization test (mpcrt has no Fortran bindings yet): rank, barrier, and the
 * final report, callable through ISO_C_BINDING. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int total_failures __attribute__((mpc_shared));

int ft_rank(void)
{
    int rank, initialized;
    MPI_Initialized(&initialized);
    if (!initialized)
        MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

void ft_barrier(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

void ft_finish(int failures)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (failures)
        printf("rank %d: %d failed checks\n", rank, failures);
    __atomic_fetch_add(&total_failures, failures, __ATOMIC_RELAXED);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d failures\n", size, total_failures);
    fflush(stdout);
    MPI_Finalize();
    if (total_failures && rank == 0)
        _exit(1); /* every rank has finished its checks (the barrier above) */
}
