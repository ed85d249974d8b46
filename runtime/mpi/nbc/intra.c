/* Schedules of the collectives on intracommunicators (intercommunicators go to inter.c; the alternatives
 * that select.c may pick for bcast, allreduce, allgather and alltoall are in intra_alg.c): dissemination
 * barrier, binomial broadcast, rank-ordered binomial reduction (correct for non-commutative operations:
 * each node folds its higher-ranked subtree after its own part), linear rooted data movement, direct
 * exchanges for allgather and alltoall (every peer at once, starting after the caller's rank so that the
 * members do not all send to the same peer first), chain scans. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"

static mpcrt_datatype_t *bytes_type(void)
{
    return mpcrt_datatype_get(MPI_BYTE);
}

static void send_view(mpcrt_nbc_t *s, coll_view_t v, int peer)
{
    mpcrt_nbc_send(s, v.buf, v.count, v.dt ? v.dt : bytes_type(), peer, 0);
}

static void recv_view(mpcrt_nbc_t *s, coll_view_t v, int peer)
{
    mpcrt_nbc_recv(s, v.buf, v.count, v.dt ? v.dt : bytes_type(), peer, 0);
}

static int finish(mpcrt_nbc_t *s, mpcrt_nbc_t **out)
{
    int rc = mpcrt_nbc_build_error(s);
    if (rc != MPI_SUCCESS) {
        mpcrt_nbc_free(s);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

#define NEW_SCHEDULE(s, comm)                                                                                \
    mpcrt_nbc_t *s = mpcrt_nbc_new(comm);                                                                    \
    if (!s) return MPI_ERR_NO_MEM;

/* ------------------------------------------------------------------ barrier, bcast */

int mpcrt_nbc_barrier(mpcrt_comm_t *comm, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group) {
        mpcrt_nbc_inter_barrier(s);
        return finish(s, out);
    }
    int n = mpcrt_comm_size(comm), me = s->me;
    for (int k = 1; k < n; k <<= 1) { /* dissemination: log2(n) rounds for any n */
        mpcrt_nbc_send(s, NULL, 0, bytes_type(), (me + k) % n, 0);
        mpcrt_nbc_recv(s, NULL, 0, bytes_type(), (me - k + n) % n, 0);
        mpcrt_nbc_round(s);
    }
    return finish(s, out);
}

/* Binomial tree over ranks relative to root: receive from the parent, then send to the children, largest
 * subtree first. */
static void binomial_bcast(mpcrt_nbc_t *s, int n, int me, void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                           int root)
{
    int vr = (me - root + n) % n, mask = 1;
    while (mask < n) {
        if (vr & mask) {
            mpcrt_nbc_recv(s, buf, count, dt, (vr - mask + root) % n, 0);
            mpcrt_nbc_round(s);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (vr + mask < n) mpcrt_nbc_send(s, buf, count, dt, (vr + mask + root) % n, 0);
}

int mpcrt_nbc_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root,
                    mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group)
        mpcrt_nbc_inter_bcast(s, buf, count, dt, root);
    else {
        int n = mpcrt_comm_size(comm), me = s->me;
        nbc_choice_t c = {.ranks = n, .bytes = count * dt->size};
        if (nbc_select(NBC_BCAST, &c) == NBC_BCAST_KNOMIAL)
            nbc_knomial_bcast(s, n, me, buf, count, dt, root);
        else
            binomial_bcast(s, n, me, buf, count, dt, root);
    }
    return finish(s, out);
}

/* ------------------------------------------------------------------ rooted data movement */

int mpcrt_nbc_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount, mpcrt_datatype_t *sendtype,
                     const mpcrt_coll_blocks_t *recv, int root, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group) {
        mpcrt_nbc_inter_gather(s, sendbuf, sendcount, sendtype, recv, root);
        return finish(s, out);
    }
    int n = mpcrt_comm_size(comm), me = s->me;
    if (me != root) {
        mpcrt_nbc_send(s, sendbuf, sendcount, sendtype, root, 0);
        return finish(s, out);
    }
    for (int i = 0; i < n; i++) {
        coll_view_t block = coll_block(recv, i);
        if (i != me)
            recv_view(s, block, i);
        else if (sendbuf != MPI_IN_PLACE)
            mpcrt_nbc_copy(s, sendbuf, sendcount, sendtype, block.buf, block.count, block.dt);
    }
    return finish(s, out);
}

