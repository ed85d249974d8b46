/* Combined send-receives and the large-count forms: MPI_Isendrecv(_replace) around a ring and to oneself
 * (with a derived datatype), truncation reported through MPI_Wait, MPI_Sendrecv_c, and every `_c`
 * point-to-point call moving checked payloads (the buffered send's buffer from MPI_Alloc_mem). */
#include "check.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { N = 1000 };

static void fill(int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = seed * 100000 + i;
}

static void check_filled(const int *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        CHECK(buf[i] == seed * 100000 + i);
}

static void ring_isendrecv(int rank, int size, int n)
{
    int *out = malloc(n * sizeof *out), *in = malloc(n * sizeof *in);
    fill(out, n, rank);
    memset(in, 0xff, n * sizeof *in);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Request req;
    CHECK(MPI_Isendrecv(out, n, MPI_INT, right, 7, in, n, MPI_INT, left, 7, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    MPI_Status st;
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    CHECK(req == MPI_REQUEST_NULL);
    CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 7);
    int count;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == n);
    check_filled(in, n, left);

    /* In place: the buffer is sent, then overwritten by the left neighbour's. */
    fill(in, n, rank);
    CHECK(MPI_Isendrecv_replace(in, n, MPI_INT, right, 8, left, 8, MPI_COMM_WORLD, &req) == MPI_SUCCESS);
    CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
    check_filled(in, n, left);
    free(out);
    free(in);
}

