/* Error handler objects: the predefined handlers, user communicator handlers, attaching them to
 * communicators (each member rank has its own, MPI 4.0 section 9.3: the association is local) and calling
 * them. Window, file and session handlers wait for those objects to exist (their functions stay stubs). */
#include "errhan.h"
#include "../comm/comm.h"
#include "../../threads/sched.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static mpcrt_errhandler_t predefined[3] = {
    {.kind = MPCRT_ERRH_ANY, .action = MPCRT_ERRH_FATAL},
    {.kind = MPCRT_ERRH_ANY, .action = MPCRT_ERRH_RETURN},
    {.kind = MPCRT_ERRH_ANY, .action = MPCRT_ERRH_ABORT},
};

__attribute__((constructor)) static void register_predefined(void)
{
    static const MPI_Errhandler handles[3] = {MPI_ERRORS_ARE_FATAL, MPI_ERRORS_RETURN, MPI_ERRORS_ABORT};
    for (int i = 0; i < 3; i++) {
        mpcrt_object_init(&predefined[i].obj, MPCRT_OBJ_ERRHANDLER, NULL);
        mpcrt_handle_register_predefined(&predefined[i].obj, MPCRT_OBJ_ERRHANDLER, handles[i]);
    }
}

mpcrt_errhandler_t *mpcrt_errhandler_fatal(void)
{
    return &predefined[0];
}

static const char *action_name(mpcrt_errh_action_t action)
{
    return action == MPCRT_ERRH_ABORT ? "MPI_ERRORS_ABORT" : "MPI_ERRORS_ARE_FATAL";
}

int mpcrt_errhandler_apply(mpcrt_errhandler_t *eh, void *object, const char *function, int code,
                           const char *detail)
{
    switch (eh->action) {
    case MPCRT_ERRH_RETURN:
        return code;
    case MPCRT_ERRH_USER:
        /* The handler runs in the rank that raised the error (its ULT, or one of its threads), so the
         * rank's privatized view is the current one. Code raising an error on behalf of another rank (a
         * progress engine) must wrap this call in mpcrt_priv_enter/leave with the owner's ULT. */
        switch (eh->kind) {
        case MPCRT_ERRH_WIN:
            eh->fn.win((MPI_Win *)object, &code, NULL);
            break;
        case MPCRT_ERRH_FILE:
            eh->fn.file((MPI_File *)object, &code, NULL);
            break;
        case MPCRT_ERRH_SESSION:
            eh->fn.session((MPI_Session *)object, &code, NULL);
            break;
        default:
            eh->fn.comm((MPI_Comm *)object, &code, NULL);
            break;
        }
        return code;
    case MPCRT_ERRH_FATAL:
    case MPCRT_ERRH_ABORT:
        break;
    }
    char text[MPI_MAX_ERROR_STRING];
    if (!mpcrt_error_text(code, text) || !text[0]) {
        int cls = mpcrt_error_class_of(code);
        snprintf(text, sizeof text, "%s (error code %d)",
                 cls >= 0 && mpcrt_mpi_class_text(cls) ? mpcrt_mpi_class_text(cls) : "unknown error", code);
    }
    fprintf(stderr, "mpcrt: rank %d: %s: %s: %s (%s: ending the job)\n", mpcrt_mpi_world_rank(), function,
            text, detail, action_name(eh->action));
    fflush(stdout);
    fflush(stderr);
    /* Every rank of this process ends with it (the launcher then stops the others), as MPI_Abort does;
     * the exit status is the error class when it fits. */
    int cls = mpcrt_error_class_of(code);
    _exit(cls > 0 && cls < 256 ? cls : 1);
}

/* ------------------------------------------------------------------ handles of user handlers */

/* MPI_Comm_get_errhandler hands out the handle the user created while some user handle of it is still
 * live (programs compare it with the one they set), counting how many times it was handed out: each
 * MPI_Errhandler_free drops one, and the last one frees the handle (MPICH does the same with its handle
 * reference counts). Once every user handle is freed, a new get registers a new handle. The counts are
 * under this leaf lock (rare calls; registration may allocate). */
static mpcrt_mutex_t handles_lock = MPCRT_MUTEX_INITIALIZER;

typedef struct {
    mpcrt_errhandler_t eh;
    int live_handle; /* 0 when every user handle was freed */
    int handed_out;  /* user references to live_handle; each also holds one object reference but one */
} user_errhandler_t;

static void destroy_errhandler(mpcrt_object_t *obj)
{
    free(obj);
}

static int create(mpcrt_errh_kind_t kind, void (*fn)(void), MPI_Errhandler *handle)
{
    user_errhandler_t *u = calloc(1, sizeof *u);
    if (!u)
        return MPI_ERR_NO_MEM;
    mpcrt_object_init(&u->eh.obj, MPCRT_OBJ_ERRHANDLER, destroy_errhandler);
    u->eh.kind = kind;
    u->eh.action = MPCRT_ERRH_USER;
    u->eh.fn.comm = (MPI_Comm_errhandler_function *)fn; /* all members share one representation */
    if (mpcrt_handle_register(&u->eh.obj, handle) != 0) {
        free(u);
        return MPI_ERR_NO_MEM;
    }
    u->live_handle = *handle;
    u->handed_out = 1;
    return MPI_SUCCESS;
}

