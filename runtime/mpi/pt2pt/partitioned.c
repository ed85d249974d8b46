/* MPI 4.0 partitioned point-to-point: MPI_Psend_init, MPI_Precv_init, MPI_Pready(_range, _list),
 * MPI_Parrived, started with MPI_Start and completed by the usual wait and test calls.
 *
 * A partitioned send and receive pair up at initialization, in the order of the init calls per (comm,
 * peer, tag), whatever order their epochs start and their partitions become ready in. The pairing is made
 * by a hello: MPI_Precv_init sends the sender a key unique in its process, on the communicator's
 * partitioned context (user point-to-point never matches it) with the user's tag, and MPI_Psend_init posts
 * the receive of that hello, so the k-th of each side match by MPI's non-overtaking rule. Each epoch the
 * data then goes as one message with tag -2 - key, once every partition of the send is ready: the caller
 * of the last MPI_Pready sends it, or, when the key has not come yet, the progress hook below as soon as it
 * has (on the sender's behalf, from whichever thread progresses). MPI_Parrived answers for a partition when
 * the whole message is in, which the standard allows; the receive is posted at MPI_Start, so the message is
 * copied once into the user's buffer when it comes after that. */
#include "api_pt2pt.h"
#include "../../threads/lifo.h"
#include "../info/info.h"

#include <stdlib.h>
#include <string.h>

typedef struct part part_t;
struct part {
    mpcrt_request_t *req; /* the user's request, kind MPCRT_REQ_PART; it owns this */
    bool sending;
    int partitions;
    /* Sender: the receive of the receiver's key (its buffer is the request's owned int). Receiver: the
     * send of its key. Completes once, during the first epochs at the latest. */
    mpcrt_request_t *hello;
    int key;                       /* receiver: its own key; sender: read from hello once it is done */
    int as_rank;                   /* sender: its rank in the communicator, for sends made by other threads */
    mpcrt_request_t *data;         /* this epoch's message; its parent is req */
    _Atomic int ready;             /* sender: partitions marked ready this epoch */
    _Atomic bool sent;             /* sender: this epoch's message has been started */
    _Atomic unsigned char *marked; /* sender: per partition, MPI_Pready'd this epoch */
    part_t *link;                  /* in `waiting` */
};

/* Senders whose partitions are all ready but whose key has not come: the progress hook sends for them. Each
 * entry holds a reference to its request. */
static _Atomic(part_t *) waiting;
static mpcrt_once_t hook_once = MPCRT_ONCE_INITIALIZER;
static int hook_rc;
static _Atomic unsigned next_key;

static part_t *part_of(mpcrt_request_t *req)
{
    return (part_t *)req->coll;
}

static uint32_t part_context(const mpcrt_request_t *req)
{
    return req->comm->context | MPCRT_PART_CONTEXT_BIT;
}

/* Below MPI_ANY_TAG (-1), which a receive would take as a wildcard. */
static int hidden_tag(int key)
{
    return -2 - key;
}

/* A message of the pair: the whole buffer, on the partitioned context, completing into req. */
static mpcrt_request_t *new_data(part_t *p, bool sending)
{
    mpcrt_request_t *req = p->req;
    mpcrt_request_t *d =
        mpcrt_p2p_prepare(sending ? MPCRT_REQ_SEND : MPCRT_REQ_RECV, req->comm, part_context(req), req->peer,
                          hidden_tag(p->key), req->buf, req->count, req->datatype);
    if (!d)
        return NULL;
    d->owner = NULL; /* its completion completes req, which wakes req's owner */
    d->parent = req;
    d->active = true;
    if (sending) {
        /* Started by whichever thread made it possible (the last MPI_Pready, or the progress hook). */
        d->on_behalf = true;
        d->as_rank = p->as_rank;
    }
    return d;
}

static void fail_data(mpcrt_request_t *d, int rc)
{
    d->status.MPI_ERROR = rc;
    mpcrt_request_complete(d);
}

