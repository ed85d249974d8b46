/* Rooted data movement inside one process: broadcast, gather(v) and scatter(v). Every member publishes a
 * descriptor in the communicator's rendezvous; the members that receive copy straight from the sender's
 * buffer into their own (one copy, no intermediate buffer), then all leave together, so no buffer is read
 * after its owner returned. */
#include "coll_internal.h"

int coll_same_root(mpcrt_comm_t *comm, int root)
{
    return *(const int *)comm->contributions[0] == root ? MPI_SUCCESS : MPI_ERR_ROOT;
}

typedef struct {
    int root;
    coll_view_t view;
} bcast_desc_t;

int mpcrt_coll_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (n == 1)
        return MPI_SUCCESS;
    bcast_desc_t mine = {root, {buf, dt, count}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, root);
    if (rc == MPI_SUCCESS && me != root) /* every receiver pulls from the root's buffer */
        rc = coll_copy(&((const bcast_desc_t *)comm->contributions[root])->view, &mine.view);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

typedef struct {
    int root;
    bool in_place;
    coll_view_t send;
} gather_desc_t;

int mpcrt_coll_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount, mpcrt_datatype_t *sendtype,
                      const mpcrt_coll_blocks_t *recv, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    bool in_place = sendbuf == MPI_IN_PLACE;
    gather_desc_t mine = {root, in_place, {(void *)sendbuf, sendtype, sendcount}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, root);
    if (rc == MPI_SUCCESS && me == root) {
        for (int q = 0; q < n; q++) {
            const gather_desc_t *peer = q == me ? &mine : comm->contributions[q];
            if (q == me && in_place)
                continue; /* the root's block is already in its receive buffer */
            coll_view_t block = coll_block(recv, q);
            int copied = coll_copy(&peer->send, &block);
            if (rc == MPI_SUCCESS)
                rc = copied;
        }
    }
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

typedef struct {
    int root;
    const mpcrt_coll_blocks_t *send;
} scatter_desc_t;

int mpcrt_coll_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf, MPI_Count recvcount,
                       mpcrt_datatype_t *recvtype, int root)
{
    int me = mpcrt_comm_rank(comm);
    scatter_desc_t mine = {root, send};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, root);
    if (rc == MPI_SUCCESS && !(me == root && recvbuf == MPI_IN_PLACE)) {
        const scatter_desc_t *from = me == root ? &mine : comm->contributions[root];
        coll_view_t block = coll_block(from->send, me), dst = {recvbuf, recvtype, recvcount};
        rc = coll_copy(&block, &dst);
    }
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}
