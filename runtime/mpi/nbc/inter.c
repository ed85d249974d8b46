/* Schedules of the collectives on intercommunicators (MPI 4.0 section 6.2.2): messages cross between the
 * groups through the pair's bridge; the root side names MPI_ROOT (the root) or MPI_PROC_NULL (the others).
 * Reductions of the remote group's inputs are folded at local rank 0 in the remote ranks' order, then
 * passed to the local members that receive results. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"

static mpcrt_datatype_t *bytes_type(void)
{
    return mpcrt_datatype_get(MPI_BYTE);
}

static int local_size(const mpcrt_nbc_t *s)
{
    return s->comm->group->size;
}

static int remote_size(const mpcrt_nbc_t *s)
{
    return s->comm->remote_group->size;
}

int mpcrt_nbc_inter_barrier(mpcrt_nbc_t *s)
{
    /* Every member hears from every remote member: nobody leaves before the other group has entered. */
    for (int j = 0; j < remote_size(s); j++) {
        mpcrt_nbc_send(s, NULL, 0, bytes_type(), mpcrt_nbc_remote(s, j), 0);
        mpcrt_nbc_recv(s, NULL, 0, bytes_type(), mpcrt_nbc_remote(s, j), 0);
    }
    return MPI_SUCCESS;
}

int mpcrt_nbc_inter_bcast(mpcrt_nbc_t *s, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    if (root == MPI_ROOT)
        for (int j = 0; j < remote_size(s); j++)
            mpcrt_nbc_send(s, buf, count, dt, mpcrt_nbc_remote(s, j), 0);
    else if (root != MPI_PROC_NULL)
        mpcrt_nbc_recv(s, buf, count, dt, mpcrt_nbc_remote(s, root), 0);
    return MPI_SUCCESS;
}

static void send_view(mpcrt_nbc_t *s, coll_view_t v, int peer)
{
    mpcrt_nbc_send(s, v.buf, v.count, v.dt ? v.dt : bytes_type(), peer, 0);
}

static void recv_view(mpcrt_nbc_t *s, coll_view_t v, int peer)
{
    mpcrt_nbc_recv(s, v.buf, v.count, v.dt ? v.dt : bytes_type(), peer, 0);
}

int mpcrt_nbc_inter_gather(mpcrt_nbc_t *s, const void *sendbuf, MPI_Count sendcount,
                           mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root)
{
    if (root == MPI_ROOT)
        for (int j = 0; j < remote_size(s); j++)
            recv_view(s, coll_block(recv, j), mpcrt_nbc_remote(s, j));
    else if (root != MPI_PROC_NULL)
        mpcrt_nbc_send(s, sendbuf, sendcount, sendtype, mpcrt_nbc_remote(s, root), 0);
    return MPI_SUCCESS;
}

int mpcrt_nbc_inter_scatter(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send, void *recvbuf,
                            MPI_Count recvcount, mpcrt_datatype_t *recvtype, int root)
{
    if (root == MPI_ROOT)
        for (int j = 0; j < remote_size(s); j++)
            send_view(s, coll_block(send, j), mpcrt_nbc_remote(s, j));
    else if (root != MPI_PROC_NULL)
        mpcrt_nbc_recv(s, recvbuf, recvcount, recvtype, mpcrt_nbc_remote(s, root), 0);
    return MPI_SUCCESS;
}

int mpcrt_nbc_inter_allgather(mpcrt_nbc_t *s, const void *sendbuf, MPI_Count sendcount,
                              mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    for (int j = 0; j < remote_size(s); j++) {
        mpcrt_nbc_send(s, sendbuf, sendcount, sendtype, mpcrt_nbc_remote(s, j), 0);
        recv_view(s, coll_block(recv, j), mpcrt_nbc_remote(s, j));
    }
    return MPI_SUCCESS;
}

int mpcrt_nbc_inter_alltoall(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv)
{
    for (int j = 0; j < remote_size(s); j++) {
        send_view(s, coll_block(send, j), mpcrt_nbc_remote(s, j));
        recv_view(s, coll_block(recv, j), mpcrt_nbc_remote(s, j));
    }
    return MPI_SUCCESS;
}

int mpcrt_nbc_inter_reduce(mpcrt_nbc_t *s, const void *sendbuf, void *recvbuf, MPI_Count count, int root,
                           const MPI_Count *counts)
{
    mpcrt_datatype_t *dt = s->red.dt;
    int me = s->me, R = remote_size(s), L = local_size(s);
    /* Inputs go to the remote group's folder: its rank 0 (or the root, for MPI_Reduce). */
    if (root == MPCRT_NBC_EVERY)
        mpcrt_nbc_send(s, sendbuf, count, dt, mpcrt_nbc_remote(s, 0), 1);
    else if (root != MPI_ROOT && root != MPI_PROC_NULL)
        mpcrt_nbc_send(s, sendbuf, count, dt, mpcrt_nbc_remote(s, root), 1);
    bool folder = root == MPI_ROOT || (root == MPCRT_NBC_EVERY && me == 0);
    if (!folder) {
        if (root == MPCRT_NBC_EVERY) { /* results come from local rank 0 */
            MPI_Count mine = counts ? counts[me] : count;
            mpcrt_nbc_recv(s, recvbuf, mine, dt, mpcrt_nbc_local(s, 0), 2);
        }
        return MPI_SUCCESS;
    }
    void **inputs = mpcrt_nbc_scratch(s, (MPI_Count)sizeof(void *) * R, bytes_type());
    if (!inputs) return MPI_SUCCESS;
    for (int j = 0; j < R; j++) {
        inputs[j] = mpcrt_nbc_scratch(s, count, dt);
        mpcrt_nbc_recv(s, inputs[j], count, dt, mpcrt_nbc_remote(s, j), 1);
    }
    mpcrt_nbc_round(s);
    /* acc = in[0] op (in[1] op (... op in[R-1])): remote rank order. */
    for (int j = R - 2; j >= 0; j--)
        mpcrt_nbc_reduce(s, inputs[j], inputs[R - 1], count);
    char *result = inputs[R - 1];
    if (root == MPI_ROOT) {
        mpcrt_nbc_copy(s, result, count, dt, recvbuf, count, dt);
        return MPI_SUCCESS;
    }
    MPI_Aint extent = mpcrt_datatype_extent(dt);
    MPI_Count displ = 0;
    for (int i = 0; i < L; i++) {
        MPI_Count c = counts ? counts[i] : count;
        char *block = result + (counts ? displ * extent : 0);
        if (i == 0)
            mpcrt_nbc_copy(s, block, c, dt, recvbuf, c, dt);
        else
            mpcrt_nbc_send(s, block, c, dt, mpcrt_nbc_local(s, i), 2);
        displ += c;
    }
    return MPI_SUCCESS;
}
