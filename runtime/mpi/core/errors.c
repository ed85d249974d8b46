/* Error classes, their strings, and the raising of errors through error handlers: the handler of the
 * calling rank on the communicator of the call (errhan/ holds the handlers and the user-defined codes). */
#include "../mpi_internal.h"
#include "../comm/comm.h"
#include "../errhan/errhan.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const class_text[] = {
    [MPI_SUCCESS] = "no error",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimension argument",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_AMODE] = "invalid file access mode",
    [MPI_ERR_BAD_FILE] = "invalid file name",
    [MPI_ERR_CONVERSION] = "data conversion error",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_FILE] = "invalid file handle",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_INFO_KEY] = "info key too long",
    [MPI_ERR_INFO_VALUE] = "info value too long",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_NAME] = "service name not published",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_NOT_SAME] = "collective arguments differ between processes",
    [MPI_ERR_NO_SPACE] = "not enough space",
    [MPI_ERR_NO_SUCH_FILE] = "file does not exist",
    [MPI_ERR_PORT] = "invalid port name",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file or file system",
    [MPI_ERR_SERVICE] = "invalid service name",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_BASE] = "invalid base address",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_KEYVAL] = "invalid keyval",
    [MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "wrong RMA synchronization",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_ASSERT] = "invalid assert argument",
    [MPI_ERR_RMA_RANGE] = "RMA target out of the window",
    [MPI_ERR_RMA_ATTACH] = "memory cannot be attached",
    [MPI_ERR_RMA_SHARED] = "memory cannot be shared",
    [MPI_ERR_RMA_FLAVOR] = "wrong window flavor",
    [MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T: cannot initialize",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid item",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: out of handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: out of sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: performance variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: performance variable cannot be written",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: performance variable cannot be read and reset atomically",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T: invalid name",
    [MPI_T_ERR_INVALID] = "MPI_T: invalid use of the interface",
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large for its output",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T: not supported",
};

#define NCLASSES ((int)(sizeof class_text / sizeof class_text[0]))

const char *mpcrt_mpi_class_text(int error_class)
{
    return error_class >= 0 && error_class < NCLASSES ? class_text[error_class] : NULL;
}

/* The handler that applies to an error of the calling rank on `comm`, and the handle its function gets. */
static mpcrt_errhandler_t *handler_for(MPI_Comm comm, MPI_Comm *object)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    /* Before MPI_Init and after MPI_Finalize: the initial error handler (MPI 4.0 section 9.3). */
    if (!mpcrt_mpi_active(self))
        return mpcrt_errhandler_fatal();
    mpcrt_comm_t *c = comm != MPI_COMM_NULL && comm != MPI_COMM_SELF ? mpcrt_comm_get(comm) : NULL;
    int me = c ? mpcrt_comm_rank(c) : MPI_UNDEFINED;
    if (me != MPI_UNDEFINED) {
        *object = comm;
        /* acquire: pairs with the exchange in MPI_Comm_set_errhandler (the handler's fields). */
        return atomic_load_explicit(&c->members[me].errhandler, memory_order_acquire);
    }
    /* MPI_COMM_SELF, no communicator (MPI_COMM_NULL: datatypes, info, keyvals...) or an invalid one: MPI 4.0
     * raises these on MPI_COMM_SELF. MPICH raises the last two on MPI_COMM_WORLD, and MPICH's test suite
     * (attrerrtype, keyvalmis...) sets MPI_ERRORS_RETURN on MPI_COMM_WORLD only, then expects such errors to
     * return. Both hold here: MPI_COMM_SELF's handler applies once the rank has set one; until then,
     * MPI_COMM_WORLD's (both start as MPI_ERRORS_ARE_FATAL, so a program that changes neither, or sets
     * both, sees no difference). */
    mpcrt_comm_t *self_comm = mpcrt_comm_self();
    if (self_comm && __atomic_load_n(&self_comm->members[0].errhandler_set, __ATOMIC_RELAXED)) {
        *object = MPI_COMM_SELF;
        return atomic_load_explicit(&self_comm->members[0].errhandler, memory_order_acquire);
    }
    mpcrt_comm_t *world = mpcrt_comm_get(MPI_COMM_WORLD);
    if ((me = world ? mpcrt_comm_rank(world) : MPI_UNDEFINED) == MPI_UNDEFINED)
        return mpcrt_errhandler_fatal();
    *object = MPI_COMM_WORLD;
    return atomic_load_explicit(&world->members[me].errhandler, memory_order_acquire);
}

int mpcrt_mpi_error(MPI_Comm comm, const char *function, int error_code, const char *fmt, ...)
{
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    MPI_Comm object = comm;
    mpcrt_errhandler_t *eh = handler_for(comm, &object);
    return mpcrt_errhandler_apply(eh, &object, function, error_code, detail);
}
