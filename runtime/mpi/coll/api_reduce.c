/* MPI API: the reductions on intracommunicators (reduce, allreduce, reduce_scatter(_block), scan, exscan)
 * and their large-count forms. Checks the arguments (the operation must be defined on the datatype), then
 * calls the in-process implementation and raises what it reports once every member has left. */
#include "coll_internal.h"
#include "../nbc/nbc.h"

/* The arguments every reduction checks: communicator, count, datatype, operation. */
static inline __attribute__((always_inline)) int check_reduction(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, MPI_Count count,
                           MPI_Datatype type, MPI_Op op_handle, mpcrt_coll_reduction_t *red)
{
    mpcrt_op_t *op;
    int rc;
    if ((rc = coll_check_comm(fn, handle, comm)) || (rc = coll_check_count(fn, handle, count)) ||
        (rc = coll_check_type(fn, handle, type, &red->dt)) ||
        (rc = coll_check_op(fn, handle, op_handle, red->dt, &op)))
        return rc;
    red->op = op;
    red->type = type;
    return MPI_SUCCESS;
}

/* The send and receive buffers of one member: MPI_IN_PLACE only as the send buffer (where allowed), no
 * NULL that cannot be MPI_BOTTOM (where the receive buffer is significant), no aliasing (where the
 * receive buffer is an argument at all: not at the non-roots of MPI_Reduce). */
