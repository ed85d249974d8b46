/* Partitioned communication (MPI_Psend_init, MPI_Precv_init, MPI_Pready*, MPI_Parrived): pairing in init
 * order whatever the start order, partitions marked by several threads, a receiver that initializes only
 * after the sender marked everything and is blocked in another call, MPI_PROC_NULL, truncation, requests
 * never started, and the errors of misuse. Ranks pair up (0 sends to 1, 2 to 3...); an odd last rank only
 * runs the MPI_PROC_NULL part. */
#include "check.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum { NREQ = 3, PARTS = 16, PER_PART = 5, EPOCHS = 20, NTHREADS = 4 };

static int value(int req, int epoch, int i)
{
    return req * 1000000 + epoch * 1000 + i;
}

/* Three pairs on one (comm, peer, tag), started and marked in an order other than their init order. */
static void init_order_pairs(int rank, int peer, bool sender)
{
    int *bufs[NREQ];
    MPI_Request reqs[NREQ];
    for (int r = 0; r < NREQ; r++) {
        bufs[r] = malloc(PARTS * PER_PART * sizeof(int));
        if (sender)
            CHECK(MPI_Psend_init(bufs[r], PARTS, PER_PART, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &reqs[r]) == MPI_SUCCESS);
        else
            CHECK(MPI_Precv_init(bufs[r], PARTS, PER_PART, MPI_INT, peer, 7, MPI_COMM_WORLD, MPI_INFO_NULL,
                                 &reqs[r]) == MPI_SUCCESS);
    }
    for (int epoch = 0; epoch < 3; epoch++) {
        if (sender) {
            for (int k = NREQ - 1; k >= 0; k--) { /* the last pair first */
                CHECK(MPI_Start(&reqs[k]) == MPI_SUCCESS);
                for (int i = 0; i < PARTS * PER_PART; i++)
                    bufs[k][i] = value(k, epoch, i);
                CHECK(MPI_Pready_range(0, PARTS - 1, reqs[k]) == MPI_SUCCESS);
            }
            CHECK(MPI_Waitall(NREQ, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        } else {
            for (int k = 0; k < NREQ; k++) {
                memset(bufs[k], 0xff, PARTS * PER_PART * sizeof(int));
                CHECK(MPI_Start(&reqs[k]) == MPI_SUCCESS);
            }
            MPI_Status st[NREQ];
            CHECK(MPI_Waitall(NREQ, reqs, st) == MPI_SUCCESS);
            for (int k = 0; k < NREQ; k++) {
                int n;
                MPI_Get_count(&st[k], MPI_INT, &n);
                CHECK(n == PARTS * PER_PART);
                CHECK(st[k].MPI_SOURCE == peer && st[k].MPI_TAG == 7);
                for (int i = 0; i < PARTS * PER_PART; i++)
                    CHECK(bufs[k][i] == value(k, epoch, i));
            }
        }
    }
    for (int r = 0; r < NREQ; r++) {
        CHECK(MPI_Request_free(&reqs[r]) == MPI_SUCCESS && reqs[r] == MPI_REQUEST_NULL);
        free(bufs[r]);
    }
    (void)rank;
}

typedef struct {
    MPI_Request req;
    int *buf, tid, epoch, parts, per_part, rank;
    bool sender;
} worker_t;

/* A sender's thread fills and marks its share of the partitions; a receiver's polls its share with
 * MPI_Parrived and checks each partition once it says so. */
static void *worker(void *arg)
{
    worker_t *w = arg;
    for (int p = w->tid; p < w->parts; p += NTHREADS) {
        if (w->sender) {
            for (int i = 0; i < w->per_part; i++)
                w->buf[p * w->per_part + i] = value(0, w->epoch, p * w->per_part + i);
            CHECK(MPI_Pready(p, w->req) == MPI_SUCCESS);
        } else {
            int flag = 0;
            while (!flag)
                CHECK(MPI_Parrived(w->req, p, &flag) == MPI_SUCCESS);
            for (int i = 0; i < w->per_part; i++)
                CHECK(w->buf[p * w->per_part + i] == value(0, w->epoch, p * w->per_part + i));
        }
    }
    CHECK(MPI_Send(&w->tid, 1, MPI_INT, w->rank, 77, MPI_COMM_WORLD) == MPI_SUCCESS);
    return NULL;
}

/* Sender 32 partitions of 3 ints, receiver 8 of 12: the sizes differ per partition, not in total. */
static void threaded_epochs(int rank, int peer, bool sender)
{
    int parts = sender ? 32 : 8, per_part = sender ? 3 : 12;
    int *buf = calloc(96, sizeof(int));
    MPI_Request req;
    if (sender)
        CHECK(MPI_Psend_init(buf, parts, per_part, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
    else
        CHECK(MPI_Precv_init(buf, parts, per_part, MPI_INT, peer, 3, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
    for (int epoch = 0; epoch < EPOCHS; epoch++) {
        if (!sender)
            memset(buf, 0, 96 * sizeof(int));
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        pthread_t threads[NTHREADS];
        worker_t w[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) {
            w[t] = (worker_t){req, buf, t, epoch, parts, per_part, rank, sender};
            CHECK(pthread_create(&threads[t], NULL, worker, &w[t]) == 0);
        }
        /* Each thread reports its end by a message to its own rank, which the rank waits for before it
         * completes the request and joins: the request's completion then never pokes a ULT inside
         * pthread_join, where ThreadSanitizer does not see the scheduler's synchronization (it reports
         * races that are not there). */
        for (int t = 0; t < NTHREADS; t++) {
            int done = -1;
            CHECK(MPI_Recv(&done, 1, MPI_INT, rank, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
            CHECK(done >= 0 && done < NTHREADS);
        }
        MPI_Status st;
        CHECK(MPI_Wait(&req, &st) == MPI_SUCCESS);
        for (int t = 0; t < NTHREADS; t++)
            pthread_join(threads[t], NULL);
        if (!sender) {
            int n;
            MPI_Get_count(&st, MPI_INT, &n);
            CHECK(n == 96);
        }
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    free(buf);
}

/* The sender marks every partition before the receiver even initializes, then blocks in MPI_Recv until the
 * receiver has the data: the message must leave while the sender waits for something else. */
static void late_receiver(int peer, bool sender)
{
    int data[4] = {0}, token = 0;
    MPI_Request req;
    if (sender) {
        CHECK(MPI_Psend_init(data, 2, 2, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        for (int i = 0; i < 4; i++)
            data[i] = 40 + i;
        CHECK(MPI_Pready(1, req) == MPI_SUCCESS);
        CHECK(MPI_Pready(0, req) == MPI_SUCCESS);
        CHECK(MPI_Send(&token, 1, MPI_INT, peer, 12, MPI_COMM_WORLD) == MPI_SUCCESS); /* now init */
        CHECK(MPI_Recv(&token, 1, MPI_INT, peer, 13, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(token == 99);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Recv(&token, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        CHECK(MPI_Precv_init(data, 1, 4, MPI_INT, peer, 11, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
        for (int i = 0; i < 4; i++)
            CHECK(data[i] == 40 + i);
        token = 99;
        CHECK(MPI_Send(&token, 1, MPI_INT, peer, 13, MPI_COMM_WORLD) == MPI_SUCCESS);
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
}

/* A receive shorter than the message reports MPI_ERR_TRUNCATE; pairs that never start can be freed. */
static void truncation_and_unstarted(int peer, bool sender)
{
    int data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    MPI_Request req, unstarted;
    if (sender) {
        CHECK(MPI_Psend_init(data, 2, 4, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Psend_init(data, 1, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &unstarted) ==
              MPI_SUCCESS);
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        CHECK(MPI_Pready_list(2, (int[]){1, 0}, req) == MPI_SUCCESS);
        CHECK(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    } else {
        CHECK(MPI_Precv_init(data, 2, 3, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &req) ==
              MPI_SUCCESS);
        CHECK(MPI_Precv_init(data, 1, 1, MPI_INT, peer, 6, MPI_COMM_WORLD, MPI_INFO_NULL, &unstarted) ==
              MPI_SUCCESS);
        CHECK(MPI_Start(&req) == MPI_SUCCESS);
        int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_TRUNCATE);
    }
    CHECK(MPI_Request_free(&req) == MPI_SUCCESS);
    CHECK(MPI_Request_free(&unstarted) == MPI_SUCCESS);
}

static int error_class(int rc)
{
    int cls;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* MPI_PROC_NULL on both sides, and the errors of misuse (MPI_ERRORS_RETURN on MPI_COMM_WORLD). */
static void proc_null_and_errors(void)
{
    int data[2] = {5, 6}, flag = 0;
    MPI_Request s, r;
    CHECK(MPI_Psend_init(data, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &s) ==
          MPI_SUCCESS);
    CHECK(MPI_Precv_init(data, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &r) ==
          MPI_SUCCESS);
    CHECK(error_class(MPI_Pready(0, s)) == MPI_ERR_REQUEST); /* not started */
    CHECK(MPI_Parrived(r, 0, &flag) == MPI_SUCCESS && flag); /* inactive: nothing to wait for */
    CHECK(MPI_Start(&s) == MPI_SUCCESS && MPI_Start(&r) == MPI_SUCCESS);
    CHECK(error_class(MPI_Pready(0, r)) == MPI_ERR_REQUEST);          /* a receive */
    CHECK(error_class(MPI_Parrived(s, 0, &flag)) == MPI_ERR_REQUEST); /* a send */
    CHECK(error_class(MPI_Pready(2, s)) == MPI_ERR_ARG);              /* no partition 2 */
    CHECK(MPI_Pready(1, s) == MPI_SUCCESS);
    CHECK(error_class(MPI_Pready(1, s)) == MPI_ERR_ARG); /* twice in one epoch */
    CHECK(MPI_Pready(0, s) == MPI_SUCCESS);
    CHECK(error_class(MPI_Parrived(r, 5, &flag)) == MPI_ERR_ARG);
    CHECK(MPI_Parrived(r, 1, &flag) == MPI_SUCCESS && flag);
    MPI_Status st;
    CHECK(MPI_Wait(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS && MPI_Wait(&r, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
    CHECK(data[0] == 5 && data[1] == 6);
    CHECK(MPI_Request_free(&s) == MPI_SUCCESS && MPI_Request_free(&r) == MPI_SUCCESS);

    MPI_Request bad;
    CHECK(error_class(MPI_Precv_init(data, 1, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
                                     &bad)) == MPI_ERR_RANK);
    CHECK(error_class(MPI_Precv_init(data, 1, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_INFO_NULL,
                                     &bad)) == MPI_ERR_TAG);
    CHECK(error_class(MPI_Psend_init(data, -1, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad)) ==
          MPI_ERR_ARG);
    CHECK(error_class(MPI_Psend_init(data, 1, -1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &bad)) ==
          MPI_ERR_COUNT);
    CHECK(error_class(MPI_Pready(0, MPI_REQUEST_NULL)) == MPI_ERR_REQUEST);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    proc_null_and_errors();
    int peer = rank % 2 ? rank - 1 : rank + 1;
    bool sender = rank % 2 == 0;
    if (peer < size) {
        init_order_pairs(rank, peer, sender);
        threaded_epochs(rank, peer, sender);
        late_receiver(peer, sender);
        truncation_and_unstarted(peer, sender);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
