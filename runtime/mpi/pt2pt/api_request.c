/* MPI API: completing requests (wait/test, any/some/all), persistent requests, cancel, free, status
 * queries, probes and matched probes, generalized requests. */
#include "api_pt2pt.h"
#include "../rails/rail.h"

#include <stdlib.h>
#include <string.h>

static const MPI_Status empty_status = {0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};

static void set_status(MPI_Status *out, const MPI_Status *in)
{
    mpcrt_status_out(out, in);
}

static mpcrt_request_t *lookup(MPI_Request handle)
{
    return (mpcrt_request_t *)mpcrt_handle_lookup(MPCRT_OBJ_REQUEST, handle);
}

/* What completing an (already finished) request does: status out, generalized-request callbacks, handle
 * freed unless persistent. Returns the operation's error (MPI_ERR_TRUNCATE...). */
static int finish(MPI_Request *handle, mpcrt_request_t *req, MPI_Status *status)
{
    mpcrt_request_copy_out(req);
    int error = req->status.MPI_ERROR;
    if (req->kind == MPCRT_REQ_GREQ && req->query_fn) {
        MPI_Status st = req->status;
        int rc = req->query_fn(req->extra_state, &st);
        req->status = st;
        error = rc != MPI_SUCCESS ? rc : st.MPI_ERROR;
    }
    set_status(status, &req->status);
    if (req->persistent) {
        req->active = false;
        return error;
    }
    if (req->kind == MPCRT_REQ_GREQ && req->free_fn) {
        int rc = req->free_fn(req->extra_state);
        if (rc != MPI_SUCCESS && error == MPI_SUCCESS)
            error = rc;
    }
    mpcrt_handle_free_request(*handle);
    *handle = MPI_REQUEST_NULL;
    return error;
}

/* What a failed request needs to be reported after finish freed it: its peer and communicator. */
typedef struct {
    int peer;
    MPI_Comm comm;
} origin_t;

static origin_t origin_of(const mpcrt_request_t *req)
{
    /* MPI 4.0 section 9.3: a completion call raises the error on the request's communicator; requests without
     * one (generalized requests) on MPI_COMM_WORLD, as before. */
    return (origin_t){req->peer, req->comm ? (MPI_Comm)req->comm->obj.handle : MPI_COMM_WORLD};
}

/* Reports an error a completed request carried. */
static int request_error(const char *fn, int error, origin_t from)
{
    if (error == MPI_ERR_PROC_ABORTED && from.peer >= 0)
        return mpcrt_mpi_error(from.comm, fn, error, "the process of rank %d (the request's peer) ended",
                               from.peer);
    return mpcrt_mpi_error(from.comm, fn, error, "request failed");
}

static bool is_null_or_inactive(MPI_Request handle, mpcrt_request_t **req)
{
    *req = handle == MPI_REQUEST_NULL ? NULL : lookup(handle);
    return !*req || ((*req)->persistent && !(*req)->active);
}

static int bad_request(const char *fn, MPI_Request handle)
{
    return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_REQUEST, "invalid request 0x%x", handle);
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (!request)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Wait", MPI_ERR_REQUEST, "null request pointer");
    mpcrt_request_t *req;
    if (is_null_or_inactive(*request, &req)) {
        if (!req && *request != MPI_REQUEST_NULL)
            return bad_request("MPI_Wait", *request);
        set_status(status, &empty_status);
        return MPI_SUCCESS;
    }
    if (req->user_irecv && !mpcrt_request_done(req))
        mpcrt_pt2pt_await_recv(req); /* a rank waiting for its receive wants the message now */
    mpcrt_request_wait(req);
    origin_t from = origin_of(req);
    int error = finish(request, req, status);
    return error == MPI_SUCCESS ? MPI_SUCCESS : request_error("MPI_Wait", error, from);
}
MPCRT_PMPI_ALIAS(Wait)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    mpcrt_request_t *req;
    if (is_null_or_inactive(*request, &req)) {
        if (!req && *request != MPI_REQUEST_NULL)
            return bad_request("MPI_Test", *request);
        *flag = 1;
        set_status(status, &empty_status);
        return MPI_SUCCESS;
    }
    if (!mpcrt_request_done(req)) {
        mpcrt_sched_progress();
        mpcrt_yield(); /* a test loop must let the peer it waits for run on this core */
    }
    *flag = mpcrt_request_done(req);
    if (!*flag)
        return MPI_SUCCESS;
    origin_t from = origin_of(req);
    int error = finish(request, req, status);
    return error == MPI_SUCCESS ? MPI_SUCCESS : request_error("MPI_Test", error, from);
}
MPCRT_PMPI_ALIAS(Test)

