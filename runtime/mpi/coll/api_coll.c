/* MPI API: the data-movement collectives on intracommunicators (bcast, gather(v), scatter(v),
 * allgather(v), alltoall(v,w)) and their large-count forms. Checks the arguments each member is responsible
 * for (MPI 4.0 chapter 6: what is significant only at the root is checked only there), then calls the
 * in-process implementation, and raises what the collective reports once every member has left it. */
#include "coll_internal.h"
#include "../nbc/nbc.h"

static const vec_args_t uniform = {0};

/* Checks a buffer described by blocks for `n` members (types already checked): MPI_ERR_BUFFER when it is
 * MPI_IN_PLACE or a NULL that cannot be MPI_BOTTOM while some block holds data. */
static int check_blocks_buffer(const char *fn, MPI_Comm handle, const mpcrt_coll_blocks_t *b, int n,
                               const char *what)
{
    if (!b->icounts && !b->ccounts && !b->types) /* uniform blocks: the first stands for all */
        n = n > 0 && b->count > 0 && b->dt->size > 0 ? 1 : 0;
    for (int i = 0; i < n; i++) {
        coll_view_t block = coll_block(b, i);
        if (coll_view_bytes(&block) > 0)
            return coll_check_buffer(fn, handle, b->buf, block.count, block.dt, what);
    }
    return b->buf == MPI_IN_PLACE ? coll_check_buffer(fn, handle, b->buf, 0, NULL, what) : MPI_SUCCESS;
}

/* Fills *b from the arguments of one side of a v/w collective and checks them. */
int coll_describe_vector(const char *fn, MPI_Comm handle, int n, void *buf, MPI_Count count,
                         const vec_args_t *v, MPI_Datatype type, const char *what, mpcrt_coll_blocks_t *b)
{
    int rc;
    *b = (mpcrt_coll_blocks_t){.buf = buf, .count = count};
    if (v->typed && !v->types)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the %s datatypes array is NULL", what);
    if (v->typed) {
        if ((rc = coll_check_counts(fn, handle, n, v->icounts, v->ccounts,
                                    v->idispls ? (const void *)v->idispls : (const void *)v->adispls, what)))
            return rc;
        for (int i = 0; i < n; i++) {
            mpcrt_datatype_t *dt;
            MPI_Count c = v->icounts ? v->icounts[i] : v->ccounts[i];
            if (c > 0 && (rc = coll_check_type(fn, handle, v->types[i], &dt))) return rc;
        }
        b->types = v->types;
    } else {
        if ((rc = coll_check_type(fn, handle, type, &b->dt))) return rc;
        if (v->vector) {
            if ((rc = coll_check_counts(fn, handle, n, v->icounts, v->ccounts,
                                        v->idispls ? (const void *)v->idispls : (const void *)v->adispls,
                                        what)))
                return rc;
        } else if ((rc = coll_check_count(fn, handle, count))) {
            return rc;
        }
    }
    b->icounts = v->icounts;
    b->ccounts = v->ccounts;
    b->idispls = v->idispls;
    b->adispls = v->adispls;
    return check_blocks_buffer(fn, handle, b, n, what);
}

/* One member's contiguous side (the send side of gather, the receive side of scatter). */
int coll_check_side(const char *fn, MPI_Comm handle, const void *buf, MPI_Count count, MPI_Datatype type,
                    mpcrt_datatype_t **dt, const char *what)
{
    int rc;
    if ((rc = coll_check_count(fn, handle, count)) || (rc = coll_check_type(fn, handle, type, dt))) return rc;
    return coll_check_buffer(fn, handle, buf, count, *dt, what);
}

/* The send buffer may be neither the receive buffer nor the caller's own block of it (MPI_IN_PLACE is the
 * way to say that the data is already there). */
static int check_own_block(const char *fn, MPI_Comm handle, const void *sendbuf, const mpcrt_coll_blocks_t *b,
                           int me)
{
    coll_view_t own = coll_block(b, me);
    int rc = coll_check_alias(fn, handle, sendbuf, b->buf);
    if (rc == MPI_SUCCESS && coll_view_bytes(&own) > 0) rc = coll_check_alias(fn, handle, sendbuf, own.buf);
    return rc;
}

/* ------------------------------------------------------------------ bcast */

