/* Cartesian topologies (MPI 4.0 sections 8.5.1, 8.5.5, 8.5.6, 8.5.7): ranks are laid out in row-major
 * order (the last dimension varies fastest); reorder is never used, so rank r of the old communicator is rank
 * r of the grid. */
#include "topo_internal.h"

#include <stdlib.h>
#include <string.h>

void mpcrt_cart_coords(const mpcrt_topo_t *topo, int rank, int *coords)
{
    for (int d = topo->cart.ndims - 1; d >= 0; d--) {
        coords[d] = rank % topo->cart.dims[d];
        rank /= topo->cart.dims[d];
    }
}

int mpcrt_cart_rank(const mpcrt_topo_t *topo, const int *coords)
{
    int rank = 0;
    for (int d = 0; d < topo->cart.ndims; d++)
        rank = rank * topo->cart.dims[d] + coords[d];
    return rank;
}

int mpcrt_cart_neighbor(const mpcrt_topo_t *topo, int rank, int direction, int disp)
{
    int coords[topo->cart.ndims > 0 ? topo->cart.ndims : 1];
    mpcrt_cart_coords(topo, rank, coords);
    int n = topo->cart.dims[direction];
    long c = (long)coords[direction] + disp;
    if (c < 0 || c >= n) {
        if (!topo->cart.periods[direction])
            return MPI_PROC_NULL;
        c %= n;
        if (c < 0)
            c += n;
    }
    coords[direction] = (int)c;
    return mpcrt_cart_rank(topo, coords);
}

/* Checks a grid description; *nodes is the product of the dimensions. */
static int check_grid(const char *fn, MPI_Comm handle, int ndims, const int dims[], const int periods[],
                      long long *nodes)
{
    if (ndims < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_DIMS, "negative number of dimensions %d", ndims);
    if (ndims > 0 && (!dims || !periods))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null dims or periods array");
    *nodes = 1;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] <= 0)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_DIMS, "dims[%d] = %d is not positive", d, dims[d]);
        *nodes *= dims[d];
        if (*nodes > MPCRT_TAG_UB)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_DIMS, "the grid has more than 2^31 nodes");
    }
    return MPI_SUCCESS;
}

typedef struct {
    int ndims;
    const int *dims, *periods;
} grid_t;

static mpcrt_topo_t *build_cart(mpcrt_comm_t *made, void **contributions, const void *arg)
{
    (void)made;
    (void)contributions;
    const grid_t *g = arg; /* member 0's arguments: every member gave the same (MPI 4.0 section 8.5.1) */
    mpcrt_topo_t *t = mpcrt_topo_new(MPI_CART);
    if (!t)
        return NULL;
    t->cart.ndims = g->ndims;
    t->cart.dims = malloc(sizeof(int) * (size_t)(g->ndims + 1));
    t->cart.periods = malloc(sizeof(int) * (size_t)(g->ndims + 1));
    if (!t->cart.dims || !t->cart.periods) {
        mpcrt_object_release(&t->obj);
        return NULL;
    }
    for (int d = 0; d < g->ndims; d++) {
        t->cart.dims[d] = g->dims[d];
        t->cart.periods[d] = g->periods[d] != 0;
    }
    return t;
}

int PMPI_Cart_create(MPI_Comm handle, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    static const char fn[] = "MPI_Cart_create";
    (void)reorder;
    if (comm_cart)
        *comm_cart = MPI_COMM_NULL; /* what the caller finds when the call fails */
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    long long nodes;
    if (rc || (rc = check_grid(fn, handle, ndims, dims, periods, &nodes)))
        return rc;
    if (!comm_cart)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    int size = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (nodes > size)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the grid has %lld nodes, the communicator only %d ranks",
                               nodes, size);
    grid_t grid = {ndims, dims, periods};
    return mpcrt_topo_create(fn, handle, me < nodes ? 0 : MPI_UNDEFINED, me, NULL, build_cart, &grid, comm_cart);
}
MPCRT_PMPI_ALIAS(Cart_create)

int PMPI_Cartdim_get(MPI_Comm handle, int *ndims)
{
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg("MPI_Cartdim_get", handle, &comm, MPI_CART);
    if (rc)
        return rc;
    if (!ndims)
        return mpcrt_mpi_error(handle, "MPI_Cartdim_get", MPI_ERR_ARG, "null output argument");
    *ndims = mpcrt_topo_of(comm)->cart.ndims;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cartdim_get)

