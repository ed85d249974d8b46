/* Cost of creating a rank's copy: 16 MiB of privatized data (8 MiB initialized, 8 MiB zero) and 1000
 * pointers to relocate; each rank writes one page. Run with many ranks, built with and without
 * -fmpc-privatize: the difference in time and peak memory, divided by the ranks, is the per-rank cost. */
#include <mpi.h>

#define MB (1 << 20)
char initialized[8 * MB] = {1};
char zeros[8 * MB];
char *pointers[1000] = {initialized, zeros, initialized + 4096}; /* the rest: filled below */

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    zeros[rank % (8 * MB)] = 1;
    MPI_Finalize();
    return pointers[0] != initialized;
}
