/* MPI API: attributes of communicators (with the predefined ones) and datatypes, the MPI-1 names, and the
 * hooks that communicator and datatype constructors and destructors call. Window attributes wait for
 * windows: their keyvals exist (keyval.c), and the window module will keep a list per member like the
 * communicator's and call mpcrt_attr_set/get/delete/delete_all/copy_all. */
#include "attr_internal.h"
#include "../comm/comm.h"
#include "../datatype/datatype.h"
#include "../errhan/errhan.h"

#include <pthread.h>

/* ------------------------------------------------------------------ predefined communicator attributes */

/* Values of the attributes MPI predefines on MPI_COMM_WORLD (MPI 4.0 section 9.1.2); answered on every
 * communicator, as MPICH does. The program gets a pointer to an int. */
static const int tag_ub = MPCRT_TAG_UB;
static const int host = MPI_PROC_NULL;      /* no host process */
static const int io = MPI_ANY_SOURCE;       /* every rank can do I/O */
static const int wtime_is_global = 1;       /* MPI_Wtime reads CLOCK_MONOTONIC: one clock for the node */
static const int appnum = 0;                /* one application (no MPMD launch yet) */
static int universe_size;                   /* the job's size: no dynamic processes */
static pthread_once_t universe_once = PTHREAD_ONCE_INIT;

static void set_universe_size(void)
{
    universe_size = mpcrt_mpi_world_size();
}

static bool is_predefined_keyval(int keyval)
{
    return mpcrt_handle_kind(keyval) == MPCRT_HANDLE_BUILTIN && mpcrt_handle_obj_kind(keyval) == MPCRT_OBJ_KEYVAL;
}

/* The value of a predefined communicator attribute; NULL for any other key (window keys, Fortran keys). */
static const int *predefined_value(int keyval)
{
    switch (keyval) {
    case MPI_TAG_UB:
        return &tag_ub;
    case MPI_HOST:
        return &host;
    case MPI_IO:
        return &io;
    case MPI_WTIME_IS_GLOBAL:
        return &wtime_is_global;
    case MPI_UNIVERSE_SIZE:
        /* Written once: the ranks read it through the pointer they get. */
        pthread_once(&universe_once, set_universe_size);
        return &universe_size;
    case MPI_LASTUSEDCODE:
        return mpcrt_error_last_used_ptr();
    case MPI_APPNUM:
        return &appnum;
    default:
        return NULL;
    }
}

/* ------------------------------------------------------------------ communicators */

static int raise_keyval(MPI_Comm comm, const char *fn, int keyval)
{
    return mpcrt_mpi_error(comm, fn, MPI_ERR_KEYVAL,
                           is_predefined_keyval(keyval)
                               ? "the predefined attribute 0x%x cannot be changed"
                               : "invalid keyval 0x%x (freed, never created, or made for another kind of object)",
                           (unsigned)keyval);
}

static int comm_set(const char *fn, MPI_Comm handle, int keyval, void *value)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mpcrt_attr_set(&comm->members[me].attrs, MPCRT_OBJ_COMM, handle, keyval, value);
    if (rc == MPI_ERR_KEYVAL)
        return raise_keyval(handle, fn, keyval);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "the attribute's delete callback failed (or no memory)");
    return MPI_SUCCESS;
}

static int comm_get(const char *fn, MPI_Comm handle, int keyval, void *value, int *flag)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!value || !flag)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "attribute_val or flag is NULL");
    if (is_predefined_keyval(keyval)) {
        const int *v = predefined_value(keyval);
        if (!v)
            return raise_keyval(handle, fn, keyval);
        *(const int **)value = v;
        *flag = 1;
        return MPI_SUCCESS;
    }
    rc = mpcrt_attr_get(&comm->members[me].attrs, MPCRT_OBJ_COMM, keyval, value, flag);
    if (rc == MPI_ERR_KEYVAL)
        return raise_keyval(handle, fn, keyval);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "cannot read the attribute");
    return MPI_SUCCESS;
}

static int comm_delete(const char *fn, MPI_Comm handle, int keyval)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = mpcrt_attr_delete(&comm->members[me].attrs, MPCRT_OBJ_COMM, handle, keyval);
    if (rc == MPI_ERR_KEYVAL)
        return raise_keyval(handle, fn, keyval);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void *attribute_val)
{
    return comm_set("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
MPCRT_PMPI_ALIAS(Comm_set_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void *attribute_val)
{
    return comm_set("MPI_Attr_put", comm, keyval, attribute_val);
}
MPCRT_PMPI_ALIAS(Attr_put)

int PMPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Comm_get_attr", comm, comm_keyval, attribute_val, flag);
}
MPCRT_PMPI_ALIAS(Comm_get_attr)

int PMPI_Attr_get(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    return comm_get("MPI_Attr_get", comm, keyval, attribute_val, flag);
}
MPCRT_PMPI_ALIAS(Attr_get)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval)
{
    return comm_delete("MPI_Comm_delete_attr", comm, comm_keyval);
}
MPCRT_PMPI_ALIAS(Comm_delete_attr)

int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return comm_delete("MPI_Attr_delete", comm, keyval);
}
MPCRT_PMPI_ALIAS(Attr_delete)

