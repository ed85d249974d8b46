/* Requests: creation, completion (publish then wake the owner) and waiting through the scheduler. */
#include "pt2pt.h"
#include "../core/vpcache.h"

#include <stdlib.h>
#include <string.h>

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

void mpcrt_request_complete_parent(mpcrt_request_t *parent)
{
    /* acq_rel: the last child sees the other children's statuses; the parent's waiter sees them all. */
    if (atomic_fetch_sub_explicit(&parent->pending, 1, memory_order_acq_rel) == 1) {
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