int coll_api_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm handle,
                   const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_root(fn, handle, comm, root)) ||
        (rc = coll_check_request(fn, handle, how)))
        return rc;
    bool idle = comm->remote_group && root == MPI_PROC_NULL; /* nothing is significant */
    if (!idle && (rc = coll_check_side(fn, handle, buf, count, type, &dt, "buffer"))) return rc;
    if (how->mode == COLL_BLOCKING && !comm->remote_group)
        return coll_finish(
            fn, handle, (comm->local ? mpcrt_coll_bcast : mpcrt_coll_hier_bcast)(comm, buf, count, dt, root));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_bcast(comm, buf, idle ? 0 : count, idle ? mpcrt_datatype_get(MPI_BYTE) : dt, root, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_api_bcast("MPI_Bcast", buffer, count, datatype, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Bcast)

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    return coll_api_bcast("MPI_Bcast_c", buffer, count, datatype, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Bcast_c)

/* ------------------------------------------------------------------ gather(v) */

int coll_api_gather(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, const vec_args_t *v, MPI_Datatype recvtype, int root,
                    MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *sdt = NULL;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_root(fn, handle, comm, root)) ||
        (rc = coll_check_request(fn, handle, how)))
        return rc;
    bool inter = comm->remote_group != NULL;
    int me = mpcrt_comm_rank(comm), n = coll_peer_size(comm);
    bool is_root = inter ? root == MPI_ROOT : me == root, sends = inter ? root >= 0 : true;
    bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && (inter || !is_root))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's send buffer only");
    if (sends && !in_place &&
        (rc = coll_check_side(fn, handle, sendbuf, sendcount, sendtype, &sdt, "send buffer")))
        return rc;
    mpcrt_coll_blocks_t recv = {0};
    if (is_root) {
        if ((rc = coll_describe_blocks(fn, handle, n, recvbuf, recvcount, v, recvtype, "receive buffer",
                                       &recv)))
            return rc;
        if (!inter && !in_place && sendcount > 0 && sdt->size > 0 &&
            (rc = check_own_block(fn, handle, sendbuf, &recv, me)))
            return rc;
    }
    if (how->mode == COLL_BLOCKING && !inter)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_gather
                            : v->vector
                                ? mpcrt_coll_procs_gather
                                : mpcrt_coll_hier_gather)(comm, sendbuf, sendcount, sdt, &recv, root));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_gather(comm, sendbuf, sendcount, sdt, &recv, root, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_api_gather("MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform, recvtype,
                           root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Gather)

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                  MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_api_gather("MPI_Gather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                           recvtype, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Gather_c)

int PMPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_gather("MPI_Gatherv", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root, comm,
                           &coll_blocking);
}
MPCRT_PMPI_ALIAS(Gatherv)

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                   MPI_Comm comm)
{
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_gather("MPI_Gatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root,
                           comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Gatherv_c)

/* ------------------------------------------------------------------ scatter(v) */

int coll_api_scatter(const char *fn, const void *sendbuf, MPI_Count sendcount, const vec_args_t *v,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *rdt = NULL;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_root(fn, handle, comm, root)) ||
        (rc = coll_check_request(fn, handle, how)))
        return rc;
    bool inter = comm->remote_group != NULL;
    int me = mpcrt_comm_rank(comm), n = coll_peer_size(comm);
    bool is_root = inter ? root == MPI_ROOT : me == root, receives = inter ? root >= 0 : true;
    bool in_place = recvbuf == MPI_IN_PLACE;
    if (in_place && (inter || !is_root))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE is the root's receive buffer only");
    if (receives && !in_place &&
        (rc = coll_check_side(fn, handle, recvbuf, recvcount, recvtype, &rdt, "receive buffer")))
        return rc;
    mpcrt_coll_blocks_t send = {0};
    if (is_root) {
        if ((rc = coll_describe_blocks(fn, handle, n, (void *)sendbuf, sendcount, v, sendtype, "send buffer",
                                       &send)))
            return rc;
        if (!inter && !in_place && recvcount > 0 && rdt->size > 0 &&
            (rc = check_own_block(fn, handle, recvbuf, &send, me)))
            return rc;
    }
    if (how->mode == COLL_BLOCKING && !inter)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_scatter : mpcrt_coll_procs_scatter)(
                               comm, &send, recvbuf, recvcount, rdt, root));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_scatter(comm, &send, recvbuf, recvcount, rdt, root, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_api_scatter("MPI_Scatter", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scatter)

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    return coll_api_scatter("MPI_Scatter_c", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scatter_c)

int PMPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    vec_args_t v = {.icounts = sendcounts, .idispls = displs, .vector = true};
    return coll_api_scatter("MPI_Scatterv", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scatterv)

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                    MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                    int root, MPI_Comm comm)
{
    vec_args_t v = {.ccounts = sendcounts, .adispls = displs, .vector = true};
    return coll_api_scatter("MPI_Scatterv_c", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Scatterv_c)

/* ------------------------------------------------------------------ allgather(v) */

int coll_api_allgather(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, const vec_args_t *v, MPI_Datatype recvtype,
                       MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *sdt = NULL;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_request(fn, handle, how))) return rc;
    bool inter = comm->remote_group != NULL;
    bool in_place = sendbuf == MPI_IN_PLACE;
    if (in_place && inter)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");
    if (!in_place && (rc = coll_check_side(fn, handle, sendbuf, sendcount, sendtype, &sdt, "send buffer")))
        return rc;
    mpcrt_coll_blocks_t recv;
    if ((rc = coll_describe_blocks(fn, handle, coll_peer_size(comm), recvbuf, recvcount, v, recvtype,
                                   "receive buffer", &recv)))
        return rc;
    if (!inter && !in_place && sendcount > 0 && sdt->size > 0 &&
        (rc = check_own_block(fn, handle, sendbuf, &recv, mpcrt_comm_rank(comm))))
        return rc;
    if (how->mode == COLL_BLOCKING && !inter)
        return coll_finish(fn, handle,
                           (comm->local ? mpcrt_coll_allgather
                                        : mpcrt_coll_hier_allgather)(comm, sendbuf, sendcount, sdt, &recv));
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_allgather(comm, sendbuf, sendcount, sdt, &recv, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_api_allgather("MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                              recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allgather)

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_api_allgather("MPI_Allgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                              recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allgather_c)

int PMPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_allgather("MPI_Allgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, comm,
                              &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allgatherv)

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                      MPI_Comm comm)
{
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_allgather("MPI_Allgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype,
                              comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Allgatherv_c)

/* ------------------------------------------------------------------ alltoall(v,w) */

int coll_api_alltoall(const char *fn, const void *sendbuf, MPI_Count sendcount, const vec_args_t *sv,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, const vec_args_t *rv,
                      MPI_Datatype recvtype, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_request(fn, handle, how))) return rc;
    int n = coll_peer_size(comm);
    mpcrt_coll_blocks_t send = {.buf = MPI_IN_PLACE}, recv;
    bool in_place = sendbuf == MPI_IN_PLACE;
    if (!in_place && (rc = coll_describe_blocks(fn, handle, n, (void *)sendbuf, sendcount, sv, sendtype,
                                                "send buffer", &send)))
        return rc;
    if ((rc = coll_describe_blocks(fn, handle, n, recvbuf, recvcount, rv, recvtype, "receive buffer", &recv)))
        return rc;
    if (!in_place) {
        MPI_Count sent = 0;
        if (!sv->vector && !sv->typed) /* uniform blocks: every block has count elements of the type */
            sent = n > 0 ? send.count * send.dt->size : 0;
        else
            for (int i = 0; i < n && sent == 0; i++) {
                coll_view_t block = coll_block(&send, i);
                sent = coll_view_bytes(&block);
            }
        if (sent > 0 && (rc = coll_check_alias(fn, handle, sendbuf, recvbuf))) return rc;
    }
    if (in_place && comm->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_BUFFER, "MPI_IN_PLACE on an intercommunicator");
    if (how->mode == COLL_BLOCKING && !comm->remote_group)
        return coll_finish(
            fn, handle, (comm->local ? mpcrt_coll_alltoall : mpcrt_coll_procs_alltoall)(comm, &send, &recv));
    if (how->mode == COLL_NONBLOCKING) {
        mpcrt_request_t *req = NULL;
        rc = mpcrt_nbc_ialltoall(comm, &send, &recv, &req);
        return coll_issue_request(fn, handle, rc, req, how);
    }
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_alltoall(comm, &send, &recv, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_api_alltoall("MPI_Alltoall", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                             &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoall)

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return coll_api_alltoall("MPI_Alltoall_c", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                             &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoall_c)

int PMPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                   void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                   MPI_Comm comm)
{
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true},
               rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Alltoallv", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype, comm,
                             &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoallv)

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true},
               rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Alltoallv_c", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype, comm,
                             &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoallv_c)

int PMPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                   const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                   const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vec_args_t sv = {
        .icounts = sendcounts, .idispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .idispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Alltoallw", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoallw)

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                     const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                     const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Alltoallw_c", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Alltoallw_c)
