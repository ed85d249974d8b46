/* Error classes, codes and strings: the predefined classes (every predefined code is its own class) and the
 * user-defined classes, codes and strings of each rank (MPI 4.0 section 9.5). In thread mode each rank has
 * its own table, as each process has in process mode, so that ranks adding classes in the same order get
 * the same values, and nothing one rank adds changes another's MPI_LASTUSEDCODE. */
#include "errhan.h"
#include "../../threads/sched.h"
#include "mpcrt.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int error_class; /* equal to the code itself for a class; FREE_SLOT once deleted (MPIX_Delete_error_*) */
    int ncodes;      /* classes: how many user codes have this class */
    char *text;      /* MPI_Add_error_string; NULL: none yet (the text is then empty) */
} user_code_t;

#define FREE_SLOT (-1)

struct mpcrt_errcodes {
    mpcrt_mutex_t lock; /* the rank's threads may add and read concurrently (leaf lock) */
    int count;          /* slots used so far: codes MPCRT_FIRST_USER_CODE + i for i < count */
    int capacity;
    int first_free;     /* no free slot below this index (deleted slots are reused lowest first) */
    user_code_t *codes;
    int last_used; /* MPI_LASTUSEDCODE */
};

/* The calling rank's table, created on first use; NULL before MPI is set up (only predefined codes). */
static struct mpcrt_errcodes *table(bool create)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self)
        return NULL;
    /* acquire: pairs with the release of the CAS below, so the table's fields are initialized. */
    struct mpcrt_errcodes *t = atomic_load_explicit(&self->errcodes, memory_order_acquire);
    if (t || !create)
        return t;
    struct mpcrt_errcodes *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    mpcrt_mutex_init(&fresh->lock);
    fresh->last_used = MPI_ERR_LASTCODE;
    /* Two threads of the rank may race here: the loser frees its copy. */
    if (!atomic_compare_exchange_strong_explicit(&self->errcodes, &t, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(fresh);
        return t;
    }
    return fresh;
}

static bool is_predefined(int code)
{
    return code >= 0 && mpcrt_mpi_class_text(code) != NULL;
}

/* Looks up a user code under the table's lock. */
static user_code_t *user_code(struct mpcrt_errcodes *t, int code)
{
    if (!t || code < MPCRT_FIRST_USER_CODE)
        return NULL;
    long index = (long)code - MPCRT_FIRST_USER_CODE;
    return index < t->count && t->codes[index].error_class != FREE_SLOT ? &t->codes[index] : NULL;
}

int mpcrt_error_class_of(int code)
{
    if (is_predefined(code))
        return code;
    struct mpcrt_errcodes *t = table(false);
    if (!t)
        return -1;
    mpcrt_mutex_lock(&t->lock);
    user_code_t *u = user_code(t, code);
    int cls = u ? u->error_class : -1;
    mpcrt_mutex_unlock(&t->lock);
    return cls;
}

bool mpcrt_error_text(int code, char *buf)
{
    const char *text = mpcrt_mpi_class_text(code);
    if (code >= 0 && text) {
        strncpy(buf, text, MPI_MAX_ERROR_STRING - 1);
        buf[MPI_MAX_ERROR_STRING - 1] = '\0';
        return true;
    }
    struct mpcrt_errcodes *t = table(false);
    if (!t)
        return false;
    mpcrt_mutex_lock(&t->lock);
    user_code_t *u = user_code(t, code);
    if (u) {
        /* A class or code without a string has the empty string (MPI 4.0 section 9.5). */
        strncpy(buf, u->text ? u->text : "", MPI_MAX_ERROR_STRING - 1);
        buf[MPI_MAX_ERROR_STRING - 1] = '\0';
    }
    mpcrt_mutex_unlock(&t->lock);
    return u != NULL;
}

int mpcrt_error_last_used(void)
{
    return *mpcrt_error_last_used_ptr();
}

const int *mpcrt_error_last_used_ptr(void)
{
    static const int no_user_codes = MPI_ERR_LASTCODE;
    struct mpcrt_errcodes *t = table(true);
    return t ? &t->last_used : &no_user_codes;
}

/* Adds a user code of class `cls` (-1: a new class, its own class) into *out. Returns MPI_SUCCESS or an
 * error class. The lowest free value is taken, so ranks that add (and delete) in the same order get the
 * same values. */
static int add_code(int cls, int *out)
{
    struct mpcrt_errcodes *t = table(true);
    if (!t)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    mpcrt_mutex_lock(&t->lock);
    int index = t->first_free;
    while (index < t->count && t->codes[index].error_class != FREE_SLOT)
        index++;
    if (index == t->count && t->count == t->capacity) {
        int capacity = t->capacity ? 2 * t->capacity : 16;
        user_code_t *codes = realloc(t->codes, sizeof *codes * (size_t)capacity);
        if (codes) {
            t->codes = codes;
            t->capacity = capacity;
        }
    }
    user_code_t *of_class = cls < 0 ? NULL : user_code(t, cls);
    if (index == t->capacity || index >= INT32_MAX - MPCRT_FIRST_USER_CODE) {
        rc = MPI_ERR_NO_MEM;
    } else {
        int code = MPCRT_FIRST_USER_CODE + index;
        t->codes[index] = (user_code_t){cls < 0 ? code : cls, 0, NULL};
        if (index == t->count)
            t->count++;
        t->first_free = index + 1;
        if (of_class)
            of_class->ncodes++;
        if (code > t->last_used)
            t->last_used = code;
        *out = code;
    }
    mpcrt_mutex_unlock(&t->lock);
    return rc;
}

