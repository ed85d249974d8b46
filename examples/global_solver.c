/* global_solver: an MPI program written the way many legacy codes are, with its whole state in globals.
 * Each rank relaxes its own Poisson problem (the source depends on the rank) with Jacobi sweeps and
 * prints its residual and a checksum. With ranks as threads this only works privatized:
 *     mpcc -fmpc-privatize -O2 global_solver.c -o global_solver && mpcrun -n 64 ./global_solver */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define N 48
#define SWEEPS 400

double grid[N + 2][N + 2], next[N + 2][N + 2];
double source_strength;
int rank, size, sweeps_done;
static double residual;
static const char *phase = "setup";

static void setup(void)
{
    source_strength = 1.0 + rank;
    memset(grid, 0, sizeof grid);
    memset(next, 0, sizeof next);
}

static void sweep(void)
{
    double h2 = 1.0 / ((N + 1) * (N + 1));
    residual = 0;
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++) {
            double f = (i == N / 2 && j == N / 2) ? source_strength : 0.0;
            next[i][j] = 0.25 * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1] + h2 * f);
            residual += fabs(next[i][j] - grid[i][j]);
        }
    memcpy(grid, next, sizeof grid);
    sweeps_done++;
}

static double checksum(void)
{
    double sum = 0;
    for (int i = 1; i <= N; i++)
        for (int j = 1; j <= N; j++)
            sum += grid[i][j] * (i + 2 * j);
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setup();
    phase = "relaxing";
    for (int s = 0; s < SWEEPS; s++) {
        sweep();
        if (s % 100 == 99)
            MPI_Barrier(MPI_COMM_WORLD); /* other ranks interleave here in thread mode */
    }
    phase = "done";
    printf("rank %d of %d: %s after %d sweeps, residual %.12e, checksum %.12e\n", rank, size, phase, sweeps_done,
           residual, checksum());
    MPI_Finalize();
    return 0;
}
