/* Keyvals: creation and freeing for communicators, datatypes and windows (windows' keyvals exist before
 * windows do), the MPI-1 names, and MPIR_Dup_fn, the function behind the MPI_*_DUP_FN macros (the MPICH ABI
 * exports it under that name). A keyval is a process-wide object; its handle lives until it is freed and
 * no attribute uses it (attr.h). */
#include "attr_internal.h"

#include <stdlib.h>

int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                void *attribute_val_out, int *flag)
{
    (void)oldcomm;
    (void)keyval;
    (void)extra_state;
    *(void **)attribute_val_out = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

static void destroy_keyval(mpcrt_object_t *obj)
{
    free(obj);
}

mpcrt_keyval_t *mpcrt_keyval_get(int handle, mpcrt_obj_kind_t kind)
{
    mpcrt_keyval_t *kv = (mpcrt_keyval_t *)mpcrt_handle_lookup(MPCRT_OBJ_KEYVAL, handle);
    return kv && kv->object_kind == kind ? kv : NULL;
}

void mpcrt_keyval_retain(mpcrt_keyval_t *kv)
{
    /* relaxed: the caller already holds a use (an attribute) or got kv from a live handle. */
    atomic_fetch_add_explicit(&kv->uses, 2u, memory_order_relaxed);
}

void mpcrt_keyval_release(mpcrt_keyval_t *kv)
{
    /* acq_rel: every use happens before the handle is freed (and the object destroyed). Freed with no use
     * left (3 = one use + the freed bit): this was the last one. */
    if (atomic_fetch_sub_explicit(&kv->uses, 2u, memory_order_acq_rel) == 3u)
        mpcrt_handle_free(MPCRT_OBJ_KEYVAL, kv->handle);
}

static int create(const char *fn, mpcrt_obj_kind_t kind, MPI_Comm_copy_attr_function *copy_fn,
                  MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra_state)
{
    if (!keyval)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "keyval is NULL");
    mpcrt_keyval_t *kv = calloc(1, sizeof *kv);
    if (!kv)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for a keyval");
    mpcrt_object_init(&kv->obj, MPCRT_OBJ_KEYVAL, destroy_keyval);
    kv->object_kind = kind;
    kv->copy_fn = copy_fn;
    kv->delete_fn = delete_fn;
    kv->extra_state = extra_state;
    if (mpcrt_handle_register(&kv->obj, keyval) != 0) {
        free(kv);
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for a keyval handle");
    }
    kv->handle = *keyval;
    return MPI_SUCCESS;
}

static int free_keyval(const char *fn, mpcrt_obj_kind_t kind, int *keyval)
{
    if (!keyval)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "keyval is NULL");
    mpcrt_keyval_t *kv = mpcrt_keyval_get(*keyval, kind);
    if (!kv)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_KEYVAL,
                               mpcrt_handle_kind(*keyval) == MPCRT_HANDLE_BUILTIN
                                   ? "the predefined keyval 0x%x cannot be freed"
                                   : "invalid keyval 0x%x (freed, never created, or made for another kind of object)",
                               (unsigned)*keyval);
    /* acq_rel: as in mpcrt_keyval_release. Unused: the handle goes now; else with the last attribute. A
     * keyval already freed but still in use: nothing to do. */
    if (atomic_fetch_or_explicit(&kv->uses, 1u, memory_order_acq_rel) == 0)
        mpcrt_handle_free(MPCRT_OBJ_KEYVAL, kv->handle);
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval, void *extra_state)
{
    return create("MPI_Comm_create_keyval", MPCRT_OBJ_COMM, comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                  extra_state);
}
MPCRT_PMPI_ALIAS(Comm_create_keyval)

int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval, void *extra_state)
{
    return create("MPI_Keyval_create", MPCRT_OBJ_COMM, copy_fn, delete_fn, keyval, extra_state);
}
MPCRT_PMPI_ALIAS(Keyval_create)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *type_copy_attr_fn,
                            MPI_Type_delete_attr_function *type_delete_attr_fn, int *type_keyval, void *extra_state)
{
    /* MPI_Datatype and MPI_Comm are both int: the callbacks have the communicator callbacks' type. */
    return create("MPI_Type_create_keyval", MPCRT_OBJ_DATATYPE, type_copy_attr_fn, type_delete_attr_fn, type_keyval,
                  extra_state);
}
MPCRT_PMPI_ALIAS(Type_create_keyval)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *win_copy_attr_fn,
                           MPI_Win_delete_attr_function *win_delete_attr_fn, int *win_keyval, void *extra_state)
{
    return create("MPI_Win_create_keyval", MPCRT_OBJ_WIN, win_copy_attr_fn, win_delete_attr_fn, win_keyval,
                  extra_state);
}
MPCRT_PMPI_ALIAS(Win_create_keyval)

int PMPI_Comm_free_keyval(int *comm_keyval)
{
    return free_keyval("MPI_Comm_free_keyval", MPCRT_OBJ_COMM, comm_keyval);
}
MPCRT_PMPI_ALIAS(Comm_free_keyval)

int PMPI_Keyval_free(int *keyval)
{
    return free_keyval("MPI_Keyval_free", MPCRT_OBJ_COMM, keyval);
}
MPCRT_PMPI_ALIAS(Keyval_free)

int PMPI_Type_free_keyval(int *type_keyval)
{
    return free_keyval("MPI_Type_free_keyval", MPCRT_OBJ_DATATYPE, type_keyval);
}
MPCRT_PMPI_ALIAS(Type_free_keyval)

int PMPI_Win_free_keyval(int *win_keyval)
{
    return free_keyval("MPI_Win_free_keyval", MPCRT_OBJ_WIN, win_keyval);
}
MPCRT_PMPI_ALIAS(Win_free_keyval)