int mpcrt_nbc_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf, MPI_Count recvcount,
                      mpcrt_datatype_t *recvtype, int root, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group) {
        mpcrt_nbc_inter_scatter(s, send, recvbuf, recvcount, recvtype, root);
        return finish(s, out);
    }
    int n = mpcrt_comm_size(comm), me = s->me;
    if (me != root) {
        mpcrt_nbc_recv(s, recvbuf, recvcount, recvtype, root, 0);
        return finish(s, out);
    }
    for (int k = 1; k <= n; k++) {
        int i = (me + k) % n; /* the root's own block last */
        coll_view_t block = coll_block(send, i);
        if (i != me)
            send_view(s, block, i);
        else if (recvbuf != MPI_IN_PLACE)
            mpcrt_nbc_copy(s, block.buf, block.count, block.dt, recvbuf, recvcount, recvtype);
    }
    return finish(s, out);
}

/* ------------------------------------------------------------------ allgather, alltoall */

int mpcrt_nbc_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                        mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group) {
        mpcrt_nbc_inter_allgather(s, sendbuf, sendcount, sendtype, recv);
        return finish(s, out);
    }
    int n = mpcrt_comm_size(comm), me = s->me;
    nbc_choice_t c = {.ranks = n};
    for (int i = 0; i < n; i++) {
        coll_view_t b = coll_block(recv, i);
        c.bytes += coll_view_bytes(&b);
    }
    if (nbc_select(NBC_ALLGATHER, &c) == NBC_ALLGATHER_RING) {
        nbc_ring_allgather(s, n, me, sendbuf, sendcount, sendtype, recv);
        return finish(s, out);
    }
    coll_view_t mine = coll_block(recv, me);
    if (sendbuf != MPI_IN_PLACE)
        mpcrt_nbc_copy(s, sendbuf, sendcount, sendtype, mine.buf, mine.count, mine.dt);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        if (sendbuf != MPI_IN_PLACE)
            mpcrt_nbc_send(s, sendbuf, sendcount, sendtype, to, 0);
        else
            send_view(s, mine, to);
        recv_view(s, coll_block(recv, from), from);
    }
    return finish(s, out);
}

/* Every block holds the same count of one type (MPI_Alltoall; an in-place send side takes the receive
 * side's shape). */
static bool uniform(const mpcrt_coll_blocks_t *b)
{
    return b->buf == MPI_IN_PLACE || (!b->icounts && !b->ccounts && !b->idispls && !b->adispls && !b->types);
}

int mpcrt_nbc_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv,
                       mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    if (comm->remote_group)
        mpcrt_nbc_inter_alltoall(s, send, recv);
    else
        nbc_alltoall_steps(s, send, recv);
    return finish(s, out);
}

void nbc_alltoall_steps(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(s->comm), me = s->me;
    coll_view_t first = coll_block(recv, 0);
    nbc_choice_t c = {.ranks = n, .bytes = coll_view_bytes(&first), .uniform = uniform(send) && uniform(recv)};
    if (nbc_select(NBC_ALLTOALL, &c) == NBC_ALLTOALL_BRUCK) {
        nbc_bruck_alltoall(s, n, me, send, recv);
        return;
    }
    if (send->buf == MPI_IN_PLACE) {
        /* The receive buffer is also the input: pack every block into scratch first, send from there. */
        MPI_Count total = 0;
        for (int i = 0; i < n; i++) {
            coll_view_t b = coll_block(recv, i);
            total += coll_view_bytes(&b);
        }
        char *packed = mpcrt_nbc_scratch(s, total, bytes_type());
        if (!packed)
            return;
        MPI_Count off = 0;
        for (int i = 0; i < n; i++) {
            coll_view_t b = coll_block(recv, i);
            MPI_Count bytes = coll_view_bytes(&b);
            if (i != me)
                mpcrt_nbc_copy(s, b.buf, b.count, b.dt, packed + off, bytes, bytes_type());
            off += bytes;
        }
        mpcrt_nbc_round(s);
        for (int k = 1; k < n; k++) {
            int to = (me + k) % n, from = (me - k + n) % n;
            MPI_Count to_off = 0;
            for (int i = 0; i < to; i++) {
                coll_view_t b = coll_block(recv, i);
                to_off += coll_view_bytes(&b);
            }
            coll_view_t tb = coll_block(recv, to);
            mpcrt_nbc_send(s, packed + to_off, coll_view_bytes(&tb), bytes_type(), to, 0);
            recv_view(s, coll_block(recv, from), from);
        }
        return;
    }
    coll_view_t own = coll_block(send, me), into = coll_block(recv, me);
    if (own.dt && into.dt) mpcrt_nbc_copy(s, own.buf, own.count, own.dt, into.buf, into.count, into.dt);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        send_view(s, coll_block(send, to), to);
        recv_view(s, coll_block(recv, from), from);
    }
}

