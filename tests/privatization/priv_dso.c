/* An executable and a privatized shared library sharing variables (priv_lib.c): each rank sees its own
 * copy of both modules' data, also through pointers that cross modules. */
#include <mpi.h>

#include "check.h"

int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));

int exe_var = 3;
extern int lib_counter;
extern int *lib_points_to_exe;
int *exe_points_to_lib = &lib_counter;
int lib_get_static(void);
void lib_set_static(int value);
int *lib_counter_address(void);
int lib_read_exe_var(void);

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank, exe_var == 3 && lib_counter == 7 && lib_get_static() == 70);
    CHECK(rank, exe_points_to_lib == &lib_counter && lib_counter_address() == &lib_counter);
    CHECK(rank, lib_points_to_exe == &exe_var);

    exe_var = 100 + rank;
    lib_counter = 200 + rank;
    lib_set_static(300 + rank);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);

    CHECK(rank, exe_var == 100 + rank && lib_read_exe_var() == 100 + rank && *lib_points_to_exe == 100 + rank);
    CHECK(rank, lib_counter == 200 + rank && *exe_points_to_lib == 200 + rank && *lib_counter_address() == 200 + rank);
    CHECK(rank, lib_get_static() == 300 + rank);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("%d ranks, %d checks, %d failures\n", size, priv_checks, priv_failures);
    MPI_Finalize();
    return priv_failures != 0;
}
