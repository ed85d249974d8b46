/* Private interface of runtime/mpi/topo: topology objects, argument checks and the attachment of a
 * topology to a new communicator. */
#ifndef MPCRT_MPI_TOPO_INTERNAL_H
#define MPCRT_MPI_TOPO_INTERNAL_H

#include "topo.h"

/* A new topology object of kind (fields zeroed), one reference; NULL when out of memory. */
mpcrt_topo_t *mpcrt_topo_new(int kind);

/* Checks the environment and a communicator argument; with `kind` (MPI_CART...) also that comm has that
 * topology (MPI_ERR_TOPOLOGY); kind 0: any intracommunicator. Raises the error. */
int mpcrt_topo_comm_arg(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, int kind);

/* Builds the topology of a new communicator from its members' contributions: called by member 0 with
 * every member's contribution (by rank in the new communicator). Returns NULL when out of memory. */
typedef mpcrt_topo_t *(*mpcrt_topo_build_fn)(mpcrt_comm_t *made, void **contributions, const void *arg);

/* Makes a communicator with a topology, collectively over old: each member passes `color` (0 to take part,
 * MPI_UNDEFINED to get MPI_COMM_NULL) and `key` as to MPI_Comm_split; then the members of the new
 * communicator meet, its member 0 runs `build` with every member's `contribution` and `arg`, and the
 * topology is attached before anyone returns. Returns an MPI error class (already raised). */
/* Distributed graphs on a communicator whose members live in several processes (dist_graph.c): every
 * member's contribution (its arguments), gathered by messages on `made`; *all (by rank) points into
 * *storage; the caller frees both. Returns an MPI error class. */
int mpcrt_topo_dist_gather(MPI_Comm made, const void *contribution, void ***all, void **storage);
int mpcrt_topo_create(const char *fn, MPI_Comm old, int color, int key, void *contribution,
                      mpcrt_topo_build_fn build, const void *arg, MPI_Comm *newcomm);

/* Row-major coordinates of rank in a Cartesian grid, and back (coords already in range). */
void mpcrt_cart_coords(const mpcrt_topo_t *topo, int rank, int *coords);
int mpcrt_cart_rank(const mpcrt_topo_t *topo, const int *coords);
/* The rank at displacement disp along direction from rank; MPI_PROC_NULL past a non-periodic border. */
int mpcrt_cart_neighbor(const mpcrt_topo_t *topo, int rank, int direction, int disp);

#endif
