/* MPI API: the non-blocking (MPI_I*) and persistent (*_init, MPI 4.0 section 6.13) forms of the
 * collectives of api_coll.c and api_reduce.c. Each is its blocking form's entry point with a request: the
 * same checks, then a schedule (runtime/mpi/nbc) started now or by MPI_Start. The info argument of the
 * persistent forms carries no hint mpcrt uses. */
#include "coll_internal.h"
#include "../nbc/nbc.h"

static const vec_args_t uniform = {0};

int PMPI_Ibcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_bcast("MPI_Ibcast", buffer, count, datatype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Ibcast)

int PMPI_Bcast_init(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_bcast("MPI_Bcast_init", buffer, count, datatype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Bcast_init)

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_bcast("MPI_Ibcast_c", buffer, count, datatype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Ibcast_c)

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm,
                      MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_bcast("MPI_Bcast_init_c", buffer, count, datatype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Bcast_init_c)

int PMPI_Igather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_gather("MPI_Igather", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                           recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Igather)

int PMPI_Gather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                     MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_gather("MPI_Gather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                           recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Gather_init)

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                   MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_gather("MPI_Igather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                           recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Igather_c)

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_gather("MPI_Gather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                           recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Gather_init_c)

int PMPI_Igatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_gather("MPI_Igatherv", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root, comm,
                           &how);
}
MPCRT_PMPI_ALIAS(Igatherv)

int PMPI_Gatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                      const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_gather("MPI_Gatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root,
                           comm, &how);
}
MPCRT_PMPI_ALIAS(Gatherv_init)

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root,
                    MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_gather("MPI_Igatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root,
                           comm, &how);
}
MPCRT_PMPI_ALIAS(Igatherv_c)

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                        int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_gather("MPI_Gatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, root,
                           comm, &how);
}
MPCRT_PMPI_ALIAS(Gatherv_init_c)

int PMPI_Iscatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scatter("MPI_Iscatter", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Iscatter)

int PMPI_Scatter_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                      MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scatter("MPI_Scatter_init", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Scatter_init)

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                    MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scatter("MPI_Iscatter_c", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Iscatter_c)

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                        MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scatter("MPI_Scatter_init_c", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                            recvtype, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Scatter_init_c)

int PMPI_Iscatterv(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.icounts = sendcounts, .idispls = displs, .vector = true};
    return coll_api_scatter("MPI_Iscatterv", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &how);
}
MPCRT_PMPI_ALIAS(Iscatterv)

int PMPI_Scatterv_init(const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                       void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.icounts = sendcounts, .idispls = displs, .vector = true};
    return coll_api_scatter("MPI_Scatterv_init", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &how);
}
MPCRT_PMPI_ALIAS(Scatterv_init)

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.ccounts = sendcounts, .adispls = displs, .vector = true};
    return coll_api_scatter("MPI_Iscatterv_c", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype, root,
                            comm, &how);
}
MPCRT_PMPI_ALIAS(Iscatterv_c)

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[],
                         MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                         int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.ccounts = sendcounts, .adispls = displs, .vector = true};
    return coll_api_scatter("MPI_Scatterv_init_c", sendbuf, 0, &v, sendtype, recvbuf, recvcount, recvtype,
                            root, comm, &how);
}
MPCRT_PMPI_ALIAS(Scatterv_init_c)

int PMPI_Iallgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                    MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_allgather("MPI_Iallgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                              recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Iallgather)

int PMPI_Allgather_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                        int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_allgather("MPI_Allgather_init", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Allgather_init)

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                      MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_allgather("MPI_Iallgather_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, &uniform,
                              recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Iallgather_c)

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_allgather("MPI_Allgather_init_c", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                              &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Allgather_init_c)

int PMPI_Iallgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                     MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_allgather("MPI_Iallgatherv", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype, comm,
                              &how);
}
MPCRT_PMPI_ALIAS(Iallgatherv)

