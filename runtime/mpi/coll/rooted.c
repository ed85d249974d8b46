/* Rooted data movement inside one process: broadcast, gather(v) and scatter(v). Broadcasts of a few
 * members alone on their cores go through rings of slots instead (bcast_ring.c). Small uniform ones are
 * fused into the meeting (meet.h): the root stages its data before it arrives (bcast, scatter) or the last
 * member of each group gathers its members' blocks (gather), and the readers copy out after the release.
 * Otherwise every member publishes a descriptor; the members that receive copy straight from the sender's
 * buffer into their own (one copy, no intermediate buffer), then all leave together, so no buffer is read
 * after its owner returned. */
#include "meet.h"

enum {
    FUSED_BCAST_BYTES = 16 * 1024,  /* above: one copy from the root's buffer beats staging */
    FUSED_ROOTED_BYTES = 64 * 1024, /* gather, scatter: blocks of all members together */
};

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

/* Stages a member's whole view, packed, for the round of the given parity. */
static bool stage(coll_meet_t *m, int me, unsigned parity, const coll_view_t *v)
{
    coll_member_t *mine = &m->member[me];
    MPI_Count bytes = coll_view_bytes(v);
    if (!coll_buf_reserve(&mine->stage[parity], (size_t)bytes))
        return false;
    coll_view_t to = coll_packed_view(mine->stage[parity].p, bytes);
    coll_copy_range(v, 0, &to, 0, bytes);
    mine->staged[parity] = bytes;
    return true;
}

/* A member that could not stage says so: its descriptor then differs (no fused work), and the round
 * pulls. */
static const coll_fused_t staged_rooted = {NULL, NULL};

typedef struct {
    coll_header_t header;
    coll_view_t view;
} bcast_desc_t;

int mpcrt_coll_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (n == 1)
        return MPI_SUCCESS;
    MPI_Count bytes = count * dt->size;
    bcast_desc_t mine = {{COLL_BCAST, root, bytes, NULL, NULL}, {buf, dt, count}};
    coll_meet_t *m = coll_meet_of(comm);
    if (m->bring)
        return coll_bring_bcast(m->bring, me, root, &mine.view);
    unsigned parity;
    if (bytes <= FUSED_BCAST_BYTES && (me != root || stage(m, me, coll_next_parity(m, me), &mine.view)))
        mine.header.fused = &staged_rooted;
    if (coll_meet(comm, me, &mine.header, &parity)) {
        if (me != root) {
            coll_view_t from = coll_packed_view(m->member[root].stage[parity].p, bytes);
            coll_copy_range(&from, 0, &mine.view, 0, bytes);
        }
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
    int rc = coll_same_root(comm, COLL_BCAST, root);
    const bcast_desc_t *from = coll_peer(comm, root, COLL_BCAST);
    if (rc == MPI_SUCCESS && !from)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && me != root) /* every receiver pulls from the root's buffer */
        rc = coll_copy(&from->view, &mine.view);
    coll_meet_done(comm, me, true);
    return rc;
}

typedef struct {
    coll_header_t header;
    bool in_place;
    coll_view_t send;
    const mpcrt_coll_blocks_t *recv; /* the root's */
} gather_desc_t;

/* What member q gives to a gather or an allgather: its send buffer, or in place its own block of its
 * receive buffer. Shared with allgather.c. */
coll_view_t coll_gather_input(const void *desc, int q);

/* The last member of group g packs its members' blocks, in group order, into the group's buffer. */
bool coll_gather_group(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine)
{
    coll_group_t *grp = &m->groups[g];
    MPI_Count bytes = mine->bytes;
    if (!coll_buf_reserve(&grp->buf[parity], (size_t)(bytes * grp->size)))
        return false;
    for (int i = 0; i < grp->size; i++) {
        int q = m->members[grp->first + i];
        coll_view_t from = coll_gather_input(comm->contributions[q], q);
        if (coll_view_bytes(&from) != bytes)
            return false; /* a member whose send and receive amounts differ: the pull path reports it */
        coll_view_t to = coll_packed_view((char *)grp->buf[parity].p + bytes * i, bytes);
        coll_copy_range(&from, 0, &to, 0, bytes);
    }
    return true;
}

