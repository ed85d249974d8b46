/* MPI API: the combined send-receives, blocking (MPI_Sendrecv, MPI_Sendrecv_replace) and non-blocking
 * (MPI_Isendrecv, MPI_Isendrecv_replace: a composite request that completes with both halves), each also in
 * its large-count form. The receive is posted before the send starts, so a send to oneself matches it. */
#include "api_pt2pt.h"

#include <stdlib.h>

typedef struct {
    const void *buf;
    MPI_Count count;
    MPI_Datatype type;
    int peer, tag;
} half_t;

/* The two halves as requests, neither started; the receive first (it gives the status). */
static int make_pair(const char *fn, const half_t *send, const half_t *recv, MPI_Comm comm,
                     mpcrt_request_t *pair[2])
{
    int rc;
    pair[0] = mpcrt_pt2pt_new_request(fn, true, recv->buf, recv->count, recv->type, recv->peer, recv->tag,
                                      comm, MPCRT_SEND_STANDARD, &rc);
    if (!pair[0])
        return rc;
    pair[1] = mpcrt_pt2pt_new_request(fn, false, send->buf, send->count, send->type, send->peer, send->tag,
                                      comm, MPCRT_SEND_STANDARD, &rc);
    if (!pair[1]) {
        mpcrt_object_release(&pair[0]->obj);
        return rc;
    }
    return MPI_SUCCESS;
}

static int start_pair(const char *fn, mpcrt_request_t *pair[2], MPI_Comm comm)
{
    for (int i = 0; i < 2; i++) {
        pair[i]->active = true;
        int rc = i == 0 ? mpcrt_pt2pt_start_recv(pair[0]) : mpcrt_pt2pt_start_send(pair[1]);
        if (rc)
            return mpcrt_mpi_error(comm, fn, rc,
                                   i == 0 ? "cannot post the receive" : "cannot start the send");
    }
    return MPI_SUCCESS;
}

static int sendrecv(const char *fn, const half_t *send, const half_t *recv, MPI_Comm comm, MPI_Status *status)
{
    mpcrt_request_t *pair[2];
    int rc = make_pair(fn, send, recv, comm, pair);
    if (rc)
        return rc;
    rc = start_pair(fn, pair, comm);
    if (rc == MPI_SUCCESS) {
        mpcrt_request_wait(pair[1]);
        mpcrt_request_wait(pair[0]);
        mpcrt_status_out(status, &pair[0]->status);
        if (pair[0]->status.MPI_ERROR == MPI_ERR_TRUNCATE)
            rc = mpcrt_mpi_error(comm, fn, MPI_ERR_TRUNCATE,
                                 "message of %lld bytes from rank %d is longer than the receive buffer",
                                 (long long)mpcrt_status_bytes(&pair[0]->status), pair[0]->status.MPI_SOURCE);
    }
    mpcrt_object_release(&pair[0]->obj);
    mpcrt_object_release(&pair[1]->obj);
    return rc;
}

static int isendrecv(const char *fn, const half_t *send, const half_t *recv, MPI_Comm comm,
                     void *owned_buffer, MPI_Request *request)
{
    if (!request) {
        free(owned_buffer);
        return mpcrt_mpi_error(comm, fn, MPI_ERR_REQUEST, "null request pointer");
    }
    mpcrt_request_t *pair[2];
    int rc = make_pair(fn, send, recv, comm, pair);
    if (rc) {
        free(owned_buffer);
        return rc;
    }
    mpcrt_request_t *parent = mpcrt_request_new(MPCRT_REQ_COMPOSITE);
    int handle;
    if (!parent || mpcrt_handle_register(&parent->obj, &handle) != 0) {
        mpcrt_object_release(&pair[0]->obj);
        mpcrt_object_release(&pair[1]->obj);
        free(parent);
        free(owned_buffer);
        return mpcrt_mpi_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a request");
    }
    parent->owned_buffer = owned_buffer;
    parent->active = true;
    mpcrt_request_adopt(parent, pair[0]); /* slot 0: the receive, whose status the request reports */
    mpcrt_request_adopt(parent, pair[1]);
    *request = handle;
    return start_pair(fn, pair, comm);
}