int PMPI_Allgatherv_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                         const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.icounts = recvcounts, .idispls = displs, .vector = true};
    return coll_api_allgather("MPI_Allgatherv_init", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype,
                              comm, &how);
}
MPCRT_PMPI_ALIAS(Allgatherv_init)

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                       const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                       MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_allgather("MPI_Iallgatherv_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype,
                              comm, &how);
}
MPCRT_PMPI_ALIAS(Iallgatherv_c)

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                           const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype,
                           MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t v = {.ccounts = recvcounts, .adispls = displs, .vector = true};
    return coll_api_allgather("MPI_Allgatherv_init_c", sendbuf, sendcount, sendtype, recvbuf, 0, &v, recvtype,
                              comm, &how);
}
MPCRT_PMPI_ALIAS(Allgatherv_init_c)

/* MPI_Ialltoall and MPI_Ialltoall_c. The common case is checked inline, with no call, as the point-to-point
 * latency path does (pt2pt.h, mpcrt_pt2pt_quick_check): a communicator of the caller's that is not an
 * intercommunicator, committed types, counts >= 0, buffers that are neither NULL (where they hold bytes),
 * MPI_IN_PLACE, nor the same memory. Everything else, errors included, goes to coll_api_alltoall, which
 * checks again and reports. In Taboada's overlap setting the computing rank cannot hide its calls: through
 * the general path an 8 KiB call was ~740 instructions, ~270 of them describing and checking the blocks. */
static inline __attribute__((always_inline)) int
ialltoall(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
          MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm handle, MPI_Request *request)
{
    mpcrt_comm_t *comm = request ? coll_comm_quick(handle) : NULL;
    mpcrt_datatype_t *sdt = mpcrt_datatype_get(sendtype), *rdt = mpcrt_datatype_get(recvtype);
    if (comm && !comm->remote_group && sdt && rdt && mpcrt_datatype_is_committed(sdt) &&
        mpcrt_datatype_is_committed(rdt) && sendcount >= 0 && recvcount >= 0 && sendbuf != MPI_IN_PLACE &&
        recvbuf != MPI_IN_PLACE) {
        MPI_Count sent = sendcount * sdt->size, received = recvcount * rdt->size;
        if ((sendbuf || sent == 0) && (recvbuf || received == 0) && (sendbuf != recvbuf || sent == 0)) {
            mpcrt_request_t *req = NULL;
            int rc =
                mpcrt_nbc_ialltoall_uniform(comm, sendbuf, sendcount, sdt, recvbuf, recvcount, rdt, &req);
            coll_how_t how = {COLL_NONBLOCKING, request};
            return coll_issue_request(fn, handle, rc, req, &how);
        }
    }
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_alltoall(fn, sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount, &uniform,
                             recvtype, handle, &how);
}

int PMPI_Ialltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return ialltoall("MPI_Ialltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                     request);
}
MPCRT_PMPI_ALIAS(Ialltoall)

int PMPI_Alltoall_init(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                       int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                       MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_alltoall("MPI_Alltoall_init", sendbuf, sendcount, &uniform, sendtype, recvbuf, recvcount,
                             &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Alltoall_init)

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                     MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    return ialltoall("MPI_Ialltoall_c", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                     request);
}
MPCRT_PMPI_ALIAS(Ialltoall_c)

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf,
                         MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                         MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_alltoall("MPI_Alltoall_init_c", sendbuf, sendcount, &uniform, sendtype, recvbuf,
                             recvcount, &uniform, recvtype, comm, &how);
}
MPCRT_PMPI_ALIAS(Alltoall_init_c)

int PMPI_Ialltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                    void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                    MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true},
               rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Ialltoallv", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype, comm,
                             &how);
}
MPCRT_PMPI_ALIAS(Ialltoallv)

