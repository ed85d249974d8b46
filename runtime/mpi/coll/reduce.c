/* Reduce and allreduce inside one process. Small ones are fused into the meeting (meet.h): the last member
 * of each group reduces its members' inputs in rank order into the group's buffer, the last member
 * overall reduces the groups' results in group order (groups are runs of consecutive ranks; otherwise it
 * reduces every input itself), and the members copy the result out after the release. Otherwise the
 * instances are shared out among the members: member r reduces its share of every member's input, in rank
 * order, and writes the result into the root's receive buffer (reduce) or every member's (allreduce). No
 * two members touch the same instances, so an in-place input is never overwritten while another member
 * still reads it, and the members reduce in parallel. */
#include "meet.h"

#include <stdlib.h>

enum { SHARE_BYTES = 16 * 1024, FUSED_BYTES = 16 * 1024 };

int coll_red_agree(mpcrt_comm_t *comm, uint32_t kind, int me, int readers)
{
    const coll_red_desc_t *first = coll_peer(comm, 0, kind);
    if (!first)
        return MPI_ERR_OTHER;
    for (int k = -1; k < readers; k++) {
        int q = k < 0 ? me : k; /* oneself first */
        const coll_red_desc_t *peer = coll_peer(comm, q, kind);
        if (!peer)
            return MPI_ERR_OTHER;
        if (peer->header.root != first->header.root)
            return MPI_ERR_ROOT;
        if (peer->count != first->count)
            return MPI_ERR_COUNT;
        if (peer->bytes != first->bytes)
            return MPI_ERR_TYPE;
        if (!coll_same_op(peer->op, first->op))
            return MPI_ERR_OP;
    }
    return MPI_SUCCESS;
}

static coll_red_desc_t describe(uint32_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                                const mpcrt_coll_reduction_t *red, int root)
{
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return (coll_red_desc_t){{kind, root, count * red->dt->size, red->op, NULL},
                             count,
                             count * red->dt->size,
                             red->op,
                             {(void *)input, red->dt, count},
                             {recvbuf, red->dt, count}};
}

/* This member's share of the instances, reduced into the output of `root` (every member's if root < 0),
 * once the members it uses agree. */
static int reduce_share(mpcrt_comm_t *comm, uint32_t kind, const mpcrt_coll_reduction_t *red, MPI_Count count,
                        int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    /* Shares of at least SHARE_BYTES: a member that reduces a few bytes still visits every member's
     * buffers, so thousands of members each reducing one element would cost n^2 visits. */
    MPI_Count bytes = count * red->dt->size, workers = (bytes + SHARE_BYTES - 1) / SHARE_BYTES;
    if (workers > n)
        workers = n;
    MPI_Count first = 0, len = 0;
    if (me < workers)
        coll_share(count, (int)workers, me, &first, &len);
    int rc = coll_red_agree(comm, kind, me, len > 0 ? n : 0);
    if (rc != MPI_SUCCESS || len == 0)
        return rc;
    coll_view_list_t inputs = COLL_MEMBERS(comm, n, input);
    coll_view_list_t outputs = COLL_MEMBERS(comm, n, output);
    if (root >= 0)
        outputs =
            (coll_view_list_t){NULL, 0, &((const coll_red_desc_t *)comm->contributions[root])->output, 1};
    return coll_combine(red, &inputs, first, len, &outputs, first);
}

/* The fused descriptor: the reduction (the caller's datatype handle, for user functions) rides along. */
typedef struct {
    coll_red_desc_t base;
    const mpcrt_coll_reduction_t *red;
} fused_desc_t;

