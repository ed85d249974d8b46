/* MPI API: blocking and non-blocking sends in every mode, receives, and the buffer for buffered sends.
 * Checks arguments, builds a request (on the stack for blocking calls) and hands it to match.c. The
 * large-count (`_c`) forms and the combined send-receives call the helpers of api_pt2pt.h. */
#include "api_pt2pt.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int PMPI_Wait(MPI_Request *request, MPI_Status *status);

static const MPI_Status empty_status = {0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};

/* Inlined: it runs on every send and receive, and its result feeds the caller's fast path. */
static inline __attribute__((always_inline)) int check(const char *fn, MPI_Comm comm_handle,
                                                       mpcrt_comm_t **comm, MPI_Datatype type,
                                                       mpcrt_datatype_t **dt, MPI_Count count, int peer,
                                                       int tag, bool receiving)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_active(self))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_OTHER, "called outside MPI_Init/MPI_Finalize");
    if (!(*comm = mpcrt_comm_get(comm_handle)))
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator 0x%x", comm_handle);
    if (count < 0)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    if (!(*dt = mpcrt_datatype_get(type))) {
        /* No data, no type: MPICH takes MPI_DATATYPE_NULL with a count of 0 (its test suite relies on it). */
        if (count != 0 || type != MPI_DATATYPE_NULL)
            return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TYPE, "invalid datatype 0x%x", type);
        *dt = mpcrt_datatype_get(MPI_BYTE);
    }
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
    mpcrt_request_describe(req, buf, count, dt, comm, comm->context, peer, tag, mode);
}

/* ------------------------------------------------------------------ blocking */

/* Inlined into MPI_Send and MPI_Recv, whose mode is a constant: one call less on the latency path. */
static inline __attribute__((always_inline)) int send_blocking(const char *fn, const void *buf,
                                                               MPI_Count count, MPI_Datatype type, int dest,
                                                               int tag, MPI_Comm comm_handle,
                                                               mpcrt_send_mode_t mode)
{
    mpcrt_comm_t *comm = NULL; /* set by check(); the initializer only quiets -Wmaybe-uninitialized */
    mpcrt_datatype_t *dt = NULL;
    int rc = check(fn, comm_handle, &comm, type, &dt, count, dest, tag, false);
    if (rc)
        return rc;
    if (mode == MPCRT_SEND_BUFFERED) {
        mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
        MPI_Count need = count * dt->size + MPI_BSEND_OVERHEAD;
        if (dest != MPI_PROC_NULL && (!self->bsend_buffer || need > self->bsend_size))
            return mpcrt_mpi_error(
                comm_handle, fn, MPI_ERR_BUFFER,
                "%lld bytes do not fit the attached buffer of %lld bytes (MPI_Buffer_attach)",
                (long long)need, (long long)(self->bsend_buffer ? self->bsend_size : 0));
    }
    if (mode == MPCRT_SEND_STANDARD || mode == MPCRT_SEND_READY) {
        rc = mpcrt_pt2pt_send_small(buf, count, dt, comm, dest, tag);
        if (rc >= 0)
            return rc ? mpcrt_mpi_error(comm_handle, fn, rc, "cannot send to rank %d", dest) : MPI_SUCCESS;
    }
    return mpcrt_pt2pt_send_request(fn, buf, count, dt, comm, dest, tag, comm_handle, mode);
}

MPCRT_RETURNS_AFTER_SWITCH int mpcrt_pt2pt_send_request(const char *fn, const void *buf, MPI_Count count,
                                                        mpcrt_datatype_t *dt, mpcrt_comm_t *comm, int dest,
                                                        int tag, MPI_Comm comm_handle, mpcrt_send_mode_t mode)
{
    mpcrt_request_t req;
    int rc;
    mpcrt_request_zero(&req, MPCRT_REQUEST_STACK_BYTES); /* the rest is for heap requests only */
    req.kind = MPCRT_REQ_SEND;
    req.owner = mpcrt_ult_self();
    describe(&req, buf, count, dt, comm, dest, tag, mode);
    rc = mpcrt_pt2pt_start_send(&req);
    if (rc)
        return mpcrt_mpi_error(comm_handle, fn, rc, "cannot send to rank %d", dest);
    if (!mpcrt_request_done(&req)) /* usually done already: the receive was posted, or the send was eager */
        mpcrt_request_wait(&req);
    if (req.status.MPI_ERROR == MPI_ERR_PROC_ABORTED)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_PROC_ABORTED,
                               "the process of rank %d ended before it took the message", dest);
    return MPI_SUCCESS;
}

int mpcrt_pt2pt_send_blocking(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type, int dest,
                              int tag, MPI_Comm comm_handle, mpcrt_send_mode_t mode)
{
    return send_blocking(fn, buf, count, type, dest, tag, comm_handle, mode);
}