/* After the release: every group's blocks into the receive blocks (but `skip`'s, already in place). */
void coll_gather_out(coll_meet_t *m, unsigned parity, MPI_Count bytes, const mpcrt_coll_blocks_t *recv,
                     int skip)
{
    bool whole = m->ordered && mpcrt_datatype_is_contiguous(recv->dt) && skip < 0;
    for (int g = 0; g < m->ngroups; g++) {
        const coll_group_t *grp = &m->groups[g];
        const char *packed = grp->buf[parity].p;
        if (whole) { /* the group's blocks are consecutive in the receive buffer: one copy */
            coll_view_t from = coll_packed_view((void *)packed, bytes * grp->size);
            coll_view_t to = {recv->buf, recv->dt, recv->count * m->n};
            coll_copy_range(&from, 0, &to, bytes * grp->first, bytes * grp->size);
            continue;
        }
        for (int i = 0; i < grp->size; i++) {
            int q = m->members[grp->first + i];
            if (q == skip)
                continue;
            coll_view_t from = coll_packed_view((void *)(packed + bytes * i), bytes),
                        to = coll_block(recv, q);
            coll_copy_range(&from, 0, &to, 0, bytes);
        }
    }
}

coll_view_t coll_gather_input(const void *desc, int q)
{
    const gather_desc_t *d = desc;
    return d->in_place ? coll_block(d->recv, q) : d->send;
}

static const coll_fused_t fused_gather = {coll_gather_group, NULL};

static bool uniform(const mpcrt_coll_blocks_t *b)
{
    return !b->icounts && !b->ccounts && !b->types;
}

int mpcrt_coll_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                      mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    bool in_place = sendbuf == MPI_IN_PLACE;
    gather_desc_t mine = {
        {COLL_GATHER, root, 0, NULL, NULL}, in_place, {(void *)sendbuf, sendtype, sendcount}, recv};
    /* The amount every member agrees on: one block (the root's receive count, the others' send count). */
    bool vector = me == root && !uniform(recv);
    mine.header.bytes =
        me == root ? (vector ? -1 : recv->count * recv->dt->size) : sendcount * sendtype->size;
    if (!vector && mine.header.bytes * n <= FUSED_ROOTED_BYTES)
        mine.header.fused = &fused_gather;
    unsigned parity;
    if (coll_meet(comm, me, &mine.header, &parity)) {
        if (me == root)
            coll_gather_out(coll_meet_of(comm), parity, mine.header.bytes, recv, in_place ? me : -1);
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
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
    coll_meet_done(comm, me, true);
    return rc;
}

typedef struct {
    coll_header_t header;
    const mpcrt_coll_blocks_t *send;
} scatter_desc_t;

int mpcrt_coll_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf,
                       MPI_Count recvcount, mpcrt_datatype_t *recvtype, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    scatter_desc_t mine = {{COLL_SCATTER, root, 0, NULL, NULL}, send};
    bool vector = me == root && !uniform(send);
    mine.header.bytes =
        me == root ? (vector ? -1 : send->count * send->dt->size) : recvcount * recvtype->size;
    coll_meet_t *m = coll_meet_of(comm);
    coll_view_t dst = {recvbuf, recvtype, recvcount};
    if (!vector && mine.header.bytes * n <= FUSED_ROOTED_BYTES) {
        coll_view_t all = {send->buf, send->dt, send->count * n};
        if (me != root || stage(m, me, coll_next_parity(m, me), &all))
            mine.header.fused = &staged_rooted;
    }
    unsigned parity;
    if (coll_meet(comm, me, &mine.header, &parity)) {
        if (!(me == root && recvbuf == MPI_IN_PLACE)) {
            MPI_Count bytes = mine.header.bytes;
            coll_view_t from = coll_packed_view((char *)m->member[root].stage[parity].p + bytes * me, bytes);
            coll_copy_range(&from, 0, &dst, 0, bytes);
        }
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
    int rc = coll_same_root(comm, COLL_SCATTER, root);
    const scatter_desc_t *from = coll_peer(comm, root, COLL_SCATTER);
    if (rc == MPI_SUCCESS && !from)
        rc = MPI_ERR_OTHER;
    if (rc == MPI_SUCCESS && !(me == root && recvbuf == MPI_IN_PLACE)) {
        coll_view_t block = coll_block(from->send, me);
        rc = coll_copy(&block, &dst);
    }
    coll_meet_done(comm, me, true);
    return rc;
}