typedef struct {
    int count;
    MPI_Request *requests;
    int needed; /* complete requests (or null/inactive) to wait for */
} set_t;

static int ready_count(const set_t *s, int *first_ready)
{
    int ready = 0;
    *first_ready = MPI_UNDEFINED;
    for (int i = 0; i < s->count; i++) {
        mpcrt_request_t *req;
        if (is_null_or_inactive(s->requests[i], &req))
            continue;
        if (mpcrt_request_done(req)) {
            ready++;
            if (*first_ready == MPI_UNDEFINED)
                *first_ready = i;
        }
    }
    return ready;
}

static bool enough_ready(void *arg)
{
    set_t *s = arg;
    int first;
    return ready_count(s, &first) >= s->needed;
}

static int active_count(const set_t *s)
{
    int active = 0;
    for (int i = 0; i < s->count; i++) {
        mpcrt_request_t *req;
        active += !is_null_or_inactive(s->requests[i], &req);
    }
    return active;
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    if (count < 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Waitall", MPI_ERR_COUNT, "negative count %d", count);
    int failed = 0;
    MPI_Comm failed_comm = MPI_COMM_WORLD; /* the first failed request's */
    for (int i = 0; i < count; i++) {
        mpcrt_request_t *req;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
        if (is_null_or_inactive(requests[i], &req)) {
            if (!req && requests[i] != MPI_REQUEST_NULL)
                return bad_request("MPI_Waitall", requests[i]);
            set_status(st, &empty_status);
            if (st != MPI_STATUS_IGNORE)
                st->MPI_ERROR = MPI_SUCCESS;
            continue;
        }
        mpcrt_request_wait(req);
        origin_t from = origin_of(req);
        int error = finish(&requests[i], req, st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = error; /* only read by the caller when we return MPI_ERR_IN_STATUS */
        if (error != MPI_SUCCESS && !failed++)
            failed_comm = from.comm;
    }
    if (failed)
        return mpcrt_mpi_error(failed_comm, "MPI_Waitall", MPI_ERR_IN_STATUS, "a request failed");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Waitall)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Testall(int count, MPI_Request requests[], int *flag,
                                            MPI_Status statuses[])
{
    set_t s = {count, requests, 0};
    s.needed = active_count(&s);
    if (!enough_ready(&s)) {
        mpcrt_sched_progress();
        mpcrt_yield();
    }
    *flag = enough_ready(&s);
    if (!*flag)
        return MPI_SUCCESS;
    return PMPI_Waitall(count, requests, statuses);
}
MPCRT_PMPI_ALIAS(Testall)

static int any(const char *fn, int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status,
               bool block)
{
    set_t s = {count, requests, 1};
    if (active_count(&s) == 0) {
        *index = MPI_UNDEFINED;
        if (flag)
            *flag = 1;
        set_status(status, &empty_status);
        return MPI_SUCCESS;
    }
    int first;
    if (block) {
        mpcrt_wait_until(enough_ready, &s);
    } else if (!ready_count(&s, &first)) {
        mpcrt_sched_progress();
        mpcrt_yield();
    }
    if (!ready_count(&s, &first)) {
        *flag = 0;
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    if (flag)
        *flag = 1;
    *index = first;
    mpcrt_request_t *req = lookup(requests[first]);
    origin_t from = origin_of(req);
    int error = finish(&requests[first], req, status);
    return error == MPI_SUCCESS ? MPI_SUCCESS : request_error(fn, error, from);
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    return any("MPI_Waitany", count, requests, index, NULL, status, true);
}
MPCRT_PMPI_ALIAS(Waitany)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag,
                                            MPI_Status *status)
{
    return any("MPI_Testany", count, requests, index, flag, status, false);
}
MPCRT_PMPI_ALIAS(Testany)

static int some(const char *fn, int incount, MPI_Request requests[], int *outcount, int indices[],
                MPI_Status statuses[], bool block)
{
    set_t s = {incount, requests, 1};
    if (active_count(&s) == 0) {
        *outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    int first;
    if (block) {
        mpcrt_wait_until(enough_ready, &s);
    } else if (!ready_count(&s, &first)) {
        mpcrt_sched_progress();
        mpcrt_yield();
    }
    int n = 0, failed = 0;
    MPI_Comm failed_comm = MPI_COMM_WORLD; /* the first failed request's */
    for (int i = 0; i < incount; i++) {
        mpcrt_request_t *req;
        if (is_null_or_inactive(requests[i], &req) || !mpcrt_request_done(req))
            continue;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        indices[n++] = i;
        origin_t from = origin_of(req);
        int error = finish(&requests[i], req, st);
        if (st != MPI_STATUS_IGNORE)
            st->MPI_ERROR = error;
        if (error != MPI_SUCCESS && !failed++)
            failed_comm = from.comm;
    }
    *outcount = n;
    return failed ? mpcrt_mpi_error(failed_comm, fn, MPI_ERR_IN_STATUS, "a request failed") : MPI_SUCCESS;
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount,
                                             int indices[], MPI_Status statuses[])
{
    return some("MPI_Waitsome", incount, requests, outcount, indices, statuses, true);
}
MPCRT_PMPI_ALIAS(Waitsome)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount,
                                             int indices[], MPI_Status statuses[])
{
    return some("MPI_Testsome", incount, requests, outcount, indices, statuses, false);
}
MPCRT_PMPI_ALIAS(Testsome)

int PMPI_Start(MPI_Request *request)
{
    mpcrt_request_t *req = request ? lookup(*request) : NULL;
    if (!req || !req->persistent)
        return bad_request("MPI_Start", request ? *request : MPI_REQUEST_NULL);
    if (req->active)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Start", MPI_ERR_REQUEST, "request 0x%x is already active",
                               *request);
    atomic_store_explicit(&req->complete, 0, memory_order_relaxed);
    req->active = true;
    req->matched = false;
    req->cancelled = false;
    req->owner = mpcrt_ult_self();
    memset(&req->status, 0, sizeof req->status);
    int rc = req->coll_start               ? req->coll_start(req)
             : req->kind == MPCRT_REQ_RECV ? mpcrt_pt2pt_start_recv(req)
                                           : mpcrt_pt2pt_start_send(req);
    return rc ? mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Start", rc, "cannot start the request") : MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Start)

int PMPI_Startall(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++) {
        int rc = PMPI_Start(&requests[i]);
        if (rc)
            return rc;
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Startall)

int PMPI_Request_free(MPI_Request *request)
{
    mpcrt_request_t *req = request ? lookup(*request) : NULL;
    if (!req)
        return bad_request("MPI_Request_free", request ? *request : MPI_REQUEST_NULL);
    /* The operation still completes and writes into its request: an active one lives on as an orphan
     * with the handle's reference until then (an inactive persistent one is complete). */
    bool active = !mpcrt_request_done(req);
    if (active)
        mpcrt_object_retain(&req->obj);
    mpcrt_handle_free(MPCRT_OBJ_REQUEST, *request);
    *request = MPI_REQUEST_NULL;
    if (active)
        mpcrt_request_orphan(req);
    else
        mpcrt_request_reap_orphans();
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Request_free)

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    mpcrt_request_t *req;
    if (is_null_or_inactive(request, &req)) {
        if (!req && request != MPI_REQUEST_NULL)
            return bad_request("MPI_Request_get_status", request);
        *flag = 1;
        set_status(status, &empty_status);
        return MPI_SUCCESS;
    }
    *flag = mpcrt_request_done(req);
    if (!*flag) {
        mpcrt_sched_progress();
        mpcrt_yield();
    } else {
        set_status(status, &req->status);
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Request_get_status)

int PMPI_Cancel(MPI_Request *request)
{
    mpcrt_request_t *req = request ? lookup(*request) : NULL;
    if (!req)
        return bad_request("MPI_Cancel", request ? *request : MPI_REQUEST_NULL);
    if (req->kind == MPCRT_REQ_RECV)
        mpcrt_pt2pt_cancel_recv(req);
    else if (req->kind == MPCRT_REQ_GREQ && req->cancel_fn)
        req->cancel_fn(req->extra_state, mpcrt_request_done(req));
    /* Sends complete (eagerly or when matched) and are never cancelled: MPI_Test_cancelled says false. */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Cancel)

/* ------------------------------------------------------------------ probes */

static int probe_check(const char *fn, MPI_Comm comm_handle, mpcrt_comm_t **comm, int source, int tag)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_active(self))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_OTHER, "called outside MPI_Init/MPI_Finalize");
    if (!(*comm = mpcrt_comm_get(comm_handle)))
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COMM, "invalid communicator 0x%x", comm_handle);
    int size = mpcrt_comm_peer_group(*comm)->size; /* the remote group's on an intercommunicator */
    if (source != MPI_ANY_SOURCE && source != MPI_PROC_NULL && (source < 0 || source >= size))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_RANK, "rank %d is not in [0, %d)", source, size);
    if (tag != MPI_ANY_TAG && (tag < 0 || tag > MPCRT_TAG_UB))
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TAG, "invalid tag %d", tag);
    return MPI_SUCCESS;
}

