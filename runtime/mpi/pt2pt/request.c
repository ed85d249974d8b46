/* Requests: creation, completion (publish then wake the owner) and waiting through the scheduler. */
#include "pt2pt.h"
#include "../core/vpcache.h"

#include <stdlib.h>
#include <string.h>

void mpcrt_status_set_bytes(MPI_Status *status, MPI_Count bytes)
{
    /* MPICH's layout: low 32 bits in count_lo, the next 31 above bit 0 (the cancelled flag). */
    status->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    status->count_hi_and_cancelled =
        (int)(((unsigned)(bytes >> 32) << 1) | ((unsigned)status->count_hi_and_cancelled & 1u));
}

MPI_Count mpcrt_status_bytes(const MPI_Status *status)
{
    return (MPI_Count)(unsigned)status->count_lo |
           ((MPI_Count)((unsigned)status->count_hi_and_cancelled >> 1) << 32);
}

static void destroy_request(mpcrt_object_t *obj)
{
    mpcrt_request_t *req = (mpcrt_request_t *)obj;
    if (req->coll_release)
        req->coll_release(req->coll);
    if (req->datatype)
        mpcrt_datatype_release(req->datatype);
    if (req->comm)
        mpcrt_object_release(&req->comm->obj);
    for (int i = 0; i < 2; i++)
        if (req->children[i])
            mpcrt_object_release(&req->children[i]->obj);
    free(req->owned_buffer);
    mpcrt_vpcache_free(MPCRT_VPCACHE_REQUEST, req);
}

mpcrt_request_t *mpcrt_request_new(mpcrt_req_kind_t kind)
{
    mpcrt_request_t *req = mpcrt_vpcache_alloc(MPCRT_VPCACHE_REQUEST);
    if (!req)
        return NULL;
    memset(req, 0, sizeof *req);
    mpcrt_object_init(&req->obj, MPCRT_OBJ_REQUEST, destroy_request);
    req->kind = kind;
    req->owner = mpcrt_ult_self();
    return req;
}

void mpcrt_request_complete(mpcrt_request_t *req)
{
    /* Read the owner and parent first: once `complete` is visible the request (maybe on the owner's stack)
     * can go. A child is only freed with its parent, which cannot complete before this child does. */
    mpcrt_ult_t *owner = req->owner;
    mpcrt_request_t *parent = req->parent;
    /* release: the data copied into the receive buffer and the status are visible to the waiter. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    if (owner)
        mpcrt_ult_poke(owner); /* owners wait in mpcrt_wait_until; a spurious poke is harmless */
    if (parent && atomic_fetch_sub_explicit(&parent->pending, 1, memory_order_acq_rel) == 1) {
        parent->status = parent->children[0]->status;
        mpcrt_request_complete(parent);
    }
}

int mpcrt_request_adopt(mpcrt_request_t *parent, mpcrt_request_t *child)
{
    int slot = parent->children[0] ? 1 : 0;
    parent->children[slot] = child; /* the caller's reference moves to the parent */
    child->parent = parent;
    child->owner = NULL; /* nobody waits on the child itself */
    atomic_fetch_add_explicit(&parent->pending, 1, memory_order_relaxed);
    return slot;
}


