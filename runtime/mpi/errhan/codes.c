/* Error classes, codes and strings: the predefined classes (every predefined code is its own class) and the
 * user-defined classes, codes and strings of each rank (MPI 4.0 section 9.5). In thread mode each rank has
 * its own table, as each process has in process mode, so that ranks adding classes in the same order get
 * the same values, and nothing one rank adds changes another's MPI_LASTUSEDCODE. */
#include "errhan.h"
#include "../../threads/sched.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int error_class; /* equal to the code itself for a class */
    char *text;      /* MPI_Add_error_string; NULL: none yet (the text is then empty) */
} user_code_t;

struct mpcrt_errcodes {
    mpcrt_mutex_t lock; /* the rank's threads may add and read concurrently (leaf lock) */
    int count;          /* user codes and classes in use: MPCRT_FIRST_USER_CODE + i for i < count */
    int capacity;
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
    return index < t->count ? &t->codes[index] : NULL;
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
 * error class. */
static int add_code(int cls, int *out)
{
    struct mpcrt_errcodes *t = table(true);
    if (!t)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    mpcrt_mutex_lock(&t->lock);
    if (t->count == t->capacity) {
        int capacity = t->capacity ? 2 * t->capacity : 16;
        user_code_t *codes = realloc(t->codes, sizeof *codes * (size_t)capacity);
        if (codes) {
            t->codes = codes;
            t->capacity = capacity;
        }
    }
    if (t->count == t->capacity || t->count >= INT32_MAX - MPCRT_FIRST_USER_CODE) {
        rc = MPI_ERR_NO_MEM;
    } else {
        int code = MPCRT_FIRST_USER_CODE + t->count;
        t->codes[t->count++] = (user_code_t){cls < 0 ? code : cls, NULL};
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
