/* Many rounds of procs_busy_sender's round 1: rank 0 starts a rendezvous send, makes `tests` MPI_Test calls
 * (1 to 50, a different count each round) spaced by a short spin so that the receiver's CTS comes in
 * among them and the sender pushes the front of the message, then computes without MPI until rank 1
 * reports, through a file in argv[1], that its receive completed. Rank 1 posted its receive before the
 * send started, so it answers the RTS at once. Run with a small shm queue (procs.sh: MPCRT_SHM_CELLS=4),
 * the sender's pushes fill it in every MPI_Test: a push that found the queue full used to keep the fragment
 * it had claimed from the message's claim word, and the receiver, which reads from the back what the
 * sender does not push, stopped where that fragment began, so the receive hung until the sender's next
 * MPI call (pt2pt/remote.c, continue_push). A hang fails after argv[2] seconds (default 20). Each round
 * checks the payload and the status. Prints "rank R: ok". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "busy_common.h"

enum { BYTES = 1 << 20, ROUNDS = 40 };

static int value(int round, size_t i)
{
    return busy_value(round, i, 13);
}

int main(int argc, char **argv)
{
    int rank = busy_init(&argc, &argv, "procs_busy_rounds"), failures = 0;
    double bound = argc > 2 ? atof(argv[2]) : 20;
    unsigned char *buf = malloc(BYTES);
    char path[4096];
    for (int round = 0; round < ROUNDS && !failures; round++) {
        snprintf(path, sizeof path, "%s/round%d", argv[1], round);
        int tests = 1 + (round * 17) % 50;
        if (rank == 0) {
            for (size_t i = 0; i < BYTES; i++)
                buf[i] = (unsigned char)value(round, i);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Request req;
            int flag = 0;
            MPI_Isend(buf, BYTES, MPI_BYTE, 1, round, MPI_COMM_WORLD, &req);
            for (int t = 0; t < tests; t++) {
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                for (double t0 = busy_now();
                     busy_now() - t0 < 5e-6;) /* spacing, so that the CTS comes among them */
                    ;
            }
            double t0 = busy_now();
            while (access(path, F_OK) != 0 && busy_now() - t0 < bound) /* computing: no MPI call */
                ;
            if (access(path, F_OK) != 0) {
                printf("rank 0: round %d (%d tests): the receive did not complete while I computed\n", round,
                       tests);
                failures++;
            }
            if (!flag)
                MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Status status;
            MPI_Request req;
            memset(buf, 0, BYTES);
            MPI_Irecv(buf, BYTES, MPI_BYTE, 0, round, MPI_COMM_WORLD, &req);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Wait(&req, &status);
            FILE *f = fopen(path, "w");
            if (f)
                fclose(f);
            int count = -1;
            MPI_Get_count(&status, MPI_BYTE, &count);
            if (count != BYTES || status.MPI_SOURCE != 0 || status.MPI_TAG != round) {
                printf("rank 1: round %d: count %d source %d tag %d\n", round, count, status.MPI_SOURCE,
                       status.MPI_TAG);
                failures++;
            }
            for (size_t i = 0; i < BYTES; i++)
                if (buf[i] != (unsigned char)value(round, i)) {
                    printf("rank 1: round %d: byte %zu is %d, expected %d\n", round, i, buf[i],
                           value(round, i));
                    failures++;
                    break;
                }
        }
        /* Both go on only together: a failed round ends the run on both ranks. */
        MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    }
    printf("rank %d: %s\n", rank, failures ? "FAILED" : "ok");
    free(buf);
    MPI_Finalize();
    return failures != 0;
}
