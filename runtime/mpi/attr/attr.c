/* Attribute lists: set, get, delete, delete all, copy, under the calling rank's attribute lock, with the
 * user callbacks run outside it; and each rank's table of datatype attribute lists. */
#include "attr_internal.h"

#include <stdlib.h>

struct mpcrt_attr_rank {
    mpcrt_mutex_t lock;
    type_attrs_t *types[TYPE_BUCKETS]; /* datatype handle -> attribute list */
};

mpcrt_attr_rank_t *mpcrt_attr_rank(void)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self)
        return NULL;
    /* acquire: pairs with the release of the CAS below (the lock is initialized). */
    mpcrt_attr_rank_t *r = atomic_load_explicit(&self->attrs, memory_order_acquire);
    if (r)
        return r;
    mpcrt_attr_rank_t *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    mpcrt_mutex_init(&fresh->lock);
    /* Two threads of the rank may race here: the loser frees its copy. */
    if (!atomic_compare_exchange_strong_explicit(&self->attrs, &r, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(fresh);
        return r;
    }
    return fresh;
}

void mpcrt_attr_lock(mpcrt_attr_rank_t *r)
{
    mpcrt_mutex_lock(&r->lock);
}

void mpcrt_attr_unlock(mpcrt_attr_rank_t *r)
{
    mpcrt_mutex_unlock(&r->lock);
}

mpcrt_attr_t **mpcrt_attr_type_list(mpcrt_attr_rank_t *r, MPI_Datatype handle, bool create)
{
    type_attrs_t **bucket = &r->types[(unsigned)handle % TYPE_BUCKETS];
    for (type_attrs_t *t = *bucket; t; t = t->next)
        if (t->handle == handle)
            return &t->attrs;
    if (!create)
        return NULL;
    type_attrs_t *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->handle = handle;
    t->next = *bucket;
    *bucket = t;
    return &t->attrs;
}

void mpcrt_attr_type_forget(mpcrt_attr_rank_t *r, MPI_Datatype handle)
{
    for (type_attrs_t **p = &r->types[(unsigned)handle % TYPE_BUCKETS]; *p; p = &(*p)->next) {
        if ((*p)->handle == handle && !(*p)->attrs) {
            type_attrs_t *gone = *p;
            *p = gone->next;
            free(gone);
            return;
        }
    }
}

static mpcrt_attr_t *find(mpcrt_attr_t *list, const mpcrt_keyval_t *kv)
{
    for (; list; list = list->next)
        if (list->keyval == kv)
            return list;
    return NULL;
}

/* Unlinks entry e if it is still in the list (a callback may have deleted it meanwhile). */
static bool unlink_entry(mpcrt_attr_t **list, mpcrt_attr_t *e)
{
    for (mpcrt_attr_t **p = list; *p; p = &(*p)->next) {
        if (*p == e) {
            *p = e->next;
            return true;
        }
    }
    return false;
}

static int call_delete(const mpcrt_keyval_t *kv, int object, void *value)
{
    return kv->delete_fn ? kv->delete_fn(object, kv->handle, value, kv->extra_state) : MPI_SUCCESS;
}

int mpcrt_attr_set(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int object, int keyval, void *value)
{
    mpcrt_keyval_t *kv = mpcrt_keyval_get(keyval, kind);
    if (!kv)
        return MPI_ERR_KEYVAL;
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    mpcrt_attr_t *fresh = malloc(sizeof *fresh);
    if (!r || !fresh) {
        free(fresh);
        return r ? MPI_ERR_NO_MEM : MPI_ERR_OTHER;
    }
    mpcrt_attr_lock(r);
    mpcrt_attr_t *e = find(*list, kv);
    if (e) {
        /* A new value replaces the old one after the old one's delete callback (MPI 4.0 section 7.7.2);
         * if the callback fails, the set fails and the old value stays. */
        void *old = e->value;
        mpcrt_keyval_retain(kv);
        mpcrt_attr_unlock(r);
        int rc = call_delete(kv, object, old);
        mpcrt_keyval_release(kv);
        if (rc != MPI_SUCCESS) {
            free(fresh);
            return rc;
        }
        mpcrt_attr_lock(r);
        e = find(*list, kv); /* gone if the callback deleted the attribute itself: set it anew */
    }
    if (e) {
        e->value = value;
        free(fresh);
    } else {
        mpcrt_keyval_retain(kv); /* the attribute's reference */
        *fresh = (mpcrt_attr_t){*list, kv, value};
        *list = fresh;
    }
    mpcrt_attr_unlock(r);
    return MPI_SUCCESS;
}

