/* Alltoall, alltoallv and alltoallw inside one process: every member pulls block `me` of each peer's send
 * buffer into its block for that peer. In place, a member's receive buffer is also what its peers read, so
 * it receives into a packed scratch buffer and unpacks it after everyone has left the rendezvous. */
#include "coll_internal.h"

#include <stdlib.h>

typedef struct {
    coll_header_t header;
    bool in_place;
    const mpcrt_coll_blocks_t *send, *recv;
} alltoall_desc_t;

int mpcrt_coll_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    alltoall_desc_t mine = {{COLL_ALLTOALL, 0}, send->buf == MPI_IN_PLACE, send, recv};
    char *scratch = NULL;
    MPI_Count scratch_bytes = 0;
    int rc = MPI_SUCCESS;
    if (mine.in_place) {
        for (int q = 0; q < n; q++) {
            coll_view_t block = coll_block(recv, q);
            scratch_bytes += coll_view_bytes(&block);
        }
        scratch = malloc((size_t)(scratch_bytes > 0 ? scratch_bytes : 1));
        if (!scratch)
            rc = MPI_ERR_NO_MEM; /* still meet the others: they would wait for this member forever */
    }
    mpcrt_comm_rendezvous(comm, me, &mine);
    MPI_Count offset = 0;
    for (int q = 0; q < n && !(mine.in_place && !scratch); q++) {
        const alltoall_desc_t *peer = coll_peer(comm, q, COLL_ALLTOALL);
        coll_view_t dst = coll_block(recv, q);
        if (mine.in_place) {
            MPI_Count room = coll_view_bytes(&dst);
            dst = coll_packed_view(scratch + offset, room);
            offset += room;
        }
        int copied = MPI_ERR_OTHER;
        if (peer) {
            coll_view_t src = coll_block(peer->in_place ? peer->recv : peer->send, me);
            copied = coll_copy(&src, &dst);
        }
        if (rc == MPI_SUCCESS)
            rc = copied;
    }
    mpcrt_comm_rendezvous_done(comm);
    if (scratch) {
        offset = 0;
        for (int q = 0; q < n; q++) {
            coll_view_t dst = coll_block(recv, q);
            MPI_Count room = coll_view_bytes(&dst);
            coll_view_t src = coll_packed_view(scratch + offset, room);
            coll_copy_range(&src, 0, &dst, 0, room);
            offset += room;
        }
        free(scratch);
    }
    return rc;
}
