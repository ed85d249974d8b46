/* The alternative algorithms of the table in select.c, on intracommunicators: k-nomial broadcast,
 * recursive-doubling allreduce, ring allgather and Bruck's alltoall. intra.c holds the defaults and calls
 * these when select.c picks them. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"

static mpcrt_datatype_t *bytes_type(void)
{
    return mpcrt_datatype_get(MPI_BYTE);
}

/* Radix 4: a tree of depth log4(n) instead of log2(n), for the cost of up to 3 sends per level. */
enum { KNOMIAL_RADIX = 4 };

/* Ranks relative to root; a node receives from the node that clears its lowest non-zero base-k digit, then
 * sends to the nodes that set one digit below that one, largest subtrees first. */
void nbc_knomial_bcast(mpcrt_nbc_t *s, int n, int me, void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                       int root)
{
    const int k = KNOMIAL_RADIX;
    int vr = (me - root + n) % n;
    long mask = 1;
    while (mask < n) {
        long digit = vr % (mask * k);
        if (digit) {
            mpcrt_nbc_recv(s, buf, count, dt, (int)((vr - digit + root) % n), 0);
            mpcrt_nbc_round(s);
            break;
        }
        mask *= k;
    }
    for (mask /= k; mask > 0; mask /= k)
        for (int j = 1; j < k; j++)
            if (vr + j * mask < n)
                mpcrt_nbc_send(s, buf, count, dt, (int)((vr + j * mask + root) % n), 0);
}

/* Recursive doubling over the largest power of two p <= n. The first 2 (n - p) ranks pair up first (even
 * r sends to r + 1, which folds it on its left), and their odd members stand for both. Every exchange
 * folds the lower group's value on the left, and the pairing keeps groups contiguous in rank order, so the
 * result is the rank-ordered one, bit for bit the same on every member. */
/* A commutative operation folds straight into the receive buffer: the input is copied there once (not at
 * all in place) and every step reduces what it received into it, where the accumulator in scratch cost a
 * copy in and a copy out, two of the four passes over the data of an 8 KiB MPI_Iallreduce on 2 ranks. The
 * value each member holds is then `theirs op mine` in either order: the same bits for a commutative
 * operation. */
