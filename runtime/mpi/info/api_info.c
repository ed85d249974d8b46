/* MPI API: the MPI_Info functions (MPI 4.0 chapter 10). They need no communicator, so their errors are
 * raised as errors without an object (MPI_COMM_SELF's handler, core/errors.c); they may be called before
 * MPI_Init and after MPI_Finalize. */
#include "info.h"

#include <string.h>

static int info_arg(const char *fn, MPI_Info handle, mpcrt_info_t **info)
{
    if (!(*info = mpcrt_info_get(handle)))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO,
                               handle == MPI_INFO_NULL ? "MPI_INFO_NULL" : "invalid info object 0x%x",
                               (unsigned)handle);
    return MPI_SUCCESS;
}

static int key_arg(const char *fn, const char *key)
{
    int rc = mpcrt_info_check_key(key);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc,
                               !key ? "key is NULL"
                                    : !key[0] ? "the key is empty"
                                              : "the key is longer than MPI_MAX_INFO_KEY (%d)", MPI_MAX_INFO_KEY);
    return MPI_SUCCESS;
}

int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Info_create", MPI_ERR_ARG, "info is NULL");
    mpcrt_info_t *made = mpcrt_info_new(NULL);
    int rc = made ? mpcrt_info_publish(made, info) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Info_create", rc, "no memory for an info object");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_create)

int PMPI_Info_dup(MPI_Info handle, MPI_Info *newinfo)
{
    static const char fn[] = "MPI_Info_dup";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!newinfo)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "newinfo is NULL");
    mpcrt_info_t *made = mpcrt_info_new(info);
    rc = made ? mpcrt_info_publish(made, newinfo) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "no memory for an info object");
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_dup)

int PMPI_Info_free(MPI_Info *handle)
{
    static const char fn[] = "MPI_Info_free";
    if (!handle)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "info is NULL");
    mpcrt_info_t *info;
    int rc = info_arg(fn, *handle, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info->obj.flags & MPCRT_OBJECT_PREDEFINED)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO, "MPI_INFO_ENV cannot be freed");
    mpcrt_handle_free(MPCRT_OBJ_INFO, *handle);
    *handle = MPI_INFO_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_free)

int PMPI_Info_set(MPI_Info handle, const char *key, const char *value)
{
    static const char fn[] = "MPI_Info_set";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc == MPI_SUCCESS)
        rc = key_arg(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = mpcrt_info_check_value(value)) != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc,
                               value ? "the value is longer than MPI_MAX_INFO_VAL (%d)" : "value is NULL",
                               MPI_MAX_INFO_VAL);
    if (info->read_only)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO, "MPI_INFO_ENV is read-only (set a copy: MPI_Info_dup)");
    if ((rc = mpcrt_info_set(info, key, value)) != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, rc, "no memory for the key %s", key);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_set)

int PMPI_Info_delete(MPI_Info handle, const char *key)
{
    static const char fn[] = "MPI_Info_delete";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc == MPI_SUCCESS)
        rc = key_arg(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (info->read_only)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO, "MPI_INFO_ENV is read-only (change a copy: MPI_Info_dup)");
    if (!mpcrt_info_delete(info, key))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO_NOKEY, "the key %s is not set", key);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_delete)

int PMPI_Info_get(MPI_Info handle, const char *key, int valuelen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc == MPI_SUCCESS)
        rc = key_arg(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (valuelen < 0 || !flag || (!value && valuelen > 0))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG,
                               valuelen < 0 ? "valuelen is negative (%d)" : "value or flag is NULL", valuelen);
    const char *v = mpcrt_info_value(info, key);
    *flag = v != NULL;
    if (v && value) {
        /* valuelen excludes the terminating NUL (the buffer holds valuelen + 1 bytes): a longer value is
         * truncated (MPI 4.0 section 10). */
        size_t n = strnlen(v, (size_t)valuelen);
        memcpy(value, v, n);
        value[n] = '\0';
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_get)

int PMPI_Info_get_string(MPI_Info handle, const char *key, int *buflen, char *value, int *flag)
{
    static const char fn[] = "MPI_Info_get_string";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc == MPI_SUCCESS)
        rc = key_arg(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buflen || !flag || *buflen < 0 || (!value && *buflen > 0))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "buflen, value or flag is invalid");
    const char *v = mpcrt_info_value(info, key);
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    /* The value up to buflen - 1 characters; buflen then holds the size the whole value needs, NUL
     * included (MPI 4.0 section 10: call with buflen 0 to learn it). */
    size_t len = strlen(v);
    if (*buflen > 0) {
        size_t n = len < (size_t)*buflen - 1 ? len : (size_t)*buflen - 1;
        memcpy(value, v, n);
        value[n] = '\0';
    }
    *buflen = (int)len + 1;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_get_string)

int PMPI_Info_get_valuelen(MPI_Info handle, const char *key, int *valuelen, int *flag)
{
    static const char fn[] = "MPI_Info_get_valuelen";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc == MPI_SUCCESS)
        rc = key_arg(fn, key);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!valuelen || !flag)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "valuelen or flag is NULL");
    const char *v = mpcrt_info_value(info, key);
    *flag = v != NULL;
    if (v)
        *valuelen = (int)strlen(v); /* without the NUL */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_get_valuelen)

int PMPI_Info_get_nkeys(MPI_Info handle, int *nkeys)
{
    mpcrt_info_t *info;
    int rc = info_arg("MPI_Info_get_nkeys", handle, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!nkeys)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Info_get_nkeys", MPI_ERR_ARG, "nkeys is NULL");
    *nkeys = info->nkeys;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_get_nkeys)

int PMPI_Info_get_nthkey(MPI_Info handle, int n, char *key)
{
    static const char fn[] = "MPI_Info_get_nthkey";
    mpcrt_info_t *info;
    int rc = info_arg(fn, handle, &info);
    if (rc != MPI_SUCCESS)
        return rc;
    if (n < 0 || n >= info->nkeys)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "n (%d) is not in [0, %d)", n, info->nkeys);
    if (!key)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "key is NULL");
    strcpy(key, info->entries[n].key); /* at most MPI_MAX_INFO_KEY characters and the NUL */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Info_get_nthkey)
