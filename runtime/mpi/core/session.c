/* MPI API: the Sessions Model (MPI 4.0 section 11.3). A session sets up the rank's MPI state as MPI_Init
 * does (both can coexist, in any order, and sessions can be opened again after being finalized) and
 * offers the process sets "mpi://WORLD" and "mpi://SELF", from which groups and then communicators
 * (MPI_Comm_create_from_group) are made. The thread level is always MPI_THREAD_MULTIPLE. */
#include "../mpi_internal.h"
#include "../comm/comm.h"
#include "../errhan/errhan.h"
#include "../info/info.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct {
    mpcrt_object_t obj;
    mpcrt_errhandler_t *errhandler;
} session_t;

static const char *const psets[] = {"mpi://WORLD", "mpi://SELF"};
enum { NPSETS = sizeof psets / sizeof *psets };

static void destroy_session(mpcrt_object_t *obj)
{
    session_t *s = (session_t *)obj;
    mpcrt_errhandler_release(s->errhandler);
    free(s);
}

static session_t *session_get(MPI_Session handle)
{
    return (session_t *)mpcrt_handle_lookup(MPCRT_OBJ_SESSION, handle);
}

/* Raises an error through the session's handler (MPI_ERRORS_ARE_FATAL when there is no valid session). */
static int session_error(MPI_Session handle, session_t *s, const char *fn, int code, const char *detail)
{
    if (!s)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, code, "%s", detail);
    return mpcrt_errhandler_apply(s->errhandler, &handle, fn, code, detail);
}

#define CHECK_SESSION(fn, handle, s)                                                                         \
    do {                                                                                                     \
        if (!((s) = session_get(handle)))                                                                    \
            return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_SESSION, "invalid session 0x%x",               \
                                   (unsigned)(handle));                                                      \
    } while (0)

/* The process set named `name`, or -1. */
static int pset_index(const char *name)
{
    for (int i = 0; name && i < NPSETS; i++)
        if (strcasecmp(name, psets[i]) == 0) /* MPI 4.0 section 11.3.2: names are case-insensitive */
            return i;
    return -1;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    static const char fn[] = "MPI_Session_init";
    if (!session)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "null session pointer");
    if (info != MPI_INFO_NULL && !mpcrt_info_get(info))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    mpcrt_errhandler_t *eh =
        errhandler == MPI_ERRHANDLER_NULL ? mpcrt_errhandler_fatal() : mpcrt_errhandler_get(errhandler);
    if (!eh || (eh->kind != MPCRT_ERRH_ANY && eh->kind != MPCRT_ERRH_SESSION))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "invalid session error handler 0x%x",
                               (unsigned)errhandler);
    int rc = mpcrt_mpi_process_init();
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "cannot start the runtime");
    session_t *s = calloc(1, sizeof *s);
    int handle;
    if (!s)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for a session");
    mpcrt_object_init(&s->obj, MPCRT_OBJ_SESSION, destroy_session);
    mpcrt_errhandler_retain(eh);
    s->errhandler = eh;
    if (mpcrt_handle_register(&s->obj, &handle) != 0) {
        mpcrt_object_release(&s->obj);
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for a session handle");
    }
    mpcrt_mpi_self()->used_sessions = true;
    atomic_fetch_add_explicit(&mpcrt_mpi_self()->sessions, 1, memory_order_relaxed);
    *session = handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_init)

int PMPI_Session_finalize(MPI_Session *session)
{
    static const char fn[] = "MPI_Session_finalize";
    session_t *s;
    if (!session)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "null session pointer");
    CHECK_SESSION(fn, *session, s);
    /* Objects derived from the session that the program did not free stay usable in this runtime, which
     * keeps nothing per session; the rank's MPI state stays for the world model or later sessions. */
    atomic_fetch_sub_explicit(&mpcrt_mpi_self()->sessions, 1, memory_order_relaxed);
    mpcrt_handle_free(MPCRT_OBJ_SESSION, *session);
    *session = MPI_SESSION_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_finalize)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    session_t *s;
    CHECK_SESSION("MPI_Session_get_num_psets", session, s);
    (void)info;
    if (!npset_names)
        return session_error(session, s, "MPI_Session_get_num_psets", MPI_ERR_ARG, "null npset_names");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name)
{
    static const char fn[] = "MPI_Session_get_nth_pset";
    session_t *s;
    CHECK_SESSION(fn, session, s);
    (void)info;
    if (n < 0 || n >= NPSETS)
        return session_error(session, s, fn, MPI_ERR_ARG, "no process set of that index");
    if (!pset_len)
        return session_error(session, s, fn, MPI_ERR_ARG, "null pset_len");
    int needed = (int)strlen(psets[n]) + 1;
    /* A zero length asks for the length only (MPI 4.0 section 11.3.2); otherwise copy what fits. */
    if (*pset_len > 0) {
        if (!pset_name)
            return session_error(session, s, fn, MPI_ERR_ARG, "null pset_name");
        snprintf(pset_name, (size_t)*pset_len, "%s", psets[n]);
    }
    *pset_len = needed;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_get_nth_pset)

