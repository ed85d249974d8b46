/* MPI API: neighborhood collectives (MPI 4.0 section 8.6) in their blocking, non-blocking and persistent
 * forms. Blocks are counted over the caller's in-edges (receive side) and out-edges (send side) of the
 * communicator's topology; every form runs a schedule (runtime/mpi/nbc/neighbor.c). */
#include "coll_internal.h"
#include "../nbc/nbc.h"
#include "../topo/topo.h"

#include <stdlib.h>

static const vec_args_t uniform = {0};

/* alltoall: the send side is blocks (sv) too; allgather: one send buffer to every out-edge. */
static int neighbor(const char *fn, bool alltoall, const void *sendbuf, MPI_Count sendcount,
                    const vec_args_t *sv, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount,
                    const vec_args_t *rv, MPI_Datatype recvtype, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_request(fn, handle, how))) return rc;
    if (comm->remote_group || !mpcrt_topo_of(comm))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_TOPOLOGY, "the communicator has no virtual topology");
    int indegree, outdegree, *sources, *dests;
    if (mpcrt_topo_neighbors(comm, mpcrt_comm_rank(comm), &indegree, &sources, &outdegree, &dests))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "no memory for the neighbor lists");
    free(sources);
    mpcrt_coll_blocks_t send = {0}, recv;
    mpcrt_datatype_t *sdt = NULL;
    if ((rc = coll_describe_blocks(fn, handle, indegree, recvbuf, recvcount, rv, recvtype, "receive buffer",
                                   &recv)))
        return rc;
    if (alltoall)
        rc = coll_describe_blocks(fn, handle, outdegree, (void *)sendbuf, sendcount, sv, sendtype,
                                  "send buffer", &send);
    else
        rc = coll_check_side(fn, handle, sendbuf, sendcount, sendtype, &sdt, "send buffer");
    if (rc) return rc;
    mpcrt_nbc_t *s = NULL;
    rc = alltoall ? mpcrt_nbc_neighbor_alltoall(comm, &send, &recv, &s)
                  : mpcrt_nbc_neighbor_allgather(comm, sendbuf, sendcount, sdt, &recv, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor("MPI_Neighbor_allgather", false, sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                    &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_allgather)

int PMPI_Ineighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return neighbor("MPI_Ineighbor_allgather", false, sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                    &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_allgather)

int PMPI_Neighbor_allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return neighbor("MPI_Neighbor_allgather_init", false, sendbuf, sendcount, NULL, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_allgather_init)

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor("MPI_Neighbor_allgather_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf, recvcount,
                    &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_allgather_c)

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return neighbor("MPI_Ineighbor_allgather_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_allgather_c)

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return neighbor("MPI_Neighbor_allgather_init_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_allgather_init_c)

int PMPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vec_args_t rv = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return neighbor("MPI_Neighbor_allgatherv", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0, &rv,
                    recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_allgatherv)

int PMPI_Ineighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                              const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                              MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t rv = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return neighbor("MPI_Ineighbor_allgatherv", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0, &rv,
                    recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_allgatherv)

int PMPI_Neighbor_allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                  const int recvcounts[], const int displs[], MPI_Datatype recvtype,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t rv = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return neighbor("MPI_Neighbor_allgatherv_init", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0,
                    &rv, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_allgatherv_init)

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                               const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                               MPI_Comm comm)
{
    vec_args_t rv = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return neighbor("MPI_Neighbor_allgatherv_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0, &rv,
                    recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_allgatherv_c)

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t rv = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return neighbor("MPI_Ineighbor_allgatherv_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0, &rv,
                    recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_allgatherv_c)

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[],
                                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t rv = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return neighbor("MPI_Neighbor_allgatherv_init_c", false, sendbuf, sendcount, NULL, sendtype, recvbuf, 0,
                    &rv, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_allgatherv_init_c)

int PMPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor("MPI_Neighbor_alltoall", true, sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                    &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoall)

int PMPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return neighbor("MPI_Ineighbor_alltoall", true, sendbuf, sendcount, &uniform, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoall)

int PMPI_Neighbor_alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                                int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return neighbor("MPI_Neighbor_alltoall_init", true, sendbuf, sendcount, &uniform, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoall_init)

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                             MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    return neighbor("MPI_Neighbor_alltoall_c", true, sendbuf, sendcount, &uniform, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoall_c)

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                              MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return neighbor("MPI_Ineighbor_alltoall_c", true, sendbuf, sendcount, &uniform, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoall_c)

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                                  MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return neighbor("MPI_Neighbor_alltoall_init_c", true, sendbuf, sendcount, &uniform, sendtype, recvbuf,
                    recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoall_init_c)

int PMPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true};
    vec_args_t rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return neighbor("MPI_Neighbor_alltoallv", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                    comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallv)

int PMPI_Ineighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                             MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                             const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true};
    vec_args_t rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return neighbor("MPI_Ineighbor_alltoallv", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                    comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoallv)

int PMPI_Neighbor_alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                                 MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                                 const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true};
    vec_args_t rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return neighbor("MPI_Neighbor_alltoallv_init", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                    comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallv_init)

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true};
    vec_args_t rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return neighbor("MPI_Neighbor_alltoallv_c", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                    comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallv_c)

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm,
                               MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true};
    vec_args_t rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return neighbor("MPI_Ineighbor_alltoallv_c", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                    comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoallv_c)

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true};
    vec_args_t rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return neighbor("MPI_Neighbor_alltoallv_init_c", true, sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv,
                    recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallv_init_c)

int PMPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vec_args_t sv = {
        .icounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Neighbor_alltoallw", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                    MPI_DATATYPE_NULL, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallw)

int PMPI_Ineighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                             MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {
        .icounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Ineighbor_alltoallw", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                    MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoallw)

int PMPI_Neighbor_alltoallw_init(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {
        .icounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Neighbor_alltoallw_init", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                    MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallw_init)

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                              const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Neighbor_alltoallw_c", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                    MPI_DATATYPE_NULL, comm, &coll_blocking);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallw_c)

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                               const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                               const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                               MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Ineighbor_alltoallw_c", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                    MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Ineighbor_alltoallw_c)

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[],
                                   const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                                   const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                                   const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return neighbor("MPI_Neighbor_alltoallw_init_c", true, sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0,
                    &rv, MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Neighbor_alltoallw_init_c)
