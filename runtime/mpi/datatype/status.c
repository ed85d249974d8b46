/* MPI API: what a status says about received data: MPI_Get_count, MPI_Get_elements (and `_x`, `_c`),
 * MPI_Status_set_elements (and `_x`, `_c`), MPI_Status_set_cancelled, MPI_Test_cancelled. The status holds the byte
 * count as in MPICH: low 32 bits in count_lo, the next 31 in count_hi_and_cancelled above its bit 0, which
 * is the cancelled flag. */
#include "datatype_internal.h"

#include <limits.h>

static MPI_Count status_bytes(const MPI_Status *status)
{
    return (MPI_Count)(unsigned)status->count_lo |
           ((MPI_Count)((unsigned)status->count_hi_and_cancelled >> 1) << 32);
}

static void set_status_bytes(MPI_Status *status, MPI_Count bytes)
{
    status->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    status->count_hi_and_cancelled =
        (int)(((unsigned)(bytes >> 32) << 1) | ((unsigned)status->count_hi_and_cancelled & 1u));
}

static int check_status(const char *fn, const MPI_Status *status)
{
    if (!status || status == MPI_STATUS_IGNORE)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "status is %s",
                               status ? "MPI_STATUS_IGNORE" : "NULL");
    return MPI_SUCCESS;
}

static int common(const char *fn, const MPI_Status *status, MPI_Datatype datatype, const void *out,
                  mpcrt_datatype_t **dt)
{
    int rc = check_status(fn, status);
    if (rc == MPI_SUCCESS)
        rc = mpcrt_dt_arg(datatype, fn, "datatype", dt);
    if (rc == MPI_SUCCESS && !out)
        rc = mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "count is NULL");
    return rc;
}

/* Whole instances of the type in the received bytes, MPI_UNDEFINED when they end inside one. */
static MPI_Count count_of(const mpcrt_datatype_t *dt, MPI_Count bytes)
{
    if (dt->size == 0)
        return 0; /* MPI 4.0 section 3.2.5: a zero-size type yields a count of zero */
    return bytes % dt->size ? MPI_UNDEFINED : bytes / dt->size;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    mpcrt_datatype_t *dt;
    int rc = common("MPI_Get_count", status, datatype, count, &dt);
    if (rc == MPI_SUCCESS) {
        MPI_Count n = count_of(dt, status_bytes(status));
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    }
    return rc;
}
MPCRT_PMPI_ALIAS(Get_count)

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    mpcrt_datatype_t *dt;
    int rc = common("MPI_Get_count_c", status, datatype, count, &dt);
    if (rc == MPI_SUCCESS)
        *count = count_of(dt, status_bytes(status));
    return rc;
}
MPCRT_PMPI_ALIAS(Get_count_c)

static int elements(const char *fn, const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    mpcrt_datatype_t *dt;
    int rc = common(fn, status, datatype, count, &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    MPI_Count n = mpcrt_datatype_elements_in(dt, status_bytes(status));
    if (n < 0 && n != MPI_UNDEFINED)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    *count = n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype datatype, int *count)
{
    MPI_Count n = 0;
    int rc = elements("MPI_Get_elements", status, datatype, count ? &n : NULL);
    if (rc == MPI_SUCCESS)
        *count = n > INT_MAX ? MPI_UNDEFINED : (int)n; /* MPI_UNDEFINED itself fits */
    return rc;
}
MPCRT_PMPI_ALIAS(Get_elements)

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements("MPI_Get_elements_x", status, datatype, count);
}
MPCRT_PMPI_ALIAS(Get_elements_x)

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count)
{
    return elements("MPI_Get_elements_c", status, datatype, count);
}
MPCRT_PMPI_ALIAS(Get_elements_c)

/* Sets the byte count so that MPI_Get_elements returns `count` (and MPI_Get_count the whole instances). */
static int set_elements(const char *fn, MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    mpcrt_datatype_t *dt;
    int rc = check_status(fn, status);
    if (rc == MPI_SUCCESS)
        rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (count < 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "count is negative (%ld)", (long)count);
    MPI_Count bytes = mpcrt_datatype_bytes_of_elements(dt, count);
    if (bytes < 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "out of memory");
    set_status_bytes(status, bytes);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype datatype, int count)
{
    return set_elements("MPI_Status_set_elements", status, datatype, count);
}
MPCRT_PMPI_ALIAS(Status_set_elements)

int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_x", status, datatype, count);
}
MPCRT_PMPI_ALIAS(Status_set_elements_x)

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype datatype, MPI_Count count)
{
    return set_elements("MPI_Status_set_elements_c", status, datatype, count);
}
MPCRT_PMPI_ALIAS(Status_set_elements_c)

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    int rc = check_status("MPI_Status_set_cancelled", status);
    if (rc == MPI_SUCCESS)
        status->count_hi_and_cancelled = (int)(((unsigned)status->count_hi_and_cancelled & ~1u) | (flag ? 1u : 0u));
    return rc;
}
MPCRT_PMPI_ALIAS(Status_set_cancelled)

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    int rc = check_status("MPI_Test_cancelled", status);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!flag)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Test_cancelled", MPI_ERR_ARG, "flag is NULL");
    *flag = status->count_hi_and_cancelled & 1;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Test_cancelled)
