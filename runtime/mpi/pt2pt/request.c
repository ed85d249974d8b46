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
    if (req->owned_buffer)
        free(req->owned_buffer);
    /* Its handle (if it had one) was freed before the last reference went: the index goes with the block. */
    mpcrt_vpcache_free_request(req, req->obj.handle ? mpcrt_handle_index(req->obj.handle) : UINT32_MAX);
}

/* The request every MPI_Isend gets whose message left during the call (mpcrt_pt2pt_send_small): complete,
 * an empty status, never written after load, never freed (predefined, so the handle frees and releases of
 * the completion calls leave it alone). One builtin handle for all of them saves the allocation, the handle
 * and the release of a request per small send. */
static mpcrt_request_t completed_send = {.complete = 1, .kind = MPCRT_REQ_SEND};

__attribute__((constructor)) static void register_completed_send(void)
{
    mpcrt_handle_register_predefined(&completed_send.obj, MPCRT_OBJ_REQUEST, MPCRT_REQUEST_COMPLETED_SEND);
}

mpcrt_request_t *mpcrt_request_new(mpcrt_req_kind_t kind)
{
    uint32_t index;
    mpcrt_request_t *req = mpcrt_vpcache_alloc_request(&index);
    if (!req)
        return NULL; /* from malloc: no index came with it */
    mpcrt_request_zero(req, sizeof *req);
    mpcrt_object_init(&req->obj, MPCRT_OBJ_REQUEST, destroy_request);
    if (index != UINT32_MAX) {
        req->obj.handle = mpcrt_handle_make(MPCRT_HANDLE_INDIRECT, MPCRT_OBJ_REQUEST, index);
        req->obj.flags |= MPCRT_OBJECT_KEPT_INDEX;
    }
    req->kind = kind;
    req->owner = mpcrt_ult_self();
    return req;
}

/* Requests the user freed (MPI_Request_free) before they completed. The operation still writes into its
 * request when it completes (status, flag, owner's poke), so the object must outlive it: it waits here
 * with its handle's reference and goes once done, at the next MPI_Request_free or MPI_Finalize. */
static _Atomic int orphans_lock;
static mpcrt_request_t **orphans;
static int norphans, orphans_capacity;

void mpcrt_request_reap_orphans(void)
{
    mpcrt_request_t *done[64];
    int ndone = 0;
    mpcrt_spin_lock(&orphans_lock);
    for (int i = 0; i < norphans && ndone < 64;)
        if (mpcrt_request_done(orphans[i])) {
            done[ndone++] = orphans[i];
            orphans[i] = orphans[--norphans];
        } else {
            i++;
        }
    mpcrt_spin_unlock(&orphans_lock);
    for (int i = 0; i < ndone; i++) /* outside the lock: destroying releases a communicator, a datatype */
        mpcrt_object_release(&done[i]->obj);
}

void mpcrt_request_orphan(mpcrt_request_t *req)
{
    mpcrt_spin_lock(&orphans_lock);
    if (norphans == orphans_capacity) {
        int capacity = orphans_capacity ? 2 * orphans_capacity : 16;
        mpcrt_request_t **grown = realloc(orphans, (size_t)capacity * sizeof *grown);
        if (!grown) {
            /* No memory to track it: it stays alive (leaked), which is safe. */
            mpcrt_spin_unlock(&orphans_lock);
            return;
        }
        orphans = grown;
        orphans_capacity = capacity;
    }
    orphans[norphans++] = req;
    mpcrt_spin_unlock(&orphans_lock);
    mpcrt_request_reap_orphans();
}

void mpcrt_part_child_done(mpcrt_request_t *req, mpcrt_request_t *child); /* partitioned.c */

void mpcrt_request_complete_parent(mpcrt_request_t *parent, mpcrt_request_t *child)
{
    if (parent->kind == MPCRT_REQ_PART) {
        mpcrt_part_child_done(parent, child);
        return;
    }
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
