/* A large message reaches its receiver while the sender computes outside MPI (process mode, one VP per
 * process, so nothing else in the sender's process progresses it): the receiver must read what the sender
 * does not push. Rank 0 starts a rendezvous send, makes `tests` MPI_Test calls (0: none, so the receiver
 * reads everything; a few: the sender pushes the front, the receiver reads the rest), then computes
 * without MPI until rank 1 reports, through a file in argv[1], that its receive completed. A hang would
 * time out (20 s) and fail. Each round also checks the payload and the status, and a truncated receive. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "busy_common.h"

enum { BYTES = 6 << 20, ROUNDS = 3 };

static int value(int round, size_t i)
{
    return busy_value(round, i, 7);
}

int main(int argc, char **argv)
{
    int rank = busy_init(&argc, &argv, "procs_busy_sender"), failures = 0;
    unsigned char *buf = malloc(BYTES);
    char path[4096];
    int tests[ROUNDS] = {0, 5, 0};
    int received[ROUNDS] = {BYTES, BYTES, BYTES / 2}; /* the last round truncates */
    for (int round = 0; round < ROUNDS; round++) {
        snprintf(path, sizeof path, "%s/round%d", argv[1], round);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (size_t i = 0; i < BYTES; i++)
                buf[i] = (unsigned char)value(round, i);
            MPI_Request req;
            int flag = 0;
            MPI_Isend(buf, BYTES, MPI_BYTE, 1, round, MPI_COMM_WORLD, &req);
            for (int t = 0; t < tests[round]; t++)
                MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
            double t0 = busy_now();
            while (access(path, F_OK) != 0 && busy_now() - t0 < 20) /* computing: no MPI call */
                ;
            if (access(path, F_OK) != 0) {
                printf("rank 0: round %d: the receive did not complete while the sender computed\n", round);
                failures++;
            }
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Status status;
            memset(buf, 0, BYTES);
            MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int rc = MPI_Recv(buf, received[round], MPI_BYTE, 0, round, MPI_COMM_WORLD, &status);
            int count = -1, cls = MPI_SUCCESS;
            MPI_Get_count(&status, MPI_BYTE, &count);
            MPI_Error_class(rc, &cls);
            FILE *f = fopen(path, "w");
            if (f)
                fclose(f);
            int expected_class = received[round] < BYTES ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
            if (cls != expected_class || count != received[round] || status.MPI_SOURCE != 0 ||
                status.MPI_TAG != round) {
                printf("rank 1: round %d: class %d count %d source %d tag %d\n", round, cls, count,
                       status.MPI_SOURCE, status.MPI_TAG);
                failures++;
            }
            for (size_t i = 0; i < (size_t)received[round]; i++)
                if (buf[i] != (unsigned char)value(round, i)) {
                    printf("rank 1: round %d: byte %zu is %d, expected %d\n", round, i, buf[i],
                           value(round, i));
                    failures++;
                    break;
                }
        }
    }
    printf("rank %d: %s\n", rank, failures ? "FAILED" : "ok");
    free(buf);
    MPI_Finalize();
    return failures != 0;
}