/* The send half of a *_replace call: a packed copy of the buffer, so that the receive can overwrite it. */
static int pack_for_replace(const char *fn, const void *buf, MPI_Count count, MPI_Datatype type,
                            MPI_Comm comm, void **packed, MPI_Count *bytes)
{
    mpcrt_datatype_t *dt = mpcrt_datatype_get(type);
    if (!dt)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TYPE, "invalid datatype 0x%x", type);
    if (count < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    *bytes = count * dt->size;
    *packed = malloc(*bytes ? (size_t)*bytes : 1);
    if (!*packed)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_NO_MEM, "no memory for %lld bytes", (long long)*bytes);
    if (*bytes)
        mpcrt_datatype_pack(dt, buf, count, 0, *bytes, *packed);
    return MPI_SUCCESS;
}

static int replace(const char *fn, bool blocking, void *buf, MPI_Count count, MPI_Datatype type, int dest,
                   int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status,
                   MPI_Request *request)
{
    void *packed = NULL;
    MPI_Count bytes = 0;
    int rc = pack_for_replace(fn, buf, count, type, comm, &packed, &bytes);
    if (rc)
        return rc;
    half_t send = {packed, bytes, MPI_BYTE, dest, sendtag}, recv = {buf, count, type, source, recvtag};
    if (!blocking)
        return isendrecv(fn, &send, &recv, comm, packed, request);
    rc = sendrecv(fn, &send, &recv, comm, status);
    free(packed);
    return rc;
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                             int dest, int sendtag, void *recvbuf, int recvcount,
                                             MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                                             MPI_Status *status)
{
    half_t send = {sendbuf, sendcount, sendtype, dest, sendtag},
           recv = {recvbuf, recvcount, recvtype, source, recvtag};
    return sendrecv("MPI_Sendrecv", &send, &recv, comm, status);
}
MPCRT_PMPI_ALIAS(Sendrecv)

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                    void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                    MPI_Comm comm, MPI_Status *status)
{
    half_t send = {sendbuf, sendcount, sendtype, dest, sendtag},
           recv = {recvbuf, recvcount, recvtype, source, recvtag};
    return sendrecv("MPI_Sendrecv_c", &send, &recv, comm, status);
}
MPCRT_PMPI_ALIAS(Sendrecv_c)

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                   void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                   MPI_Comm comm, MPI_Request *request)
{
    half_t send = {sendbuf, sendcount, sendtype, dest, sendtag},
           recv = {recvbuf, recvcount, recvtype, source, recvtag};
    return isendrecv("MPI_Isendrecv", &send, &recv, comm, NULL, request);
}
MPCRT_PMPI_ALIAS(Isendrecv)

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                     void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                     MPI_Comm comm, MPI_Request *request)
{
    half_t send = {sendbuf, sendcount, sendtype, dest, sendtag},
           recv = {recvbuf, recvcount, recvtype, source, recvtag};
    return isendrecv("MPI_Isendrecv_c", &send, &recv, comm, NULL, request);
}
MPCRT_PMPI_ALIAS(Isendrecv_c)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest,
                                                     int sendtag, int source, int recvtag, MPI_Comm comm,
                                                     MPI_Status *status)
{
    return replace("MPI_Sendrecv_replace", true, buf, count, type, dest, sendtag, source, recvtag, comm,
                   status, NULL);
}
MPCRT_PMPI_ALIAS(Sendrecv_replace)

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag, int source,
                            int recvtag, MPI_Comm comm, MPI_Status *status)
{
    return replace("MPI_Sendrecv_replace_c", true, buf, count, type, dest, sendtag, source, recvtag, comm,
                   status, NULL);
}
MPCRT_PMPI_ALIAS(Sendrecv_replace_c)

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                           int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return replace("MPI_Isendrecv_replace", false, buf, count, type, dest, sendtag, source, recvtag, comm,
                   NULL, request);
}
MPCRT_PMPI_ALIAS(Isendrecv_replace)

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype type, int dest, int sendtag, int source,
                             int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return replace("MPI_Isendrecv_replace_c", false, buf, count, type, dest, sendtag, source, recvtag, comm,
                   NULL, request);
}
MPCRT_PMPI_ALIAS(Isendrecv_replace_c)