static const MPI_Status proc_null_status = {0, 0, MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS};

typedef struct {
    mpcrt_comm_t *comm;
    mpcrt_match_t *match; /* the prober's queues: the predicate may run in another ULT's context */
    int source, tag;
    MPI_Status *status;
    bool take;
    void *message;
    unsigned lost_count; /* mpcrt_rails_lost_count when the probe started */
    bool lost;           /* the probe cannot succeed: its source's process (or, for MPI_ANY_SOURCE, a process
                          * of the communicator) ended */
} probe_t;

static probe_t probe_start(mpcrt_comm_t *comm, int source, int tag, MPI_Status *status, bool take)
{
    return (probe_t){comm,   mpcrt_mpi_self()->match,
                     source, tag,
                     status, take,
                     NULL,   atomic_load_explicit(&mpcrt_rails_lost_count, memory_order_relaxed),
                     false};
}

static int probe_lost(const char *fn, MPI_Comm comm, int source)
{
    if (source != MPI_ANY_SOURCE)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_PROC_ABORTED, "the process of rank %d ended", source);
    return mpcrt_mpi_error(comm, fn, MPI_ERR_PROC_ABORTED,
                           "a process of the communicator ended while the probe waited");
}

/* A wait_until predicate may be evaluated again after it returned true (by the VP's sweep, then by the
 * woken ULT): once a message is taken, later calls must report it, not look for another. */