int mpcrt_pt2pt_send_general(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                             MPI_Comm comm_handle)
{
    return send_blocking("MPI_Send", buf, count, type, dest, tag, comm_handle, MPCRT_SEND_STANDARD);
}

int PMPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm_handle)
{
    return mpcrt_pt2pt_send_api(buf, count, type, dest, tag, comm_handle); /* a jump: the same arguments */
}
MPCRT_PMPI_ALIAS(Send)

int PMPI_Ssend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Ssend", buf, count, type, dest, tag, comm, MPCRT_SEND_SYNC);
}
MPCRT_PMPI_ALIAS(Ssend)

int PMPI_Rsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Rsend", buf, count, type, dest, tag, comm, MPCRT_SEND_READY);
}
MPCRT_PMPI_ALIAS(Rsend)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    return mpcrt_pt2pt_send_blocking("MPI_Bsend", buf, count, type, dest, tag, comm, MPCRT_SEND_BUFFERED);
}
MPCRT_PMPI_ALIAS(Bsend)

static inline __attribute__((always_inline)) int recv_blocking(const char *fn, void *buf, MPI_Count count,
                                                               MPI_Datatype type, int source, int tag,
                                                               MPI_Comm comm_handle, MPI_Status *status)
{
    mpcrt_comm_t *comm = NULL; /* set by check(); the initializer only quiets -Wmaybe-uninitialized */
    mpcrt_datatype_t *dt = NULL;
    int rc = check(fn, comm_handle, &comm, type, &dt, count, source, tag, true);
    if (rc)
        return rc;
    return mpcrt_pt2pt_recv_checked(fn, comm_handle, buf, count, dt, comm, source, tag, status);
}

int mpcrt_pt2pt_recv_blocking(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int source,
                              int tag, MPI_Comm comm_handle, MPI_Status *status)
{
    return recv_blocking(fn, buf, count, type, source, tag, comm_handle, status);
}

int mpcrt_pt2pt_recv_general(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                             MPI_Status *status)
{
    return recv_blocking("MPI_Recv", buf, count, type, source, tag, comm, status);
}

int PMPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm_handle,
              MPI_Status *status)
{
    return mpcrt_pt2pt_recv_api(buf, count, type, source, tag, comm_handle, status); /* as MPI_Send */
}
MPCRT_PMPI_ALIAS(Recv)

/* ------------------------------------------------------------------ non-blocking */

/* A request for a checked operation: holds references to its datatype and communicator (released with it). */
static inline __attribute__((always_inline)) mpcrt_request_t *
new_checked_request(const char *fn, bool receiving, const void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                    int peer, int tag, mpcrt_comm_t *comm, MPI_Comm comm_handle, mpcrt_send_mode_t mode,
                    int *rc)
{
    mpcrt_request_t *req = mpcrt_request_new(receiving ? MPCRT_REQ_RECV : MPCRT_REQ_SEND);
    if (!req) {
        *rc = mpcrt_mpi_error(comm_handle, fn, MPI_ERR_NO_MEM, "no memory for a request");
        return NULL;
    }
    mpcrt_datatype_retain(dt);
    mpcrt_object_retain(&comm->obj);
    describe(req, buf, count, dt, comm, peer, tag, mode);
    return req;
}

mpcrt_request_t *mpcrt_pt2pt_new_request(const char *fn, bool receiving, const void *buf, MPI_Count count,
                                         MPI_Datatype type, int peer, int tag, MPI_Comm comm_handle,
                                         mpcrt_send_mode_t mode, int *rc)
{
    mpcrt_comm_t *comm = NULL; /* set by check(); the initializer only quiets -Wmaybe-uninitialized */
    mpcrt_datatype_t *dt = NULL;
    *rc = check(fn, comm_handle, &comm, type, &dt, count, peer, tag, receiving);
    if (*rc)
        return NULL;
    return new_checked_request(fn, receiving, buf, count, dt, peer, tag, comm, comm_handle, mode, rc);
}

