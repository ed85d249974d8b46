/* MPI + OpenMP in thread mode: each rank runs parallel regions whose threads call MPI themselves
 * (MPI_THREAD_MULTIPLE): per-thread exchanges with the peer rank, a collective by the master while the
 * other threads wait in a barrier (their wait must let the rank's communication progress), and a
 * parallel reduction combined across ranks. The rank's team has one thread per core it was given
 * (mpcrun -c) and stays on those cores.
 *     mpcrun -n 2 -c C ./hybrid_threads C      (prints "rank R: ok" per rank) */
#define _GNU_SOURCE
#include <mpi.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define N 100000L

/* Thread mode without privatization: ranks share globals, so per-rank state lives on the rank's stack. */
static void check(int *failures, int rank, int ok, const char *what)
{
    if (!ok) {
#pragma omp atomic
        (*failures)++;
        printf("rank %d thread %d: %s failed\n", rank, omp_get_thread_num(), what);
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size, failures = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int cores = argc > 1 ? atoi(argv[1]) : 0;
    check(&failures, rank, provided == MPI_THREAD_MULTIPLE, "MPI_THREAD_MULTIPLE");
    check(&failures, rank, size % 2 == 0, "an even number of ranks");
    int peer = rank ^ 1;

    /* The default team is one thread per core of the rank. */
    check(&failures, rank, omp_get_num_procs() == cores, "omp_get_num_procs() == the rank's cores");
    check(&failures, rank, omp_get_max_threads() == cores, "default team size == the rank's cores");

    int threads = cores > 1 ? cores : 2;
    long long total = 0;
    int cpu_of[64] = {0}, token = -1;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    {
        int t = omp_get_thread_num(), nt = omp_get_num_threads();
        cpu_of[t] = sched_getcpu();
        /* Every thread exchanges with the same thread of the peer, all at once. */
        for (int round = 0; round < 50; round++) {
            int out = rank * 1000 + t * 10 + round % 10, in = -1;
            MPI_Sendrecv(&out, 1, MPI_INT, peer, t, &in, 1, MPI_INT, peer, t, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
            check(&failures, rank, in == peer * 1000 + t * 10 + round % 10, "per-thread sendrecv");
        }
        /* The master alone talks to the peer, whose other threads wait in the barrier meanwhile. */
#pragma omp master
        {
            int in = -1;
            if (rank % 2 == 0) {
                MPI_Send(&rank, 1, MPI_INT, peer, 999, MPI_COMM_WORLD);
                MPI_Recv(&in, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(&in, 1, MPI_INT, peer, 999, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(&rank, 1, MPI_INT, peer, 999, MPI_COMM_WORLD);
            }
            token = in;
        }
#pragma omp barrier
        check(&failures, rank, token == peer, "master's exchange seen after the barrier");
        /* A worksharing loop, then a collective from inside the region. */
#pragma omp for
        for (long i = 1 + rank; i <= N; i += size)
            total += i;
        check(&failures, rank, nt == threads, "team size");
    }
    long long all = 0;
    MPI_Allreduce(&total, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    check(&failures, rank, all == (long long)N * (N + 1) / 2, "parallel sum reduced across ranks");
    if (cores == 1)
        for (int t = 1; t < threads; t++)
            check(&failures, rank, cpu_of[t] == cpu_of[0], "threads of a one-core rank share its core");

    /* Collectives from every thread at once, each on its own duplicated communicator. */
    MPI_Comm comms[64];
    for (int t = 0; t < threads; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
#pragma omp parallel num_threads(threads)
    {
        int t = omp_get_thread_num(), sum = 0, mine = rank + t;
        MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comms[t]);
        check(&failures, rank, sum == size * (size - 1) / 2 + size * t, "per-thread allreduce");
    }
    for (int t = 0; t < threads; t++)
        MPI_Comm_free(&comms[t]);

    printf("rank %d: %s (%d threads)\n", rank, failures ? "FAILED" : "ok", threads);
    MPI_Finalize();
    return failures != 0;
}
