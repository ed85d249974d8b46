/* MPI_Type_create_subarray (MPI 4.0 section 5.1.3): an n-dimensional sub-block of an array. Built as nested
 * hvectors of the old type, placed at the start offset, resized to the whole array (lb 0, extent the
 * array's), which is the standard's definition; the envelope keeps the user's arguments. */
#include "datatype_internal.h"

#include <stdlib.h>

#define TRY(call)                                                                                          \
    do {                                                                                                   \
        int try_rc_ = (call);                                                                              \
        if (try_rc_ != MPI_SUCCESS)                                                                        \
            return try_rc_;                                                                                \
    } while (0)

/* Drops the reference `held` once `next` (built on it) holds its own; returns next. */
static mpcrt_datatype_t *step(mpcrt_datatype_t *held, mpcrt_datatype_t *next)
{
    mpcrt_dt_discard(held);
    return next;
}

mpcrt_datatype_t *mpcrt_dt_subarray_impl(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                         const MPI_Count *starts, int order, mpcrt_datatype_t *old)
{
    MPI_Aint extent = old->ub - old->lb;
    /* Dimensions from the fastest-varying one: the last in C order, the first in Fortran order. */
    int d = order == MPI_ORDER_C ? ndims - 1 : 0, dir = order == MPI_ORDER_C ? -1 : 1;
    mpcrt_datatype_t *cur = mpcrt_dt_make_contiguous(subsizes[d], old);
    MPI_Aint stride = sizes[d] * extent, disp = starts[d] * extent;
    for (int k = 1; k < ndims && cur; k++) {
        d += dir;
        cur = step(cur, mpcrt_dt_make_hvector(subsizes[d], 1, stride, cur));
        disp += starts[d] * stride;
        stride *= sizes[d];
    }
    if (!cur)
        return NULL;
    cur = step(cur, mpcrt_dt_make_struct2(1, disp, cur, 0, 0, cur));
    if (!cur)
        return NULL;
    return step(cur, mpcrt_dt_make_resized(cur, 0, stride));
}

static int subarray(const char *fn, int ndims, bool large, const int *isizes, const int *isubsizes,
                    const int *istarts, const MPI_Count *csizes, const MPI_Count *csubsizes,
                    const MPI_Count *cstarts, int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    if (ndims <= 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_DIMS, "ndims is %d, must be positive", ndims);
    if (large ? !csizes || !csubsizes || !cstarts : !isizes || !isubsizes || !istarts)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an array argument is NULL");
    if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "order %d is neither MPI_ORDER_C nor _FORTRAN",
                               order);
    mpcrt_datatype_t *old;
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    if (!newtype)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "newtype is NULL");
    MPI_Count *arrays = malloc(3 * (size_t)ndims * sizeof *arrays);
    if (!arrays)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    MPI_Count *sizes = arrays, *subsizes = arrays + ndims, *starts = arrays + 2 * ndims;
    for (int i = 0; i < ndims; i++) {
        sizes[i] = large ? csizes[i] : isizes[i];
        subsizes[i] = large ? csubsizes[i] : isubsizes[i];
        starts[i] = large ? cstarts[i] : istarts[i];
        if (sizes[i] <= 0 || subsizes[i] < 0 || subsizes[i] > sizes[i] || starts[i] < 0 ||
            starts[i] > sizes[i] - subsizes[i]) {
            long size = (long)sizes[i], subsize = (long)subsizes[i], start = (long)starts[i];
            free(arrays);
            return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG,
                                   "dimension %d: size %ld, subsize %ld, start %ld do not describe a sub-block",
                                   i, size, subsize, start);
        }
    }
    mpcrt_datatype_t *dt = large ? mpcrt_dt_new(MPI_COMBINER_SUBARRAY, 2, 0, 3 * ndims, 1)
                                 : mpcrt_dt_new(MPI_COMBINER_SUBARRAY, 3 * ndims + 2, 0, 0, 1);
    mpcrt_datatype_t *impl = dt ? mpcrt_dt_subarray_impl(ndims, sizes, subsizes, starts, order, old) : NULL;
    if (!impl) {
        free(arrays);
        mpcrt_dt_discard(dt);
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "cannot build the subarray type");
    }
    /* Envelope (MPI 4.0 section 5.1.13): ndims, sizes, subsizes, starts, order; _c: counts in the
     * large-count array. */
    dt->ints[0] = ndims;
    if (large) {
        dt->ints[1] = order;
        for (int i = 0; i < 3 * ndims; i++)
            dt->counts[i] = arrays[i];
    } else {
        for (int i = 0; i < 3 * ndims; i++)
            dt->ints[1 + i] = (int)arrays[i];
        dt->ints[3 * ndims + 1] = order;
    }
    free(arrays);
    mpcrt_dt_set_type(dt, 0, old);
    dt->impl = impl;
    int rc = mpcrt_dt_finish(dt, newtype);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "cannot build the subarray type");
    return MPI_SUCCESS;
}

int PMPI_Type_create_subarray(int ndims, const int array_of_sizes[], const int array_of_subsizes[],
                              const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray", ndims, false, array_of_sizes, array_of_subsizes, array_of_starts,
                    NULL, NULL, NULL, order, oldtype, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_subarray)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    return subarray("MPI_Type_create_subarray_c", ndims, true, NULL, NULL, NULL, array_of_sizes,
                    array_of_subsizes, array_of_starts, order, oldtype, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_subarray_c)