int PMPI_Add_error_class(int *errorclass)
{
    static const char fn[] = "MPI_Add_error_class";
    if (!errorclass)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "errorclass is NULL");
    int rc = add_code(-1, errorclass);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "cannot add an error class");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Add_error_class)

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    static const char fn[] = "MPI_Add_error_code";
    if (!errorcode)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "errorcode is NULL");
    /* The class must be a predefined class or a user class (not a user code). */
    int cls = mpcrt_error_class_of(errorclass);
    if (cls < 0 || cls != errorclass || errorclass == MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%d is not an error class", errorclass);
    int rc = add_code(errorclass, errorcode);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "cannot add an error code");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Add_error_code)

int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char fn[] = "MPI_Add_error_string";
    if (!string)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "string is NULL");
    size_t len = strnlen(string, MPI_MAX_ERROR_STRING);
    if (len >= MPI_MAX_ERROR_STRING)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "the string is longer than MPI_MAX_ERROR_STRING - 1");
    if (is_predefined(errorcode))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               "the string of a predefined error code (%d) cannot be changed", errorcode);
    char *copy = strdup(string);
    if (!copy)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory for the string");
    struct mpcrt_errcodes *t = table(false);
    user_code_t *u = NULL;
    if (t) {
        mpcrt_mutex_lock(&t->lock);
        if ((u = user_code(t, errorcode))) {
            /* Setting it again replaces the string (MPI 4.0 section 9.5). */
            free(u->text);
            u->text = copy;
        }
        mpcrt_mutex_unlock(&t->lock);
    }
    if (!u) {
        free(copy);
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%d is not an error code", errorcode);
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Add_error_string)

/* MPI_Error_class and MPI_Error_string may be called before MPI_Init and after MPI_Finalize (MPI 4.0
 * section 11.4.1): the predefined codes need no state. */
int PMPI_Error_class(int errorcode, int *errorclass)
{
    if (!errorclass)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG, "errorclass is NULL");
    int cls = mpcrt_error_class_of(errorcode);
    if (cls < 0)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Error_class", MPI_ERR_ARG, "unknown error code %d",
                               errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Error_class)

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    if (!string || !resultlen)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG, "string or resultlen is NULL");
    char text[MPI_MAX_ERROR_STRING];
    if (!mpcrt_error_text(errorcode, text))
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Error_string", MPI_ERR_ARG, "unknown error code %d",
                               errorcode);
    size_t n = strlen(text);
    memcpy(string, text, n + 1);
    *resultlen = (int)n;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Error_string)

/* ------------------------------------------------------------------ MPICH 4.0.2 extensions */

/* MPIX_Delete_error_{string,code,class} (MPICH 4.0.2's ABI exports them; MPI 4.1 names them
 * MPI_Remove_error_*): a deleted value may be given out again by the next MPI_Add_error_*. */
typedef enum { DELETE_STRING, DELETE_CODE, DELETE_CLASS } delete_what_t;

static int delete_user(const char *fn, int code, delete_what_t what)
{
    struct mpcrt_errcodes *t = table(false);
    const char *problem = NULL;
    if (!t)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%d is not a user-defined error code", code);
    mpcrt_mutex_lock(&t->lock);
    user_code_t *u = user_code(t, code);
    if (!u)
        problem = "is not a user-defined error code or class";
    else if (what == DELETE_CODE && u->error_class == code)
        problem = "is an error class (MPIX_Delete_error_class)";
    else if (what == DELETE_CLASS && u->error_class != code)
        problem = "is an error code, not a class";
    else if (what == DELETE_CLASS && u->ncodes > 0)
        problem = "still has error codes";
    if (!problem) {
        free(u->text);
        u->text = NULL;
        if (what != DELETE_STRING) {
            user_code_t *of_class = what == DELETE_CODE ? user_code(t, u->error_class) : NULL;
            if (of_class)
                of_class->ncodes--;
            long index = u - t->codes;
            u->error_class = FREE_SLOT;
            if (index < t->first_free)
                t->first_free = (int)index;
            if (code == t->last_used) {
                t->last_used = MPI_ERR_LASTCODE;
                for (long i = index - 1; i >= 0; i--) {
                    if (t->codes[i].error_class != FREE_SLOT) {
                        t->last_used = MPCRT_FIRST_USER_CODE + (int)i;
                        break;
                    }
                }
            }
        }
    }
    mpcrt_mutex_unlock(&t->lock);
    if (problem)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "%d %s", code, problem);
    return MPI_SUCCESS;
}

int PMPIX_Delete_error_string(int errorcode)
{
    return delete_user("MPIX_Delete_error_string", errorcode, DELETE_STRING);
}
#pragma weak MPIX_Delete_error_string = PMPIX_Delete_error_string

int PMPIX_Delete_error_code(int errorcode)
{
    return delete_user("MPIX_Delete_error_code", errorcode, DELETE_CODE);
}
#pragma weak MPIX_Delete_error_code = PMPIX_Delete_error_code

int PMPIX_Delete_error_class(int errorclass)
{
    return delete_user("MPIX_Delete_error_class", errorclass, DELETE_CLASS);
}
#pragma weak MPIX_Delete_error_class = PMPIX_Delete_error_class
