/* MPI API: blocking and non-blocking sends in every mode, receives, sendrecv, and the buffer for buffered
 * sends. Checks arguments, builds a request (on the stack for blocking calls) and hands it to match.c. */
#include "pt2pt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Wait(MPI_Request *request, MPI_Status *status);

static const MPI_Status empty_status = {0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};

static int check(const char *fn, MPI_Comm comm_handle, mpcrt_comm_t **comm, MPI_Datatype type,
                 mpcrt_datatype_t **dt, MPI_Count count, int peer, int tag, bool receiving)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self || !self->initialized || self->finalized)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_OTHER, "called outside MPI_Init/MPI_Finalize");
    if (!(*comm = mpcrt_comm_get(comm_handle)))
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator 0x%x", comm_handle);
    if (count < 0)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    if (!(*dt = mpcrt_datatype_get(type)))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TYPE, "invalid datatype 0x%x", type);
    if (!mpcrt_datatype_is_committed(*dt))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TYPE, "datatype 0x%x is not committed", type);
    int size = mpcrt_comm_peer_group(*comm)->size; /* the remote group's on an intercommunicator */
    if (peer != MPI_PROC_NULL && !(receiving && peer == MPI_ANY_SOURCE) && (peer < 0 || peer >= size))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_RANK, "rank %d is not in [0, %d)", peer, size);
    if (!(receiving && tag == MPI_ANY_TAG) && (tag < 0 || tag > MPCRT_TAG_UB))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TAG, "invalid tag %d", tag);
    return MPI_SUCCESS;
}

static void describe(mpcrt_request_t *req, const void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                     mpcrt_comm_t *comm, int peer, int tag, mpcrt_send_mode_t mode)
{
    req->buf = (void *)buf;
    req->count = count;
    req->datatype = dt;
    req->comm = comm;
    req->peer = peer;
    req->tag = tag;
    req->context = comm->context;
    req->mode = mode;
}

static void copy_status(MPI_Status *out, const MPI_Status *in)
{
    mpcrt_status_out(out, in);
}

/* ------------------------------------------------------------------ blocking */

static int send_blocking(const char *fn, const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm_handle, mpcrt_send_mode_t mode)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    int rc = check(fn, comm_handle, &comm, type, &dt, count, dest, tag, false);
    if (rc)
        return rc;
    if (mode == MPCRT_SEND_BUFFERED) {
        mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
        MPI_Count need = (MPI_Count)count * dt->size + MPI_BSEND_OVERHEAD;
        if (dest != MPI_PROC_NULL && (!self->bsend_buffer || need > self->bsend_size))
            return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_BUFFER,
                                   "%lld bytes do not fit the attached buffer of %d bytes (MPI_Buffer_attach)",
                                   (long long)need, self->bsend_buffer ? self->bsend_size : 0);
    }
    mpcrt_request_t req;
    memset(&req, 0, sizeof req);
    req.kind = MPCRT_REQ_SEND;
    req.owner = mpcrt_ult_self();
    describe(&req, buf, count, dt, comm, dest, tag, mode);
    rc = mpcrt_pt2pt_start_send(&req);
    if (rc)
        return mpcrt_mpi_error(comm_handle, fn, rc, "cannot send to rank %d", dest);
    mpcrt_request_wait(&req);
    return MPI_SUCCESS;
}

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Send", buf, count, type, dest, tag, comm, MPCRT_SEND_STANDARD);
}
MPCRT_PMPI_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Ssend", buf, count, type, dest, tag, comm, MPCRT_SEND_SYNC);
}
MPCRT_PMPI_ALIAS(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Rsend", buf, count, type, dest, tag, comm, MPCRT_SEND_READY);
}
MPCRT_PMPI_ALIAS(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return send_blocking("MPI_Bsend", buf, count, type, dest, tag, comm, MPCRT_SEND_BUFFERED);
}
MPCRT_PMPI_ALIAS(Bsend)

static int recv_blocking(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm_handle,
                         MPI_Status *status)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    int rc = check("MPI_Recv", comm_handle, &comm, type, &dt, count, source, tag, true);
    if (rc)
        return rc;
    mpcrt_request_t req;
    memset(&req, 0, sizeof req);
    req.kind = MPCRT_REQ_RECV;
    req.owner = mpcrt_ult_self();
    describe(&req, buf, count, dt, comm, source, tag, MPCRT_SEND_STANDARD);
    rc = mpcrt_pt2pt_start_recv(&req);
    if (rc)
        return mpcrt_mpi_error(comm_handle, "MPI_Recv", rc, "cannot post the receive");
    mpcrt_request_wait(&req);
    copy_status(status, &req.status);
    if (req.status.MPI_ERROR == MPI_ERR_TRUNCATE)
        return mpcrt_mpi_error(comm_handle, "MPI_Recv", MPI_ERR_TRUNCATE,
                               "message of %lld bytes from rank %d is longer than the receive buffer",
                               (long long)mpcrt_status_bytes(&req.status), req.status.MPI_SOURCE);
    return MPI_SUCCESS;
}

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    return recv_blocking(buf, count, type, source, tag, comm, status);
}
MPCRT_PMPI_ALIAS(Recv)

/* ------------------------------------------------------------------ non-blocking */

