/* Cost of privatization on global-heavy code: the same source built with and without -fmpc-privatize.
 * Kernels: a Jacobi sweep over global arrays (streaming), small non-inlined functions that update globals
 * (the per-call delta load), and read-modify-write of one global (latency). Prints ns per operation. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 256
double grid[N + 2][N + 2], next[N + 2][N + 2];
double weight = 0.25;
long counter;
int table[1024];

__attribute__((noipa)) void bump(int i)
{
    counter += table[i & 1023];
}

static double now(void)
{
    return MPI_Wtime() * 1e9;
}

static double jacobi(int sweeps)
{
    double t0 = now();
    for (int s = 0; s < sweeps; s++) {
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                next[i][j] = weight * (grid[i - 1][j] + grid[i + 1][j] + grid[i][j - 1] + grid[i][j + 1]);
        for (int i = 1; i <= N; i++)
            for (int j = 1; j <= N; j++)
                grid[i][j] = next[i][j] + 1e-9;
    }
    return (now() - t0) / ((double)sweeps * N * N);
}

static double calls(long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++)
        bump((int)i);
    return (now() - t0) / (double)n;
}

static double rmw(long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
        counter += i;
        __asm__ volatile("" ::: "memory");
    }
    return (now() - t0) / (double)n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 1024; i++)
        table[i] = i;
    int reps = argc > 1 ? atoi(argv[1]) : 5;
    double best[3] = {1e30, 1e30, 1e30};
    for (int r = 0; r < reps; r++) {
        double t[3] = {jacobi(200), calls(20000000), rmw(20000000)};
        for (int k = 0; k < 3; k++)
            best[k] = t[k] < best[k] ? t[k] : best[k];
    }
    printf("jacobi_ns_per_point %.4f\ncall_ns %.4f\nrmw_ns %.4f\n", best[0], best[1], best[2]);
    MPI_Finalize();
    return counter == 42; /* keep the work observable */
}