static int publish_info(MPI_Session session, session_t *s, const char *fn, const char *key, const char *value,
                        MPI_Info *out)
{
    mpcrt_info_t *info = mpcrt_info_new(NULL);
    if (!info || mpcrt_info_set(info, key, value) != MPI_SUCCESS ||
        mpcrt_info_publish(info, out) != MPI_SUCCESS) {
        mpcrt_info_release(info);
        return session_error(session, s, fn, MPI_ERR_NO_MEM, "no memory for an info object");
    }
    return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    session_t *s;
    CHECK_SESSION("MPI_Session_get_info", session, s);
    if (!info_used)
        return session_error(session, s, "MPI_Session_get_info", MPI_ERR_ARG, "null info_used");
    return publish_info(session, s, "MPI_Session_get_info", "thread_level", "MPI_THREAD_MULTIPLE", info_used);
}
MPCRT_PMPI_ALIAS(Session_get_info)

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    static const char fn[] = "MPI_Session_get_pset_info";
    session_t *s;
    CHECK_SESSION(fn, session, s);
    int which = pset_index(pset_name);
    if (which < 0 || !info)
        return session_error(session, s, fn, MPI_ERR_ARG, "unknown process set or null info");
    char size[16];
    snprintf(size, sizeof size, "%d", which == 0 ? mpcrt_mpi_world_size() : 1);
    return publish_info(session, s, fn, "mpi_size", size, info);
}
MPCRT_PMPI_ALIAS(Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    static const char fn[] = "MPI_Group_from_session_pset";
    session_t *s;
    CHECK_SESSION(fn, session, s);
    int which = pset_index(pset_name);
    if (which < 0 || !newgroup)
        return session_error(session, s, fn, MPI_ERR_ARG, "unknown process set or null newgroup");
    mpcrt_comm_t *comm = mpcrt_comm_get(which == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF);
    if (!comm)
        return session_error(session, s, fn, MPI_ERR_INTERN, "the process set's group is missing");
    mpcrt_object_retain(&comm->group->obj);
    if (mpcrt_handle_register(&comm->group->obj, newgroup) != 0) {
        mpcrt_object_release(&comm->group->obj);
        return session_error(session, s, fn, MPI_ERR_NO_MEM, "no memory for a group handle");
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Group_from_session_pset)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    static const char fn[] = "MPI_Session_set_errhandler";
    session_t *s;
    CHECK_SESSION(fn, session, s);
    mpcrt_errhandler_t *eh = mpcrt_errhandler_get(errhandler);
    if (!eh || (eh->kind != MPCRT_ERRH_ANY && eh->kind != MPCRT_ERRH_SESSION))
        return session_error(session, s, fn, MPI_ERR_ARG, "invalid session error handler");
    mpcrt_errhandler_retain(eh);
    mpcrt_errhandler_t *old = s->errhandler; /* a session is used by its rank's threads: MPI leaves races
                                                 between set and use to the program */
    s->errhandler = eh;
    mpcrt_errhandler_release(old);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_get_errhandler";
    session_t *s;
    CHECK_SESSION(fn, session, s);
    if (!errhandler)
        return session_error(session, s, fn, MPI_ERR_ARG, "null errhandler");
    if (mpcrt_errhandler_hand_out(s->errhandler, errhandler) != MPI_SUCCESS)
        return session_error(session, s, fn, MPI_ERR_NO_MEM, "no memory for a handle");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    session_t *s;
    CHECK_SESSION("MPI_Session_call_errhandler", session, s);
    session_error(session, s, "MPI_Session_call_errhandler", errorcode, "raised by the program");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Session_call_errhandler)