int PMPI_Cart_get(MPI_Comm handle, int maxdims, int dims[], int periods[], int coords[])
{
    static const char fn[] = "MPI_Cart_get";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_CART);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    int n = t->cart.ndims < maxdims ? t->cart.ndims : maxdims;
    if (maxdims < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative maxdims %d", maxdims);
    if (n > 0 && (!dims || !periods || !coords))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output array");
    int all[t->cart.ndims + 1];
    mpcrt_cart_coords(t, mpcrt_comm_rank(comm), all);
    for (int d = 0; d < n; d++) {
        dims[d] = t->cart.dims[d];
        periods[d] = t->cart.periods[d];
        coords[d] = all[d];
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cart_get)

int PMPI_Cart_rank(MPI_Comm handle, const int coords[], int *rank)
{
    static const char fn[] = "MPI_Cart_rank";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_CART);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    if (!rank || (t->cart.ndims > 0 && !coords))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null argument");
    int wrapped[t->cart.ndims + 1];
    for (int d = 0; d < t->cart.ndims; d++) {
        int n = t->cart.dims[d], c = coords[d];
        if (c < 0 || c >= n) {
            /* Periodic dimensions wrap (MPI 4.0 section 8.5.5); elsewhere the coordinate is erroneous. */
            if (!t->cart.periods[d])
                return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG,
                                       "coords[%d] = %d is outside [0, %d) of a non-periodic dimension", d, c, n);
            c %= n;
            if (c < 0)
                c += n;
        }
        wrapped[d] = c;
    }
    *rank = mpcrt_cart_rank(t, wrapped);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cart_rank)

int PMPI_Cart_coords(MPI_Comm handle, int rank, int maxdims, int coords[])
{
    static const char fn[] = "MPI_Cart_coords";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_CART);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    int size = mpcrt_comm_size(comm);
    if (rank < 0 || rank >= size)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_RANK, "rank %d is not in [0, %d)", rank, size);
    if (maxdims < t->cart.ndims)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "maxdims %d is less than the %d dimensions", maxdims,
                               t->cart.ndims);
    if (t->cart.ndims > 0 && !coords)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null coords array");
    mpcrt_cart_coords(t, rank, coords);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cart_coords)

int PMPI_Cart_shift(MPI_Comm handle, int direction, int disp, int *rank_source, int *rank_dest)
{
    static const char fn[] = "MPI_Cart_shift";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_CART);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    if (direction < 0 || direction >= t->cart.ndims)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "direction %d is not in [0, %d)", direction,
                               t->cart.ndims);
    if (!rank_source || !rank_dest)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    int me = mpcrt_comm_rank(comm);
    *rank_source = mpcrt_cart_neighbor(t, me, direction, -disp);
    *rank_dest = mpcrt_cart_neighbor(t, me, direction, disp);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cart_shift)

typedef struct {
    const mpcrt_topo_t *parent;
    const int *remain;
} sub_t;

static mpcrt_topo_t *build_sub(mpcrt_comm_t *made, void **contributions, const void *arg)
{
    (void)made;
    (void)contributions;
    const sub_t *s = arg;
    mpcrt_topo_t *t = mpcrt_topo_new(MPI_CART);
    int n = s->parent->cart.ndims;
    if (!t)
        return NULL;
    t->cart.dims = malloc(sizeof(int) * (size_t)(n + 1));
    t->cart.periods = malloc(sizeof(int) * (size_t)(n + 1));
    if (!t->cart.dims || !t->cart.periods) {
        mpcrt_object_release(&t->obj);
        return NULL;
    }
    for (int d = 0; d < n; d++) {
        if (!s->remain[d])
            continue;
        t->cart.dims[t->cart.ndims] = s->parent->cart.dims[d];
        t->cart.periods[t->cart.ndims++] = s->parent->cart.periods[d];
    }
    return t;
}

int PMPI_Cart_sub(MPI_Comm handle, const int remain_dims[], MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Cart_sub";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_CART);
    if (rc)
        return rc;
    const mpcrt_topo_t *t = mpcrt_topo_of(comm);
    if (!newcomm || (t->cart.ndims > 0 && !remain_dims))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null argument");
    /* The members sharing the dropped coordinates form one subgrid (color: those coordinates in row-major
     * order); ordering by old rank is row-major order over the kept ones. */
    int me = mpcrt_comm_rank(comm), coords[t->cart.ndims + 1], color = 0, kept = 0;
    mpcrt_cart_coords(t, me, coords);
    for (int d = 0; d < t->cart.ndims; d++) {
        if (!remain_dims[d])
            color = color * t->cart.dims[d] + coords[d];
        kept += remain_dims[d] != 0;
    }
    /* No dimension kept: a zero-dimensional topology (MPI 4.0 section 8.5.7), which, as from
     * MPI_Cart_create with ndims = 0, has one process: rank 0 gets it, the others MPI_COMM_NULL (as in
     * MPICH, whose test cartsuball checks it). */
    if (kept == 0)
        color = me == 0 ? 0 : MPI_UNDEFINED;
    sub_t sub = {t, remain_dims};
    return mpcrt_topo_create(fn, handle, color, me, NULL, build_sub, &sub, newcomm);
}
MPCRT_PMPI_ALIAS(Cart_sub)

int PMPI_Cart_map(MPI_Comm handle, int ndims, const int dims[], const int periods[], int *newrank)
{
    static const char fn[] = "MPI_Cart_map";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    long long nodes;
    if (rc || (rc = check_grid(fn, handle, ndims, dims, periods, &nodes)))
        return rc;
    if (!newrank)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    int size = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (nodes > size)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the grid has %lld nodes, the communicator only %d ranks",
                               nodes, size);
    *newrank = me < nodes ? me : MPI_UNDEFINED; /* the identity placement MPI_Cart_create uses */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cart_map)
