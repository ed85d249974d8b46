/* Allgather(v) inside one process. Small uniform ones are fused into the meeting (meet.h): the last member
 * of each group packs its members' blocks into the group's buffer, and every member copies the groups'
 * buffers out after the release (one copy per group when the blocks are consecutive). Otherwise every
 * member pulls each peer's block straight from the peer's send buffer (or, in place, from the peer's own
 * block of its receive buffer, which no member writes) into its receive buffer, arrival-aware (Qian 2010,
 * chapter 6): it starts with the peers that have arrived, while the late ones are still computing. */
#include <stdlib.h>

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

/* A member's pulls in the arrival-aware path. */
typedef struct {
    mpcrt_comm_t *comm;
    coll_meet_t *m;
    int me, n;
    const allgather_desc_t *mine;
    bool *served;
    int rc;
} pulls_t;

/* Copies the block of every peer that arrived and was not served yet; starting after oneself spreads the
 * members' first reads over different peers. */
static bool serve(void *arg)
{
    pulls_t *p = arg;
    bool found = false;
    for (int k = 0; k < p->n; k++) {
        int q = (p->me + k) % p->n;
        if (p->served[q] || !coll_peer_arrived(p->m, p->me, q))
            continue;
        p->served[q] = found = true;
        if (q == p->me && p->mine->in_place)
            continue;
        const allgather_desc_t *peer = coll_peer(p->comm, q, COLL_ALLGATHER);
        int copied = MPI_ERR_OTHER;
        if (peer) {
            coll_view_t src = peer->in_place ? coll_block(peer->recv, q) : peer->send;
            coll_view_t dst = coll_block(p->mine->recv, q);
            copied = coll_copy(&src, &dst);
        }
        if (p->rc == MPI_SUCCESS)
            p->rc = copied;
    }
    return found;
}

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
    /* One round per call: a fused attempt that the round refused (members disagree) pulls after it,
     * everybody having arrived; the others pull arrival-aware during theirs. */
    bool met = mine.header.fused != NULL;
    if (met && coll_meet(comm, me, &mine.header, &parity)) {
        coll_gather_out(coll_meet_of(comm), parity, mine.header.bytes, recv, mine.in_place ? me : -1);
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
    /* Pull, arrival-aware: while waiting for the last members, copy from those that arrived. */
    pulls_t pulls = {comm, coll_meet_of(comm), me, n, &mine, calloc((size_t)n, sizeof(bool)), MPI_SUCCESS};
    if (!pulls.served) {
        if (!met)
            coll_meet(comm, me, &mine.header, &parity); /* still meet: the others wait for every member */
        coll_meet_done(comm, me, true);
        return MPI_ERR_NO_MEM;
    }
    coll_server_t server = {serve, &pulls, pulls.served};
    if (!met)
        coll_meet_serving(comm, me, &mine.header, &parity, &server);
    serve(&pulls); /* everybody has arrived: the rest */
    free(pulls.served);
    coll_meet_done(comm, me, true);
    return pulls.rc;
}
