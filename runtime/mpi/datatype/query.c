/* MPI API: size, extent and true extent of a datatype in their int/MPI_Aint, `_x` (MPI 3) and `_c` (MPI 4)
 * forms, and the MPI-1 MPI_Type_extent/lb/ub that the MPICH ABI still exports. */
#include "datatype_internal.h"

#include <limits.h>

static int lookup(MPI_Datatype datatype, const char *fn, const void *out1, const void *out2,
                  mpcrt_datatype_t **dt)
{
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!out1 || !out2)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an output argument is NULL");
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype datatype, int *size)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_size", size, size, &dt);
    if (rc == MPI_SUCCESS)
        *size = dt->size > INT_MAX ? MPI_UNDEFINED : (int)dt->size;
    return rc;
}
MPCRT_PMPI_ALIAS(Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count *size)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_size_x", size, size, &dt);
    if (rc == MPI_SUCCESS)
        *size = dt->size;
    return rc;
}
MPCRT_PMPI_ALIAS(Type_size_x)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count *size)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_size_c", size, size, &dt);
    if (rc == MPI_SUCCESS)
        *size = dt->size;
    return rc;
}
MPCRT_PMPI_ALIAS(Type_size_c)

int PMPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_extent", lb, extent, &dt);
    if (rc == MPI_SUCCESS) {
        *lb = dt->lb;
        *extent = mpcrt_datatype_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_extent)

int PMPI_Type_get_extent_x(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_extent_x", lb, extent, &dt);
    if (rc == MPI_SUCCESS) {
        *lb = dt->lb;
        *extent = mpcrt_datatype_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_extent_x)

int PMPI_Type_get_extent_c(MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_extent_c", lb, extent, &dt);
    if (rc == MPI_SUCCESS) {
        *lb = dt->lb;
        *extent = mpcrt_datatype_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_extent_c)

int PMPI_Type_get_true_extent(MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_true_extent", true_lb, true_extent, &dt);
    if (rc == MPI_SUCCESS) {
        *true_lb = dt->true_lb;
        *true_extent = mpcrt_datatype_true_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_true_extent)

int PMPI_Type_get_true_extent_x(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_true_extent_x", true_lb, true_extent, &dt);
    if (rc == MPI_SUCCESS) {
        *true_lb = dt->true_lb;
        *true_extent = mpcrt_datatype_true_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_true_extent_x)

int PMPI_Type_get_true_extent_c(MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_get_true_extent_c", true_lb, true_extent, &dt);
    if (rc == MPI_SUCCESS) {
        *true_lb = dt->true_lb;
        *true_extent = mpcrt_datatype_true_extent(dt);
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Type_get_true_extent_c)

/* MPI-1 (removed in MPI 3.0, exported by MPICH for old programs). */
int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint *extent)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_extent", extent, extent, &dt);
    if (rc == MPI_SUCCESS)
        *extent = mpcrt_datatype_extent(dt);
    return rc;
}
MPCRT_PMPI_ALIAS(Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint *displacement)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_lb", displacement, displacement, &dt);
    if (rc == MPI_SUCCESS)
        *displacement = dt->lb;
    return rc;
}
MPCRT_PMPI_ALIAS(Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint *displacement)
{
    mpcrt_datatype_t *dt;
    int rc = lookup(datatype, "MPI_Type_ub", displacement, displacement, &dt);
    if (rc == MPI_SUCCESS)
        *displacement = dt->ub;
    return rc;
}
MPCRT_PMPI_ALIAS(Type_ub)
