/* Argument checks shared by the collective entry points: each raises its error through the communicator's
 * error handler (mpcrt_mpi_error) and returns the class; a member that fails a check returns before the
 * rendezvous, as with any MPI whose checks run before communication. */
#include "coll_internal.h"
#include "../pt2pt/pt2pt.h"
#include "../rails/rail.h"

int coll_check_comm_report(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm)
{
    int me;
    return mpcrt_comm_arg(fn, handle, comm, &me);
}

int coll_peer_size(const mpcrt_comm_t *comm)
{
    return mpcrt_comm_peer_group(comm)->size;
}

int coll_check_type_report(const char *fn, MPI_Comm handle, MPI_Datatype type, mpcrt_datatype_t **dt)
{
    if (!(*dt = mpcrt_datatype_get(type)))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_TYPE,
                               type == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL" : "invalid datatype 0x%x", type);
    if (!mpcrt_datatype_is_committed(*dt))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_TYPE, "datatype 0x%x is not committed (MPI_Type_commit)",
                               type);
    return MPI_SUCCESS;
}

int coll_check_count_report(const char *fn, MPI_Comm handle, MPI_Count count)
{
    if (count < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    return MPI_SUCCESS;
}

int coll_check_root(const char *fn, MPI_Comm handle, mpcrt_comm_t *comm, int root)
{
    if (comm->remote_group) { /* MPI_ROOT at the root, MPI_PROC_NULL in its group, its rank in the other */
        if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < comm->remote_group->size))
            return MPI_SUCCESS;
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ROOT, "root %d is neither MPI_ROOT, MPI_PROC_NULL nor a rank "
                               "of the remote group [0, %d)", root, comm->remote_group->size);
    }
    int size = mpcrt_comm_size(comm);
    if (root < 0 || root >= size)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ROOT, "root %d is not a rank of the communicator [0, %d)", root,
                               size);
    return MPI_SUCCESS;
}

int coll_check_buffer_report(const char *fn, MPI_Comm handle, const void *buf, MPI_Count count,
                             mpcrt_datatype_t *dt, const char *what)
{
    if (buf == MPI_IN_PLACE)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is not allowed as the %s here", what);
    /* NULL is MPI_BOTTOM, valid with a datatype of absolute addresses: a predefined type, or one whose data
     * starts at displacement 0, cannot be one. */
    if (!buf && count > 0 && dt->size > 0 && (mpcrt_datatype_is_predefined(dt) || dt->true_lb == 0))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "the %s is NULL", what);
    return MPI_SUCCESS;
}

int coll_check_alias_report(const char *fn, MPI_Comm handle, const void *sendbuf, const void *recvbuf)
{
    if (sendbuf == recvbuf && sendbuf && sendbuf != MPI_IN_PLACE)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER,
                               "the send and receive buffers are the same memory (use MPI_IN_PLACE)");
    return MPI_SUCCESS;
}

int coll_check_op(const char *fn, MPI_Comm handle, MPI_Op op_handle, mpcrt_datatype_t *dt, mpcrt_op_t **op)
{
    if (!(*op = mpcrt_op_get(op_handle)))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_OP,
                               op_handle == MPI_OP_NULL ? "MPI_OP_NULL" : "invalid operation 0x%x", op_handle);
    if ((*op)->index != MPCRT_OP_USER) {
        if (!mpcrt_op_defined_on((*op)->index, dt))
            return mpcrt_mpi_error(handle, fn, MPI_ERR_OP, "operation 0x%x is not defined for datatype %s",
                                   op_handle, dt->name[0] ? dt->name : "(a derived datatype)");
    }
    return MPI_SUCCESS;
}

int coll_check_counts(const char *fn, MPI_Comm handle, int n, const int *icounts, const MPI_Count *ccounts,
                      const void *displs, const char *what)
{
    if (!icounts && !ccounts)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the %s counts array is NULL", what);
    if (!displs)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the %s displacements array is NULL", what);
    for (int i = 0; i < n; i++) {
        MPI_Count c = icounts ? icounts[i] : ccounts[i];
        if (c < 0)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_COUNT, "negative %s count %lld for rank %d", what,
                                   (long long)c, i);
    }
    return MPI_SUCCESS;
}

int coll_finish(const char *fn, MPI_Comm handle, int rc)
{
    if (rc == MPI_SUCCESS && mpcrt_rails_any_lost() && mpcrt_remote_comm_spans(mpcrt_comm_get(handle), -1))
        rc = MPI_ERR_PROC_ABORTED;
    return rc == MPI_SUCCESS ? MPI_SUCCESS : coll_raise(fn, handle, rc);
}

int coll_raise(const char *fn, MPI_Comm handle, int error_class)
{
    const char *why;
    switch (error_class) {
    case MPI_ERR_TRUNCATE:
        why = "a peer sent more data than the receive buffer holds (counts or datatypes differ)";
        break;
    case MPI_ERR_COUNT:
        why = "the members' counts differ (the data sent and received must have the same size)";
        break;
    case MPI_ERR_ROOT:
        why = "the members named different roots";
        break;
    case MPI_ERR_OP:
        why = "the members passed different operations";
        break;
    case MPI_ERR_TYPE:
        why = "the members' datatypes have different sizes";
        break;
    case MPI_ERR_OTHER:
        why = "the members called different collectives (or one failed its argument checks and called another)";
        break;
    case MPI_ERR_NO_MEM:
        why = "out of memory for a scratch buffer";
        break;
    default:
        why = "the collective failed";
        break;
    }
    return mpcrt_mpi_error(handle, fn, error_class, "%s", why);
}