/* ------------------------------------------------------------------ reductions */

/* Folds every member's input (in rank order) into a scratch accumulator at rank 0: node r receives the
 * result of ranks [r + mask, r + 2 mask) and computes acc = acc op received, so the order of operands is
 * the rank order whatever the operation. Returns rank 0's accumulator (NULL elsewhere). The input is copied
 * first, so it may be the receive buffer (MPI_IN_PLACE). */
static void *tree_reduce(mpcrt_nbc_t *s, int n, int me, const void *in, MPI_Count count,
                         const mpcrt_coll_reduction_t *red)
{
    mpcrt_datatype_t *dt = red->dt;
    void *acc = mpcrt_nbc_scratch(s, count, dt), *tmp = n > 1 ? mpcrt_nbc_scratch(s, count, dt) : NULL;
    if (!acc || (n > 1 && !tmp)) return NULL;
    mpcrt_nbc_copy(s, in, count, dt, acc, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (me & mask) {
            mpcrt_nbc_send(s, acc, count, dt, me - mask, 0);
            mpcrt_nbc_round(s);
            return NULL;
        }
        if (me + mask < n) {
            mpcrt_nbc_recv(s, tmp, count, dt, me + mask, 0);
            mpcrt_nbc_round(s);
            mpcrt_nbc_reduce(s, acc, tmp, count); /* tmp = acc op tmp: lower ranks on the left */
            void *t = acc;
            acc = tmp;
            tmp = t;
        }
    }
    return acc;
}

int mpcrt_nbc_reduce_to(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                        const mpcrt_coll_reduction_t *red, int root, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    mpcrt_nbc_set_reduction(s, red);
    if (comm->remote_group) {
        mpcrt_nbc_inter_reduce(s, sendbuf, recvbuf, count, root, NULL);
        return finish(s, out);
    }
    int n = mpcrt_comm_size(comm), me = s->me;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    void *acc = tree_reduce(s, n, me, in, count, red);
    if (me == 0 && acc) {
        if (root == 0)
            mpcrt_nbc_copy(s, acc, count, red->dt, recvbuf, count, red->dt);
        else
            mpcrt_nbc_send(s, acc, count, red->dt, root, 1);
    }
    if (me == root && root != 0) mpcrt_nbc_recv(s, recvbuf, count, red->dt, 0, 1);
    return finish(s, out);
}

int mpcrt_nbc_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                        const mpcrt_coll_reduction_t *red, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    mpcrt_nbc_set_reduction(s, red);
    if (comm->remote_group)
        mpcrt_nbc_inter_reduce(s, sendbuf, recvbuf, count, MPCRT_NBC_EVERY, NULL);
    else
        nbc_allreduce_steps(s, sendbuf, recvbuf, count);
    return finish(s, out);
}

