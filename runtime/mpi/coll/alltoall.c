/* Alltoall, alltoallv and alltoallw inside one process. Small uniform ones are fused into the meeting
 * (meet.h): the last member of each group transposes its members' send blocks into the group's buffer,
 * by destination, so that each member then copies one run of blocks per group. Otherwise every member
 * pulls block `me` of each peer's send buffer into its block for that peer, arrival-aware (Qian 2010,
 * chapter 6): it starts with the peers that have arrived, while the late ones are still computing. In
 * place, a member's receive buffer is also what its peers read, so it receives into a packed scratch
 * buffer and unpacks it after everyone has left. */
#include "meet.h"

#include <stdlib.h>
#include <string.h>

enum { FUSED_BYTES = 16 * 1024 }; /* what one member receives */

typedef struct {
    coll_header_t header;
    bool in_place;
    const mpcrt_coll_blocks_t *send, *recv;
} alltoall_desc_t;

/* Group buffer layout: destination d's blocks from the group's members i = 0..size-1 at (d * size + i). */
static bool transpose_group(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity,
                            const coll_header_t *mine)
{
    coll_group_t *grp = &m->groups[g];
    MPI_Count bytes = mine->bytes;
    int n = m->n, size = grp->size;
    if (!coll_buf_reserve(&grp->buf[parity], (size_t)(bytes * size * n)))
        return false;
    char *out = grp->buf[parity].p;
    for (int i = 0; i < size; i++) {
        const alltoall_desc_t *peer = comm->contributions[m->members[grp->first + i]];
        const mpcrt_coll_blocks_t *from = peer->in_place ? peer->recv : peer->send;
        if (from->count * from->dt->size != bytes)
            return false; /* send and receive amounts differ: the pull path reports it */
        if (mpcrt_datatype_is_contiguous(from->dt)) {
            const char *src = coll_at(from->buf, mpcrt_datatype_true_lb(from->dt));
            for (int d = 0; d < n; d++)
                memcpy(out + (d * size + i) * bytes, src + d * bytes, (size_t)bytes);
            continue;
        }
        for (int d = 0; d < n; d++) {
            coll_view_t src = coll_block(from, d),
                        dst = coll_packed_view(out + (d * size + i) * bytes, bytes);
            coll_copy_range(&src, 0, &dst, 0, bytes);
        }
    }
    return true;
}

static const coll_fused_t fused_alltoall = {transpose_group, NULL};

/* A member's pulls in the arrival-aware path. */
typedef struct {
    mpcrt_comm_t *comm;
    coll_meet_t *m;
    int me, n;
    const alltoall_desc_t *mine;
    bool *served;
    MPI_Count *offsets; /* in place: block q waits at scratch + offsets[q] */
    char *scratch;
    int rc;
} pulls_t;

/* Takes block `me` of every peer that arrived and was not served yet (starting after oneself). */
static bool serve(void *arg)
{
    pulls_t *p = arg;
    bool found = false;
    for (int k = 0; k < p->n; k++) {
        int q = (p->me + k) % p->n;
        if (p->served[q] || !coll_peer_arrived(p->m, p->me, q))
            continue;
        p->served[q] = found = true;
        const alltoall_desc_t *peer = coll_peer(p->comm, q, COLL_ALLTOALL);
        coll_view_t dst = coll_block(p->mine->recv, q);
        if (p->scratch)
            dst = coll_packed_view(p->scratch + p->offsets[q], p->offsets[q + 1] - p->offsets[q]);
        int copied = MPI_ERR_OTHER;
        if (peer) {
            coll_view_t src = coll_block(peer->in_place ? peer->recv : peer->send, p->me);
            copied = coll_copy(&src, &dst);
        }
        if (p->rc == MPI_SUCCESS)
            p->rc = copied;
    }
    return found;
}

static void fused_out(coll_meet_t *m, unsigned parity, int me, MPI_Count bytes,
                      const mpcrt_coll_blocks_t *recv)
{
    bool whole = m->ordered && mpcrt_datatype_is_contiguous(recv->dt);
    for (int g = 0; g < m->ngroups; g++) {
        const coll_group_t *grp = &m->groups[g];
        const char *run = (const char *)grp->buf[parity].p + (MPI_Count)me * grp->size * bytes;
        if (whole) {
            char *to = coll_at(recv->buf, mpcrt_datatype_true_lb(recv->dt));
            memcpy(to + grp->first * bytes, run, (size_t)(bytes * grp->size));
            continue;
        }
        for (int i = 0; i < grp->size; i++) {
            coll_view_t from = coll_packed_view((void *)(run + i * bytes), bytes);
            coll_view_t to = coll_block(recv, m->members[grp->first + i]);
            coll_copy_range(&from, 0, &to, 0, bytes);
        }
    }
}

int mpcrt_coll_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    alltoall_desc_t mine = {{COLL_ALLTOALL, 0, 0, NULL, NULL}, send->buf == MPI_IN_PLACE, send, recv};
    if (!recv->icounts && !recv->ccounts && !recv->types && !send->icounts && !send->ccounts &&
        !send->types) {
        mine.header.bytes = recv->count * recv->dt->size;
        if (mine.header.bytes * n <= FUSED_BYTES)
            mine.header.fused = &fused_alltoall;
    }
    unsigned parity;
    /* One round per call: a fused attempt that the round refused (members disagree) pulls after it,
     * everybody having arrived; the others pull arrival-aware during theirs. */
    bool met = mine.header.fused != NULL;
    if (met && coll_meet(comm, me, &mine.header, &parity)) {
        fused_out(coll_meet_of(comm), parity, me, mine.header.bytes, recv);
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
    /* Pull, arrival-aware: while waiting for the last members, take the blocks of those that arrived. In
     * place, the receive buffer is what the peers read: blocks wait in a packed scratch buffer. */
    pulls_t pulls = {comm, coll_meet_of(comm), me, n, &mine, calloc((size_t)n, sizeof(bool)), NULL,
                     NULL, MPI_SUCCESS};
    char *scratch = NULL;
    if (mine.in_place && pulls.served) {
        pulls.offsets = malloc(sizeof(MPI_Count) * (size_t)(n + 1));
        if (pulls.offsets) {
            pulls.offsets[0] = 0;
            for (int q = 0; q < n; q++) {
                coll_view_t block = coll_block(recv, q);
                pulls.offsets[q + 1] = pulls.offsets[q] + coll_view_bytes(&block);
            }
            scratch = pulls.scratch = malloc((size_t)(pulls.offsets[n] > 0 ? pulls.offsets[n] : 1));
        }
    }
    if (!pulls.served || (mine.in_place && !scratch)) {
        if (!met)
            coll_meet(comm, me, &mine.header, &parity); /* still meet: the others wait for every member */
        coll_meet_done(comm, me, true);
        free(pulls.served);
        free(pulls.offsets);
        free(scratch);
        return MPI_ERR_NO_MEM;
    }
    coll_server_t server = {serve, &pulls, pulls.served};
    if (!met)
        coll_meet_serving(comm, me, &mine.header, &parity, &server);
    serve(&pulls); /* everybody has arrived: the rest */
    int rc = pulls.rc;
    free(pulls.served);
    coll_meet_done(comm, me, true);
    if (scratch) {
        for (int q = 0; q < n; q++) {
            coll_view_t dst = coll_block(recv, q);
            MPI_Count room = pulls.offsets[q + 1] - pulls.offsets[q];
            coll_view_t src = coll_packed_view(scratch + pulls.offsets[q], room);
            coll_copy_range(&src, 0, &dst, 0, room);
        }
        free(scratch);
        free(pulls.offsets);
    }
    return rc;
}
