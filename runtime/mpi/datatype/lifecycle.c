/* MPI API: MPI_Type_commit and MPI_Type_free. Layouts are compiled when a type is built (constructors need
 * the inner layouts anyway), so committing only marks the type usable for communication. Freeing removes the
 * handle; operations still pending on the type keep the object alive (MPI 4.0 section 5.1.9). */
#include "datatype_internal.h"
#include "../attr/attr.h"

int PMPI_Type_commit(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_commit";
    if (!datatype)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "datatype is NULL");
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(*datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!mpcrt_datatype_is_committed(dt))
        atomic_fetch_or_explicit(&dt->flags, MPCRT_DT_COMMITTED, memory_order_relaxed);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_commit)

int PMPI_Type_free(MPI_Datatype *datatype)
{
    static const char fn[] = "MPI_Type_free";
    if (!datatype)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "datatype is NULL");
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(*datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (mpcrt_datatype_is_predefined(dt))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE, "%s is predefined and cannot be freed", dt->name);
    /* The caller's attributes on the handle go first (delete callbacks, attr/); a failing one fails the call. */
    if ((rc = mpcrt_attr_type_free(*datatype)) != MPI_SUCCESS)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "an attribute delete callback failed");
    if (mpcrt_handle_free(MPCRT_OBJ_DATATYPE, *datatype) != 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE, "datatype 0x%x was freed concurrently",
                               (unsigned)*datatype);
    *datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_free)
