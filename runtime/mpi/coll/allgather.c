/* Allgather(v) inside one process. Small uniform ones are fused into the meeting (meet.h): the last member
 * of each group packs its members' blocks into the group's buffer, and every member copies the groups'
 * buffers out after the release (one copy per group when the blocks are consecutive). Otherwise every
 * member pulls each peer's block straight from the peer's send buffer (or, in place, from the peer's own
 * block of its receive buffer, which no member writes) into its receive buffer. */
#include "meet.h"

enum { FUSED_BYTES = 64 * 1024 }; /* the blocks of all members together */

/* Same layout as rooted.c's gather descriptor: the fused work is shared (coll_gather_group). */
typedef struct {
    coll_header_t header;
    bool in_place;
    coll_view_t send;
    const mpcrt_coll_blocks_t *recv;
} allgather_desc_t;

bool coll_gather_group(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine);
void coll_gather_out(coll_meet_t *m, unsigned parity, MPI_Count bytes, const mpcrt_coll_blocks_t *recv,
                     int skip);

static const coll_fused_t fused_allgather = {coll_gather_group, NULL};

int mpcrt_coll_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                         mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    allgather_desc_t mine = {{COLL_ALLGATHER, 0, 0, NULL, NULL},
                             sendbuf == MPI_IN_PLACE,
                             {(void *)sendbuf, sendtype, sendcount},
                             recv};
    if (!recv->icounts && !recv->ccounts && !recv->types) {
        mine.header.bytes = recv->count * recv->dt->size;
        if (mine.header.bytes * n <= FUSED_BYTES)
            mine.header.fused = &fused_allgather;
    }
    unsigned parity;
    if (coll_meet(comm, me, &mine.header, &parity)) {
        coll_gather_out(coll_meet_of(comm), parity, mine.header.bytes, recv, mine.in_place ? me : -1);
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
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
    coll_meet_done(comm, me, true);
    return rc;
}
