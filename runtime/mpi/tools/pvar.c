/* Performance variables (MPI 4.0 section 15.3.7). None are exposed yet, but sessions are real objects: a
 * tool creates and frees them, and starting, stopping or resetting MPI_T_PVAR_ALL_HANDLES of a session
 * (all of its zero handles) succeeds. Any other handle is invalid, since none can be allocated. */
#include "tools_internal.h"

#include <stdlib.h>

struct MPIR_T_pvar_session_s {
    tools_object_t obj; /* first: the registry holds sessions by this address */
};

/* A handle will start with its registry entry once variables exist; ALL_HANDLES is a distinct address
 * that no allocation can return. */
struct MPIR_T_pvar_handle_s {
    tools_object_t obj;
};
static struct MPIR_T_pvar_handle_s all_handles;
struct MPIR_T_pvar_handle_s *const MPI_T_PVAR_ALL_HANDLES = &all_handles;

/* MPI_SUCCESS when the interface is initialized and session is live, else the error to return. */
static int check_session(MPI_T_pvar_session session)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    mpcrt_tools_lock();
    bool live = mpcrt_tools_find(session, TOOLS_PVAR_SESSION) != NULL;
    mpcrt_tools_unlock();
    return live ? MPI_SUCCESS : MPI_T_ERR_INVALID_SESSION;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    return mpcrt_tools_return_count(num_pvar, 0);
}
MPCRT_PMPI_ALIAS(T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity, int *var_class,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind,
                         int *readonly, int *continuous, int *atomic)
{
    (void)pvar_index, (void)name, (void)name_len, (void)verbosity, (void)var_class, (void)datatype;
    (void)enumtype, (void)desc, (void)desc_len, (void)bind, (void)readonly, (void)continuous, (void)atomic;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    return MPI_T_ERR_INVALID_INDEX;
}
MPCRT_PMPI_ALIAS(T_pvar_get_info)

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    (void)name, (void)var_class;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!pvar_index)
        return MPI_T_ERR_INVALID;
    return MPI_T_ERR_INVALID_NAME;
}
MPCRT_PMPI_ALIAS(T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!session)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_pvar_session_s *s = malloc(sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    mpcrt_tools_lock();
    if (!mpcrt_tools_initialized_locked()) { /* the last MPI_T_finalize ran meanwhile */
        mpcrt_tools_unlock();
        free(s);
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    mpcrt_tools_register(&s->obj, TOOLS_PVAR_SESSION);
    mpcrt_tools_unlock();
    *session = s;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!session)
        return MPI_T_ERR_INVALID;
    mpcrt_tools_lock();
    tools_object_t *obj = mpcrt_tools_find(*session, TOOLS_PVAR_SESSION);
    if (obj)
        mpcrt_tools_unregister(obj);
    mpcrt_tools_unlock();
    if (!obj)
        return MPI_T_ERR_INVALID_SESSION;
    free(obj); /* it holds no handles: none can be allocated */
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_pvar_session_free)

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)pvar_index, (void)obj_handle, (void)handle, (void)count;
    int rc = check_session(session);
    return rc != MPI_SUCCESS ? rc : MPI_T_ERR_INVALID_INDEX;
}
MPCRT_PMPI_ALIAS(T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = check_session(session);
    if (rc != MPI_SUCCESS)
        return rc;
    return handle ? MPI_T_ERR_INVALID_HANDLE : MPI_T_ERR_INVALID;
}
MPCRT_PMPI_ALIAS(T_pvar_handle_free)

/* Start, stop and reset act on one handle or on every handle of the session (MPI_T_PVAR_ALL_HANDLES). */
static int act_on_handles(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = check_session(session);
    if (rc != MPI_SUCCESS)
        return rc;
    return handle == MPI_T_PVAR_ALL_HANDLES ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return act_on_handles(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return act_on_handles(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    return act_on_handles(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_reset)

/* Reads and writes name one handle: MPI_T_PVAR_ALL_HANDLES is not allowed there. */
static int access_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    (void)handle;
    int rc = check_session(session);
    return rc != MPI_SUCCESS ? rc : MPI_T_ERR_INVALID_HANDLE;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)buf;
    return access_handle(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_read)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    (void)buf;
    return access_handle(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_write)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    (void)buf;
    return access_handle(session, handle);
}
MPCRT_PMPI_ALIAS(T_pvar_readreset)
