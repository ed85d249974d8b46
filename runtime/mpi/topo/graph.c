/* Graph topologies (MPI 4.0 sections 8.5.3, 8.5.5, 8.5.7): node i's neighbors are
 * edges[index[i-1] .. index[i]) (index[-1] = 0); rank i of the old communicator is node i (no reorder). */
#include "topo_internal.h"

#include <stdlib.h>
#include <string.h>

static int check_graph(const char *fn, MPI_Comm handle, int size, int nnodes, const int index[], const int edges[])
{
    if (nnodes < 0 || nnodes > size)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "nnodes %d is not in [0, %d]", nnodes, size);
    if (nnodes > 0 && !index)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null index array");
    for (int i = 0; i < nnodes; i++)
        if (index[i] < (i ? index[i - 1] : 0))
            return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "index[%d] = %d decreases", i, index[i]);
    int nedges = nnodes ? index[nnodes - 1] : 0;
    if (nedges > 0 && !edges)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null edges array");
    for (int e = 0; e < nedges; e++)
        if (edges[e] < 0 || edges[e] >= nnodes)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "edges[%d] = %d is not a node of [0, %d)", e, edges[e],
                                   nnodes);
    return MPI_SUCCESS;
}

typedef struct {
    int nnodes;
    const int *index, *edges;
} graph_args_t;

static mpcrt_topo_t *build_graph(mpcrt_comm_t *made, void **contributions, const void *arg)
{
    (void)made;
    (void)contributions;
    const graph_args_t *g = arg; /* member 0's: every member gave the same graph */
    mpcrt_topo_t *t = mpcrt_topo_new(MPI_GRAPH);
    if (!t)
        return NULL;
    int nedges = g->index[g->nnodes - 1];
    t->graph.nnodes = g->nnodes;
    t->graph.index = malloc(sizeof(int) * (size_t)g->nnodes);
    t->graph.edges = malloc(sizeof(int) * (size_t)(nedges + 1));
    if (!t->graph.index || !t->graph.edges) {
        mpcrt_object_release(&t->obj);
        return NULL;
    }
    memcpy(t->graph.index, g->index, sizeof(int) * (size_t)g->nnodes);
    if (nedges)
        memcpy(t->graph.edges, g->edges, sizeof(int) * (size_t)nedges);
    return t;
}

int PMPI_Graph_create(MPI_Comm handle, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm *comm_graph)
{
    static const char fn[] = "MPI_Graph_create";
    (void)reorder;
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    if (rc || (rc = check_graph(fn, handle, mpcrt_comm_size(comm), nnodes, index, edges)))
        return rc;
    if (!comm_graph)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    int me = mpcrt_comm_rank(comm);
    graph_args_t args = {nnodes, index, edges};
    /* nnodes = 0: everyone gets MPI_COMM_NULL. */
    return mpcrt_topo_create(fn, handle, me < nnodes ? 0 : MPI_UNDEFINED, me, NULL, build_graph, &args, comm_graph);
}
MPCRT_PMPI_ALIAS(Graph_create)

int PMPI_Graphdims_get(MPI_Comm handle, int *nnodes, int *nedges)
{
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg("MPI_Graphdims_get", handle, &comm, MPI_GRAPH);
    if (rc)
        return rc;
    if (!nnodes || !nedges)
        return mpcrt_mpi_error(handle, "MPI_Graphdims_get", MPI_ERR_ARG, "null output argument");
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    *nnodes = t->graph.nnodes;
    *nedges = t->graph.index[t->graph.nnodes - 1];
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Graphdims_get)

int PMPI_Graph_get(MPI_Comm handle, int maxindex, int maxedges, int index[], int edges[])
{
    static const char fn[] = "MPI_Graph_get";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_GRAPH);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    if (maxindex < 0 || maxedges < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative maxindex or maxedges");
    int ni = maxindex < t->graph.nnodes ? maxindex : t->graph.nnodes;
    int nedges = t->graph.index[t->graph.nnodes - 1], ne = maxedges < nedges ? maxedges : nedges;
    if ((ni > 0 && !index) || (ne > 0 && !edges))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output array");
    if (ni)
        memcpy(index, t->graph.index, sizeof(int) * (size_t)ni);
    if (ne)
        memcpy(edges, t->graph.edges, sizeof(int) * (size_t)ne);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Graph_get)

static int node_arg(const char *fn, MPI_Comm handle, const mpcrt_topo_t *t, int rank)
{
    if (rank < 0 || rank >= t->graph.nnodes)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_RANK, "rank %d is not in [0, %d)", rank, t->graph.nnodes);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm handle, int rank, int *nneighbors)
{
    static const char fn[] = "MPI_Graph_neighbors_count";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_GRAPH);
    const mpcrt_topo_t *t = rc ? NULL : mpcrt_topo_of(comm);
    if (rc || (rc = node_arg(fn, handle, t, rank)))
        return rc;
    if (!nneighbors)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    *nneighbors = t->graph.index[rank] - (rank ? t->graph.index[rank - 1] : 0);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm handle, int rank, int maxneighbors, int neighbors[])
{
    static const char fn[] = "MPI_Graph_neighbors";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_GRAPH);
    const mpcrt_topo_t *t = rc ? NULL : mpcrt_topo_of(comm);
    if (rc || (rc = node_arg(fn, handle, t, rank)))
        return rc;
    int first = rank ? t->graph.index[rank - 1] : 0, count = t->graph.index[rank] - first;
    if (maxneighbors < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative maxneighbors %d", maxneighbors);
    int n = maxneighbors < count ? maxneighbors : count;
    if (n > 0 && !neighbors)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null neighbors array");
    if (n)
        memcpy(neighbors, t->graph.edges + first, sizeof(int) * (size_t)n);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Graph_neighbors)

int PMPI_Graph_map(MPI_Comm handle, int nnodes, const int index[], const int edges[], int *newrank)
{
    static const char fn[] = "MPI_Graph_map";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    if (rc || (rc = check_graph(fn, handle, mpcrt_comm_size(comm), nnodes, index, edges)))
        return rc;
    if (!newrank)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    int me = mpcrt_comm_rank(comm);
    *newrank = me < nnodes ? me : MPI_UNDEFINED; /* the identity placement MPI_Graph_create uses */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Graph_map)