static bool probe_once(void *arg)
{
    probe_t *p = arg;
    if (p->message || p->lost)
        return true;
    if (mpcrt_pt2pt_probe(p->match, p->source, p->tag, p->comm->context, p->status, p->take, &p->message))
        return true;
    /* Nothing (yet): a specific source whose process is gone never sends; an MPI_ANY_SOURCE probe that
     * was waiting when a process of its communicator died fails as a pending receive would (match.c). */
    if (mpcrt_rails_any_lost() &&
        (p->source != MPI_ANY_SOURCE
             ? mpcrt_remote_peer_lost(p->comm, p->source)
             : atomic_load_explicit(&mpcrt_rails_lost_count, memory_order_relaxed) != p->lost_count &&
                   mpcrt_remote_comm_spans(p->comm, -1)))
        p->lost = true;
    return p->lost;
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Iprobe(int source, int tag, MPI_Comm comm_handle, int *flag,
                                           MPI_Status *status)
{
    mpcrt_comm_t *comm;
    int rc = probe_check("MPI_Iprobe", comm_handle, &comm, source, tag);
    if (rc)
        return rc;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        set_status(status, &proc_null_status);
        return MPI_SUCCESS;
    }
    MPI_Status st;
    probe_t p = probe_start(comm, source, tag, &st, false);
    *flag = probe_once(&p);
    if (!*flag) {
        mpcrt_sched_progress();
        mpcrt_yield();
        *flag = probe_once(&p);
    }
    if (p.lost) {
        *flag = 0;
        return probe_lost("MPI_Iprobe", comm_handle, source);
    }
    if (*flag)
        set_status(status, &st);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Iprobe)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Probe(int source, int tag, MPI_Comm comm_handle, MPI_Status *status)
{
    mpcrt_comm_t *comm;
    int rc = probe_check("MPI_Probe", comm_handle, &comm, source, tag);
    if (rc)
        return rc;
    if (source == MPI_PROC_NULL) {
        set_status(status, &proc_null_status);
        return MPI_SUCCESS;
    }
    MPI_Status st;
    probe_t p = probe_start(comm, source, tag, &st, false);
    mpcrt_wait_until(probe_once, &p);
    if (p.lost)
        return probe_lost("MPI_Probe", comm_handle, source);
    set_status(status, &st);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Probe)

/* A matched message (MPI_Mprobe) is a request object holding the taken message until MPI_Mrecv. */
static int message_handle(mpcrt_comm_t *comm, void *taken, MPI_Message *message)
{
    mpcrt_request_t *holder = mpcrt_request_new(MPCRT_REQ_RECV);
    int handle;
    if (!holder || mpcrt_handle_register(&holder->obj, &handle) != 0) {
        if (holder)
            mpcrt_object_release(&holder->obj); /* a vpcache block: not free()'s */
        return MPI_ERR_NO_MEM;
    }
    holder->extra_state = taken;
    holder->comm = comm;
    mpcrt_object_retain(&comm->obj);
    *message = handle;
    return MPI_SUCCESS;
}

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Improbe(int source, int tag, MPI_Comm comm_handle, int *flag,
                                            MPI_Message *message, MPI_Status *status)
{
    mpcrt_comm_t *comm;
    int rc = probe_check("MPI_Improbe", comm_handle, &comm, source, tag);
    if (rc)
        return rc;
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        set_status(status, &proc_null_status);
        return MPI_SUCCESS;
    }
    MPI_Status st;
    probe_t p = probe_start(comm, source, tag, &st, true);
    *flag = probe_once(&p);
    if (!*flag) {
        mpcrt_sched_progress();
        mpcrt_yield();
        *flag = probe_once(&p);
    }
    if (p.lost) {
        *flag = 0;
        return probe_lost("MPI_Improbe", comm_handle, source);
    }
    if (!*flag)
        return MPI_SUCCESS;
    set_status(status, &st);
    rc = message_handle(comm, p.message, message);
    return rc ? mpcrt_mpi_error(comm_handle, "MPI_Improbe", rc, "no memory") : MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Improbe)