static bool reduce_group(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity,
                         const coll_header_t *mine)
{
    if (!m->ordered)
        return true; /* the last member reduces every input in rank order */
    const fused_desc_t *d = (const fused_desc_t *)mine;
    coll_group_t *grp = &m->groups[g];
    MPI_Count bytes = d->base.bytes;
    if (!coll_buf_reserve(&grp->buf[parity], (size_t)bytes))
        return false;
    coll_view_list_t inputs = {comm->contributions + grp->first, offsetof(coll_red_desc_t, input), NULL,
                               grp->size};
    coll_view_t out = coll_packed_view(grp->buf[parity].p, bytes);
    coll_view_list_t outputs = {NULL, 0, &out, 1};
    return coll_combine(d->red, &inputs, 0, d->base.count, &outputs, 0) == MPI_SUCCESS;
}

/* In a mesh, whether the top work of group g writes straight into its member's output: the group is that
 * member alone, which runs the work (its input is in the group's buffer already, so in place is fine). */
static bool result_direct(const coll_meet_t *m, int g)
{
    return m->mesh && m->groups[g].size == 1;
}

static bool reduce_top(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine)
{
    const fused_desc_t *d = (const fused_desc_t *)mine;
    MPI_Count bytes = d->base.bytes;
    int root = d->base.header.root;
    if (m->mesh && root >= 0 && m->group_of[root] != g)
        return true; /* a reduce whose root is in another group: nothing for this one */
    coll_view_t out = d->base.output;
    if (!result_direct(m, g)) {
        coll_buf_t *result = coll_meet_result(m, g, parity);
        if (!coll_buf_reserve(result, (size_t)bytes))
            return false;
        out = coll_packed_view(result->p, bytes);
    }
    coll_view_list_t outputs = {NULL, 0, &out, 1};
    if (!m->ordered) {
        coll_view_list_t inputs = COLL_MEMBERS(comm, m->n, input);
        return coll_combine(d->red, &inputs, 0, d->base.count, &outputs, 0) == MPI_SUCCESS;
    }
    enum { FEW = 8 };
    coll_view_t few[FEW], *partials = m->ngroups <= FEW ? few : malloc(sizeof *partials * (size_t)m->ngroups);
    if (!partials)
        return false;
    for (int g = 0; g < m->ngroups; g++)
        partials[g] = coll_packed_view(m->groups[g].buf[parity].p, bytes);
    coll_view_list_t inputs = {NULL, 0, partials, m->ngroups};
    bool ok = coll_combine(d->red, &inputs, 0, d->base.count, &outputs, 0) == MPI_SUCCESS;
    if (partials != few)
        free(partials);
    return ok;
}

static const coll_fused_t fused_reduce = {reduce_group, reduce_top};

/* One reduction, fused when small (see the top of the file), else shared out. */
static int reduction(mpcrt_comm_t *comm, uint32_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                     const mpcrt_coll_reduction_t *red, int root)
{
    int me = mpcrt_comm_rank(comm);
    fused_desc_t mine = {describe(kind, sendbuf, recvbuf, count, red, root), red};
    if (mine.base.bytes <= FUSED_BYTES)
        mine.base.header.fused = &fused_reduce;
    unsigned parity;
    if (coll_meet(comm, me, &mine.base.header, &parity)) {
        coll_meet_t *m = coll_meet_of(comm);
        if ((root < 0 || me == root) && !result_direct(m, m->group_of[me])) {
            coll_view_t from =
                coll_packed_view(coll_meet_result(m, m->group_of[me], parity)->p, mine.base.bytes);
            coll_copy_range(&from, 0, &mine.base.output, 0, mine.base.bytes);
        }
        coll_meet_done(comm, me, false);
        return MPI_SUCCESS;
    }
    int rc = reduce_share(comm, kind, red, count, root);
    coll_meet_done(comm, me, true);
    return rc;
}

int mpcrt_coll_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                      const mpcrt_coll_reduction_t *red, int root)
{
    return reduction(comm, COLL_REDUCE, sendbuf, recvbuf, count, red, root);
}

int mpcrt_coll_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red)
{
    return reduction(comm, COLL_ALLREDUCE, sendbuf, recvbuf, count, red, -1);
}
