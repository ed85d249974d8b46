/* Reduce and allreduce inside one process. The instances are shared out among the members: member r
 * reduces its share of every member's input, in rank order, and writes the result into the root's receive
 * buffer (reduce) or every member's (allreduce). No two members touch the same instances, so an in-place
 * input is never overwritten while another member still reads it, and the members reduce in parallel. */
#include "coll_internal.h"

#include <stdlib.h>

coll_view_t *coll_views(int n)
{
    return malloc(sizeof(coll_view_t) * (size_t)(n > 0 ? n : 1));
}

int coll_red_agree(mpcrt_comm_t *comm, uint32_t kind)
{
    int n = mpcrt_comm_size(comm);
    for (int q = 0; q < n; q++)
        if (!coll_peer(comm, q, kind))
            return MPI_ERR_OTHER;
    const coll_red_desc_t *first = comm->contributions[0];
    int rc = MPI_SUCCESS;
    for (int q = 1; q < n && rc == MPI_SUCCESS; q++) {
        const coll_red_desc_t *peer = comm->contributions[q];
        if (peer->header.root != first->header.root)
            rc = MPI_ERR_ROOT;
        else if (peer->count != first->count)
            rc = MPI_ERR_COUNT;
        else if (peer->bytes != first->bytes)
            rc = MPI_ERR_TYPE;
        else if (!coll_same_op(peer->op, first->op))
            rc = MPI_ERR_OP;
    }
    return rc;
}

static coll_red_desc_t describe(uint32_t kind, const void *sendbuf, void *recvbuf, MPI_Count count,
                                const mpcrt_coll_reduction_t *red, int root)
{
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    return (coll_red_desc_t){{kind, root}, count, count * red->dt->size, red->op, {(void *)input, red->dt, count},
                             {recvbuf, red->dt, count}};
}

/* Reduces this member's share of the instances into the outputs of `root` (all members if root < 0). */
static int reduce_share(mpcrt_comm_t *comm, const mpcrt_coll_reduction_t *red, MPI_Count count, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    MPI_Count first, len;
    coll_share(count, n, me, &first, &len);
    if (len == 0)
        return MPI_SUCCESS;
    int noutputs = root < 0 ? n : 1;
    coll_view_t *views = coll_views(n + noutputs);
    if (!views)
        return MPI_ERR_NO_MEM;
    for (int q = 0; q < n; q++)
        views[q] = ((const coll_red_desc_t *)comm->contributions[q])->input;
    for (int o = 0; o < noutputs; o++)
        views[n + o] = ((const coll_red_desc_t *)comm->contributions[root < 0 ? o : root])->output;
    int rc = coll_combine(red, views, n, first, len, views + n, noutputs, first);
    free(views);
    return rc;
}

int mpcrt_coll_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                      const mpcrt_coll_reduction_t *red, int root)
{
    int me = mpcrt_comm_rank(comm);
    coll_red_desc_t mine = describe(COLL_REDUCE, sendbuf, recvbuf, count, red, root);
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_red_agree(comm, COLL_REDUCE);
    if (rc == MPI_SUCCESS)
        rc = reduce_share(comm, red, count, root);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}

int mpcrt_coll_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red)
{
    int me = mpcrt_comm_rank(comm);
    coll_red_desc_t mine = describe(COLL_ALLREDUCE, sendbuf, recvbuf, count, red, 0);
    mpcrt_comm_rendezvous(comm, me, &mine);
    int rc = coll_red_agree(comm, COLL_ALLREDUCE);
    if (rc == MPI_SUCCESS)
        rc = reduce_share(comm, red, count, -1);
    mpcrt_comm_rendezvous_done(comm);
    return rc;
}
