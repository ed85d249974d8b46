/* Ping-pong latency (half round trip), streaming bandwidth (rank 0 sends a window of messages, rank 1
 * acknowledges the window) and bidirectional bandwidth (both send a window at once) between ranks 0 and 1,
 * from 0 B to 4 MiB. One source, built with each MPI's wrapper (bench/mpi/run, bench/mpi/family). Prints
 * "latency BYTES USEC", "bandwidth BYTES MBPS" and "bibandwidth BYTES MBPS" lines from rank 0.
 *     pingpong [DIVISOR]   (iterations divided by DIVISOR: a quicker, noisier run)
 * No globals: it runs unprivatized in thread mode. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (4 << 20)
#define WINDOW 32

static int iterations_for(int bytes, int divisor)
{
    int n = bytes <= 4096 ? 20000 : bytes <= 65536 ? 2000 : bytes <= (1 << 20) ? 200 : 50;
    return n / divisor > 4 ? n / divisor : 4;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int divisor = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
    if (size < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    char *buf = malloc(MAX_BYTES), *window[WINDOW];
    memset(buf, 1, MAX_BYTES);
    for (int w = 0; w < WINDOW; w++) {
        window[w] = malloc(MAX_BYTES);
        memset(window[w], 2, MAX_BYTES);
    }
    for (int bytes = 0; bytes <= MAX_BYTES; bytes = bytes ? bytes * 4 : 1) {
        int iterations = iterations_for(bytes, divisor);
        for (int round = 0; round < 2; round++) { /* round 0 warms up */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iterations; i++) {
                if (rank == 0) {
                    MPI_Send(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
                    MPI_Recv(buf, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    MPI_Recv(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
                }
            }
            double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * iterations);
            if (round == 1 && rank == 0)
                printf("latency %d %.3f\n", bytes, us);
        }
    }
    MPI_Request requests[WINDOW];
    for (int bytes = 1; bytes <= MAX_BYTES; bytes *= 4) {
        int iterations = iterations_for(bytes, divisor) / WINDOW + 2;
        for (int round = 0; round < 2; round++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iterations; i++) {
                if (rank == 0) {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Isend(window[w], bytes, MPI_CHAR, 1, 2, MPI_COMM_WORLD, &requests[w]);
                    MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
                    MPI_Recv(buf, 0, MPI_CHAR, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else if (rank == 1) {
                    for (int w = 0; w < WINDOW; w++)
                        MPI_Irecv(window[w], bytes, MPI_CHAR, 0, 2, MPI_COMM_WORLD, &requests[w]);
                    MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
                    MPI_Send(buf, 0, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
                }
            }
            double seconds = MPI_Wtime() - t0;
            if (round == 1 && rank == 0)
                printf("bandwidth %d %.1f\n", bytes, (double)bytes * WINDOW * iterations / seconds / 1e6);
        }
    }
    /* Bidirectional: both ranks keep a window of receives and a window of sends in flight; the receive
     * windows use the other half of the buffers so that no send reads a buffer being received into. */
    MPI_Request both[2 * WINDOW];
    for (int bytes = 1; bytes <= MAX_BYTES; bytes *= 4) {
        int iterations = iterations_for(bytes, divisor) / WINDOW + 2;
        int peer = 1 - rank;
        for (int round = 0; round < 2; round++) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iterations && rank < 2; i++) {
                for (int w = 0; w < WINDOW / 2; w++)
                    MPI_Irecv(window[w], bytes, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &both[w]);
                for (int w = 0; w < WINDOW / 2; w++)
                    MPI_Isend(window[WINDOW / 2 + w], bytes, MPI_CHAR, peer, 4, MPI_COMM_WORLD,
                              &both[WINDOW / 2 + w]);
                MPI_Waitall(WINDOW, both, MPI_STATUSES_IGNORE);
            }
            double seconds = MPI_Wtime() - t0;
            /* bytes moved in both directions over the time rank 0 saw */
            if (round == 1 && rank == 0)
                printf("bibandwidth %d %.1f\n", bytes,
                       2.0 * bytes * (WINDOW / 2) * iterations / seconds / 1e6);
        }
    }
    for (int w = 0; w < WINDOW; w++)
        free(window[w]);
    free(buf);
    MPI_Finalize();
    return 0;
}
