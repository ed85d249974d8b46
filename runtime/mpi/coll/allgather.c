/* Allgather(v) inside one process: every member pulls each peer's block straight from the peer's send
 * buffer (or, in place, from the peer's own block of its receive buffer, which no member writes) into its
 * receive buffer. */
#include "coll_internal.h"

typedef struct {
    coll_header_t header;
    bool in_place;
    coll_view_t send;
    const mpcrt_coll_blocks_t *recv;
} allgather_desc_t;

int mpcrt_coll_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                         mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    allgather_desc_t mine = {{COLL_ALLGATHER, 0}, sendbuf == MPI_IN_PLACE, {(void *)sendbuf, sendtype, sendcount}, recv};
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = MPI_SUCCESS;
    /* Starting after oneself spreads the members' first reads over different peers. */
    for (int k = 0; k < n; k++) {
        int q = (me + k) % n;
        const allgather_desc_t *peer = coll_peer(comm, q, COLL_ALLGATHER);
        if (q == me && mine.in_place)
            continue;
        if (!peer) {
            rc = MPI_ERR_OTHER;
            continue;
        }
        coll_view_t src = peer->in_place ? coll_block(peer->recv, q) : peer->send;
        coll_view_t dst = coll_block(recv, q);
        int copied = coll_copy(&src, &dst);
        if (rc == MPI_SUCCESS)
            rc = copied;
    }
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}