void nbc_recdoub_allreduce(mpcrt_nbc_t *s, int n, int me, const void *in, void *recvbuf, MPI_Count count,
                           mpcrt_datatype_t *dt)
{
    bool commutative = s->red.op->commutative;
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    int rem = n - p, newrank;
    /* A member that folds nobody in first, with a commutative operation and a separate input, sends its input
     * itself in the first exchange and receives straight into the receive buffer, then folds its input into
     * that: no copy of the input first, and no scratch at all with 2 members. A free core running both
     * members' halves of an 8 KiB MPI_Iallreduce (Taboada's overlap setting) made four passes over 8 KiB
     * before their two reductions; now two. */
    bool direct = commutative && in != recvbuf && me >= 2 * rem && p > 1;
    void *tmp = direct && p == 2 ? NULL : mpcrt_nbc_scratch(s, count, dt),
         *acc = commutative ? recvbuf : mpcrt_nbc_scratch(s, count, dt);
    if (!acc || (!tmp && !(direct && p == 2)))
        return;
    if (in != acc && !direct) /* local steps run in order when their round starts: before the first send */
        mpcrt_nbc_copy(s, in, count, dt, acc, count, dt); /* first: in may be recvbuf (MPI_IN_PLACE) */
    if (me < 2 * rem) {
        if (me % 2 == 0) { /* folded into me + 1; gets the result back at the end */
            mpcrt_nbc_send(s, acc, count, dt, me + 1, 0);
            mpcrt_nbc_round(s);
            mpcrt_nbc_recv(s, recvbuf, count, dt, me + 1, 0);
            return;
        }
        mpcrt_nbc_recv(s, tmp, count, dt, me - 1, 0);
        mpcrt_nbc_round(s);
        mpcrt_nbc_reduce(s, tmp, acc, count); /* acc = even's op mine */
        newrank = me / 2;
    } else {
        newrank = me - rem;
    }
    for (int mask = 1; mask < p; mask <<= 1) {
        int partner = newrank ^ mask;
        int peer = partner < rem ? 2 * partner + 1 : partner + rem;
        if (direct && mask == 1) {
            mpcrt_nbc_send(s, in, count, dt, peer, 0);
            mpcrt_nbc_recv(s, acc, count, dt, peer, 0);
            mpcrt_nbc_round(s);
            mpcrt_nbc_reduce(s, in, acc, count); /* acc = mine op theirs */
            continue;
        }
        /* The send is complete before the next round's reduce writes acc (rounds wait for every step). */
        mpcrt_nbc_send(s, acc, count, dt, peer, 0);
        mpcrt_nbc_recv(s, tmp, count, dt, peer, 0);
        mpcrt_nbc_round(s);
        if (commutative || partner < newrank) {
            mpcrt_nbc_reduce(s, tmp, acc, count); /* acc = theirs op mine */
        } else {
            mpcrt_nbc_reduce(s, acc, tmp, count); /* tmp = mine op theirs: the new accumulator */
            void *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    if (acc != recvbuf)
        mpcrt_nbc_copy(s, acc, count, dt, recvbuf, count, dt);
    if (me < 2 * rem)
        mpcrt_nbc_send(s, recvbuf, count, dt, me - 1, 0);
}

/* Ring: in round r, each member passes the block it got in round r - 1 (its own first) to the right.
 * Every member sends and receives one block at a time, so each byte crosses memory once per hop without
 * n - 1 messages competing for the same receiver. Works for allgatherv: blocks are the receive views. */
void nbc_ring_allgather(mpcrt_nbc_t *s, int n, int me, const void *sendbuf, MPI_Count sendcount,
                        mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    coll_view_t mine = coll_block(recv, me);
    if (sendbuf != MPI_IN_PLACE)
        mpcrt_nbc_copy(s, sendbuf, sendcount, sendtype, mine.buf, mine.count, mine.dt);
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int r = 0; r < n - 1; r++) {
        coll_view_t out = coll_block(recv, (me - r + n) % n), in = coll_block(recv, (me - r - 1 + n) % n);
        mpcrt_nbc_send(s, out.buf, out.count, out.dt, right, 0);
        mpcrt_nbc_recv(s, in.buf, in.count, in.dt, left, 0);
        mpcrt_nbc_round(s);
    }
}

/* Bruck: rotate the blocks so that slot i holds the block for rank me + i, then for each bit k send the
 * slots with bit k set to me + k (packed in one message) and take the same slots from me - k. Slot i then
 * holds the block of rank me - i. log2(n) messages per member instead of n - 1, each of about n/2 blocks:
 * the choice for small blocks. Blocks are packed bytes, so any datatype works. */
void nbc_bruck_alltoall(mpcrt_nbc_t *s, int n, int me, const mpcrt_coll_blocks_t *send,
                        const mpcrt_coll_blocks_t *recv)
{
    coll_view_t first = coll_block(recv, 0);
    MPI_Count b = coll_view_bytes(&first);
    const mpcrt_coll_blocks_t *src = send->buf == MPI_IN_PLACE ? recv : send;
    char *slots = mpcrt_nbc_scratch(s, (MPI_Count)n * b, bytes_type());
    char *out = mpcrt_nbc_scratch(s, (MPI_Count)(n + 1) / 2 * b, bytes_type());
    char *in = mpcrt_nbc_scratch(s, (MPI_Count)(n + 1) / 2 * b, bytes_type());
    if (!slots || !out || !in)
        return;
    for (int i = 0; i < n; i++) {
        coll_view_t v = coll_block(src, (me + i) % n);
        mpcrt_nbc_copy(s, v.buf, v.count, v.dt, slots + i * b, b, bytes_type());
    }
    for (int k = 1; k < n; k <<= 1) {
        /* The previous round's unpacking steps come first in this round: the slots are up to date. */
        int m = 0;
        for (int i = 0; i < n; i++)
            if (i & k)
                mpcrt_nbc_copy(s, slots + i * b, b, bytes_type(), out + (m++) * b, b, bytes_type());
        mpcrt_nbc_send(s, out, m * b, bytes_type(), (me + k) % n, 0);
        mpcrt_nbc_recv(s, in, m * b, bytes_type(), (me - k + n) % n, 0);
        mpcrt_nbc_round(s);
        m = 0;
        for (int i = 0; i < n; i++)
            if (i & k)
                mpcrt_nbc_copy(s, in + (m++) * b, b, bytes_type(), slots + i * b, b, bytes_type());
    }
    for (int j = 0; j < n; j++) {
        coll_view_t v = coll_block(recv, j);
        mpcrt_nbc_copy(s, slots + (MPI_Count)((me - j + n) % n) * b, b, bytes_type(), v.buf, v.count, v.dt);
    }
}
