/* Interface of runtime/mpi/topo: virtual topologies (MPI 4.0 chapter 8). A topology is an immutable object
 * attached to a communicator (mpcrt_comm_t.topo), shared by its duplicates and released with it. */
#ifndef MPCRT_MPI_TOPO_H
#define MPCRT_MPI_TOPO_H

#include "../comm/comm.h"

/* One rank's edges in a distributed graph. */
typedef struct {
    int indegree, outdegree;
    int *sources, *source_weights; /* weights NULL when unweighted */
    int *dests, *dest_weights;
    bool weighted;                 /* false when the rank gave MPI_UNWEIGHTED */
} mpcrt_dist_adj_t;

typedef struct mpcrt_topo {
    mpcrt_object_t obj;
    int kind; /* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
    union {
        struct {
            int ndims;
            int *dims, *periods;
        } cart;
        struct {
            int nnodes;
            int *index, *edges; /* MPI_Graph_create's arrays */
        } graph;
        struct {
            int nranks;
            mpcrt_dist_adj_t *ranks; /* by comm rank */
        } dist;
    };
} mpcrt_topo_t;

/* comm's topology, NULL if it has none. */
static inline mpcrt_topo_t *mpcrt_topo_of(const mpcrt_comm_t *comm)
{
    return (mpcrt_topo_t *)comm->topo;
}

/* The neighbors of comm rank `rank` in the order neighborhood collectives use (MPI 4.0 section 8.6):
 * Cartesian: for each dimension, the rank at -1 then at +1 (MPI_PROC_NULL past a non-periodic border), for
 * both lists; graph: MPI_Graph_neighbors for both lists; distributed graph: its sources and destinations.
 * *sources and *dests point into one malloc'd block: free(*sources) frees both. Returns 0, -EINVAL when comm
 * has no topology, -ENOMEM. */
int mpcrt_topo_neighbors(mpcrt_comm_t *comm, int rank, int *indegree, int **sources, int *outdegree,
                         int **dests);

#endif
