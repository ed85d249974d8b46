/* Interface of runtime/mpi/errhan: error handler objects (the predefined MPI_ERRORS_ARE_FATAL,
 * MPI_ERRORS_RETURN, MPI_ERRORS_ABORT and user handlers) and the user-defined error classes, codes and
 * strings of each rank. Raising an error through a handler is mpcrt_mpi_error (core/errors.c), which uses
 * what is declared here. */
#ifndef MPCRT_MPI_ERRHAN_H
#define MPCRT_MPI_ERRHAN_H

#include "../core/handle.h"
#include "../mpi_internal.h"

/* The object kinds an error handler may be attached to (MPI 4.0 section 9.3). */
typedef enum {
    MPCRT_ERRH_ANY, /* the predefined handlers: attachable to every kind */
    MPCRT_ERRH_COMM,
    MPCRT_ERRH_WIN,
    MPCRT_ERRH_FILE,
    MPCRT_ERRH_SESSION,
} mpcrt_errh_kind_t;

typedef enum { MPCRT_ERRH_FATAL, MPCRT_ERRH_RETURN, MPCRT_ERRH_ABORT, MPCRT_ERRH_USER } mpcrt_errh_action_t;

typedef struct mpcrt_errhandler {
    mpcrt_object_t obj;
    mpcrt_errh_kind_t kind;
    mpcrt_errh_action_t action;
    /* User handlers: every kind's function takes (handle *, int *error_code, ...); the comm one is called
     * with a pointer to an int handle, the file one with a pointer to an MPI_File. */
    union {
        MPI_Comm_errhandler_function *comm;
        MPI_Win_errhandler_function *win;
        MPI_File_errhandler_function *file;
        MPI_Session_errhandler_function *session;
    } fn;
} mpcrt_errhandler_t;

/* The handler named by a handle (predefined or live user handle), NULL otherwise (MPI_ERR_ARG). */
static inline mpcrt_errhandler_t *mpcrt_errhandler_get(MPI_Errhandler handle)
{
    return (mpcrt_errhandler_t *)mpcrt_handle_lookup(MPCRT_OBJ_ERRHANDLER, handle);
}

/* MPI_ERRORS_ARE_FATAL, the initial handler of every predefined object. */
mpcrt_errhandler_t *mpcrt_errhandler_fatal(void);

/* Objects holding a handler (a communicator member's slot...) hold a reference. Predefined handlers are
 * not counted. */
static inline void mpcrt_errhandler_retain(mpcrt_errhandler_t *eh)
{
    mpcrt_object_retain(&eh->obj);
}
static inline void mpcrt_errhandler_release(mpcrt_errhandler_t *eh)
{
    if (eh)
        mpcrt_object_release(&eh->obj);
}

/* The handle MPI_*_get_errhandler gives the program for eh (the live user handle, counted, or a new one);
 * MPI_SUCCESS or MPI_ERR_NO_MEM. */
int mpcrt_errhandler_hand_out(mpcrt_errhandler_t *eh, MPI_Errhandler *handle);

/* Applies handler eh to an error `code` raised by `function` on the object `handle` (of the handler's
 * kind; `object` points to it for the user function). Prints the one-line report and ends the job for
 * FATAL and ABORT; otherwise returns the code the caller must return (a user handler may change it). */
int mpcrt_errhandler_apply(mpcrt_errhandler_t *eh, void *object, const char *function, int code,
                           const char *detail);

/* ------------------------------------------------------------------ user error classes and codes */

/* User classes and codes of a rank are numbered from MPCRT_FIRST_USER_CODE (just above MPI_ERR_LASTCODE,
 * so they never collide with a predefined one), in creation order, classes and codes in one sequence. They
 * are per rank, as they are per process in process mode (MPI_Add_error_class is local). */
#define MPCRT_FIRST_USER_CODE (MPI_ERR_LASTCODE + 1)

/* The class of a code of the calling rank (predefined or user); -1 if the code is not valid. */
int mpcrt_error_class_of(int code);
/* The text of a code of the calling rank into buf (MPI_MAX_ERROR_STRING bytes); false if not valid. */
bool mpcrt_error_text(int code, char *buf);
/* MPI_LASTUSEDCODE of the calling rank: the largest user code or class, else MPI_ERR_LASTCODE. */
int mpcrt_error_last_used(void);
/* Its address, for the MPI_LASTUSEDCODE attribute (stays valid and current for the rank's life). */
const int *mpcrt_error_last_used_ptr(void);

#endif
