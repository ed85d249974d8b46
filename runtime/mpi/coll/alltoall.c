/* Alltoall, alltoallv and alltoallw inside one process. Small uniform ones are fused into the meeting
 * (meet.h): the last member of each group transposes its members' send blocks into the group's buffer,
 * by destination, so that each member then copies one run of blocks per group. Otherwise every member
 * pulls block `me` of each peer's send buffer into its block for that peer; in place, a member's receive
 * buffer is also what its peers read, so it receives into a packed scratch buffer and unpacks it after
 * everyone has left. */
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
    if (coll_meet(comm, me, &mine.header, &parity)) {
        fused_out(coll_meet_of(comm), parity, me, mine.header.bytes, recv);
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
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
            rc = MPI_ERR_NO_MEM; /* still count out below: the others wait for every member */
    }
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
    coll_meet_done(comm, me, true);
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