void nbc_allreduce_steps(mpcrt_nbc_t *s, const void *sendbuf, void *recvbuf, MPI_Count count)
{
    const mpcrt_coll_reduction_t *red = &s->red;
    int n = mpcrt_comm_size(s->comm), me = s->me;
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    nbc_choice_t c = {.ranks = n, .bytes = count * red->dt->size, .commutative = red->op->commutative};
    if (nbc_select(NBC_ALLREDUCE, &c) == NBC_ALLREDUCE_RECURSIVE_DOUBLING) {
        nbc_recdoub_allreduce(s, n, me, in, recvbuf, count, red->dt);
        return;
    }
    void *acc = tree_reduce(s, n, me, in, count, red);
    if (me == 0 && acc) {
        mpcrt_nbc_copy(s, acc, count, red->dt, recvbuf, count, red->dt);
        mpcrt_nbc_round(s);
    }
    binomial_bcast(s, n, me, recvbuf, count, red->dt, 0);
}

int mpcrt_nbc_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                             const int *irecvcounts, const MPI_Count *crecvcounts,
                             const mpcrt_coll_reduction_t *red, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    mpcrt_nbc_set_reduction(s, red);
    int n = mpcrt_comm_size(comm), me = s->me;
    MPI_Count *counts = mpcrt_nbc_scratch(s, (MPI_Count)sizeof(MPI_Count) * (n + 1), bytes_type());
    if (!counts) return finish(s, out);
    MPI_Count total = 0;
    for (int i = 0; i < n; i++) {
        counts[i] = irecvcounts ? irecvcounts[i] : crecvcounts ? crecvcounts[i] : recvcount;
        total += counts[i];
    }
    if (comm->remote_group) {
        mpcrt_nbc_inter_reduce(s, sendbuf, recvbuf, total, MPCRT_NBC_EVERY, counts);
        return finish(s, out);
    }
    const void *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    void *acc = tree_reduce(s, n, me, in, total, red);
    MPI_Aint extent = mpcrt_datatype_extent(red->dt);
    if (me == 0 && acc) {
        MPI_Count displ = 0;
        for (int i = 0; i < n; i++) {
            char *block = (char *)acc + displ * extent;
            if (i == 0)
                mpcrt_nbc_copy(s, block, counts[0], red->dt, recvbuf, counts[0], red->dt);
            else
                mpcrt_nbc_send(s, block, counts[i], red->dt, i, 1);
            displ += counts[i];
        }
    } else if (me != 0) {
        mpcrt_nbc_recv(s, recvbuf, counts[me], red->dt, 0, 1);
    }
    return finish(s, out);
}

/* Chain: member r receives the prefix of ranks [0, r) from r - 1, folds its input on the right and passes
 * the new prefix to r + 1. */
int mpcrt_nbc_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                   const mpcrt_coll_reduction_t *red, bool exclusive, mpcrt_nbc_t **out)
{
    NEW_SCHEDULE(s, comm);
    mpcrt_nbc_set_reduction(s, red);
    int n = mpcrt_comm_size(comm), me = s->me;
    mpcrt_datatype_t *dt = red->dt;
    bool in_place = sendbuf == MPI_IN_PLACE;
    const void *in = in_place ? recvbuf : sendbuf;
    if (!exclusive) {
        if (!in_place) mpcrt_nbc_copy(s, sendbuf, count, dt, recvbuf, count, dt);
        if (me > 0) {
            void *prefix = mpcrt_nbc_scratch(s, count, dt);
            mpcrt_nbc_recv(s, prefix, count, dt, me - 1, 0);
            mpcrt_nbc_round(s);
            mpcrt_nbc_reduce(s, prefix, recvbuf, count);
        }
        if (me + 1 < n) mpcrt_nbc_send(s, recvbuf, count, dt, me + 1, 0);
        return finish(s, out);
    }
    if (me == 0) {
        if (n > 1) mpcrt_nbc_send(s, in, count, dt, 1, 0);
        return finish(s, out);
    }
    void *prefix = mpcrt_nbc_scratch(s, count, dt);
    mpcrt_nbc_recv(s, prefix, count, dt, me - 1, 0);
    mpcrt_nbc_round(s);
    if (me + 1 < n) {
        void *next = mpcrt_nbc_scratch(s, count, dt);
        mpcrt_nbc_copy(s, in, count, dt, next, count, dt);
        mpcrt_nbc_reduce(s, prefix, next, count);
        mpcrt_nbc_send(s, next, count, dt, me + 1, 0);
    }
    mpcrt_nbc_copy(s, prefix, count, dt, recvbuf, count, dt);
    return finish(s, out);
}
