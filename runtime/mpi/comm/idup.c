/* MPI_Comm_idup and MPI_Comm_idup_with_info (MPI 4.0 section 7.4.2): nonblocking duplication. A member's
 * call only records its arrival and returns; the member that completes a round (the last to arrive, for
 * the same collective call: the k-th idup of each member on a communicator matches the others' k-th)
 * builds the duplicate and completes everyone's request. What is local to each member (the new handle in
 * its variable, its info hints, its attribute copies, which run user callbacks) happens when that member
 * completes its request (MPI_Wait/MPI_Test), in its own context, through the request's query function.
 *
 * Members of an intercommunicator meet in the pair's bridge (both groups take part). */
#include "comm_internal.h"
#include "../attr/attr.h"
#include "../info/info.h"
#include "../nbc/nbc.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    mpcrt_request_t *req; /* retained until the builder completed it */
    MPI_Comm *newcomm;    /* the caller's variable, written when it completes the request */
    mpcrt_comm_t *parent; /* the caller's communicator (its side of a pair), retained */
    MPI_Comm parent_handle;
    int parent_rank;
    bool with_info;
    mpcrt_info_t *info; /* with_info: a copy of the given hints (NULL: none) */
    /* Written by the builder before it completes the request. */
    int rc;
    MPI_Comm made;
    bool finished; /* the member's local part has run */
    /* Members in several processes: every member's context proposal, by rank in the meeting
     * communicator (the bridge for a pair), exchanged by a schedule (runtime/mpi/nbc). */
    int *proposals;
} idup_entry_t;

typedef struct idup_round {
    uint32_t seq;
    int arrived;
    struct idup_round *next;
    idup_entry_t *entries[]; /* by rank in the meeting communicator */
} idup_round_t;

struct mpcrt_comm_pending {
    _Atomic int lock; /* leaf lock: the rounds and counters below */
    uint32_t *issued; /* idups begun by each member (rank in the meeting communicator) */
    idup_round_t *rounds;
};

void mpcrt_comm_pending_free(struct mpcrt_comm_pending *p)
{
    if (!p)
        return;
    while (p->rounds) { /* rounds some members never joined (an erroneous program) */
        idup_round_t *next = p->rounds->next;
        free(p->rounds);
        p->rounds = next;
    }
    free(p->issued);
    free(p);
}

