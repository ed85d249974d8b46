/* Interface of runtime/mpi/info: MPI_Info objects (ordered key/value string pairs, MPI 4.0 chapter 10),
 * the predefined MPI_INFO_ENV, and the hints other objects keep (communicators: MPI_Comm_set_info). */
#ifndef MPCRT_MPI_INFO_H
#define MPCRT_MPI_INFO_H

#include "../core/handle.h"
#include "../mpi_internal.h"

typedef struct {
    char *key;
    char *value;
} mpcrt_info_entry_t;

typedef struct mpcrt_info {
    mpcrt_object_t obj;
    int nkeys, capacity;
    mpcrt_info_entry_t *entries; /* in the order the keys were first set (MPI_Info_get_nthkey) */
    bool read_only;              /* MPI_INFO_ENV: shared by every rank of the process */
} mpcrt_info_t;

/* The info object named by a handle (MPI_INFO_ENV included), NULL otherwise (MPI_ERR_INFO). Not
 * thread-safe against concurrent changes of the same object: MPI leaves that to the program. */
mpcrt_info_t *mpcrt_info_get(MPI_Info handle);

/* A new, unregistered object with one reference: empty, or a copy of src (src may be NULL). NULL when out
 * of memory. */
mpcrt_info_t *mpcrt_info_new(const mpcrt_info_t *src);
/* Gives info a handle (the handle owns the reference). Returns MPI_SUCCESS or MPI_ERR_NO_MEM (the
 * reference is then dropped). */
int mpcrt_info_publish(mpcrt_info_t *info, MPI_Info *handle);
static inline void mpcrt_info_release(mpcrt_info_t *info)
{
    if (info)
        mpcrt_object_release(&info->obj);
}

/* Sets key to value (copies both); the caller checked their lengths. MPI_SUCCESS or MPI_ERR_NO_MEM. */
int mpcrt_info_set(mpcrt_info_t *info, const char *key, const char *value);
/* Deletes key; false if it was not set. */
bool mpcrt_info_delete(mpcrt_info_t *info, const char *key);
/* The value of key, NULL when not set. */
const char *mpcrt_info_value(const mpcrt_info_t *info, const char *key);
/* Sets every key of src in *dst (created when NULL). MPI_SUCCESS or MPI_ERR_NO_MEM. */
int mpcrt_info_merge(mpcrt_info_t **dst, const mpcrt_info_t *src);

/* Checks a key or a value given by the program: MPI_SUCCESS or the error class (MPI_ERR_ARG for NULL,
 * MPI_ERR_INFO_KEY for an empty key or one longer than MPI_MAX_INFO_KEY, MPI_ERR_INFO_VALUE for a value
 * longer than MPI_MAX_INFO_VAL). */
int mpcrt_info_check_key(const char *key);
int mpcrt_info_check_value(const char *value);

#endif
