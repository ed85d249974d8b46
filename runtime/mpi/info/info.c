/* Info objects: an ordered array of (key, value) strings. Objects are small (a few hints), so lookups are
 * linear scans. */
#include "info.h"

#include <stdlib.h>
#include <string.h>

static void destroy_info(mpcrt_object_t *obj)
{
    mpcrt_info_t *info = (mpcrt_info_t *)obj;
    for (int i = 0; i < info->nkeys; i++) {
        free(info->entries[i].key);
        free(info->entries[i].value);
    }
    free(info->entries);
    free(info);
}

mpcrt_info_t *mpcrt_info_new(const mpcrt_info_t *src)
{
    mpcrt_info_t *info = calloc(1, sizeof *info);
    if (!info)
        return NULL;
    mpcrt_object_init(&info->obj, MPCRT_OBJ_INFO, destroy_info);
    for (int i = 0; src && i < src->nkeys; i++) {
        if (mpcrt_info_set(info, src->entries[i].key, src->entries[i].value) != MPI_SUCCESS) {
            mpcrt_info_release(info);
            return NULL;
        }
    }
    return info;
}

int mpcrt_info_publish(mpcrt_info_t *info, MPI_Info *handle)
{
    if (mpcrt_handle_register(&info->obj, handle) != 0) {
        mpcrt_info_release(info);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int find(const mpcrt_info_t *info, const char *key)
{
    for (int i = 0; i < info->nkeys; i++)
        if (strcmp(info->entries[i].key, key) == 0)
            return i;
    return -1;
}

const char *mpcrt_info_value(const mpcrt_info_t *info, const char *key)
{
    int i = info ? find(info, key) : -1;
    return i >= 0 ? info->entries[i].value : NULL;
}

int mpcrt_info_set(mpcrt_info_t *info, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v)
        return MPI_ERR_NO_MEM;
    int i = find(info, key);
    if (i >= 0) {
        /* A key set again keeps its place in the order (MPI 4.0 section 10: it replaces the value). */
        free(info->entries[i].value);
        info->entries[i].value = v;
        return MPI_SUCCESS;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    if (info->nkeys == info->capacity) {
        int capacity = info->capacity ? 2 * info->capacity : 8;
        mpcrt_info_entry_t *entries = realloc(info->entries, sizeof *entries * (size_t)capacity);
        if (!entries) {
            free(k);
            free(v);
            return MPI_ERR_NO_MEM;
        }
        info->entries = entries;
        info->capacity = capacity;
    }
    info->entries[info->nkeys++] = (mpcrt_info_entry_t){k, v};
    return MPI_SUCCESS;
}

int mpcrt_info_merge(mpcrt_info_t **dst, const mpcrt_info_t *src)
{
    if (!*dst && !(*dst = mpcrt_info_new(NULL)))
        return MPI_ERR_NO_MEM;
    for (int i = 0; src && i < src->nkeys; i++) {
        int rc = mpcrt_info_set(*dst, src->entries[i].key, src->entries[i].value);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Deletes key; false if it was not set. */
bool mpcrt_info_delete(mpcrt_info_t *info, const char *key)
{
    int i = find(info, key);
    if (i < 0)
        return false;
    free(info->entries[i].key);
    free(info->entries[i].value);
    memmove(&info->entries[i], &info->entries[i + 1], sizeof *info->entries * (size_t)(info->nkeys - i - 1));
    info->nkeys--;
    return true;
}

int mpcrt_info_check_key(const char *key)
{
    if (!key)
        return MPI_ERR_ARG;
    size_t len = strnlen(key, MPI_MAX_INFO_KEY + 1);
    return len == 0 || len > MPI_MAX_INFO_KEY ? MPI_ERR_INFO_KEY : MPI_SUCCESS;
}

int mpcrt_info_check_value(const char *value)
{
    if (!value)
        return MPI_ERR_ARG;
    return strnlen(value, MPI_MAX_INFO_VAL + 1) > MPI_MAX_INFO_VAL ? MPI_ERR_INFO_VALUE : MPI_SUCCESS;
}