static struct mpcrt_comm_pending *pending_of(mpcrt_comm_t *meet)
{
    struct mpcrt_comm_pending *p = atomic_load_explicit(&meet->pending, memory_order_acquire);
    if (p)
        return p;
    p = calloc(1, sizeof *p);
    if (!p || !(p->issued = calloc((size_t)mpcrt_comm_size(meet), sizeof *p->issued))) {
        free(p);
        return NULL;
    }
    struct mpcrt_comm_pending *expected = NULL;
    /* acq_rel: the winner's zeroed structure is visible to the members that load it (acquire above). */
    if (!atomic_compare_exchange_strong_explicit(&meet->pending, &expected, p, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        mpcrt_comm_pending_free(p);
        p = expected;
    }
    return p;
}

/* Run by the member that completed the round: one duplicate for all, then every request completed. */
static void build(mpcrt_comm_t *meet, idup_round_t *round)
{
    int n = mpcrt_comm_size(meet), rc;
    MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    mpcrt_comm_t *parent = round->entries[0]->parent;
    if (parent->remote_group) {
        mpcrt_comm_t *sides[2] = {NULL, NULL};
        for (int r = 0; r < n; r++)
            sides[mpcrt_intercomm_side(round->entries[r]->parent)] = round->entries[r]->parent;
        rc = mpcrt_intercomm_build_dup(sides[0], sides[1], handles);
    } else {
        mpcrt_comm_t *made = mpcrt_comm_create_object(parent->group);
        if (made) {
            mpcrt_comm_inherit(made, parent);
            if (parent->topo) { /* a duplicate keeps the topology */
                mpcrt_object_retain(parent->topo);
                made->topo = parent->topo;
            }
        }
        rc = mpcrt_comm_publish(made, &handles[0]);
    }
    for (int r = 0; r < n; r++) {
        idup_entry_t *e = round->entries[r];
        mpcrt_request_t *req = e->req;
        e->rc = rc;
        e->made = rc ? MPI_COMM_NULL : handles[e->parent->remote_group ? mpcrt_intercomm_side(e->parent) : 0];
        /* The owner may finish and free e as soon as this is visible: e is not touched after it. */
        mpcrt_request_complete(req);
        mpcrt_object_release(&req->obj);
    }
    free(round);
}

/* Members in several processes, when the exchange has completed: the largest proposal wins, and this member
 * builds its own object of the duplicate (and of its bridge for a pair). */
static void build_procs(idup_entry_t *e)
{
    mpcrt_comm_t *parent = e->parent, *meet = parent->bridge ? parent->bridge : parent;
    int n = mpcrt_comm_size(meet);
    if (e->req->status.MPI_ERROR != MPI_SUCCESS) {
        e->rc = e->req->status.MPI_ERROR;
        return;
    }
    uint32_t agreed = 0;
    for (int r = 0; r < n; r++)
        if ((uint32_t)e->proposals[r] > agreed)
            agreed = (uint32_t)e->proposals[r];
    if (parent->remote_group) {
        e->rc = mpcrt_intercomm_procs_side(parent->group, parent->remote_group,
                                           mpcrt_intercomm_side(parent) == 0, agreed, parent, &e->made);
        return;
    }
    mpcrt_comm_t *made = mpcrt_comm_create_private(parent->group, agreed);
    if (made) {
        mpcrt_comm_inherit(made, parent);
        if (parent->topo) {
            mpcrt_object_retain(parent->topo);
            made->topo = parent->topo;
        }
    }
    e->rc = mpcrt_comm_publish(made, &e->made);
}

/* Members in several processes: each sends its proposal to every other member (both groups of a pair) in
 * a schedule on the parent (one collective call number), whose completion completes the request. */
static int start_procs(const char *fn, MPI_Comm handle, mpcrt_comm_t *comm, idup_entry_t *e, void *fresh)
{
    free(fresh);
    mpcrt_comm_t *meet = comm->bridge ? comm->bridge : comm;
    int n = mpcrt_comm_size(meet), me = mpcrt_comm_rank(meet);
    int nlocal = mpcrt_comm_size(comm);
    mpcrt_datatype_t *ints = mpcrt_datatype_get(MPI_INT);
    mpcrt_nbc_t *s = (e->proposals = malloc(sizeof(int) * (size_t)n)) ? mpcrt_nbc_new(comm) : NULL;
    if (!s) {
        e->rc = MPI_ERR_NO_MEM;
        mpcrt_request_complete(e->req);
        mpcrt_object_release(&e->req->obj);
        free(e->proposals);
        e->proposals = NULL;
        return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "no memory for the duplicate");
    }
    e->proposals[me] = (int)mpcrt_comm_context_propose(comm->remote_group ? 2 : 1);
    for (int i = 0; i < nlocal; i++) {
        int peer = mpcrt_nbc_local(s, i);
        if (peer == me)
            continue;
        mpcrt_nbc_send(s, &e->proposals[me], 1, ints, peer, 0);
        mpcrt_nbc_recv(s, &e->proposals[peer], 1, ints, peer, 0);
    }
    for (int j = 0; comm->remote_group && j < comm->remote_group->size; j++) {
        int peer = mpcrt_nbc_remote(s, j);
        mpcrt_nbc_send(s, &e->proposals[me], 1, ints, peer, 0);
        mpcrt_nbc_recv(s, &e->proposals[peer], 1, ints, peer, 0);
    }
    int rc = mpcrt_nbc_start_child(s, e->req);
    if (rc) {
        e->rc = rc;
        free(e->proposals);
        e->proposals = NULL;
        mpcrt_request_complete(e->req);
        mpcrt_object_release(&e->req->obj);
        return mpcrt_mpi_error(handle, fn, rc, "no memory for the duplicate");
    }
    return MPI_SUCCESS;
}

/* The member's local part, when it completes its request: its handle, hints and attributes (as
 * MPI_Comm_dup does them, member by member). */