/* Once the hello has come (it carries the receiver's key). */
static void send_data(part_t *p)
{
    if (atomic_exchange_explicit(&p->sent, true, memory_order_acq_rel))
        return;
    p->key = *(int *)p->hello->owned_buffer;
    mpcrt_request_t *d = new_data(p, true);
    if (!d) {
        p->req->status.MPI_ERROR = MPI_ERR_NO_MEM;
        mpcrt_request_complete(p->req);
        return;
    }
    p->data = d; /* before the start: the message may complete within it */
    int rc = mpcrt_pt2pt_start_send(d);
    if (rc != MPI_SUCCESS)
        fail_data(d, rc);
}

static int progress_waiting(void *arg)
{
    (void)arg;
    part_t *list = atomic_exchange_explicit(&waiting, NULL, memory_order_acquire);
    int events = 0;
    while (list) {
        part_t *p = list;
        list = p->link;
        if (!mpcrt_request_done(p->hello)) {
            MPCRT_LIFO_PUSH(&waiting, p, link, memory_order_release);
            continue;
        }
        send_data(p);
        mpcrt_object_release(&p->req->obj);
        events++;
    }
    return events;
}

static void install_hook(void)
{
    hook_rc = mpcrt_sched_add_progress_hook(progress_waiting, NULL);
}

/* Every partition of this epoch's send is ready: send now if the key is known, else leave it to the hook. */
static void all_ready(part_t *p)
{
    if (p->req->peer == MPI_PROC_NULL)
        return; /* completed at MPI_Start */
    if (mpcrt_request_done(p->hello)) {
        send_data(p);
        return;
    }
    mpcrt_object_retain(&p->req->obj);
    MPCRT_LIFO_PUSH(&waiting, p, link, memory_order_release);
}

/* The child `child` of req (this epoch's message) completed: so does req. Called by the completer, in any
 * thread (request.c). Nothing touches req after its completion: its waiter may free it at once. */
void mpcrt_part_child_done(mpcrt_request_t *req, mpcrt_request_t *child)
{
    part_t *p = part_of(req);
    MPI_Status st = child->status;
    if (!p->sending) {
        st.MPI_TAG = req->tag;
    } else {
        st.MPI_SOURCE = MPI_ANY_SOURCE;
        st.MPI_TAG = MPI_ANY_TAG;
    }
    req->status = st;
    mpcrt_request_complete(req);
}

static int start(mpcrt_request_t *req)
{
    part_t *p = part_of(req);
    if (p->data) {
        mpcrt_object_release(&p->data->obj); /* last epoch's, complete */
        p->data = NULL;
    }
    if (req->peer == MPI_PROC_NULL) {
        req->status.MPI_SOURCE = MPI_PROC_NULL;
        req->status.MPI_TAG = MPI_ANY_TAG;
        mpcrt_request_complete(req);
        return MPI_SUCCESS;
    }
    if (p->sending) {
        for (int i = 0; i < p->partitions; i++)
            atomic_store_explicit(&p->marked[i], 0, memory_order_relaxed);
        atomic_store_explicit(&p->sent, false, memory_order_relaxed);
        atomic_store_explicit(&p->ready, 0, memory_order_release);
        if (p->partitions == 0)
            all_ready(p);
        return MPI_SUCCESS;
    }
    mpcrt_request_t *d = new_data(p, false);
    if (!d)
        return MPI_ERR_NO_MEM;
    p->data = d;
    int rc = mpcrt_pt2pt_start_recv(d);
    if (rc != MPI_SUCCESS)
        fail_data(d, rc);
    return MPI_SUCCESS;
}

static void release(void *arg)
{
    part_t *p = arg;
    if (p->data)
        mpcrt_object_release(&p->data->obj);
    if (p->hello) {
        /* Never paired (the peer did not init, or its hello is still on its way): the receive is taken
         * back; a send, or a receive that matched meanwhile, finishes on its own as an orphan. */
        bool done = mpcrt_request_done(p->hello);
        if (!done && p->sending)
            done = mpcrt_pt2pt_cancel_recv(p->hello);
        if (done)
            mpcrt_object_release(&p->hello->obj);
        else
            mpcrt_request_orphan(p->hello);
    }
    free((void *)p->marked);
    free(p);
}

