/* MPI API: the info hints of communicators (MPI 4.0 section 7.4.4). Each member rank keeps its own hints
 * (its slot of the communicator, comm/comm.h), all of them, so that duplicates inherit what was set;
 * MPI_Comm_get_info returns those the implementation understands (MPI 4.0: unknown hints are ignored),
 * the four assertions of MPI 4.0 section 7.4.4. */
#include "info.h"
#include "../comm/comm.h"

#include <string.h>

static const char *const known_hints[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                          "mpi_assert_exact_length", "mpi_assert_allow_overtaking"};

/* The member's hints that get_info reports; NULL when out of memory. */
static mpcrt_info_t *hints_used(const mpcrt_info_t *hints)
{
    mpcrt_info_t *used = mpcrt_info_new(NULL);
    for (size_t i = 0; used && hints && i < sizeof known_hints / sizeof *known_hints; i++) {
        const char *value = mpcrt_info_value(hints, known_hints[i]);
        if (value && mpcrt_info_set(used, known_hints[i], value) != MPI_SUCCESS) {
            mpcrt_info_release(used);
            used = NULL;
        }
    }
    return used;
}

int PMPI_Comm_set_info(MPI_Comm handle, MPI_Info info_handle)
{
    static const char fn[] = "MPI_Comm_set_info";
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info_handle == MPI_INFO_NULL)
        return MPI_SUCCESS; /* no hints to change */
    mpcrt_info_t *info = mpcrt_info_get(info_handle);
    if (!info)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info_handle);
    /* The hints given replace those of the same keys; the others stay. */
    if ((rc = mpcrt_info_merge(&comm->members[me].hints, info)) != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "no memory for the hints");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm handle, MPI_Info *info_used)
{
    static const char fn[] = "MPI_Comm_get_info";
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!info_used)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "info_used is NULL");
    mpcrt_info_t *copy = hints_used(comm->members[me].hints);
    rc = copy ? mpcrt_info_publish(copy, info_used) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "no memory for an info object");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_get_info)