int mpcrt_attr_comm_dup(MPI_Comm old_handle, mpcrt_comm_t *old, int old_me, mpcrt_comm_t *made, int new_me)
{
    return mpcrt_attr_copy_all(&old->members[old_me].attrs, &made->members[new_me].attrs, old_handle);
}

int mpcrt_attr_comm_free(MPI_Comm handle, mpcrt_comm_t *comm, int me)
{
    return mpcrt_attr_delete_all(&comm->members[me].attrs, handle);
}

void mpcrt_attr_finalize_rank(void)
{
    /* A failing delete callback does not stop MPI_Finalize: the remaining attributes stay. */
    mpcrt_comm_t *self = mpcrt_comm_self();
    if (self)
        mpcrt_attr_delete_all(&self->members[0].attrs, MPI_COMM_SELF);
    mpcrt_comm_t *world = mpcrt_comm_get(MPI_COMM_WORLD);
    int me = world ? mpcrt_comm_rank(world) : MPI_UNDEFINED;
    if (me != MPI_UNDEFINED)
        mpcrt_attr_delete_all(&world->members[me].attrs, MPI_COMM_WORLD);
}

/* ------------------------------------------------------------------ datatypes */

/* Datatype errors have no communicator: raised as MPI_COMM_NULL errors (core/errors.c). */
static int type_arg(const char *fn, MPI_Datatype handle, mpcrt_attr_rank_t **r)
{
    if (!mpcrt_datatype_get(handle))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_TYPE, "invalid datatype 0x%x", (unsigned)handle);
    if (!(*r = mpcrt_attr_rank()))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_OTHER, "called before MPI_Init");
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val)
{
    static const char fn[] = "MPI_Type_set_attr";
    mpcrt_attr_rank_t *r;
    int rc = type_arg(fn, datatype, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!mpcrt_keyval_get(type_keyval, MPCRT_OBJ_DATATYPE))
        return raise_keyval(MPI_COMM_NULL, fn, type_keyval);
    mpcrt_attr_lock(r);
    mpcrt_attr_t **list = mpcrt_attr_type_list(r, datatype, true);
    mpcrt_attr_unlock(r);
    if (!list)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for the attribute");
    rc = mpcrt_attr_set(list, MPCRT_OBJ_DATATYPE, datatype, type_keyval, attribute_val);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "the attribute's delete callback failed (or no memory)");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void *attribute_val, int *flag)
{
    static const char fn[] = "MPI_Type_get_attr";
    mpcrt_attr_rank_t *r;
    int rc = type_arg(fn, datatype, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!attribute_val || !flag)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "attribute_val or flag is NULL");
    mpcrt_attr_lock(r);
    mpcrt_attr_t **list = mpcrt_attr_type_list(r, datatype, false);
    mpcrt_attr_unlock(r);
    rc = mpcrt_attr_get(list, MPCRT_OBJ_DATATYPE, type_keyval, attribute_val, flag);
    if (rc == MPI_ERR_KEYVAL)
        return raise_keyval(MPI_COMM_NULL, fn, type_keyval);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "cannot read the attribute");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval)
{
    static const char fn[] = "MPI_Type_delete_attr";
    mpcrt_attr_rank_t *r;
    int rc = type_arg(fn, datatype, &r);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!mpcrt_keyval_get(type_keyval, MPCRT_OBJ_DATATYPE))
        return raise_keyval(MPI_COMM_NULL, fn, type_keyval);
    mpcrt_attr_lock(r);
    mpcrt_attr_t **list = mpcrt_attr_type_list(r, datatype, false);
    mpcrt_attr_unlock(r);
    rc = list ? mpcrt_attr_delete(list, MPCRT_OBJ_DATATYPE, datatype, type_keyval) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "the attribute's delete callback failed");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_delete_attr)

int mpcrt_attr_type_dup(MPI_Datatype oldtype, MPI_Datatype newtype)
{
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_ERR_OTHER;
    mpcrt_attr_lock(r);
    mpcrt_attr_t **from = mpcrt_attr_type_list(r, oldtype, false);
    mpcrt_attr_t **to = from ? mpcrt_attr_type_list(r, newtype, true) : NULL;
    mpcrt_attr_unlock(r);
    if (!from)
        return MPI_SUCCESS;
    if (!to)
        return MPI_ERR_NO_MEM;
    return mpcrt_attr_copy_all(from, to, oldtype);
}

int mpcrt_attr_type_free(MPI_Datatype datatype)
{
    mpcrt_attr_rank_t *r = mpcrt_attr_rank();
    if (!r)
        return MPI_SUCCESS; /* no attribute was ever set by this rank */
    mpcrt_attr_lock(r);
    mpcrt_attr_t **list = mpcrt_attr_type_list(r, datatype, false);
    mpcrt_attr_unlock(r);
    int rc = list ? mpcrt_attr_delete_all(list, datatype) : MPI_SUCCESS;
    if (rc == MPI_SUCCESS && list) {
        /* The handle's index may be reused by the next datatype: forget the entry with the handle. */
        mpcrt_attr_lock(r);
        mpcrt_attr_type_forget(r, datatype);
        mpcrt_attr_unlock(r);
    }
    return rc;
}
