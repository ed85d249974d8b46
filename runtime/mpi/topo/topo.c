/* Topology objects, their attachment to new communicators, MPI_Topo_test and the neighbor lists used by
 * neighborhood collectives. */
#include "topo_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int PMPI_Comm_free(MPI_Comm *comm);

static void destroy_topo(mpcrt_object_t *obj)
{
    mpcrt_topo_t *t = (mpcrt_topo_t *)obj;
    switch (t->kind) {
    case MPI_CART:
        free(t->cart.dims);
        free(t->cart.periods);
        break;
    case MPI_GRAPH:
        free(t->graph.index);
        free(t->graph.edges);
        break;
    case MPI_DIST_GRAPH:
        for (int r = 0; t->dist.ranks && r < t->dist.nranks; r++) {
            mpcrt_dist_adj_t *a = &t->dist.ranks[r];
            free(a->sources);
            free(a->source_weights);
            free(a->dests);
            free(a->dest_weights);
        }
        free(t->dist.ranks);
        break;
    }
    free(t);
}

mpcrt_topo_t *mpcrt_topo_new(int kind)
{
    mpcrt_topo_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    mpcrt_object_init(&t->obj, MPCRT_OBJ_INTERNAL, destroy_topo);
    t->kind = kind;
    return t;
}

int mpcrt_topo_comm_arg(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, int kind)
{
    int me;
    int rc = mpcrt_comm_arg(fn, handle, comm, &me);
    if (rc)
        return rc;
    if ((*comm)->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COMM, "topologies are for intracommunicators only");
    mpcrt_topo_t *t = mpcrt_topo_of(*comm);
    if (kind && (!t || t->kind != kind))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_TOPOLOGY, "the communicator has no %s topology",
                               kind == MPI_CART ? "Cartesian" : kind == MPI_GRAPH ? "graph" : "distributed graph");
    return MPI_SUCCESS;
}

int mpcrt_topo_create(const char *fn, MPI_Comm old, int color, int key, void *contribution,
                      mpcrt_topo_build_fn build, const void *arg, MPI_Comm *newcomm)
{
    /* MPI_Comm_split does the grouping, the error handler inheritance and the publication; reorder is
     * never used (allowed: MPI 4.0 section 8.5.1), so keys keep the old order. */
    int rc = PMPI_Comm_split(old, color, key, newcomm);
    if (rc || *newcomm == MPI_COMM_NULL)
        return rc;
    mpcrt_comm_t *made = mpcrt_comm_get(*newcomm);
    int me = mpcrt_comm_rank(made);
    if (!made->local) {
        /* Members in several processes, each with its own object: each builds its own copy of the
         * topology, from every member's contribution gathered by messages (distributed graphs). */
        void **all = NULL, *storage = NULL;
        int rc2 = contribution ? mpcrt_topo_dist_gather(*newcomm, contribution, &all, &storage) : MPI_SUCCESS;
        if (rc2 == MPI_SUCCESS)
            made->topo = (mpcrt_object_t *)build(made, all, arg);
        free(all);
        free(storage);
        if (!made->topo) {
            PMPI_Comm_free(newcomm);
            return mpcrt_mpi_error(old, fn, rc2 ? rc2 : MPI_ERR_NO_MEM, "cannot build the topology");
        }
        return MPI_SUCCESS;
    }
    mpcrt_comm_rendezvous(made, me, contribution);
    if (me == 0)
        made->topo = (mpcrt_object_t *)build(made, made->contributions, arg); /* NULL: out of memory */
    mpcrt_comm_rendezvous_done(made); /* the topology is visible to every member after this */
    if (!made->topo) {
        PMPI_Comm_free(newcomm);
        return mpcrt_mpi_error(old, fn, MPI_ERR_NO_MEM, "no memory for the topology");
    }
    return MPI_SUCCESS;
}

int PMPI_Topo_test(MPI_Comm handle, int *status)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg("MPI_Topo_test", handle, &comm, &me);
    if (rc)
        return rc;
    if (!status)
        return mpcrt_mpi_error(handle, "MPI_Topo_test", MPI_ERR_ARG, "null output argument");
    mpcrt_topo_t *t = mpcrt_topo_of(comm);
    *status = t ? t->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Topo_test)

int mpcrt_topo_neighbors(mpcrt_comm_t *comm, int rank, int *indegree, int **sources, int *outdegree,
                         int **dests)
{
    mpcrt_topo_t *t = mpcrt_topo_of(comm);
    if (!t)
        return -EINVAL;
    int nin, nout;
    const int *in = NULL, *out = NULL;
    switch (t->kind) {
    case MPI_CART:
        nin = nout = 2 * t->cart.ndims;
        break;
    case MPI_GRAPH: {
        int first = rank ? t->graph.index[rank - 1] : 0;
        nin = nout = t->graph.index[rank] - first;
        in = out = t->graph.edges + first;
        break;
    }
    default: {
        const mpcrt_dist_adj_t *a = &t->dist.ranks[rank];
        nin = a->indegree;
        nout = a->outdegree;
        in = a->sources;
        out = a->dests;
        break;
    }
    }
    int *block = malloc(sizeof(int) * (size_t)(nin + nout + 1));
    if (!block)
        return -ENOMEM;
    if (t->kind == MPI_CART) {
        for (int d = 0; d < t->cart.ndims; d++) {
            block[2 * d] = mpcrt_cart_neighbor(t, rank, d, -1);
            block[2 * d + 1] = mpcrt_cart_neighbor(t, rank, d, 1);
        }
        memcpy(block + nin, block, sizeof(int) * (size_t)nin);
    } else {
        if (nin)
            memcpy(block, in, sizeof(int) * (size_t)nin);
        if (nout)
            memcpy(block + nin, out, sizeof(int) * (size_t)nout);
    }
    *indegree = nin;
    *outdegree = nout;
    *sources = block;
    *dests = block + nin;
    return 0;
}
