/* Reduce and allreduce inside one process. The instances are shared out among the members: member r
 * reduces its share of every member's input, in rank order, and writes the result into the root's receive
 * buffer (reduce) or every member's (allreduce). No two members touch the same instances, so an in-place
 * input is never overwritten while another member still reads it, and the members reduce in parallel. */
#include "coll_internal.h"

enum { SHARE_BYTES = 16 * 1024 };

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
    return (coll_red_desc_t){{kind, root}, count, count * red->dt->size, red->op, {(void *)input, red->dt, count},
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
        outputs = (coll_view_list_t){NULL, 0, &((const coll_red_desc_t *)comm->contributions[root])->output, 1};
    return coll_combine(red, &inputs, first, len, &outputs, first);
}

int mpcrt_coll_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                      const mpcrt_coll_reduction_t *red, int root)
{
    coll_red_desc_t mine = describe(COLL_REDUCE, sendbuf, recvbuf, count, red, root);
    mpcrt_comm_rendezvous(comm, mpcrt_comm_rank(comm), &mine);
    int rc = reduce_share(comm, COLL_REDUCE, red, count, root);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

int mpcrt_coll_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red)
{
    coll_red_desc_t mine = describe(COLL_ALLREDUCE, sendbuf, recvbuf, count, red, 0);
    mpcrt_comm_rendezvous(comm, mpcrt_comm_rank(comm), &mine);
    int rc = reduce_share(comm, COLL_ALLREDUCE, red, count, -1);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}