/* To oneself, strided send buffer (every other int) into a contiguous receive, polled with MPI_Test. */
static void self_strided(int rank)
{
    int out[2 * 16], in[16];
    for (int i = 0; i < 32; i++)
        out[i] = i % 2 ? -1 : rank * 1000 + i / 2;
    MPI_Datatype every_other;
    MPI_Type_vector(16, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Request req;
    CHECK(MPI_Isendrecv(out, 1, every_other, rank, 3, in, 16, MPI_INT, rank, 3, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    int flag = 0;
    while (!flag)
        CHECK(MPI_Test(&req, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < 16; i++)
        CHECK(in[i] == rank * 1000 + i);
    MPI_Type_free(&every_other);
}

/* Strided to differently strided, both non-contiguous: small (eager cell) and large (single copy from
 * the sender's buffer, larger than any bounce buffer). */
static void strided_to_strided(int rank, int size, int n)
{
    int *out = malloc(3 * (size_t)n * sizeof *out), *in = malloc(2 * (size_t)n * sizeof *in);
    for (int i = 0; i < 3 * n; i++)
        out[i] = i % 3 == 0 ? rank * 1000000 + i / 3 : -1;
    for (int i = 0; i < 2 * n; i++)
        in[i] = -7;
    MPI_Datatype every_third, every_other;
    MPI_Type_vector(n, 1, 3, MPI_INT, &every_third);
    MPI_Type_vector(n, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_third);
    MPI_Type_commit(&every_other);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    CHECK(MPI_Sendrecv(out, 1, every_third, right, 20, in, 1, every_other, left, 20, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE) == MPI_SUCCESS);
    for (int i = 0; i < n; i++)
        CHECK(in[2 * i] == left * 1000000 + i && in[2 * i + 1] == -7);
    MPI_Type_free(&every_third);
    MPI_Type_free(&every_other);
    free(out);
    free(in);
}

/* 4 MiB contiguous messages around the ring, blocking: a rank copying one may share the copy with its
 * peer waiting on another core (coop_copy.c); every byte must arrive once, in place. */
static void large_contiguous(int rank, int size)
{
    if (size < 2)
        return;
    int n = 1 << 20;
    int *out = malloc((size_t)n * sizeof *out), *in = malloc((size_t)n * sizeof *in);
    fill(out, n, rank);
    memset(in, 0, (size_t)n * sizeof *in);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    for (int round = 0; round < 2; round++) {
        /* Round 0: evens send first (the receiver copies from the send descriptor); round 1: odds do. */
        if (rank % 2 == round) {
            CHECK(MPI_Send(out, n, MPI_INT, right, 30, MPI_COMM_WORLD) == MPI_SUCCESS);
            CHECK(MPI_Recv(in, n, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        } else {
            CHECK(MPI_Recv(in, n, MPI_INT, left, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(MPI_Send(out, n, MPI_INT, right, 30, MPI_COMM_WORLD) == MPI_SUCCESS);
        }
        check_filled(in, n, left);
        memset(in, 0, (size_t)n * sizeof *in);
    }
    free(out);
    free(in);
}

static void truncated(int rank)
{
    int out[8] = {0}, in[4];
    MPI_Request req;
    CHECK(MPI_Isendrecv(out, 8, MPI_INT, rank, 4, in, 4, MPI_INT, rank, 4, MPI_COMM_WORLD, &req) ==
          MPI_SUCCESS);
    CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_ERR_TRUNCATE);
}

/* No data needs no type: MPI_DATATYPE_NULL with a count of 0 is taken (as MPICH does), not with more. */
static void null_type_without_data(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Status st;
    CHECK(MPI_Sendrecv(NULL, 0, MPI_DATATYPE_NULL, right, 9, NULL, 0, MPI_DATATYPE_NULL, left, 9,
                       MPI_COMM_WORLD, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == left);
    int count = -1;
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 0);
    int rc = MPI_Send(NULL, 1, MPI_DATATYPE_NULL, right, 9, MPI_COMM_WORLD), cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_TYPE);
}

static void large_count_forms(int rank, int size)
{
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    int out[N], in[N];
    MPI_Count n = N;
    fill(out, N, rank);
    MPI_Status st;
    CHECK(MPI_Sendrecv_c(out, n, MPI_INT, right, 10, in, n, MPI_INT, left, 10, MPI_COMM_WORLD, &st) ==
          MPI_SUCCESS);
    MPI_Count count = -1;
    CHECK(MPI_Get_count_c(&st, MPI_INT, &count) == MPI_SUCCESS && count == N);
    check_filled(in, N, left);

    MPI_Request reqs[2];
    memset(in, 0, sizeof in);
    CHECK(MPI_Irecv_c(in, n, MPI_INT, left, 11, MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Isend_c(out, n, MPI_INT, right, 11, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
    CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
    check_filled(in, N, left);

    /* Persistent large-count requests, started twice. */
    CHECK(MPI_Recv_init_c(in, n, MPI_INT, left, 12, MPI_COMM_WORLD, &reqs[0]) == MPI_SUCCESS);
    CHECK(MPI_Ssend_init_c(out, n, MPI_INT, right, 12, MPI_COMM_WORLD, &reqs[1]) == MPI_SUCCESS);
    for (int round = 0; round < 2; round++) {
        memset(in, 0, sizeof in);
        CHECK(MPI_Startall(2, reqs) == MPI_SUCCESS);
        CHECK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        check_filled(in, N, left);
    }
    MPI_Request_free(&reqs[0]);
    MPI_Request_free(&reqs[1]);

    /* Buffered: attach, send, detach (the size comes back as an MPI_Count). */
    MPI_Count bytes = N * sizeof(int) + MPI_BSEND_OVERHEAD;
    void *attached = NULL;
    CHECK(MPI_Alloc_mem(bytes, MPI_INFO_NULL, &attached) == MPI_SUCCESS && attached);
    CHECK(((uintptr_t)attached & 63) == 0);
    CHECK(MPI_Buffer_attach_c(attached, bytes) == MPI_SUCCESS);
    CHECK(MPI_Bsend_c(out, n, MPI_INT, right, 13, MPI_COMM_WORLD) == MPI_SUCCESS);
    memset(in, 0, sizeof in);
    CHECK(MPI_Recv_c(in, n, MPI_INT, left, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    check_filled(in, N, left);
    void *back;
    MPI_Count back_size;
    CHECK(MPI_Buffer_detach_c(&back, &back_size) == MPI_SUCCESS);
    CHECK(back == attached && back_size == bytes);
    CHECK(MPI_Free_mem(attached) == MPI_SUCCESS);
    void *none;
    CHECK(MPI_Alloc_mem(-1, MPI_INFO_NULL, &none) == MPI_ERR_SIZE);

    /* Matched probe, large-count receive. */
    CHECK(MPI_Send_c(out, n, MPI_INT, right, 14, MPI_COMM_WORLD) == MPI_SUCCESS || size == 1);
    MPI_Message msg;
    CHECK(MPI_Mprobe(left, 14, MPI_COMM_WORLD, &msg, &st) == MPI_SUCCESS);
    memset(in, 0, sizeof in);
    CHECK(MPI_Mrecv_c(in, n, MPI_INT, &msg, &st) == MPI_SUCCESS);
    check_filled(in, N, left);

    /* A negative count is MPI_ERR_COUNT. */
    CHECK(MPI_Send_c(out, -1, MPI_INT, right, 15, MPI_COMM_WORLD) == MPI_ERR_COUNT);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    ring_isendrecv(rank, size, 4);
    ring_isendrecv(rank, size, 1 << 16); /* above the eager limit */
    self_strided(rank);
    strided_to_strided(rank, size, 10);
    strided_to_strided(rank, size, 100000);
    truncated(rank);
    large_contiguous(rank, size);
    large_count_forms(rank, size);
    null_type_without_data(rank, size);
    MPI_Finalize();
    return 0;
}
