/* Messages the library sends itself (collectives and communicator creation across processes): on a
 * communicator's collective context (context + 1), which user point-to-point never matches. */
#include "pt2pt.h"

#include <stdlib.h>

mpcrt_request_t *mpcrt_p2p_prepare(mpcrt_req_kind_t kind, mpcrt_comm_t *comm, uint32_t context, int peer,
                                   int tag, const void *buf, MPI_Count count, mpcrt_datatype_t *dt)
{
    mpcrt_request_t *req = mpcrt_request_new(kind);
    if (!req)
        return NULL;
    mpcrt_request_describe(req, buf, count, dt, comm, context, peer, tag, MPCRT_SEND_STANDARD);
    mpcrt_datatype_retain(dt);
    mpcrt_object_retain(&comm->obj);
    return req;
}

static int start(mpcrt_req_kind_t kind, mpcrt_comm_t *comm, int peer, int tag, const void *buf,
                 MPI_Count count, mpcrt_datatype_t *dt, mpcrt_request_t **out)
{
    mpcrt_request_t *req = mpcrt_p2p_prepare(kind, comm, comm->context + 1, peer, tag, buf, count, dt);
    if (!req)
        return MPI_ERR_NO_MEM;
    int rc = kind == MPCRT_REQ_SEND ? mpcrt_pt2pt_start_send(req) : mpcrt_pt2pt_start_recv(req);
    if (rc != MPI_SUCCESS) {
        mpcrt_object_release(&req->obj);
        return rc;
    }
    *out = req;
    return MPI_SUCCESS;
}

int mpcrt_p2p_isend(mpcrt_comm_t *comm, int dest, int tag, const void *buf, MPI_Count count,
                    mpcrt_datatype_t *dt, mpcrt_request_t **req)
{
    return start(MPCRT_REQ_SEND, comm, dest, tag, buf, count, dt, req);
}

int mpcrt_p2p_irecv(mpcrt_comm_t *comm, int source, int tag, void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                    mpcrt_request_t **req)
{
    return start(MPCRT_REQ_RECV, comm, source, tag, buf, count, dt, req);
}

int mpcrt_p2p_waitall(mpcrt_request_t **reqs, int n)
{
    int rc = MPI_SUCCESS;
    for (int i = 0; i < n; i++) {
        if (!reqs[i])
            continue;
        mpcrt_request_wait(reqs[i]);
        if (rc == MPI_SUCCESS && reqs[i]->status.MPI_ERROR != MPI_SUCCESS)
            rc = reqs[i]->status.MPI_ERROR;
        mpcrt_object_release(&reqs[i]->obj);
        reqs[i] = NULL;
    }
    return rc;
}

int mpcrt_p2p_sendrecv(mpcrt_comm_t *comm, int tag, const void *sbuf, MPI_Count scount, mpcrt_datatype_t *sdt,
                       int dest, void *rbuf, MPI_Count rcount, mpcrt_datatype_t *rdt, int source)
{
    mpcrt_request_t *reqs[2] = {NULL, NULL};
    int rc = MPI_SUCCESS;
    if (source != MPI_PROC_NULL)
        rc = mpcrt_p2p_irecv(comm, source, tag, rbuf, rcount, rdt, &reqs[0]);
    if (rc == MPI_SUCCESS && dest != MPI_PROC_NULL)
        rc = mpcrt_p2p_isend(comm, dest, tag, sbuf, scount, sdt, &reqs[1]);
    int wrc = mpcrt_p2p_waitall(reqs, 2);
    return rc != MPI_SUCCESS ? rc : wrc;
}