static int start_nonblocking(const char *fn, bool receiving, const void *buf, int count, MPI_Datatype type,
                             int peer, int tag, MPI_Comm comm_handle, mpcrt_send_mode_t mode, bool persistent,
                             MPI_Request *request)
{
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    int rc = check(fn, comm_handle, &comm, type, &dt, count, peer, tag, receiving);
    if (rc)
        return rc;
    if (!request)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_REQUEST, "null request pointer");
    mpcrt_request_t *req = mpcrt_request_new(receiving ? MPCRT_REQ_RECV : MPCRT_REQ_SEND);
    int handle;
    if (!req || mpcrt_handle_register(&req->obj, &handle) != 0) {
        free(req);
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_NO_MEM, "no memory for a request");
    }
    /* The request outlives the call: keep its datatype and communicator alive (released with it). */
    mpcrt_datatype_retain(dt);
    mpcrt_object_retain(&comm->obj);
    describe(req, buf, count, dt, comm, peer, tag, mode);
    req->persistent = persistent;
    *request = handle;
    if (persistent) {
        atomic_store(&req->complete, 1); /* inactive until MPI_Start */
        req->status = empty_status;
        return MPI_SUCCESS;
    }
    req->active = true;
    rc = receiving ? mpcrt_pt2pt_start_recv(req) : mpcrt_pt2pt_start_send(req);
    return rc ? mpcrt_mpi_error(comm_handle, fn, rc, "cannot start the operation") : MPI_SUCCESS;
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return start_nonblocking("MPI_Isend", false, buf, count, type, dest, tag, comm, MPCRT_SEND_STANDARD, false,
                             request);
}
MPCRT_PMPI_ALIAS(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return start_nonblocking("MPI_Issend", false, buf, count, type, dest, tag, comm, MPCRT_SEND_SYNC, false,
                             request);
}
MPCRT_PMPI_ALIAS(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return start_nonblocking("MPI_Irsend", false, buf, count, type, dest, tag, comm, MPCRT_SEND_READY, false,
                             request);
}
MPCRT_PMPI_ALIAS(Irsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return start_nonblocking("MPI_Ibsend", false, buf, count, type, dest, tag, comm, MPCRT_SEND_BUFFERED, false,
                             request);
}
MPCRT_PMPI_ALIAS(Ibsend)

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return start_nonblocking("MPI_Irecv", true, buf, count, type, source, tag, comm, MPCRT_SEND_STANDARD, false,
                             request);
}
MPCRT_PMPI_ALIAS(Irecv)

int PMPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return start_nonblocking("MPI_Send_init", false, buf, count, type, dest, tag, comm, MPCRT_SEND_STANDARD,
                             true, request);
}
MPCRT_PMPI_ALIAS(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return start_nonblocking("MPI_Ssend_init", false, buf, count, type, dest, tag, comm, MPCRT_SEND_SYNC, true,
                             request);
}
MPCRT_PMPI_ALIAS(Ssend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return start_nonblocking("MPI_Rsend_init", false, buf, count, type, dest, tag, comm, MPCRT_SEND_READY, true,
                             request);
}
MPCRT_PMPI_ALIAS(Rsend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return start_nonblocking("MPI_Bsend_init", false, buf, count, type, dest, tag, comm, MPCRT_SEND_BUFFERED,
                             true, request);
}
MPCRT_PMPI_ALIAS(Bsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return start_nonblocking("MPI_Recv_init", true, buf, count, type, source, tag, comm, MPCRT_SEND_STANDARD,
                             true, request);
}
MPCRT_PMPI_ALIAS(Recv_init)

/* ------------------------------------------------------------------ combined */

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                  MPI_Status *status)
{
    MPI_Request recv;
    int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &recv);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Send(sendbuf, sendcount, sendtype, dest, sendtag, comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Wait(&recv, status);
    return rc;
}
MPCRT_PMPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status *status)
{
    mpcrt_datatype_t *dt = mpcrt_datatype_get(type);
    if (!dt)
        return mpcrt_mpi_error(comm, "MPI_Sendrecv_replace", MPI_ERR_TYPE, "invalid datatype 0x%x", type);
    if (count < 0)
        return mpcrt_mpi_error(comm, "MPI_Sendrecv_replace", MPI_ERR_COUNT, "negative count %d", count);
    /* Send a packed copy so the buffer can receive meanwhile. */
    MPI_Count bytes = (MPI_Count)count * dt->size;
    void *packed = malloc(bytes ? (size_t)bytes : 1);
    if (!packed)
        return mpcrt_mpi_error(comm, "MPI_Sendrecv_replace", MPI_ERR_NO_MEM, "no memory for %lld bytes",
                               (long long)bytes);
    if (bytes)
        mpcrt_datatype_pack(dt, buf, count, 0, bytes, packed);
    int rc = PMPI_Sendrecv(packed, (int)bytes, MPI_BYTE, dest, sendtag, buf, count, type, source, recvtag, comm,
                           status);
    free(packed);
    return rc;
}
MPCRT_PMPI_ALIAS(Sendrecv_replace)

/* ------------------------------------------------------------------ buffered-send buffer */

int PMPI_Buffer_attach(void *buffer, int size)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self || !self->initialized)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_OTHER, "called before MPI_Init");
    if (size < 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_ARG, "negative size %d", size);
    if (self->bsend_buffer)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Buffer_attach", MPI_ERR_BUFFER,
                               "a buffer is already attached (detach it first)");
    /* Buffered sends copy into eager cells and complete at once, so the buffer only bounds their size. */
    self->bsend_buffer = buffer;
    self->bsend_size = size;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Buffer_attach)

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self || !self->initialized)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Buffer_detach", MPI_ERR_OTHER, "called before MPI_Init");
    *(void **)buffer_addr = self->bsend_buffer;
    *size = self->bsend_buffer ? self->bsend_size : 0;
    self->bsend_buffer = NULL;
    self->bsend_size = 0;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Buffer_detach)
