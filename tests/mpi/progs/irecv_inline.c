/* Small MPI_Irecv payloads, which a sender of the process leaves in the request once MPI_Wait waits for it
 * (pt2pt.h, inline_ok), reach the user's buffer, and every other way of completing a receive still works:
 * MPI_Wait, MPI_Test, MPI_Waitall, MPI_Waitany, MPI_Testsome, MPI_Request_get_status then MPI_Wait, and
 * MPI_Request_free before or after the message matched. Sizes 1 to 8 (inline), 9 to 64 (the sender's inline
 * copy into a posted receive, mpcrt_copy_upto64) and 65, and a
 * contiguous type whose data starts 8 bytes in; then an MPI_Irecv/MPI_Send/MPI_Wait ping-pong and an
 * MPI_Send/MPI_Recv one between ranks 0 and 1, where the receiver waits before its message comes. Every
 * receive also checks that no byte past the message changed (the inline copies move overlapping words). */
#include "check.h"

#include <string.h>

enum { ROUNDS = 200, WAYS = 8 };

static void fill(unsigned char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 31 + i * 7 + 1);
}

static bool same(const unsigned char *p, int n, int seed)
{
    for (int i = 0; i < n; i++)
        if (p[i] != (unsigned char)(seed * 31 + i * 7 + 1))
            return false;
    return true;
}

/* One message from left to me, completed the `way`-th way; the data is checked after completion. */
static void receive(int way, int left, int right, int seed, int bytes, MPI_Datatype type, int count,
                    int offset)
{
    unsigned char in[80], out[80];
    memset(in, 0, sizeof in);
    fill(out + offset, (int)sizeof out - offset, seed);
    MPI_Request r[2];
    int idx = -1, flag = 0, outcount = 0, indices[2];
    if (way == 6) { /* freed before it matched: the sender waits for our "posted" */
        MPI_Irecv(in, count, type, left, 1, MPI_COMM_WORLD, &r[0]);
        CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS && r[0] == MPI_REQUEST_NULL);
    } else {
        MPI_Irecv(in, count, type, left, 1, MPI_COMM_WORLD, &r[0]);
    }
    MPI_Sendrecv(NULL, 0, MPI_BYTE, left, 2, NULL, 0, MPI_BYTE, right, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* Our receive is posted and the right neighbour's too: send. */
    MPI_Send(out, count, type, right, 1, MPI_COMM_WORLD);
    switch (way) {
    case 0:
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        break;
    case 1:
        while (!flag)
            MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE);
        break;
    case 2:
        MPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        break;
    case 3:
        MPI_Waitany(1, r, &idx, MPI_STATUS_IGNORE);
        CHECK(idx == 0);
        break;
    case 4:
        while (outcount == 0)
            MPI_Testsome(1, r, &outcount, indices, MPI_STATUSES_IGNORE);
        break;
    case 5:
        while (!flag)
            MPI_Request_get_status(r[0], &flag, MPI_STATUS_IGNORE);
        CHECK(same(in + offset, bytes, seed)); /* complete: the buffer holds the data already */
        MPI_Wait(&r[0], MPI_STATUS_IGNORE);
        break;
    case 6:
    case 7: {
        /* The left neighbour's "sent" comes after its message, which then matched our receive. */
        MPI_Sendrecv(NULL, 0, MPI_BYTE, right, 3, NULL, 0, MPI_BYTE, left, 3, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        if (way == 7)
            CHECK(MPI_Request_free(&r[0]) == MPI_SUCCESS);
        break;
    }
    }
    CHECK(same(in + offset, bytes, seed));
    for (int i = offset + bytes; i < (int)sizeof in; i++)
        CHECK(in[i] == 0);
}

static bool untouched_past(const unsigned char *p, int from, int size)
{
    for (int i = from; i < size; i++)
        if (p[i] != 0)
            return false;
    return true;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int left = (me + n - 1) % n, right = (me + 1) % n;
    MPI_Datatype at8; /* two ints 8 bytes in: contiguous, its data at true_lb 8 */
    int len = 2;
    MPI_Aint disp = 8;
    MPI_Type_create_hindexed(1, &len, &disp, MPI_INT, &at8);
    MPI_Type_commit(&at8);
    for (int round = 0; round < ROUNDS; round++) {
        int way = round % WAYS;
        static const int sizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65};
        enum { NSIZES = sizeof sizes / sizeof sizes[0] };
        for (int s = 0; s < NSIZES; s++)
            receive(way, left, right, round * (NSIZES + 1) + s, sizes[s], MPI_BYTE, sizes[s], 0);
        receive(way, left, right, round * (NSIZES + 1) + NSIZES, 8, at8, 1, 8);
    }
    /* Ping-pong: each rank waits for its receive before the other sends (the inline path). */
    unsigned char in[16], out[16];
    for (int i = 0; i < ROUNDS * 10 && n >= 2 && me < 2; i++) {
        int bytes = 1 + i % 8, other = 1 - me;
        MPI_Request r;
        memset(in, 0, sizeof in);
        MPI_Irecv(in, bytes, MPI_BYTE, other, 4, MPI_COMM_WORLD, &r);
        if (me == 1 - i % 2) { /* the receiver of this round waits first */
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            CHECK(same(in, bytes, i) && untouched_past(in, bytes, (int)sizeof in));
            MPI_Send(NULL, 0, MPI_BYTE, other, 4, MPI_COMM_WORLD);
        } else {
            fill(out, bytes, i);
            MPI_Send(out, bytes, MPI_BYTE, other, 4, MPI_COMM_WORLD);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
    }
    /* The same with blocking receives (their requests on the stack take the data inline too). */
    for (int i = 0; i < ROUNDS * 10 && n >= 2 && me < 2; i++) {
        int bytes = 1 + i % 8, other = 1 - me;
        if (me == 1 - i % 2) {
            memset(in, 0, sizeof in);
            MPI_Status st;
            MPI_Recv(in, bytes, MPI_BYTE, other, 5, MPI_COMM_WORLD, &st);
            int got = -1;
            MPI_Get_count(&st, MPI_BYTE, &got);
            CHECK(got == bytes && same(in, bytes, i) && untouched_past(in, bytes, (int)sizeof in));
        } else {
            fill(out, bytes, i);
            MPI_Send(out, bytes, MPI_BYTE, other, 5, MPI_COMM_WORLD);
        }
    }
    MPI_Type_free(&at8);
    MPI_Finalize();
    return 0;
}