int PMPI_Alltoallv_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                        MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {.icounts = sendcounts, .idispls = sdispls, .vector = true},
               rv = {.icounts = recvcounts, .idispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Alltoallv_init", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype, comm,
                             &how);
}
MPCRT_PMPI_ALIAS(Alltoallv_init)

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true},
               rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Ialltoallv_c", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype, comm,
                             &how);
}
MPCRT_PMPI_ALIAS(Ialltoallv_c)

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info,
                          MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {.ccounts = sendcounts, .adispls = sdispls, .vector = true},
               rv = {.ccounts = recvcounts, .adispls = rdispls, .vector = true};
    return coll_api_alltoall("MPI_Alltoallv_init_c", sendbuf, 0, &sv, sendtype, recvbuf, 0, &rv, recvtype,
                             comm, &how);
}
MPCRT_PMPI_ALIAS(Alltoallv_init_c)

int PMPI_Ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                    const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                    const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {
        .icounts = sendcounts, .idispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .idispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Ialltoallw", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Ialltoallw)

int PMPI_Alltoallw_init(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info,
                        MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {
        .icounts = sendcounts, .idispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .icounts = recvcounts, .idispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Alltoallw_init", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Alltoallw_init)

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                      const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                      const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                      MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Ialltoallw_c", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Ialltoallw_c)

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[],
                          const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[],
                          const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    vec_args_t sv = {
        .ccounts = sendcounts, .adispls = sdispls, .types = sendtypes, .vector = true, .typed = true};
    vec_args_t rv = {
        .ccounts = recvcounts, .adispls = rdispls, .types = recvtypes, .vector = true, .typed = true};
    return coll_api_alltoall("MPI_Alltoallw_init_c", sendbuf, 0, &sv, MPI_DATATYPE_NULL, recvbuf, 0, &rv,
                             MPI_DATATYPE_NULL, comm, &how);
}
MPCRT_PMPI_ALIAS(Alltoallw_init_c)

int PMPI_Ireduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce("MPI_Ireduce", sendbuf, recvbuf, count, datatype, op, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce)

int PMPI_Reduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce("MPI_Reduce_init", sendbuf, recvbuf, count, datatype, op, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_init)

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   int root, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce("MPI_Ireduce_c", sendbuf, recvbuf, count, datatype, op, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce_c)

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce("MPI_Reduce_init_c", sendbuf, recvbuf, count, datatype, op, root, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_init_c)

/* MPI_Iallreduce and MPI_Iallreduce_c: the common case checked inline, as ialltoall above (an
 * intracommunicator of the caller's, a committed type, a count >= 0, an operation defined on the type, a
 * real receive buffer, a send buffer that is MPI_IN_PLACE or other memory); the rest, errors included, goes
 * to coll_api_allreduce. */
static inline __attribute__((always_inline)) int iallreduce(const char *fn, const void *sendbuf,
                                                            void *recvbuf, MPI_Count count, MPI_Datatype type,
                                                            MPI_Op op_handle, MPI_Comm handle,
                                                            MPI_Request *request)
{
    mpcrt_comm_t *comm = request ? coll_comm_quick(handle) : NULL;
    mpcrt_datatype_t *dt = mpcrt_datatype_get(type);
    const mpcrt_op_t *op = mpcrt_op_get(op_handle);
    if (comm && !comm->remote_group && dt && mpcrt_datatype_is_committed(dt) && count >= 0 && op && recvbuf &&
        recvbuf != MPI_IN_PLACE && sendbuf && (sendbuf != recvbuf || count * dt->size == 0) &&
        (op->index == MPCRT_OP_USER || mpcrt_op_defined_on(op->index, dt))) {
        mpcrt_coll_reduction_t red = {op, type, dt};
        mpcrt_request_t *req = NULL;
        int rc = mpcrt_nbc_iallreduce(comm, sendbuf, recvbuf, count, &red, &req);
        coll_how_t how = {COLL_NONBLOCKING, request};
        return coll_issue_request(fn, handle, rc, req, &how);
    }
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_allreduce(fn, sendbuf, recvbuf, count, type, op_handle, handle, &how);
}

int PMPI_Iallreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    return iallreduce("MPI_Iallreduce", sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPCRT_PMPI_ALIAS(Iallreduce)

int PMPI_Allreduce_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_allreduce("MPI_Allreduce_init", sendbuf, recvbuf, count, datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Allreduce_init)

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                      MPI_Comm comm, MPI_Request *request)
{
    return iallreduce("MPI_Iallreduce_c", sendbuf, recvbuf, count, datatype, op, comm, request);
}
MPCRT_PMPI_ALIAS(Iallreduce_c)

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_allreduce("MPI_Allreduce_init_c", sendbuf, recvbuf, count, datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Allreduce_init_c)

int PMPI_Ireduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce_scatter("MPI_Ireduce_scatter_block", sendbuf, recvbuf, recvcount, NULL, NULL, true,
                                   datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce_scatter_block)

int PMPI_Reduce_scatter_block_init(const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce_scatter("MPI_Reduce_scatter_block_init", sendbuf, recvbuf, recvcount, NULL, NULL,
                                   true, datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_block_init)

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce_scatter("MPI_Ireduce_scatter_block_c", sendbuf, recvbuf, recvcount, NULL, NULL,
                                   true, datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce_scatter_block_c)

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                                     MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce_scatter("MPI_Reduce_scatter_block_init_c", sendbuf, recvbuf, recvcount, NULL, NULL,
                                   true, datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_block_init_c)

int PMPI_Ireduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce_scatter("MPI_Ireduce_scatter", sendbuf, recvbuf, 0, recvcounts, NULL, false,
                                   datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce_scatter)

int PMPI_Reduce_scatter_init(const void *sendbuf, void *recvbuf, const int recvcounts[],
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                             MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce_scatter("MPI_Reduce_scatter_init", sendbuf, recvbuf, 0, recvcounts, NULL, false,
                                   datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_init)

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_reduce_scatter("MPI_Ireduce_scatter_c", sendbuf, recvbuf, 0, NULL, recvcounts, false,
                                   datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Ireduce_scatter_c)

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[],
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_reduce_scatter("MPI_Reduce_scatter_init_c", sendbuf, recvbuf, 0, NULL, recvcounts, false,
                                   datatype, op, comm, &how);
}
MPCRT_PMPI_ALIAS(Reduce_scatter_init_c)

int PMPI_Iscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scan("MPI_Iscan", sendbuf, recvbuf, count, datatype, op, comm, false, &how);
}
MPCRT_PMPI_ALIAS(Iscan)

int PMPI_Scan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scan("MPI_Scan_init", sendbuf, recvbuf, count, datatype, op, comm, false, &how);
}
MPCRT_PMPI_ALIAS(Scan_init)

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scan("MPI_Iscan_c", sendbuf, recvbuf, count, datatype, op, comm, false, &how);
}
MPCRT_PMPI_ALIAS(Iscan_c)

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scan("MPI_Scan_init_c", sendbuf, recvbuf, count, datatype, op, comm, false, &how);
}
MPCRT_PMPI_ALIAS(Scan_init_c)

int PMPI_Iexscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scan("MPI_Iexscan", sendbuf, recvbuf, count, datatype, op, comm, true, &how);
}
MPCRT_PMPI_ALIAS(Iexscan)

int PMPI_Exscan_init(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scan("MPI_Exscan_init", sendbuf, recvbuf, count, datatype, op, comm, true, &how);
}
MPCRT_PMPI_ALIAS(Exscan_init)

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_scan("MPI_Iexscan_c", sendbuf, recvbuf, count, datatype, op, comm, true, &how);
}
MPCRT_PMPI_ALIAS(Iexscan_c)

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_scan("MPI_Exscan_init_c", sendbuf, recvbuf, count, datatype, op, comm, true, &how);
}
MPCRT_PMPI_ALIAS(Exscan_init_c)
