/* Schedules of the neighborhood collectives (MPI 4.0 section 8.6): one message per edge, all in one round.
 * On a Cartesian grid two directions may lead to the same peer (a periodic dimension of size 1 or 2), so
 * each message carries the index the receiver knows its source by (the opposite direction) and matching
 * cannot pair a "-1" block with a "+1" one; on graphs, repeated edges pair in the order listed, as MPI
 * specifies, which is the point-to-point order. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"
#include "../topo/topo.h"

#include <errno.h>

#include <stdlib.h>

typedef struct {
    int indegree, outdegree;
    int *sources, *dests;
    bool cart;
} edges_t;

static int edges_of(mpcrt_comm_t *comm, edges_t *e)
{
    int rc = mpcrt_topo_neighbors(comm, mpcrt_comm_rank(comm), &e->indegree, &e->sources, &e->outdegree,
                                  &e->dests);
    if (rc) return rc == -ENOMEM ? MPI_ERR_NO_MEM : MPI_ERR_TOPOLOGY;
    e->cart = mpcrt_topo_of(comm)->kind == MPI_CART;
    return MPI_SUCCESS;
}

/* The sub-tag of a message to out-edge j, and of one from in-edge i. */
static int out_sub(const edges_t *e, int j)
{
    return e->cart ? (j ^ 1) + 1 : 0;
}

static int in_sub(const edges_t *e, int i)
{
    return e->cart ? i + 1 : 0;
}

static int finish(mpcrt_nbc_t *s, edges_t *e, mpcrt_nbc_t **out)
{
    free(e->sources);
    int rc = mpcrt_nbc_build_error(s);
    if (rc != MPI_SUCCESS) {
        mpcrt_nbc_free(s);
        return rc;
    }
    *out = s;
    return MPI_SUCCESS;
}

static void recv_blocks(mpcrt_nbc_t *s, const edges_t *e, const mpcrt_coll_blocks_t *recv)
{
    for (int i = 0; i < e->indegree; i++) {
        coll_view_t b = coll_block(recv, i);
        mpcrt_nbc_recv(s, b.buf, b.count, b.dt ? b.dt : mpcrt_datatype_get(MPI_BYTE), e->sources[i],
                       in_sub(e, i));
    }
}

int mpcrt_nbc_neighbor_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                                 mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv,
                                 mpcrt_nbc_t **out)
{
    edges_t e;
    int rc = edges_of(comm, &e);
    if (rc) return rc;
    mpcrt_nbc_t *s = mpcrt_nbc_new(comm);
    if (!s) {
        free(e.sources);
        return MPI_ERR_NO_MEM;
    }
    recv_blocks(s, &e, recv);
    for (int j = 0; j < e.outdegree; j++)
        mpcrt_nbc_send(s, sendbuf, sendcount, sendtype, e.dests[j], out_sub(&e, j));
    return finish(s, &e, out);
}

int mpcrt_nbc_neighbor_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send,
                                const mpcrt_coll_blocks_t *recv, mpcrt_nbc_t **out)
{
    edges_t e;
    int rc = edges_of(comm, &e);
    if (rc) return rc;
    mpcrt_nbc_t *s = mpcrt_nbc_new(comm);
    if (!s) {
        free(e.sources);
        return MPI_ERR_NO_MEM;
    }
    recv_blocks(s, &e, recv);
    for (int j = 0; j < e.outdegree; j++) {
        coll_view_t b = coll_block(send, j);
        mpcrt_nbc_send(s, b.buf, b.count, b.dt ? b.dt : mpcrt_datatype_get(MPI_BYTE), e.dests[j],
                       out_sub(&e, j));
    }
    return finish(s, &e, out);
}