static int finish_member(void *extra_state, MPI_Status *status)
{
    idup_entry_t *e = extra_state;
    status->MPI_SOURCE = MPI_ANY_SOURCE;
    status->MPI_TAG = MPI_ANY_TAG;
    mpcrt_status_set_bytes(status, 0);
    if (!e->finished) {
        e->finished = true;
        if (e->proposals) {
            build_procs(e);
            mpcrt_object_release(&e->req->obj); /* the schedule's completion no longer touches it */
        }
        if (e->rc == MPI_SUCCESS) {
            mpcrt_comm_t *made = mpcrt_comm_get(e->made);
            int me = mpcrt_comm_rank(made);
            const mpcrt_info_t *hints = e->with_info ? e->info : e->parent->members[e->parent_rank].hints;
            if (hints && hints->nkeys > 0 && !(made->members[me].hints = mpcrt_info_new(hints)))
                e->rc = MPI_ERR_NO_MEM;
            if (e->rc == MPI_SUCCESS)
                e->rc = mpcrt_attr_comm_dup(e->parent_handle, e->parent, e->parent_rank, made, me);
            if (e->rc != MPI_SUCCESS) { /* this member gives the new communicator up, as MPI_Comm_dup does */
                mpcrt_attr_comm_free(e->made, made, me);
                mpcrt_comm_release_member(made);
                e->made = MPI_COMM_NULL;
            }
        }
        *e->newcomm = e->made;
    }
    status->MPI_ERROR = e->rc;
    return e->rc;
}

static int free_entry(void *extra_state)
{
    idup_entry_t *e = extra_state;
    mpcrt_object_release(&e->parent->obj);
    mpcrt_info_release(e->info);
    free(e->proposals);
    free(e);
    return MPI_SUCCESS;
}

static int idup(const char *fn, MPI_Comm handle, MPI_Comm *newcomm, MPI_Request *request, bool with_info,
                MPI_Info info_handle)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc)
        return rc;
    if (!request || !newcomm)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    mpcrt_info_t *given = NULL;
    if (with_info && info_handle != MPI_INFO_NULL && !(given = mpcrt_info_get(info_handle)))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info_handle);
    mpcrt_comm_t *meet = comm->bridge ? comm->bridge : comm;
    int n = mpcrt_comm_size(meet), my_meet_rank = mpcrt_comm_rank(meet);
    struct mpcrt_comm_pending *pending = pending_of(meet);
    idup_entry_t *e = calloc(1, sizeof *e);
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_GREQ);
    idup_round_t *fresh = malloc(sizeof *fresh + sizeof(idup_entry_t *) * (size_t)n);
    if (!pending || !e || !req || !fresh ||
        (given && given->nkeys > 0 && !(e->info = mpcrt_info_new(given))) ||
        mpcrt_handle_register(&req->obj, request) != 0) {
        free(fresh);
        if (req)
            mpcrt_object_release(&req->obj); /* a vpcache block: not free()'s */
        if (e)
            mpcrt_info_release(e->info);
        free(e);
        return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "no memory for the duplicate");
    }
    e->req = req;
    mpcrt_object_retain(&req->obj); /* for the builder: the caller may free its handle early */
    e->newcomm = newcomm;
    e->parent = comm;
    mpcrt_object_retain(&comm->obj);
    e->parent_handle = handle;
    e->parent_rank = me;
    e->with_info = with_info;
    req->query_fn = finish_member;
    req->free_fn = free_entry;
    req->extra_state = e;

    if (!meet->local) /* members in several processes: the agreement runs as a schedule */
        return start_procs(fn, handle, comm, e, fresh);
    mpcrt_spin_lock(&pending->lock);
    uint32_t seq = pending->issued[my_meet_rank]++;
    idup_round_t **link = &pending->rounds;
    while (*link && (*link)->seq != seq)
        link = &(*link)->next;
    idup_round_t *round = *link;
    if (!round) {
        round = fresh;
        fresh = NULL;
        round->seq = seq;
        round->arrived = 0;
        round->next = NULL;
        *link = round;
    }
    round->entries[my_meet_rank] = e;
    bool complete = ++round->arrived == n;
    if (complete)
        *link = round->next; /* taken out: nobody else joins it */
    mpcrt_spin_unlock(&pending->lock);
    free(fresh);
    if (complete)
        build(meet, round);
    return MPI_SUCCESS;
}

int PMPI_Comm_idup(MPI_Comm handle, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup", handle, newcomm, request, false, MPI_INFO_NULL);
}
MPCRT_PMPI_ALIAS(Comm_idup)

int PMPI_Comm_idup_with_info(MPI_Comm handle, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request)
{
    return idup("MPI_Comm_idup_with_info", handle, newcomm, request, true, info);
}
MPCRT_PMPI_ALIAS(Comm_idup_with_info)