/* Inlined into MPI_Isend and MPI_Irecv (the message-rate path): their constant arguments fold away. */
static inline __attribute__((always_inline)) int
start_nonblocking(const char *fn, bool receiving, const void *buf, MPI_Count count, MPI_Datatype type,
                  int peer, int tag, MPI_Comm comm_handle, mpcrt_send_mode_t mode, bool persistent,
                  MPI_Request *request)
{
    if (!request)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_REQUEST, "null request pointer");
    mpcrt_comm_t *comm = NULL; /* set by check(); the initializer only quiets -Wmaybe-uninitialized */
    mpcrt_datatype_t *dt = NULL;
    int rc = check(fn, comm_handle, &comm, type, &dt, count, peer, tag, receiving);
    if (rc)
        return rc;
    if (!receiving && !persistent && (mode == MPCRT_SEND_STANDARD || mode == MPCRT_SEND_READY)) {
        /* Gone within the call (a posted receive, an eager cell, the rail): the shared completed request. */
        rc = mpcrt_pt2pt_send_small(buf, count, dt, comm, peer, tag);
        if (rc == MPI_SUCCESS) {
            *request = MPCRT_REQUEST_COMPLETED_SEND;
            return MPI_SUCCESS;
        }
        if (rc > 0)
            return mpcrt_mpi_error(comm_handle, fn, rc, "cannot send to rank %d", peer);
    }
    mpcrt_request_t *req =
        new_checked_request(fn, receiving, buf, count, dt, peer, tag, comm, comm_handle, mode, &rc);
    if (!req)
        return rc;
    int handle;
    if (mpcrt_handle_register(&req->obj, &handle) != 0) {
        mpcrt_object_release(&req->obj);
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_NO_MEM, "no memory for a request handle");
    }
    req->persistent = persistent;
    *request = handle;
    if (persistent) {
        atomic_store(&req->complete, 1); /* inactive until MPI_Start */
        req->status = empty_status;
        return MPI_SUCCESS;
    }
    req->active = true;
    req->user_irecv = receiving; /* MPI_Wait may let its data come inline (mpcrt_pt2pt_await_recv) */
    rc = receiving ? mpcrt_pt2pt_start_recv(req) : mpcrt_pt2pt_start_send(req);
    return rc ? mpcrt_mpi_error(comm_handle, fn, rc, "cannot start the operation") : MPI_SUCCESS;
}

int mpcrt_pt2pt_start_nonblocking(const char *fn, bool receiving, const void *buf, MPI_Count count,
                                  MPI_Datatype type, int peer, int tag, MPI_Comm comm_handle,
                                  mpcrt_send_mode_t mode, bool persistent, MPI_Request *request)
{
    return start_nonblocking(fn, receiving, buf, count, type, peer, tag, comm_handle, mode, persistent,
                             request);
}

int PMPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return start_nonblocking("MPI_Isend", false, buf, count, type, dest, tag, comm, MPCRT_SEND_STANDARD,
                             false, request);
}
MPCRT_PMPI_ALIAS(Isend)

int PMPI_Issend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Issend", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_SYNC, false, request);
}
MPCRT_PMPI_ALIAS(Issend)

int PMPI_Irsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Irsend", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_READY, false, request);
}
MPCRT_PMPI_ALIAS(Irsend)

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Ibsend", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_BUFFERED, false, request);
}
MPCRT_PMPI_ALIAS(Ibsend)

int PMPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return start_nonblocking("MPI_Irecv", true, buf, count, type, source, tag, comm, MPCRT_SEND_STANDARD,
                             false, request);
}
MPCRT_PMPI_ALIAS(Irecv)

int PMPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Send_init", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_STANDARD, true, request);
}
MPCRT_PMPI_ALIAS(Send_init)

int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Ssend_init", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_SYNC, true, request);
}
MPCRT_PMPI_ALIAS(Ssend_init)

int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Rsend_init", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_READY, true, request);
}
MPCRT_PMPI_ALIAS(Rsend_init)

int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Bsend_init", false, buf, count, type, dest, tag, comm,
                                         MPCRT_SEND_BUFFERED, true, request);
}
MPCRT_PMPI_ALIAS(Bsend_init)

int PMPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return mpcrt_pt2pt_start_nonblocking("MPI_Recv_init", true, buf, count, type, source, tag, comm,
                                         MPCRT_SEND_STANDARD, true, request);
}
MPCRT_PMPI_ALIAS(Recv_init)

/* ------------------------------------------------------------------ buffered-send buffer */

int mpcrt_pt2pt_buffer_attach(const char *fn, void *buffer, MPI_Count size)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_OTHER, "called before MPI_Init");
    if (size < 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "negative size %lld", (long long)size);
    if (self->bsend_buffer)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_BUFFER,
                               "a buffer is already attached (detach it first)");
    /* Buffered sends copy into eager cells and complete at once, so the buffer only bounds their size. */
    self->bsend_buffer = buffer;
    self->bsend_size = size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_attach(void *buffer, int size)
{
    return mpcrt_pt2pt_buffer_attach("MPI_Buffer_attach", buffer, size);
}
MPCRT_PMPI_ALIAS(Buffer_attach)

int mpcrt_pt2pt_buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_OTHER, "called before MPI_Init");
    *(void **)buffer_addr = self->bsend_buffer;
    *size = self->bsend_buffer ? self->bsend_size : 0;
    self->bsend_buffer = NULL;
    self->bsend_size = 0;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = mpcrt_pt2pt_buffer_detach("MPI_Buffer_detach", buffer_addr, &n);
    if (rc == MPI_SUCCESS)
        *size = n > INT32_MAX ? INT32_MAX : (int)n;
    return rc;
}
MPCRT_PMPI_ALIAS(Buffer_detach)