MPCRT_RETURNS_AFTER_SWITCH int PMPI_Mprobe(int source, int tag, MPI_Comm comm_handle, MPI_Message *message,
                                           MPI_Status *status)
{
    mpcrt_comm_t *comm;
    int rc = probe_check("MPI_Mprobe", comm_handle, &comm, source, tag);
    if (rc)
        return rc;
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        set_status(status, &proc_null_status);
        return MPI_SUCCESS;
    }
    MPI_Status st;
    probe_t p = probe_start(comm, source, tag, &st, true);
    mpcrt_wait_until(probe_once, &p);
    if (p.lost)
        return probe_lost("MPI_Mprobe", comm_handle, source);
    set_status(status, &st);
    rc = message_handle(comm, p.message, message);
    return rc ? mpcrt_mpi_error(comm_handle, "MPI_Mprobe", rc, "no memory") : MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Mprobe)

int mpcrt_pt2pt_imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                       MPI_Request *request)
{
    mpcrt_datatype_t *dt = mpcrt_datatype_get(type);
    if (!dt)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_TYPE, "invalid datatype 0x%x", type);
    if (count < 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    if (!message)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_ARG, "null message pointer");
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_RECV);
    int handle;
    if (!req || mpcrt_handle_register(&req->obj, &handle) != 0) {
        if (req)
            mpcrt_object_release(&req->obj); /* a vpcache block: not free()'s */
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_NO_MEM, "no memory for a request");
    }
    *request = handle;
    mpcrt_datatype_retain(dt);
    req->buf = buf;
    req->count = count;
    req->datatype = dt;
    if (*message == MPI_MESSAGE_NO_PROC) {
        req->status = proc_null_status;
        mpcrt_request_complete(req);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    mpcrt_request_t *holder = lookup(*message);
    if (!holder || !holder->extra_state)
        return mpcrt_mpi_error(MPI_COMM_WORLD, fn, MPI_ERR_REQUEST, "invalid message 0x%x", *message);
    void *taken = holder->extra_state;
    holder->extra_state = NULL;
    mpcrt_handle_free(MPCRT_OBJ_REQUEST, *message);
    *message = MPI_MESSAGE_NULL;
    return mpcrt_pt2pt_recv_message(taken, req);
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Request *request)
{
    return mpcrt_pt2pt_imrecv("MPI_Imrecv", buf, count, type, message, request);
}
MPCRT_PMPI_ALIAS(Imrecv)

int mpcrt_pt2pt_mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, MPI_Message *message,
                      MPI_Status *status)
{
    MPI_Request request;
    int rc = mpcrt_pt2pt_imrecv(fn, buf, count, type, message, &request);
    return rc ? rc : PMPI_Wait(&request, status);
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype type, MPI_Message *message, MPI_Status *status)
{
    return mpcrt_pt2pt_mrecv("MPI_Mrecv", buf, count, type, message, status);
}
MPCRT_PMPI_ALIAS(Mrecv)

/* ------------------------------------------------------------------ generalized requests */

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_GREQ);
    int handle;
    if (!req || mpcrt_handle_register(&req->obj, &handle) != 0) {
        if (req)
            mpcrt_object_release(&req->obj); /* a vpcache block: not free()'s */
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Grequest_start", MPI_ERR_NO_MEM,
                               "no memory for a request");
    }
    req->query_fn = query_fn;
    req->free_fn = free_fn;
    req->cancel_fn = cancel_fn;
    req->extra_state = extra_state;
    req->status = empty_status;
    *request = handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Grequest_start)

int PMPI_Grequest_complete(MPI_Request request)
{
    mpcrt_request_t *req = lookup(request);
    if (!req || req->kind != MPCRT_REQ_GREQ)
        return bad_request("MPI_Grequest_complete", request);
    mpcrt_request_complete(req);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Grequest_complete)
