/* MPI_Type_create_darray (MPI 4.0 section 5.1.4): the part of a block/cyclic-distributed array owned by one
 * process of a process grid (row-major, whatever the array order). Built one dimension at a time from the
 * fastest-varying one, as the standard defines it: each dimension is a contiguous run (block) or a vector
 * of blocks plus a shorter last block (cyclic), placed at the process's first element and resized to the
 * whole dimension, so that the next dimension can step over it. */
#include "datatype_internal.h"

#include <stdlib.h>

#define TRY(call)                                                                                          \
    do {                                                                                                   \
        int try_rc_ = (call);                                                                              \
        if (try_rc_ != MPI_SUCCESS)                                                                        \
            return try_rc_;                                                                                \
    } while (0)

static mpcrt_datatype_t *step(mpcrt_datatype_t *held, mpcrt_datatype_t *next)
{
    mpcrt_dt_discard(held);
    return next;
}

/* The elements of one dimension of `gsize` elements (each `stride` bytes, of type t) that process `coord`
 * of `psize` owns, at their offsets from the dimension's start. */
static mpcrt_datatype_t *one_dimension(int distrib, int darg, MPI_Count gsize, int psize, int coord,
                                       MPI_Aint stride, mpcrt_datatype_t *t)
{
    MPI_Count first = 0;
    mpcrt_datatype_t *local;
    if (distrib == MPI_DISTRIBUTE_NONE) {
        local = mpcrt_dt_make_contiguous(gsize, t);
    } else if (distrib == MPI_DISTRIBUTE_BLOCK) {
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (gsize + psize - 1) / psize : darg;
        first = coord * b;
        MPI_Count n = gsize - first < b ? gsize - first : b;
        local = mpcrt_dt_make_contiguous(n > 0 ? n : 0, t);
    } else { /* cyclic: blocks coord, coord + psize, ... of b elements; the last one may be short */
        MPI_Count b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
        MPI_Count nblocks = (gsize + b - 1) / b;
        MPI_Count mine = nblocks > coord ? (nblocks - coord + psize - 1) / psize : 0;
        first = coord * b;
        if (mine == 0) {
            local = mpcrt_dt_make_contiguous(0, t);
        } else {
            MPI_Count last_start = (coord + (mine - 1) * psize) * b;
            MPI_Count last_len = gsize - last_start < b ? gsize - last_start : b;
            MPI_Aint period = psize * b * stride;
            mpcrt_datatype_t *full = mpcrt_dt_make_hvector(last_len == b ? mine : mine - 1, b, period, t);
            if (full && last_len != b)
                full = step(full, mpcrt_dt_make_struct2(1, 0, full, last_len, (mine - 1) * period, t));
            local = full;
        }
    }
    if (!local)
        return NULL;
    local = step(local, mpcrt_dt_make_struct2(1, first * stride, local, 0, 0, local));
    if (!local)
        return NULL;
    return step(local, mpcrt_dt_make_resized(local, 0, gsize * stride));
}

