/* Probes posted before the message exists (the receiver parks first, so the scheduler's sweep evaluates
 * the probe), for eager and rendezvous sizes; statuses of single-completion calls keep their MPI_ERROR
 * field, and MPI_Waitall sets it when it returns MPI_ERR_IN_STATUS. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum { SMALL = 4, LARGE = 1 << 18 }; /* ints: 16 B and 1 MiB */

/* The sender lets the receiver reach its probe and park before sending. */
static void let_receiver_park(void)
{
    double start = MPI_Wtime();
    while (MPI_Wtime() - start < 0.05)
        ;
}

static void sender(int *buf, int n, int tag)
{
    for (int i = 0; i < n; i++)
        buf[i] = i * 7 + tag;
    let_receiver_park();
    MPI_Send(buf, n, MPI_INT, 1, tag, MPI_COMM_WORLD);
}

static void check_payload(const int *buf, int n, int tag)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == i * 7 + tag);
}

static void receive_with(int kind, int *buf, int n, int tag)
{
    MPI_Status st1, st2;
    memset(buf, 0, (size_t)n * sizeof *buf);
    st1.MPI_ERROR = MPI_ERR_DIMS;
    st2.MPI_ERROR = MPI_ERR_TOPOLOGY;
    int count = -1;
    if (kind == 0) { /* MPI_Mprobe + MPI_Mrecv */
        MPI_Message msg = MPI_MESSAGE_NULL;
        CHECK(MPI_Mprobe(0, tag, MPI_COMM_WORLD, &msg, &st1) == MPI_SUCCESS);
        CHECK(msg != MPI_MESSAGE_NULL);
        MPI_Get_count(&st1, MPI_INT, &count);
        CHECK(MPI_Mrecv(buf, count, MPI_INT, &msg, &st2) == MPI_SUCCESS);
        CHECK(msg == MPI_MESSAGE_NULL);
    } else if (kind == 1) { /* MPI_Probe (ANY_SOURCE) + MPI_Recv */
        CHECK(MPI_Probe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st1) == MPI_SUCCESS);
        MPI_Get_count(&st1, MPI_INT, &count);
        CHECK(MPI_Recv(buf, count, MPI_INT, st1.MPI_SOURCE, tag, MPI_COMM_WORLD, &st2) == MPI_SUCCESS);
    } else { /* MPI_Improbe loop + MPI_Imrecv + MPI_Wait */
        MPI_Message msg;
        int flag = 0;
        while (!flag)
            CHECK(MPI_Improbe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st1) == MPI_SUCCESS);
        MPI_Get_count(&st1, MPI_INT, &count);
        MPI_Request req;
        CHECK(MPI_Imrecv(buf, count, MPI_INT, &msg, &req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, &st2) == MPI_SUCCESS);
    }
    CHECK(count == n);
    CHECK(st1.MPI_SOURCE == 0 && st1.MPI_TAG == tag && st1.MPI_ERROR == MPI_ERR_DIMS);
    CHECK(st2.MPI_SOURCE == 0 && st2.MPI_TAG == tag && st2.MPI_ERROR == MPI_ERR_TOPOLOGY);
    check_payload(buf, n, tag);
}

/* A truncated receive among others: MPI_Waitall returns MPI_ERR_IN_STATUS with each status's error. */
static void waitall_errors(int rank, int *buf)
{
    if (rank == 0) {
        MPI_Send(buf, 2, MPI_INT, 1, 90, MPI_COMM_WORLD);
        MPI_Send(buf, 8, MPI_INT, 1, 91, MPI_COMM_WORLD);
    } else if (rank == 1) {
        MPI_Request reqs[2];
        MPI_Status st[2];
        MPI_Irecv(buf, 2, MPI_INT, 0, 90, MPI_COMM_WORLD, &reqs[0]);
        MPI_Irecv(buf + 2, 4, MPI_INT, 0, 91, MPI_COMM_WORLD, &reqs[1]);
        CHECK(MPI_Waitall(2, reqs, st) == MPI_ERR_IN_STATUS);
        CHECK(st[0].MPI_ERROR == MPI_SUCCESS);
        CHECK(st[1].MPI_ERROR == MPI_ERR_TRUNCATE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *buf = malloc(LARGE * sizeof *buf);
    CHECK(buf);
    int tag = 1;
    for (int kind = 0; kind < 3; kind++)
        for (int large = 0; large < 2; large++, tag++) {
            int n = large ? LARGE : SMALL;
            if (rank == 0)
                sender(buf, n, tag);
            else if (rank == 1)
                receive_with(kind, buf, n, tag);
        }
    waitall_errors(rank, buf);
    free(buf);
    MPI_Finalize();
    return 0;
}