static inline __attribute__((always_inline)) int check_buffers(const char *fn, MPI_Comm handle, const void *sendbuf, MPI_Count sendcount,
                         void *recvbuf, MPI_Count recvcount, mpcrt_datatype_t *dt, bool in_place_allowed,
                         bool recv_significant, bool alias_checked)
{
    int rc;
    if (sendbuf == MPI_IN_PLACE && !in_place_allowed)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
    if (sendbuf != MPI_IN_PLACE &&
        (rc = coll_check_buffer(fn, handle, sendbuf, sendcount, dt, "send buffer")))
        return rc;
    if (recv_significant && (rc = coll_check_buffer(fn, handle, recvbuf, recvcount, dt, "receive buffer")))
        return rc;
    if (alias_checked && sendcount > 0 && dt->size > 0) return coll_check_alias(fn, handle, sendbuf, recvbuf);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ reduce, allreduce */

int coll_api_reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, int root, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_coll_reduction_t red;
    int rc;
    if ((rc = check_reduction(fn, handle, &comm, count, type, op, &red)) ||
        (rc = coll_check_root(fn, handle, comm, root)) || (rc = coll_check_request(fn, handle, how)))
        return rc;
    bool inter = comm->remote_group != NULL;
    if (inter) {
        /* The root receives, the other members of its group do nothing, the remote group sends. */
        if (root == MPI_ROOT)
            rc = coll_check_buffer(fn, handle, recvbuf, count, red.dt, "receive buffer");
        else if (root != MPI_PROC_NULL)
            rc = coll_check_buffer(fn, handle, sendbuf, count, red.dt, "send buffer");
    } else {
        bool is_root = mpcrt_comm_rank(comm) == root;
        rc = check_buffers(fn, handle, sendbuf, count, recvbuf, count, red.dt, is_root, is_root, is_root);
    }
    if (rc) return rc;
    if (how->mode == COLL_BLOCKING && !inter)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_reduce : mpcrt_coll_hier_reduce)(comm, sendbuf, recvbuf,
                                                                                      count, &red, root));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_reduce_to(comm, sendbuf, recvbuf, count, &red, root, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                MPI_Comm comm)
{
    return coll_api_reduce("MPI_Reduce", sendbuf, recvbuf, count, datatype, op, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce)

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  int root, MPI_Comm comm)
{
    return coll_api_reduce("MPI_Reduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce_c)

int coll_api_allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_coll_reduction_t red;
    int rc;
    if ((rc = check_reduction(fn, handle, &comm, count, type, op, &red)) ||
        (rc = coll_check_request(fn, handle, how)) ||
        (rc = check_buffers(fn, handle, sendbuf, count, recvbuf, count, red.dt, !comm->remote_group, true,
                            true)))
        return rc;
    if (how->mode == COLL_BLOCKING && !comm->remote_group)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_allreduce
                                        : mpcrt_coll_hier_allreduce)(comm, sendbuf, recvbuf, count, &red));
    if (how->mode == COLL_NONBLOCKING) {
        mpcrt_request_t *req = NULL;
        rc = mpcrt_nbc_iallreduce(comm, sendbuf, recvbuf, count, &red, &req);
        return coll_issue_request(fn, handle, rc, req, how);
    }
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_allreduce(comm, sendbuf, recvbuf, count, &red, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm)
{
    return coll_api_allreduce("MPI_Allreduce", sendbuf, recvbuf, count, datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allreduce)

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm)
{
    return coll_api_allreduce("MPI_Allreduce_c", sendbuf, recvbuf, count, datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allreduce_c)

/* ------------------------------------------------------------------ reduce_scatter(_block) */

int coll_api_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                            const int *irecvcounts, const MPI_Count *crecvcounts, bool block,
                            MPI_Datatype type, MPI_Op op, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_coll_reduction_t red;
    int rc;
    if ((rc = check_reduction(fn, handle, &comm, block ? recvcount : 0, type, op, &red)) ||
        (rc = coll_check_request(fn, handle, how)))
        return rc;
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (!block && (rc = coll_check_counts(fn, handle, n, irecvcounts, crecvcounts, "", "receive"))) return rc;
    MPI_Count total = 0, mine = 0;
    for (int q = 0; q < n; q++) {
        MPI_Count c = block ? recvcount : irecvcounts ? irecvcounts[q] : crecvcounts[q];
        total += c;
        if (q == me) mine = c;
    }
    if ((rc = check_buffers(fn, handle, sendbuf, total, recvbuf, mine, red.dt, !comm->remote_group, true,
                            true)))
        return rc;
    if (how->mode == COLL_BLOCKING && !comm->remote_group)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_reduce_scatter : mpcrt_coll_procs_reduce_scatter)(
                               comm, sendbuf, recvbuf, recvcount, irecvcounts, crecvcounts, &red));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_reduce_scatter(comm, sendbuf, recvbuf, recvcount, irecvcounts, crecvcounts, &red, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                              MPI_Op op, MPI_Comm comm)
{
    return coll_api_reduce_scatter("MPI_Reduce_scatter_block", sendbuf, recvbuf, recvcount, NULL, NULL, true,
                                   datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_block)

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_api_reduce_scatter("MPI_Reduce_scatter_block_c", sendbuf, recvbuf, recvcount, NULL, NULL,
                                   true, datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_block_c)

int PMPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm)
{
    return coll_api_reduce_scatter("MPI_Reduce_scatter", sendbuf, recvbuf, 0, recvcounts, NULL, false,
                                   datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce_scatter)

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_api_reduce_scatter("MPI_Reduce_scatter_c", sendbuf, recvbuf, 0, NULL, recvcounts, false,
                                   datatype, op, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_c)

/* ------------------------------------------------------------------ scan, exscan */

int coll_api_scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm handle, bool exclusive, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_coll_reduction_t red;
    int rc;
    if ((rc = check_reduction(fn, handle, &comm, count, type, op, &red)) ||
        (rc = coll_check_request(fn, handle, how)))
        return rc;
    if (comm->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COMM, "%s is not defined on intercommunicators", fn);
    /* exscan: member 0's receive buffer receives nothing (and holds no input unless in place). */
    bool recv_significant = !exclusive || mpcrt_comm_rank(comm) > 0 || sendbuf == MPI_IN_PLACE;
    if ((rc =
             check_buffers(fn, handle, sendbuf, count, recvbuf, count, red.dt, true, recv_significant, true)))
        return rc;
    if (how->mode == COLL_BLOCKING)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_scan : mpcrt_coll_procs_scan)(comm, sendbuf, recvbuf,
                                                                                   count, &red, exclusive));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_scan(comm, sendbuf, recvbuf, count, &red, exclusive, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    return coll_api_scan("MPI_Scan", sendbuf, recvbuf, count, datatype, op, comm, false, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scan)

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return coll_api_scan("MPI_Scan_c", sendbuf, recvbuf, count, datatype, op, comm, false, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scan_c)

int PMPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                MPI_Comm comm)
{
    return coll_api_scan("MPI_Exscan", sendbuf, recvbuf, count, datatype, op, comm, true, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Exscan)

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    return coll_api_scan("MPI_Exscan_c", sendbuf, recvbuf, count, datatype, op, comm, true, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Exscan_c)