/* A user handle for eh: the existing one if still live, else a new one. */
int mpcrt_errhandler_hand_out(mpcrt_errhandler_t *eh, MPI_Errhandler *handle)
{
    if (eh->obj.flags & MPCRT_OBJECT_PREDEFINED) {
        *handle = eh->obj.handle;
        return MPI_SUCCESS;
    }
    user_errhandler_t *u = (user_errhandler_t *)eh;
    int rc = MPI_SUCCESS;
    mpcrt_errhandler_retain(eh); /* the new user reference */
    mpcrt_mutex_lock(&handles_lock);
    if (u->live_handle) {
        u->handed_out++;
        *handle = u->live_handle;
    } else if (mpcrt_handle_register(&eh->obj, handle) == 0) {
        u->live_handle = *handle;
        u->handed_out = 1;
    } else {
        rc = MPI_ERR_NO_MEM;
    }
    mpcrt_mutex_unlock(&handles_lock);
    if (rc != MPI_SUCCESS)
        mpcrt_errhandler_release(eh);
    return rc;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Errhandler_free";
    if (!errhandler)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "errhandler is NULL");
    mpcrt_errhandler_t *eh = mpcrt_errhandler_get(*errhandler);
    if (!eh)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "invalid error handler 0x%x", (unsigned)*errhandler);
    /* A predefined handler may be "freed": MPI_Comm_get_errhandler returns handles that the program frees,
     * whatever they name. */
    if (!(eh->obj.flags & MPCRT_OBJECT_PREDEFINED)) {
        user_errhandler_t *u = (user_errhandler_t *)eh;
        bool last;
        mpcrt_mutex_lock(&handles_lock);
        last = --u->handed_out == 0;
        if (last)
            u->live_handle = 0;
        mpcrt_mutex_unlock(&handles_lock);
        if (last)
            mpcrt_handle_free(MPCRT_OBJ_ERRHANDLER, *errhandler); /* drops the handle's reference */
        else
            mpcrt_errhandler_release(eh);
    }
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Errhandler_free)

/* ------------------------------------------------------------------ communicator handlers */

static int comm_create(const char *fn, void (*function)(void), MPI_Errhandler *errhandler)
{
    if (!function || !errhandler)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%s is NULL", function ? "errhandler" : "the function");
    int rc = create(MPCRT_ERRH_COMM, function, errhandler);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "no memory for an error handler");
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *comm_errhandler_fn, MPI_Errhandler *errhandler)
{
    return comm_create("MPI_Comm_create_errhandler", (void (*)(void))comm_errhandler_fn, errhandler);
}
MPCRT_PMPI_ALIAS(Comm_create_errhandler)

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *session_errhandler_fn,
                                   MPI_Errhandler *errhandler)
{
    static const char fn[] = "MPI_Session_create_errhandler";
    if (!session_errhandler_fn || !errhandler)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%s is NULL",
                               session_errhandler_fn ? "errhandler" : "the function");
    int rc = create(MPCRT_ERRH_SESSION, (void (*)(void))session_errhandler_fn, errhandler);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "no memory for an error handler");
}
MPCRT_PMPI_ALIAS(Session_create_errhandler)

int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return comm_create("MPI_Errhandler_create", (void (*)(void))function, errhandler);
}
MPCRT_PMPI_ALIAS(Errhandler_create)

static int comm_set(const char *fn, MPI_Comm handle, MPI_Errhandler errhandler)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    mpcrt_errhandler_t *eh = mpcrt_errhandler_get(errhandler);
    if (!eh)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "invalid error handler 0x%x", (unsigned)errhandler);
    if (eh->kind != MPCRT_ERRH_ANY && eh->kind != MPCRT_ERRH_COMM)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "the error handler was not created for communicators");
    mpcrt_comm_member_t *m = &comm->members[me];
    mpcrt_errhandler_retain(eh);
    /* acq_rel: a raise in another thread of this rank sees the handler's fields. The previous handler's
     * reference goes; raising on a communicator while another thread replaces its handler is a race in
     * the program (MPI 4.0 section 11.6.2). */
    mpcrt_errhandler_t *old = atomic_exchange_explicit(&m->errhandler, eh, memory_order_acq_rel);
    __atomic_store_n(&m->errhandler_set, true, __ATOMIC_RELAXED); /* read by the rank's other threads */
    mpcrt_errhandler_release(old);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return comm_set("MPI_Comm_set_errhandler", comm, errhandler);
}
MPCRT_PMPI_ALIAS(Comm_set_errhandler)

int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return comm_set("MPI_Errhandler_set", comm, errhandler);
}
MPCRT_PMPI_ALIAS(Errhandler_set)

static int comm_get(const char *fn, MPI_Comm handle, MPI_Errhandler *errhandler)
{
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!errhandler)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "errhandler is NULL");
    mpcrt_errhandler_t *eh = atomic_load_explicit(&comm->members[me].errhandler, memory_order_acquire);
    rc = mpcrt_errhandler_hand_out(eh, errhandler);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(handle, fn, rc, "no memory for an error handler handle");
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return comm_get("MPI_Comm_get_errhandler", comm, errhandler);
}
MPCRT_PMPI_ALIAS(Comm_get_errhandler)

int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return comm_get("MPI_Errhandler_get", comm, errhandler);
}
MPCRT_PMPI_ALIAS(Errhandler_get)

int PMPI_Comm_call_errhandler(MPI_Comm handle, int errorcode)
{
    static const char fn[] = "MPI_Comm_call_errhandler";
    mpcrt_comm_t *comm;
    int me;
    int rc = mpcrt_comm_arg(fn, handle, &comm, &me);
    if (rc != MPI_SUCCESS)
        return rc;
    mpcrt_errhandler_t *eh = atomic_load_explicit(&comm->members[me].errhandler, memory_order_acquire);
    MPI_Comm object = handle;
    mpcrt_errhandler_apply(eh, &object, fn, errorcode, "raised by the program");
    /* The call succeeds when the handler returns (MPI 4.0 section 9.3.5). */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_call_errhandler)
