/* MPI API: MPI_Pack, MPI_Unpack and MPI_Pack_size (and `_c` forms). The "native" packed format of mpcrt is
 * the packed stream itself (no header), so a packed message can be sent as MPI_PACKED and received into
 * any type with the same type signature, and MPI_Pack_size is exact. */
#include "datatype_internal.h"

#include <limits.h>

/* Until communicators have a table, a communicator argument is checked for its kind only. */
static int check_comm(const char *fn, MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || mpcrt_handle_obj_kind(comm) != MPCRT_OBJ_COMM ||
        mpcrt_handle_kind(comm) == MPCRT_HANDLE_INVALID)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_COMM,
                               comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "communicator handle 0x%x is invalid",
                               (unsigned)comm);
    return MPI_SUCCESS;
}

static int pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    mpcrt_datatype_t *dt;
    int rc = check_comm(fn, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (incount < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "incount is negative (%ld)", (long)incount);
    if ((rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt)) != MPI_SUCCESS)
        return rc;
    if (!mpcrt_datatype_is_committed(dt))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TYPE, "the datatype is not committed (MPI_Type_commit)");
    MPI_Count bytes;
    if (__builtin_mul_overflow(incount, dt->size, &bytes))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "%ld items of %ld bytes overflow", (long)incount,
                               (long)dt->size);
    if (*position < 0 || *position > outsize || bytes > outsize - *position)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TRUNCATE,
                               "%ld bytes do not fit at position %ld of a %ld-byte buffer", (long)bytes,
                               (long)*position, (long)outsize);
    if (bytes > 0 && !outbuf)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_BUFFER, "outbuf is NULL");
    mpcrt_datatype_pack(dt, inbuf, incount, 0, bytes, (char *)outbuf + *position);
    *position += bytes;
    return MPI_SUCCESS;
}

static int unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm)
{
    mpcrt_datatype_t *dt;
    int rc = check_comm(fn, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (outcount < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "outcount is negative (%ld)", (long)outcount);
    if ((rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt)) != MPI_SUCCESS)
        return rc;
    if (!mpcrt_datatype_is_committed(dt))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TYPE, "the datatype is not committed (MPI_Type_commit)");
    MPI_Count bytes;
    if (__builtin_mul_overflow(outcount, dt->size, &bytes))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "%ld items of %ld bytes overflow", (long)outcount,
                               (long)dt->size);
    if (*position < 0 || *position > insize || bytes > insize - *position)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TRUNCATE,
                               "%ld bytes to unpack but only %ld remain after position %ld", (long)bytes,
                               (long)(insize - *position), (long)*position);
    if (bytes > 0 && !inbuf)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_BUFFER, "inbuf is NULL");
    mpcrt_datatype_unpack(dt, outbuf, outcount, 0, bytes, (const char *)inbuf + *position);
    *position += bytes;
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position,
              MPI_Comm comm)
{
    if (!position)
        return mpcrt_mpi_error(comm, "MPI_Pack", MPI_ERR_ARG, "position is NULL");
    MPI_Count pos = *position;
    int rc = pack("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos; /* <= outsize, an int */
    return rc;
}
MPCRT_PMPI_ALIAS(Pack)

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize,
                MPI_Count *position, MPI_Comm comm)
{
    if (!position)
        return mpcrt_mpi_error(comm, "MPI_Pack_c", MPI_ERR_ARG, "position is NULL");
    return pack("MPI_Pack_c", inbuf, incount, datatype, outbuf, outsize, position, comm);
}
MPCRT_PMPI_ALIAS(Pack_c)

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm)
{
    if (!position)
        return mpcrt_mpi_error(comm, "MPI_Unpack", MPI_ERR_ARG, "position is NULL");
    MPI_Count pos = *position;
    int rc = unpack("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm);
    if (rc == MPI_SUCCESS)
        *position = (int)pos;
    return rc;
}
MPCRT_PMPI_ALIAS(Unpack)

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount,
                  MPI_Datatype datatype, MPI_Comm comm)
{
    if (!position)
        return mpcrt_mpi_error(comm, "MPI_Unpack_c", MPI_ERR_ARG, "position is NULL");
    return unpack("MPI_Unpack_c", inbuf, insize, position, outbuf, outcount, datatype, comm);
}
MPCRT_PMPI_ALIAS(Unpack_c)

static int pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    mpcrt_datatype_t *dt;
    int rc = check_comm(fn, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    if (incount < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "incount is negative (%ld)", (long)incount);
    if ((rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt)) != MPI_SUCCESS)
        return rc;
    if (!size)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_ARG, "size is NULL");
    if (__builtin_mul_overflow(incount, dt->size, size))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "%ld items of %ld bytes overflow", (long)incount,
                               (long)dt->size);
    return MPI_SUCCESS;
}

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int *size)
{
    MPI_Count bytes = 0;
    int rc = pack_size("MPI_Pack_size", incount, datatype, comm, size ? &bytes : NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    if (bytes > INT_MAX)
        return mpcrt_mpi_error(comm, "MPI_Pack_size", MPI_ERR_VALUE_TOO_LARGE,
                               "%ld bytes do not fit in an int: use MPI_Pack_size_c", (long)bytes);
    *size = (int)bytes;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Pack_size)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size)
{
    return pack_size("MPI_Pack_size_c", incount, datatype, comm, size);
}
MPCRT_PMPI_ALIAS(Pack_size_c)