/* The hello of a new pair: the receiver sends its key, the sender posts the receive of it. */
static int start_hello(part_t *p)
{
    mpcrt_request_t *req = p->req;
    int *key = malloc(sizeof *key);
    mpcrt_request_t *h =
        key ? mpcrt_p2p_prepare(p->sending ? MPCRT_REQ_RECV : MPCRT_REQ_SEND, req->comm, part_context(req),
                                req->peer, req->tag, key, 1, mpcrt_datatype_get(MPI_INT))
            : NULL;
    if (!h) {
        free(key);
        return MPI_ERR_NO_MEM;
    }
    *key = p->key;
    h->owned_buffer = key; /* the receive writes it after a sender's MPI_Request_free, maybe */
    h->owner = NULL;       /* nobody waits on it: the progress hook and MPI_Pready look */
    h->active = true;
    p->hello = h;
    int rc = p->sending ? mpcrt_pt2pt_start_recv(h) : mpcrt_pt2pt_start_send(h);
    if (rc != MPI_SUCCESS) {
        p->hello = NULL;
        mpcrt_object_release(&h->obj); /* not started: nothing refers to it */
    }
    return rc;
}

static int init(const char *fn, bool sending, const void *buf, int partitions, MPI_Count count,
                MPI_Datatype type, int peer, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    if (!request)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_REQUEST, "null request pointer");
    if (partitions < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_ARG, "negative number of partitions %d", partitions);
    if (peer == MPI_ANY_SOURCE)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_RANK, "partitioned receives take no MPI_ANY_SOURCE");
    if (tag == MPI_ANY_TAG)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_TAG, "partitioned receives take no MPI_ANY_TAG");
    if (info != MPI_INFO_NULL && !mpcrt_info_get(info))
        return mpcrt_mpi_error(comm, fn, MPI_ERR_INFO, "invalid info 0x%x", info);
    if (count < 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_COUNT, "negative count %lld", (long long)count);
    mpcrt_once(&hook_once, install_hook);
    if (hook_rc != 0)
        return mpcrt_mpi_error(comm, fn, MPI_ERR_INTERN, "no room for the partitioned progress hook");
    int rc;
    mpcrt_request_t *req = mpcrt_pt2pt_new_request(fn, !sending, buf, (MPI_Count)partitions * count, type,
                                                   peer, tag, comm, MPCRT_SEND_STANDARD, &rc);
    if (!req)
        return rc;
    part_t *p = calloc(1, sizeof *p);
    unsigned char *marked = sending ? calloc((size_t)partitions + 1, 1) : NULL;
    if (!p || (sending && !marked)) {
        free(p);
        free(marked);
        mpcrt_object_release(&req->obj);
        return mpcrt_mpi_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a partitioned request");
    }
    req->kind = MPCRT_REQ_PART;
    req->persistent = true;
    req->coll = p;
    req->coll_release = release;
    req->coll_start = start;
    atomic_store(&req->complete, 1); /* inactive until MPI_Start */
    p->req = req;
    p->sending = sending;
    p->partitions = partitions;
    p->marked = (_Atomic unsigned char *)marked;
    p->as_rank = mpcrt_comm_rank(req->comm);
    if (!sending)
        p->key = (int)(atomic_fetch_add_explicit(&next_key, 1, memory_order_relaxed) %
                       0x7ffffffeu); /* -2 - key fits */
    if (peer != MPI_PROC_NULL && (rc = start_hello(p)) != MPI_SUCCESS) {
        mpcrt_object_release(&req->obj);
        return mpcrt_mpi_error(comm, fn, rc, "cannot pair with rank %d", peer);
    }
    int handle;
    if (mpcrt_handle_register(&req->obj, &handle) != 0) {
        mpcrt_object_release(&req->obj);
        return mpcrt_mpi_error(comm, fn, MPI_ERR_NO_MEM, "no memory for a request handle");
    }
    *request = handle;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return init("MPI_Psend_init", true, buf, partitions, count, datatype, dest, tag, comm, info, request);
}
MPCRT_PMPI_ALIAS(Psend_init)

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag,
                    MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return init("MPI_Precv_init", false, buf, partitions, count, datatype, source, tag, comm, info, request);
}
MPCRT_PMPI_ALIAS(Precv_init)