mpcrt_datatype_t *mpcrt_dt_darray_impl(int size, int rank, int ndims, const MPI_Count *gsizes,
                                       const int *distribs, const int *dargs, const int *psizes, int order,
                                       mpcrt_datatype_t *old)
{
    (void)size;
    int *coords = malloc((size_t)ndims * sizeof *coords);
    if (!coords)
        return NULL;
    for (int i = ndims - 1, r = rank; i >= 0; i--) { /* the process grid is row-major */
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    int d = order == MPI_ORDER_C ? ndims - 1 : 0, dir = order == MPI_ORDER_C ? -1 : 1;
    MPI_Aint stride = old->ub - old->lb;
    mpcrt_datatype_t *cur = old;
    mpcrt_datatype_retain(cur);
    for (int k = 0; k < ndims && cur; k++, d += dir) {
        cur = step(cur, one_dimension(distribs[d], dargs[d], gsizes[d], psizes[d], coords[d], stride, cur));
        stride *= gsizes[d];
    }
    free(coords);
    return cur;
}

static int check_dims(const char *fn, int size, int rank, int ndims, const MPI_Count *gsizes,
                      const int *distribs, const int *dargs, const int *psizes, int order)
{
    if (size <= 0 || rank < 0 || rank >= size)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "rank %d is not in a group of size %d", rank, size);
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor _FORTRAN",
                               order);
    long grid = 1;
    for (int i = 0; i < ndims; i++) {
        if (gsizes[i] <= 0 || psizes[i] <= 0)
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "dimension %d: gsize %ld, psize %d", i,
                                   (long)gsizes[i], psizes[i]);
        int dist = distribs[i], darg = dargs[i];
        if (dist != MPI_DISTRIBUTE_BLOCK && dist != MPI_DISTRIBUTE_CYCLIC && dist != MPI_DISTRIBUTE_NONE)
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "dimension %d: unknown distribution %d", i,
                                   dist);
        if (darg != MPI_DISTRIBUTE_DFLT_DARG && (darg <= 0 || dist == MPI_DISTRIBUTE_NONE))
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "dimension %d: invalid darg %d", i, darg);
        if (dist == MPI_DISTRIBUTE_BLOCK && darg != MPI_DISTRIBUTE_DFLT_DARG && (long)darg * psizes[i] < gsizes[i])
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG,
                                   "dimension %d: %d blocks of %d elements cannot hold %ld elements", i,
                                   psizes[i], darg, (long)gsizes[i]);
        if (dist == MPI_DISTRIBUTE_NONE && psizes[i] != 1)
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG,
                                   "dimension %d is not distributed (MPI_DISTRIBUTE_NONE) but psize is %d", i,
                                   psizes[i]);
        grid *= psizes[i];
        if (grid > size)
            break;
    }
    if (grid != size)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG,
                               "the process grid (product of psizes) does not have %d processes", size);
    return MPI_SUCCESS;
}

static int darray(const char *fn, int size, int rank, int ndims, bool large, const int *igsizes,
                  const MPI_Count *cgsizes, const int *distribs, const int *dargs, const int *psizes, int order,
                  MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_DIMS, "ndims is %d, must be positive", ndims);
    if ((large ? !cgsizes : !igsizes) || !distribs || !dargs || !psizes)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an array argument is NULL");
    mpcrt_datatype_t *old;
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    if (!newtype)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "newtype is NULL");
    MPI_Count *gsizes = malloc((size_t)ndims * sizeof *gsizes);
    if (!gsizes)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    for (int i = 0; i < ndims; i++)
        gsizes[i] = large ? cgsizes[i] : igsizes[i];
    int rc = check_dims(fn, size, rank, ndims, gsizes, distribs, dargs, psizes, order);
    if (rc != MPI_SUCCESS) {
        free(gsizes);
        return rc;
    }
    /* Envelope: size, rank, ndims, gsizes, distribs, dargs, psizes, order; _c: gsizes as large counts. */
    mpcrt_datatype_t *dt = large ? mpcrt_dt_new(MPI_COMBINER_DARRAY, 3 * ndims + 4, 0, ndims, 1)
                                 : mpcrt_dt_new(MPI_COMBINER_DARRAY, 4 * ndims + 4, 0, 0, 1);
    mpcrt_datatype_t *impl =
        dt ? mpcrt_dt_darray_impl(size, rank, ndims, gsizes, distribs, dargs, psizes, order, old) : NULL;
    if (!impl) {
        free(gsizes);
        mpcrt_dt_discard(dt);
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "cannot build the darray type");
    }
    int *ints = dt->ints;
    *ints++ = size;
    *ints++ = rank;
    *ints++ = ndims;
    for (int i = 0; i < ndims; i++) {
        if (large)
            dt->counts[i] = gsizes[i];
        else
            ints[i] = (int)gsizes[i];
    }
    if (!large)
        ints += ndims;
    for (int i = 0; i < ndims; i++) {
        ints[i] = distribs[i];
        ints[ndims + i] = dargs[i];
        ints[2 * ndims + i] = psizes[i];
    }
    ints[3 * ndims] = order;
    free(gsizes);
    mpcrt_dt_set_type(dt, 0, old);
    dt->impl = impl;
    rc = mpcrt_dt_finish(dt, newtype);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "cannot build the darray type");
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int array_of_gsizes[],
                            const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                            int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray", size, rank, ndims, false, array_of_gsizes, NULL, array_of_distribs,
                  array_of_dargs, array_of_psizes, order, oldtype, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_darray)

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[],
                              const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return darray("MPI_Type_create_darray_c", size, rank, ndims, true, NULL, array_of_gsizes, array_of_distribs,
                  array_of_dargs, array_of_psizes, order, oldtype, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_darray_c)
