/* Error classes, their strings, and the raising of errors through error handlers. Until communicators
 * carry error handlers (the MPI core issue), every error uses MPI_ERRORS_ARE_FATAL. */
#include "../mpi_internal.h"

#include <stdarg.h>
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

int mpcrt_mpi_error(MPI_Comm comm, const char *function, int error_class, const char *fmt, ...)
{
    (void)comm;
    char detail[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    const char *text = error_class >= 0 && error_class < NCLASSES && class_text[error_class]
                           ? class_text[error_class]
                           : "unknown error";
    fprintf(stderr, "mpcrt: rank %d: %s: %s: %s (MPI_ERRORS_ARE_FATAL: ending the job)\n",
            mpcrt_mpi_world_rank(), function, text, detail);
    fflush(stdout);
    fflush(stderr);
    _exit(error_class > 0 && error_class < 256 ? error_class : 1);
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < 0 || errorcode >= NCLASSES || !class_text[errorcode])
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Error_class", MPI_ERR_ARG, "unknown error code %d",
                               errorcode);
    *errorclass = errorcode; /* no user-defined codes yet: every code is its own class */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (errorcode < 0 || errorcode >= NCLASSES || !class_text[errorcode])
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Error_string", MPI_ERR_ARG, "unknown error code %d",
                               errorcode);
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", class_text[errorcode]);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Error_string)
