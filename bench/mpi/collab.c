/* Collaborative polling (research/seed000 section 2.4): rank 0 posts a receive, then computes for COMPUTE_MS
 * without calling MPI while the message for it arrives from the first rank of the other process (sent a
 * quarter into the computation); the time its MPI_Wait takes after the computation is what is measured.
 * With collaborative polling another VP or a waiting rank of rank 0's process matches the message (and, for
 * a rendezvous, copies it and answers the sender) meanwhile, so the wait finds it done; without it, rank 0
 * does all of that in MPI_Wait. Other ranks wait in the barrier that starts each round. Prints
 * "wait BYTES MEDIAN_US MIN_US MAX_US" from rank 0. One source, built with each MPI's wrapper. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COMPUTE_MS 4.0
#define ROUNDS 21

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Busy work that makes no MPI call (MPI_Wtime could be a progress point). */
static double compute(double ms)
{
    volatile double x = 1.0;
    double end = now_ms() + ms;
    while (now_ms() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
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
    int sender = size / 2; /* first rank of the second process (-n 2P -p 2, or one rank per process) */
    if (size < 2) {
        fprintf(stderr, "collab needs 2 ranks or more\n");
        MPI_Finalize();
        return 1;
    }
    const int sizes[] = {8, 65536, 4 << 20};
    char *buf = malloc(4 << 20);
    memset(buf, 1, 4 << 20);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int bytes = sizes[s];
        double wait_us[ROUNDS];
        for (int round = 0; round <= ROUNDS; round++) { /* round 0 warms up */
            MPI_Barrier(MPI_COMM_WORLD);
            if (rank == 0) {
                MPI_Request req;
                MPI_Irecv(buf, bytes, MPI_CHAR, sender, 1, MPI_COMM_WORLD, &req);
                compute(COMPUTE_MS);
                double t0 = now_ms();
                MPI_Wait(&req, MPI_STATUS_IGNORE);
                if (round > 0)
                    wait_us[round - 1] = (now_ms() - t0) * 1e3;
            } else if (rank == sender) {
                compute(COMPUTE_MS / 4);
                MPI_Send(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            qsort(wait_us, ROUNDS, sizeof *wait_us, cmp);
            printf("wait %d %.2f %.2f %.2f\n", bytes, wait_us[ROUNDS / 2], wait_us[0], wait_us[ROUNDS - 1]);
            fflush(stdout);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
