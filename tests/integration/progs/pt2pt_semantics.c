/* Point-to-point semantics in thread mode: every send mode, blocking and non-blocking, MPI_ANY_SOURCE and
 * MPI_ANY_TAG, non-overtaking order, truncation, MPI_PROC_NULL, probes, matched probes, persistent requests,
 * cancel, waitany/waitsome/testall, sendrecv(_replace), derived datatypes, large messages (single copy into
 * a posted receive and from a descriptor). Built with -fmpc-privatize (it keeps its rank in globals). Prints
 * "rank R: N checks ok" or each failure. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, size, checks, failures;
#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        checks++;                                                                                            \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            printf("rank %d: line %d: check failed: %s\n", rank, __LINE__, #cond);                           \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Status st;
    int count;

    /* Every blocking mode around the ring; Ssend completes only once matched, so pair with Irecv first. */
    int modes_in[4], modes_out = rank;
    MPI_Request r[8];
    for (int m = 0; m < 4; m++)
        MPI_Irecv(&modes_in[m], 1, MPI_INT, prev, 10 + m, MPI_COMM_WORLD, &r[m]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: MPI_Rsend is legal */
    char bsend_space[1024];
    MPI_Buffer_attach(bsend_space, sizeof bsend_space);
    MPI_Send(&modes_out, 1, MPI_INT, next, 10, MPI_COMM_WORLD);
    MPI_Ssend(&modes_out, 1, MPI_INT, next, 11, MPI_COMM_WORLD);
    MPI_Rsend(&modes_out, 1, MPI_INT, next, 12, MPI_COMM_WORLD);
    MPI_Bsend(&modes_out, 1, MPI_INT, next, 13, MPI_COMM_WORLD);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    void *detached;
    int detached_size;
    MPI_Buffer_detach(&detached, &detached_size);
    CHECK(detached == bsend_space && detached_size == (int)sizeof bsend_space);
    for (int m = 0; m < 4; m++)
        CHECK(modes_in[m] == prev);

    /* Non-overtaking: 100 messages with the same tag arrive in order, also through ANY_SOURCE/ANY_TAG. */
    for (int i = 0; i < 100; i++)
        MPI_Isend(&i, 1, MPI_INT, next, 20, MPI_COMM_WORLD, &r[0]), MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    int in_order = 1;
    for (int i = 0; i < 100; i++) {
        int v;
        MPI_Recv(&v, 1, MPI_INT, i % 2 ? MPI_ANY_SOURCE : prev, i % 3 ? MPI_ANY_TAG : 20, MPI_COMM_WORLD,
                 &st);
        in_order &= v == i && st.MPI_SOURCE == prev && st.MPI_TAG == 20;
    }
    CHECK(in_order);

    /* Large messages: to a posted receive (direct copy) and unexpected (receiver copies from the sender). */
    enum { N = 1 << 20 };
    double *big_out = malloc(N * sizeof(double)), *big_in = malloc(N * sizeof(double));
    for (int i = 0; i < N; i++)
        big_out[i] = rank + i * 1e-6;
    MPI_Irecv(big_in, N, MPI_DOUBLE, prev, 30, MPI_COMM_WORLD, &r[0]);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(big_out, N, MPI_DOUBLE, next, 30, MPI_COMM_WORLD);
    MPI_Wait(&r[0], &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == N && big_in[N - 1] == prev + (N - 1) * 1e-6);
    MPI_Isend(big_out, N, MPI_DOUBLE, next, 31, MPI_COMM_WORLD, &r[0]);
    MPI_Barrier(MPI_COMM_WORLD); /* the receive comes after the send: descriptor path */
    memset(big_in, 0, N * sizeof(double));
    MPI_Recv(big_in, N, MPI_DOUBLE, prev, 31, MPI_COMM_WORLD, &st);
    MPI_Wait(&r[0], MPI_STATUS_IGNORE);
    CHECK(big_in[12345] == prev + 12345 * 1e-6);

    /* Derived datatypes on both sides: every other double of a vector into a contiguous buffer. */
    MPI_Datatype every_other;
    MPI_Type_vector(1000, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    MPI_Sendrecv(big_out, 1, every_other, next, 40, big_in, 1000, MPI_DOUBLE, prev, 40, MPI_COMM_WORLD, &st);
    CHECK(big_in[0] == prev && big_in[999] == prev + 1998 * 1e-6);
    MPI_Type_free(&every_other);

    /* MPI_PROC_NULL: immediate, empty status. */
    int one = 0;
    MPI_Recv(&one, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
    MPI_Send(&one, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD);

    /* MPI_COMM_SELF (one object per rank: MPI_Send and MPI_Recv take it by their general path), a message
     * to oneself, an empty one with MPI_DATATYPE_NULL, and the error of a rank outside it. */
    int self_out = 1000 + rank, self_in = -1;
    MPI_Send(&self_out, 1, MPI_INT, 0, 7, MPI_COMM_SELF);
    MPI_Send(NULL, 0, MPI_DATATYPE_NULL, 0, 8, MPI_COMM_SELF);
    MPI_Recv(&self_in, 1, MPI_INT, 0, 7, MPI_COMM_SELF, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(self_in == 1000 + rank && count == 1 && st.MPI_SOURCE == 0 && st.MPI_TAG == 7);
    MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, 0, 8, MPI_COMM_SELF, &st);
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == 0 && st.MPI_TAG == 8);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int self_class = MPI_SUCCESS;
    MPI_Error_class(MPI_Send(&self_out, 1, MPI_INT, 1, 7, MPI_COMM_SELF), &self_class);
    CHECK(self_class == MPI_ERR_RANK);
    MPI_Error_class(MPI_Recv(&self_in, 1, MPI_INT, 0, -5, MPI_COMM_SELF, &st), &self_class);
    CHECK(self_class == MPI_ERR_TAG);

    /* Probe, Iprobe and matched probe. */
    int probe_out[3] = {rank, rank, rank}, probe_in[3];
    MPI_Send(probe_out, 3, MPI_INT, next, 60, MPI_COMM_WORLD);
    MPI_Probe(prev, 60, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 3 && st.MPI_SOURCE == prev);
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, 60, MPI_COMM_WORLD, &flag, &st);
    CHECK(flag);
    MPI_Message msg;
    MPI_Mprobe(prev, 60, MPI_COMM_WORLD, &msg, &st);
    MPI_Mrecv(probe_in, 3, MPI_INT, &msg, &st);
    CHECK(probe_in[2] == prev && msg == MPI_MESSAGE_NULL);
    MPI_Iprobe(prev, 60, MPI_COMM_WORLD, &flag, &st);
    CHECK(!flag);

    /* Persistent requests, restarted. */
    int p_out, p_in;
    MPI_Request ps, pr;
    MPI_Send_init(&p_out, 1, MPI_INT, next, 70, MPI_COMM_WORLD, &ps);
    MPI_Recv_init(&p_in, 1, MPI_INT, prev, 70, MPI_COMM_WORLD, &pr);
    int persistent_ok = 1;
    for (int i = 0; i < 5; i++) {
        p_out = rank * 10 + i;
        MPI_Start(&pr);
        MPI_Start(&ps);
        MPI_Wait(&ps, MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        persistent_ok &= p_in == prev * 10 + i;
    }
    CHECK(persistent_ok && ps != MPI_REQUEST_NULL);
    MPI_Request_free(&ps);
    MPI_Request_free(&pr);

    /* Cancel a receive nobody will match. */
    MPI_Irecv(&one, 1, MPI_INT, prev, 999, MPI_COMM_WORLD, &r[0]);
    MPI_Cancel(&r[0]);
    MPI_Wait(&r[0], &st);
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    CHECK(cancelled);

    /* Waitany / Waitsome / Test. */
    int vals[3];
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&vals[i], 1, MPI_INT, prev, 80 + i, MPI_COMM_WORLD, &r[i]);
    for (int i = 2; i >= 0; i--)
        MPI_Send(&rank, 1, MPI_INT, next, 80 + i, MPI_COMM_WORLD);
    int index, done = 0, outcount, indices[3];
    MPI_Waitany(3, r, &index, &st);
    CHECK(index >= 0 && index < 3 && r[index] == MPI_REQUEST_NULL);
    done++;
    while (done < 3) {
        MPI_Waitsome(3, r, &outcount, indices, MPI_STATUSES_IGNORE);
        done += outcount;
    }
    CHECK(vals[0] == prev && vals[1] == prev && vals[2] == prev);
    MPI_Waitany(3, r, &index, &st);
    CHECK(index == MPI_UNDEFINED);

    /* Sendrecv_replace around the ring. */
    int token = rank;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, next, 90, prev, 90, MPI_COMM_WORLD, &st);
    CHECK(token == prev);

    /* Small blocking receives posted before their send (the partner sleeps first, which parks its ULT): a
     * sender of this process may leave up to 8 bytes in the receive's request, which MPI_Recv copies out.
     * Exact sizes, more than 8 bytes, truncation, a non-contiguous receive type, 0 bytes. Pairs of ranks. */
    int partner = rank ^ 1;
    if (partner < size) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        MPI_Datatype every_other;
        MPI_Type_vector(2, 1, 2, MPI_INT, &every_other);
        MPI_Type_commit(&every_other);
        for (int c = 0; c < 6; c++) {
            int out[4] = {100 * rank + 1, 100 * rank + 2, 100 * rank + 3, 100 * rank + 4};
            int in[5] = {-1, -1, -1, -1, -1};
            int scount = c == 0 ? 1 : c == 1 ? 2 : c == 2 ? 3 : c == 3 ? 2 : c == 4 ? 2 : 0;
            if (rank % 2 == 0) { /* receive first, then send back the same case */
                int rc;
                if (c == 0) {
                    char byte = 0;
                    rc = MPI_Recv(&byte, 1, MPI_CHAR, partner, 200, MPI_COMM_WORLD, &st);
                    CHECK(rc == MPI_SUCCESS && byte == (char)(100 * partner + 1));
                } else if (c == 3) {
                    rc = MPI_Recv(in, 1, MPI_INT, partner, 200 + c, MPI_COMM_WORLD, &st);
                    int cls;
                    MPI_Error_class(rc, &cls);
                    CHECK(cls == MPI_ERR_TRUNCATE && in[0] == 100 * partner + 1 && in[1] == -1);
                } else if (c == 4) {
                    rc = MPI_Recv(in, 1, every_other, partner, 200 + c, MPI_COMM_WORLD, &st);
                    CHECK(rc == MPI_SUCCESS && in[0] == 100 * partner + 1 && in[1] == -1 &&
                          in[2] == 100 * partner + 2 && in[3] == -1);
                } else {
                    rc = MPI_Recv(in, 4, MPI_INT, partner, 200 + c, MPI_COMM_WORLD, &st);
                    MPI_Get_count(&st, MPI_INT, &count);
                    CHECK(rc == MPI_SUCCESS && count == scount && st.MPI_SOURCE == partner &&
                          st.MPI_TAG == 200 + c);
                    for (int i = 0; i < 5; i++)
                        CHECK(in[i] == (i < scount ? 100 * partner + 1 + i : -1));
                }
                MPI_Send(out, scount, MPI_INT, partner, 300 + c, MPI_COMM_WORLD);
            } else {
                usleep(2000); /* the partner's MPI_Recv is posted meanwhile */
                if (c == 0) {
                    char byte = (char)out[0];
                    MPI_Send(&byte, 1, MPI_CHAR, partner, 200, MPI_COMM_WORLD);
                } else {
                    MPI_Send(out, scount, MPI_INT, partner, 200 + c, MPI_COMM_WORLD);
                }
                MPI_Recv(in, 4, MPI_INT, partner, 300 + c, MPI_COMM_WORLD, &st);
                for (int i = 0; i < 5; i++)
                    CHECK(in[i] == (i < scount ? 100 * partner + 1 + i : -1));
            }
        }
        MPI_Type_free(&every_other);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    /* MPI_Request_free of active requests (MPI 4.0 section 3.7.3): the operations still complete, and their
     * completion must not touch a request made afterwards (the freed one's memory, before the fix): each
     * rank frees a receive and a rendezvous synchronous send, starts a new receive, and that one must stay
     * pending until its own message is sent. */
    {
        /* Nothing tells when the freed large receive and synchronous send are done: their buffers are
         * static, never freed. */
        enum { FREED_BIG = 1 << 18 };
        static char big[FREED_BIG], big_in[FREED_BIG];
        int freed_in = -1, later_in = -1, small = rank;
        memset(big, rank, FREED_BIG);
        MPI_Request freed[2], later;
        MPI_Irecv(&freed_in, 1, MPI_INT, prev, 400, MPI_COMM_WORLD, &freed[0]);
        MPI_Request_free(&freed[0]);
        CHECK(freed[0] == MPI_REQUEST_NULL);
        MPI_Irecv(big_in, FREED_BIG, MPI_CHAR, prev, 401, MPI_COMM_WORLD, &freed[1]);
        MPI_Request_free(&freed[1]);
        MPI_Request ssend;
        MPI_Issend(big, FREED_BIG, MPI_CHAR, next, 401, MPI_COMM_WORLD, &ssend);
        MPI_Request_free(&ssend);
        MPI_Irecv(&later_in, 1, MPI_INT, prev, 402, MPI_COMM_WORLD, &later);
        MPI_Send(&small, 1, MPI_INT, next, 400, MPI_COMM_WORLD);
        MPI_Send(&small, 1, MPI_INT, next, 403, MPI_COMM_WORLD);
        int marker = -1;
        MPI_Recv(&marker, 1, MPI_INT, prev, 403, MPI_COMM_WORLD, &st); /* tag 400 from prev came before */
        int flag = 1;
        MPI_Test(&later, &flag, &st);
        CHECK(flag == 0 && later != MPI_REQUEST_NULL);
        CHECK(freed_in == prev); /* the freed receive still received */
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&small, 1, MPI_INT, next, 402, MPI_COMM_WORLD);
        MPI_Wait(&later, &st);
        CHECK(later_in == prev && st.MPI_SOURCE == prev && st.MPI_TAG == 402);
    }

    /* Small sends that leave within MPI_Isend: every completion and query call sees a complete, uncancelled
     * send with a status to ignore, the handle becomes MPI_REQUEST_NULL, MPI_Start refuses it, and every
     * message arrives with its payload. */
    {
        int out[6], in[6], flag = 0, index = -1, outcount = 0, indices[2];
        MPI_Request s[6];
        for (int i = 0; i < 6; i++) {
            out[i] = 1000 * rank + i;
            in[i] = -1;
            MPI_Isend(&out[i], 1, MPI_INT, next, 500 + i, MPI_COMM_WORLD, &s[i]);
        }
        MPI_Request_get_status(s[0], &flag, &st);
        CHECK(flag == 1 && s[0] != MPI_REQUEST_NULL);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int start_rc = MPI_Start(&s[0]), start_class = -1;
        MPI_Error_class(start_rc, &start_class);
        CHECK(start_class == MPI_ERR_REQUEST);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        flag = 0;
        MPI_Test(&s[0], &flag, &st);
        int cancelled = 1;
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(flag == 1 && s[0] == MPI_REQUEST_NULL && cancelled == 0);
        MPI_Cancel(&s[1]);
        MPI_Wait(&s[1], &st);
        cancelled = 1;
        MPI_Test_cancelled(&st, &cancelled);
        CHECK(s[1] == MPI_REQUEST_NULL && cancelled == 0);
        MPI_Waitany(2, &s[2], &index, &st);
        CHECK((index == 0 || index == 1) && s[2 + index] == MPI_REQUEST_NULL &&
              s[3 - index] != MPI_REQUEST_NULL);
        MPI_Waitsome(2, &s[2], &outcount, indices, MPI_STATUSES_IGNORE);
        CHECK(outcount == 1 && s[2] == MPI_REQUEST_NULL && s[3] == MPI_REQUEST_NULL);
        MPI_Request_free(&s[4]);
        CHECK(s[4] == MPI_REQUEST_NULL);
        MPI_Status sts[6];
        MPI_Waitall(6, s, sts); /* one active, the others null */
        CHECK(s[5] == MPI_REQUEST_NULL);
        for (int i = 0; i < 6; i++) {
            MPI_Recv(&in[i], 1, MPI_INT, prev, 500 + i, MPI_COMM_WORLD, &st);
            CHECK(in[i] == 1000 * prev + i && st.MPI_SOURCE == prev && st.MPI_TAG == 500 + i);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    if (failures == 0)
        printf("rank %d: %d checks ok\n", rank, checks);
    free(big_out);
    free(big_in);
    MPI_Finalize();
    return failures != 0;
}
