/* Latency to a process that has been idle: rank 0 sleeps GAP_MS outside MPI, then sends 8 bytes to the
 * first rank of the other process, which has been blocked in MPI_Recv all along (its VPs idle, backing off),
 * and waits for the reply: the round trip is mostly how soon the idle side looks at its rails again. Prints
 * "idle_rtt GAP_MS MEDIAN_US MIN_US MAX_US" from rank 0, and "idle_cpu PERCENT" (CPU time of the replying
 * process over its wall time, every VP counted) from the replying rank. One source, built with each MPI's
 * wrapper. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#define GAP_MS 20
#define ROUNDS 41

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static double cpu_us(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_sec * 1e6 + ru.ru_stime.tv_usec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int peer = size / 2;
    if (size < 2) {
        fprintf(stderr, "idle_latency needs 2 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    char msg[8] = {0};
    double rtt[ROUNDS];
    MPI_Barrier(MPI_COMM_WORLD);
    double wall0 = now_us(), cpu0 = cpu_us();
    for (int round = 0; round <= ROUNDS; round++) { /* round 0 warms up */
        if (rank == 0) {
            struct timespec gap = {0, GAP_MS * 1000000L};
            nanosleep(&gap, NULL);
            double t0 = now_us();
            MPI_Send(msg, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(msg, 8, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (round > 0)
                rtt[round - 1] = now_us() - t0;
        } else if (rank == peer) {
            MPI_Recv(msg, 8, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(msg, 8, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
        }
    }
    if (rank == peer) {
        printf("idle_cpu %.1f\n", 100.0 * (cpu_us() - cpu0) / (now_us() - wall0));
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        qsort(rtt, ROUNDS, sizeof *rtt, cmp);
        printf("idle_rtt %d %.1f %.1f %.1f\n", GAP_MS, rtt[ROUNDS / 2], rtt[0], rtt[ROUNDS - 1]);
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}
