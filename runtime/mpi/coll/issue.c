/* The three ways an API entry point runs a collective (coll_how_t): blocking, non-blocking (MPI_I*) and
 * persistent (*_init), the last two through a schedule of runtime/mpi/nbc held by a request. Also the
 * barrier's non-blocking and persistent forms (MPI_Barrier itself is in comm/api_comm.c). */
#include "coll_internal.h"
#include "../nbc/nbc.h"

#include <stdlib.h>

const coll_how_t coll_blocking = {COLL_BLOCKING, NULL};

int coll_check_request(const char *fn, MPI_Comm handle, const coll_how_t *how)
{
    if (how->mode != COLL_BLOCKING && !how->request)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_REQUEST, "null request pointer");
    return MPI_SUCCESS;
}

int coll_issue(const char *fn, MPI_Comm handle, int build_rc, mpcrt_nbc_t *s, const coll_how_t *how)
{
    if (build_rc != MPI_SUCCESS)
        return coll_raise(fn, handle, build_rc);
    if (how->mode == COLL_BLOCKING) {
        return coll_finish(fn, handle, mpcrt_nbc_run(s));
    }
    mpcrt_request_t *req;
    int rc = mpcrt_nbc_request(s, how->mode == COLL_PERSISTENT, &req);
    return coll_issue_request(fn, handle, rc, req, how);
}

int coll_issue_request(const char *fn, MPI_Comm handle, int start_rc, mpcrt_request_t *req,
                       const coll_how_t *how)
{
    if (start_rc != MPI_SUCCESS)
        return coll_raise(fn, handle, start_rc);
    int id;
    if (mpcrt_handle_register(&req->obj, &id) != 0) {
        /* Registering failed after a non-blocking start: the schedule still runs to completion, so the
         * request lives on as an orphan until then (the engine holds no reference); this member reports the
         * failure. A persistent request is inactive: it goes now. */
        if (req->persistent)
            mpcrt_object_release(&req->obj);
        else
            mpcrt_request_orphan(req);
        return coll_raise(fn, handle, MPI_ERR_NO_MEM);
    }
    *how->request = id;
    return MPI_SUCCESS;
}

int coll_api_barrier(const char *fn, MPI_Comm handle, const coll_how_t *how)
{
    mpcrt_comm_t *comm;
    int rc;
    if ((rc = coll_check_comm(fn, handle, &comm)) || (rc = coll_check_request(fn, handle, how))) return rc;
    mpcrt_nbc_t *s = NULL;
    rc = mpcrt_nbc_barrier(comm, &s);
    return coll_issue(fn, handle, rc, s, how);
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    coll_how_t how = {COLL_NONBLOCKING, request};
    return coll_api_barrier("MPI_Ibarrier", comm, &how);
}
MPCRT_PMPI_ALIAS(Ibarrier)

int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    (void)info;
    coll_how_t how = {COLL_PERSISTENT, request};
    return coll_api_barrier("MPI_Barrier_init", comm, &how);
}
MPCRT_PMPI_ALIAS(Barrier_init)
