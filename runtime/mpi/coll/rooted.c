/* Rooted data movement inside one process: broadcast, gather(v) and scatter(v). Every member publishes a
 * descriptor in the communicator's rendezvous; the members that receive copy straight from the sender's
 * buffer into their own (one copy, no intermediate buffer), then all leave together, so no buffer is read
 * after its owner returned. */
#include "coll_internal.h"

const void *coll_peer(mpcrt_comm_t *comm, int q, uint32_t kind)
{
    const coll_header_t *h = comm->contributions[q];
    return h && h->kind == kind ? h : NULL;
}

int coll_same_root(mpcrt_comm_t *comm, uint32_t kind, int root)
{
    const coll_header_t *first = coll_peer(comm, 0, kind);
    return !first ? MPI_ERR_OTHER : first->root == root ? MPI_SUCCESS : MPI_ERR_ROOT;
}

typedef struct {
    coll_header_t header;
    coll_view_t view;
} bcast_desc_t;

int mpcrt_coll_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (n == 1)
        return MPI_SUCCESS;
    bcast_desc_t mine = {{COLL_BCAST, root}, {buf, dt, count}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, COLL_BCAST, root);
    const bcast_desc_t *from = coll_peer(comm, root, COLL_BCAST);
    if (rc == MPI_SUCCESS && !from)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && me != root) /* every receiver pulls from the root's buffer */
        rc = coll_copy(&from->view, &mine.view);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

typedef struct {
    coll_header_t header;
    bool in_place;
    coll_view_t send;
} gather_desc_t;

int mpcrt_coll_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount, mpcrt_datatype_t *sendtype,
                      const mpcrt_coll_blocks_t *recv, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    bool in_place = sendbuf == MPI_IN_PLACE;
    gather_desc_t mine = {{COLL_GATHER, root}, in_place, {(void *)sendbuf, sendtype, sendcount}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, COLL_GATHER, root);
    if (rc == MPI_SUCCESS && me == root) {
        for (int q = 0; q < n; q++) {
            const gather_desc_t *peer = coll_peer(comm, q, COLL_GATHER);
            if (q == me && in_place)
                continue; /* the root's block is already in its receive buffer */
            coll_view_t block = coll_block(recv, q);
            int copied = peer ? coll_copy(&peer->send, &block) : MPI_ERR_OTHER;
            if (rc == MPI_SUCCESS)
                rc = copied;
        }
    }
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

typedef struct {
    coll_header_t header;
    const mpcrt_coll_blocks_t *send;
} scatter_desc_t;

int mpcrt_coll_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf, MPI_Count recvcount,
                       mpcrt_datatype_t *recvtype, int root)
{
    int me = mpcrt_comm_rank(comm);
    scatter_desc_t mine = {{COLL_SCATTER, root}, send};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_same_root(comm, COLL_SCATTER, root);
    const scatter_desc_t *from = coll_peer(comm, root, COLL_SCATTER);
    if (rc == MPI_SUCCESS && !from)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && !(me == root && recvbuf == MPI_IN_PLACE)) {
        coll_view_t block = coll_block(from->send, me), dst = {recvbuf, recvtype, recvcount};
        rc = coll_copy(&block, &dst);
    }
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}
