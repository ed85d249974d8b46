/* Multi-threaded message rate: ranks 0 and 1 each run T OpenMP threads (T = 1, 2, 4, 8) under
 * MPI_THREAD_MULTIPLE; thread t of rank 0 streams windows of 8-byte messages to thread t of rank 1 (its own
 * tag, so pairs never match each other's messages), which acknowledges each window. Prints
 * "msgrate THREADS MESSAGES_PER_SECOND" from rank 0 (all pairs together), or "unsupported" when the library
 * does not grant MPI_THREAD_MULTIPLE. The total message count is the same at every T, so the rate shows what
 * the threads gain or lose by sharing one rank's matching and progress.
 *     msgrate [DIVISOR]   (fewer messages: a quicker, noisier run) */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define WINDOW 64
#define MAX_THREADS 8

static void pair_traffic(int rank, int thread, int windows)
{
    double payload[WINDOW]; /* 8 bytes per message, one slot each so receives do not share a buffer */
    MPI_Request requests[WINDOW];
    for (int w = 0; w < windows; w++) {
        if (rank == 0) {
            for (int i = 0; i < WINDOW; i++)
                MPI_Isend(&payload[i], 1, MPI_DOUBLE, 1, thread, MPI_COMM_WORLD, &requests[i]);
            MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
            MPI_Recv(NULL, 0, MPI_CHAR, 1, MAX_THREADS + thread, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            for (int i = 0; i < WINDOW; i++)
                MPI_Irecv(&payload[i], 1, MPI_DOUBLE, 0, thread, MPI_COMM_WORLD, &requests[i]);
            MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_CHAR, 0, MAX_THREADS + thread, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int divisor = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
    if (provided < MPI_THREAD_MULTIPLE || size < 2) {
        if (rank == 0)
            printf("unsupported\n");
        MPI_Finalize();
        return 0;
    }
    int total_windows = 1600 / divisor > 16 ? 1600 / divisor : 16;
    for (int threads = 1; threads <= MAX_THREADS; threads *= 2) {
        int windows = total_windows / threads;
        for (int round = 0; round < 2; round++) { /* round 0 warms up: threads created, queues allocated */
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            if (rank < 2) {
#pragma omp parallel num_threads(threads)
                pair_traffic(rank, omp_get_thread_num(), windows);
            }
            double seconds = MPI_Wtime() - t0;
            if (round == 1 && rank == 0)
                printf("msgrate %d %.0f\n", threads, (double)threads * windows * WINDOW / seconds);
        }
    }
    MPI_Finalize();
    return 0;
}