int mpcrt_attr_get(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int keyval, void *value_out, int *flag)
{
    mpcrt_keyval_t *kv = mpcrt_keyval_get(keyval, kind);
    if (!kv)
        return MPI_ERR_KEYVAL;
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_ERR_OTHER;
    mpcrt_attr_lock(r);
    mpcrt_attr_t *e = list ? find(*list, kv) : NULL;
    *flag = e != NULL;
    if (e)
        *(void **)value_out = e->value;
    mpcrt_attr_unlock(r);
    return MPI_SUCCESS;
}

/* Deletes entry e of list after its delete callback succeeds. Called with the lock held; returns with it
 * released. */
static int delete_entry(mpcrt_attr_rank_t *r, mpcrt_attr_t **list, mpcrt_attr_t *e, int object)
{
    mpcrt_keyval_t *kv = e->keyval;
    void *value = e->value;
    mpcrt_keyval_retain(kv);
    mpcrt_attr_unlock(r);
    int rc = call_delete(kv, object, value);
    if (rc == MPI_SUCCESS) {
        mpcrt_attr_lock(r);
        bool unlinked = unlink_entry(list, e);
        mpcrt_attr_unlock(r);
        if (unlinked) {
            free(e);
            mpcrt_keyval_release(kv); /* the attribute's reference */
        }
    }
    mpcrt_keyval_release(kv);
    return rc;
}

int mpcrt_attr_delete(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int object, int keyval)
{
    mpcrt_keyval_t *kv = mpcrt_keyval_get(keyval, kind);
    if (!kv)
        return MPI_ERR_KEYVAL;
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_ERR_OTHER;
    mpcrt_attr_lock(r);
    mpcrt_attr_t *e = find(*list, kv);
    if (!e) {
        mpcrt_attr_unlock(r);
        return MPI_SUCCESS; /* nothing attached: nothing to delete */
    }
    return delete_entry(r, list, e, object);
}

int mpcrt_attr_delete_all(mpcrt_attr_t **list, int object)
{
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_ERR_OTHER;
    for (;;) {
        mpcrt_attr_lock(r);
        mpcrt_attr_t *e = *list;
        if (!e) {
            mpcrt_attr_unlock(r);
            return MPI_SUCCESS;
        }
        int rc = delete_entry(r, list, e, object);
        if (rc != MPI_SUCCESS)
            return rc;
    }
}

int mpcrt_attr_copy_all(mpcrt_attr_t **from, mpcrt_attr_t **to, int old_object)
{
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_ERR_OTHER;
    /* Snapshot the list (callbacks run unlocked and may change it), oldest first, so that the copies end up
     * in the same order. */
    mpcrt_attr_lock(r);
    int n = 0;
    for (mpcrt_attr_t *e = *from; e; e = e->next)
        n++;
    mpcrt_attr_t *snapshot = n ? malloc(sizeof *snapshot * (size_t)n) : NULL;
    if (n && !snapshot) {
        mpcrt_attr_unlock(r);
        return MPI_ERR_NO_MEM;
    }
    int i = n;
    for (mpcrt_attr_t *e = *from; e; e = e->next) {
        snapshot[--i] = *e;
        mpcrt_keyval_retain(e->keyval);
    }
    mpcrt_attr_unlock(r);

    int rc = MPI_SUCCESS;
    for (i = 0; i < n; i++) {
        mpcrt_keyval_t *kv = snapshot[i].keyval;
        if (rc == MPI_SUCCESS && kv->copy_fn) {
            void *out = NULL;
            int flag = 0;
            rc = kv->copy_fn(old_object, kv->handle, kv->extra_state, snapshot[i].value, &out, &flag);
            if (rc == MPI_SUCCESS && flag) {
                mpcrt_attr_t *copy = malloc(sizeof *copy);
                if (copy) {
                    mpcrt_keyval_retain(kv);
                    *copy = (mpcrt_attr_t){NULL, kv, out};
                    mpcrt_attr_lock(r);
                    copy->next = *to;
                    *to = copy;
                    mpcrt_attr_unlock(r);
                } else {
                    rc = MPI_ERR_NO_MEM;
                }
            }
        }
        mpcrt_keyval_release(kv); /* the snapshot's reference */
    }
    free(snapshot);
    return rc;
}