/* The active partitioned request of `handle`, on the side `sending`; NULL after reporting the error. */
static mpcrt_request_t *active_part(const char *fn, MPI_Request handle, bool sending, int *rc)
{
    mpcrt_request_t *req =
        handle == MPI_REQUEST_NULL ? NULL : (mpcrt_request_t *)mpcrt_handle_lookup(MPCRT_OBJ_REQUEST, handle);
    const char *why = !req || req->kind != MPCRT_REQ_PART ? "is not a partitioned request"
                      : part_of(req)->sending != sending
                          ? (sending ? "is a partitioned receive" : "is a partitioned send")
                      : !req->active ? "is not active (MPI_Start it first)"
                                     : NULL;
    if (!why)
        return req;
    MPI_Comm comm = req && req->comm ? (MPI_Comm)req->comm->obj.handle : MPI_COMM_WORLD;
    *rc = mpcrt_mpi_error(comm, fn, MPI_ERR_REQUEST, "request 0x%x %s", handle, why);
    return NULL;
}

static int mark_ready(const char *fn, mpcrt_request_t *req, int partition)
{
    part_t *p = part_of(req);
    if (partition < 0 || partition >= p->partitions)
        return mpcrt_mpi_error((MPI_Comm)req->comm->obj.handle, fn, MPI_ERR_ARG,
                               "partition %d is not in [0, %d)", partition, p->partitions);
    if (atomic_exchange_explicit(&p->marked[partition], 1, memory_order_relaxed))
        return mpcrt_mpi_error((MPI_Comm)req->comm->obj.handle, fn, MPI_ERR_ARG,
                               "partition %d is already ready in this epoch", partition);
    /* acq_rel: the thread that makes the count whole sends every partition's data, which the others wrote
     * before their own increments. */
    if (atomic_fetch_add_explicit(&p->ready, 1, memory_order_acq_rel) + 1 == p->partitions)
        all_ready(p);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    int rc;
    mpcrt_request_t *req = active_part("MPI_Pready", request, true, &rc);
    return req ? mark_ready("MPI_Pready", req, partition) : rc;
}
MPCRT_PMPI_ALIAS(Pready)

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    int rc = MPI_SUCCESS;
    mpcrt_request_t *req = active_part("MPI_Pready_range", request, true, &rc);
    for (int i = partition_low; req && rc == MPI_SUCCESS && i <= partition_high; i++)
        rc = mark_ready("MPI_Pready_range", req, i);
    return rc;
}
MPCRT_PMPI_ALIAS(Pready_range)

int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request)
{
    int rc = MPI_SUCCESS;
    mpcrt_request_t *req = active_part("MPI_Pready_list", request, true, &rc);
    if (req && length > 0 && !array_of_partitions)
        return mpcrt_mpi_error((MPI_Comm)req->comm->obj.handle, "MPI_Pready_list", MPI_ERR_ARG,
                               "null array of partitions");
    for (int i = 0; req && rc == MPI_SUCCESS && i < length; i++)
        rc = mark_ready("MPI_Pready_list", req, array_of_partitions[i]);
    return rc;
}
MPCRT_PMPI_ALIAS(Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    mpcrt_request_t *req = request == MPI_REQUEST_NULL
                               ? NULL
                               : (mpcrt_request_t *)mpcrt_handle_lookup(MPCRT_OBJ_REQUEST, request);
    if (!flag)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Parrived", MPI_ERR_ARG, "null flag");
    if (req && req->kind == MPCRT_REQ_PART && !part_of(req)->sending && !req->active) {
        *flag = 1; /* an inactive request has nothing left to arrive */
        return MPI_SUCCESS;
    }
    int rc;
    if (!(req = active_part("MPI_Parrived", request, false, &rc)))
        return rc;
    part_t *p = part_of(req);
    if (partition < 0 || partition >= p->partitions)
        return mpcrt_mpi_error((MPI_Comm)req->comm->obj.handle, "MPI_Parrived", MPI_ERR_ARG,
                               "partition %d is not in [0, %d)", partition, p->partitions);
    if (!mpcrt_request_done(req)) {
        mpcrt_sched_progress();
        mpcrt_yield(); /* a polling loop must let the sender run on this core */
    }
    *flag = mpcrt_request_done(req);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Parrived)
