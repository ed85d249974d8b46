/* Interface of runtime/mpi/attr: keyvals and attribute caching on communicators, datatypes and (once they
 * exist) windows (MPI 4.0 sections 7.7 and 12.2.7).
 *
 * Where attributes live. MPI makes attributes local to a process's handle of an object. In thread mode the
 * member ranks of a process share one communicator object and one handle value, and every rank shares the
 * predefined datatypes, so storage is per (object, rank):
 *  - communicators (and windows, later): the list is in the rank's member slot of the object
 *    (mpcrt_comm_member_t.attrs, by comm rank);
 *  - datatypes: a per-rank table keyed by the datatype handle (a derived type is used by the rank that made
 *    it, but MPI_INT is everyone's).
 * Each list is written and read only by its rank's threads, under the rank's attribute lock (a leaf lock
 * that is never held while a copy or delete callback runs: callbacks may call attribute functions). Lists
 * are newest first, so deleting them all runs the delete callbacks in the reverse order of setting, which
 * MPI requires for MPI_COMM_SELF at MPI_Finalize (MPI 4.0 section 11.2.2) and we do everywhere.
 *
 * Callbacks run in the rank that makes the call (MPI_Comm_dup, MPI_Comm_free, MPI_Type_free,
 * MPI_*_delete_attr, MPI_*_set_attr over a value, MPI_Finalize), so the rank's privatized view is current. */
#ifndef MPCRT_MPI_ATTR_H
#define MPCRT_MPI_ATTR_H

#include "../core/handle.h"
#include "../mpi_internal.h"

struct mpcrt_comm;

/* A keyval: process-wide object with an indirect handle of kind MPCRT_OBJ_KEYVAL. The predefined keys
 * (MPI_TAG_UB..., MPI_WIN_BASE...) are builtin handles that are not in the table: api_attr.c answers them.
 *
 * Lifetime (MPI 4.0 section 7.7.2: freeing a keyval does not disturb the attributes that use it): the
 * handle holds the object's only reference, and stays registered until the keyval is freed *and* no
 * attribute uses it any more, so its value is not reused while attributes (and their callbacks) still
 * pass it around. Until then the freed handle still works, as in MPICH, whose tests rely on it: freeing it
 * again is a no-op (keyval_double_free* free a keyval from inside its own delete callback), and deleting
 * the attributes through it works (fkeyval* delete them from MPI_COMM_WORLD after freeing the keyval). */
typedef struct mpcrt_keyval {
    mpcrt_object_t obj;
    mpcrt_obj_kind_t object_kind; /* MPCRT_OBJ_COMM, MPCRT_OBJ_DATATYPE or MPCRT_OBJ_WIN */
    /* The three kinds' callbacks have one shape (their first argument is an int handle). NULL: the
     * MPI_*_NULL_COPY_FN / MPI_*_NULL_DELETE_FN behaviour (not copied / nothing to do). */
    MPI_Comm_copy_attr_function *copy_fn;
    MPI_Comm_delete_attr_function *delete_fn;
    void *extra_state;
    int handle; /* what callbacks receive as keyval, even after MPI_*_free_keyval */
    _Atomic unsigned uses; /* 2 x (attributes and callbacks in flight) + 1 once the program freed it */
} mpcrt_keyval_t;

/* One attribute; an attribute holds a reference to its keyval (MPI_*_free_keyval does not invalidate
 * attributes that use it). */
typedef struct mpcrt_attr {
    struct mpcrt_attr *next;
    mpcrt_keyval_t *keyval;
    void *value;
} mpcrt_attr_t;

/* The keyval named by a live handle if it was made for objects of `kind`; NULL otherwise (MPI_ERR_KEYVAL). */
mpcrt_keyval_t *mpcrt_keyval_get(int handle, mpcrt_obj_kind_t kind);
/* An attribute (or a callback in flight) starts or stops using kv; the last release of a freed keyval
 * frees its handle. */
void mpcrt_keyval_retain(mpcrt_keyval_t *kv);
void mpcrt_keyval_release(mpcrt_keyval_t *kv);

/* Operations on one attribute list of the calling rank. `object` is the handle given to callbacks. Each
 * returns MPI_SUCCESS or an error code for the API layer to raise: MPI_ERR_KEYVAL, MPI_ERR_NO_MEM,
 * MPI_ERR_OTHER (a rank without MPI state), or what a user callback returned. */
int mpcrt_attr_set(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int object, int keyval, void *value);
int mpcrt_attr_get(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int keyval, void *value_out, int *flag);
int mpcrt_attr_delete(mpcrt_attr_t **list, mpcrt_obj_kind_t kind, int object, int keyval);
/* Deletes every attribute, newest first; stops at the first callback that fails (that attribute and the
 * older ones stay). For MPI_*_free. */
int mpcrt_attr_delete_all(mpcrt_attr_t **list, int object);
/* Copies the attributes of `from` (object `old_object`) into the empty list `to` through their copy
 * callbacks, oldest first (MPI_*_dup). On a failure, `to` keeps what was copied: delete it all. */
int mpcrt_attr_copy_all(mpcrt_attr_t **from, mpcrt_attr_t **to, int old_object);

/* Hooks of the object modules. Communicators: `me` is the caller's comm rank. Each returns an error code
 * for the caller to raise (on the communicator, or on MPI_COMM_SELF for datatypes). */
int mpcrt_attr_comm_dup(MPI_Comm old_handle, struct mpcrt_comm *old, int old_me, struct mpcrt_comm *made,
                        int new_me);
int mpcrt_attr_comm_free(MPI_Comm handle, struct mpcrt_comm *comm, int me);
int mpcrt_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype);
int mpcrt_attr_type_free(MPI_Datatype datatype);
/* Start of MPI_Finalize: the caller's attributes on MPI_COMM_SELF, then on MPI_COMM_WORLD, are deleted,
 * newest first (MPI 4.0 section 11.2.2: MPI_Finalized is still false in the callbacks). */
void mpcrt_attr_finalize_rank(void);

#endif
