/* A sender that runs ahead of its receiver: rank 0 streams small messages to rank 1, which takes them in
 * order. With `held` (process mode: the messages cross the shm rail), rank 1 first computes without any MPI
 * call until rank 0 has started 2000 MPI_Isend: a full receive queue must hold the sends back (some are
 * still incomplete, MPI_Testall says so) rather than let rank 0 run ahead with copies, and they complete
 * once rank 1 takes the messages in. Then 2000 MPI_Bsend with an attached buffer while rank 1 computes
 * again: buffered sends are local (MPI 4.0 section 3.4), so they must return although the queue is full.
 * Then 20000 blocking MPI_Send against a receiver that pauses now and then. Every message carries its
 * number: order and contents are checked.
 *     stream [held] */
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { HELD = 2000, STREAMED = 20000 };

static void busy(long n)
{
    for (volatile long i = 0; i < n; i++)
        ;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2);
    bool held = argc > 1 && strcmp(argv[1], "held") == 0;
    char flag_file[64] = "", bsent_file[72];
    if (rank == 0)
        snprintf(flag_file, sizeof flag_file, "/tmp/mpcrt-stream-%d", (int)getpid());
    MPI_Bcast(flag_file, sizeof flag_file, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(bsent_file, sizeof bsent_file, "%s.bsent", flag_file);

    int *values = malloc(sizeof(int) * HELD);
    MPI_Request *requests = malloc(sizeof(MPI_Request) * HELD);
    CHECK(values && requests);
    if (rank == 0) {
        for (int i = 0; i < HELD; i++) {
            values[i] = i;
            MPI_Isend(&values[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &requests[i]);
        }
        int all = 0;
        MPI_Testall(HELD, requests, &all, MPI_STATUSES_IGNORE);
        if (held)
            CHECK(!all); /* rank 1 takes nothing in yet: only a queue's worth went out */
        FILE *f = fopen(flag_file, "w");
        CHECK(f);
        fclose(f);
        MPI_Waitall(HELD, requests, MPI_STATUSES_IGNORE);
        int attached = HELD * (int)(sizeof(int) + MPI_BSEND_OVERHEAD);
        char *buffer = malloc((size_t)attached);
        CHECK(buffer);
        MPI_Buffer_attach(buffer, attached);
        for (int i = 0; i < HELD; i++)
            MPI_Bsend(&i, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
        f = fopen(bsent_file, "w"); /* rank 1 polls nothing before this: Bsend did not wait for it */
        CHECK(f);
        fclose(f);
        void *detached;
        MPI_Buffer_detach(&detached, &attached);
        free(buffer);
        for (int i = 0; i < STREAMED; i++)
            MPI_Send(&i, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else {
        if (held)
            while (access(flag_file, F_OK) != 0)
                busy(100000); /* no MPI call: nothing polls this process's queue */
        for (int i = 0; i < HELD; i++) {
            int got = -1;
            MPI_Recv(&got, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == i);
        }
        if (held)
            while (access(bsent_file, F_OK) != 0)
                busy(100000);
        for (int i = 0; i < HELD; i++) {
            int got = -1;
            MPI_Recv(&got, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == i);
        }
        for (int i = 0; i < STREAMED; i++) {
            int got = -1;
            if (i % 1000 == 999)
                busy(200000); /* the sender fills the queue meanwhile */
            MPI_Recv(&got, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(got == i);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        unlink(flag_file);
        unlink(bsent_file);
    }
    free(values);
    free(requests);
    MPI_Finalize();
    return 0;
}
