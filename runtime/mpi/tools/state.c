/* MPI_T_init_thread and MPI_T_finalize (MPI 4.0 section 15.3.4): a process-wide count of initializations,
 * callable before MPI_Init and after MPI_Finalize from any thread, and the registry of the tool objects
 * (handles, sessions) that the last MPI_T_finalize frees. */
#include "tools_internal.h"
#include "../../threads/config.h"

#include <stdlib.h>
#include <string.h>

/* Leaf lock: nothing else is taken under it. */
static mpcrt_mutex_t tools_lock = MPCRT_MUTEX_INITIALIZER;
/* Written only under tools_lock; read without it by mpcrt_tools_initialized. */
static _Atomic int init_count;
static tools_object_t *live_objects;

bool mpcrt_tools_initialized(void)
{
    /* relaxed: the count guards no data of its own (the configuration is loaded under its own once and
     * objects are looked up under the lock); a call racing with the last finalize is erroneous anyway. */
    return atomic_load_explicit(&init_count, memory_order_relaxed) > 0;
}

void mpcrt_tools_lock(void)
{
    mpcrt_mutex_lock(&tools_lock);
}

void mpcrt_tools_unlock(void)
{
    mpcrt_mutex_unlock(&tools_lock);
}

bool mpcrt_tools_initialized_locked(void)
{
    return atomic_load_explicit(&init_count, memory_order_relaxed) > 0;
}

void mpcrt_tools_register(tools_object_t *obj, tools_kind_t kind)
{
    obj->kind = kind;
    obj->next = live_objects;
    live_objects = obj;
}

tools_object_t *mpcrt_tools_find(const void *handle, tools_kind_t kind)
{
    if (!handle)
        return NULL;
    for (tools_object_t *obj = live_objects; obj; obj = obj->next)
        if ((const void *)obj == handle)
            return obj->kind == kind ? obj : NULL;
    return NULL;
}

void mpcrt_tools_unregister(tools_object_t *obj)
{
    for (tools_object_t **link = &live_objects; *link; link = &(*link)->next)
        if (*link == obj) {
            *link = obj->next;
            return;
        }
}

void mpcrt_tools_copy_string(const char *text, char *buf, int *len)
{
    if (!len)
        return;
    size_t full = strlen(text) + 1;
    if (buf && *len > 0) {
        size_t n = full <= (size_t)*len ? full - 1 : (size_t)*len - 1;
        memcpy(buf, text, n);
        buf[n] = '\0';
    }
    *len = (int)full;
}

int PMPI_T_init_thread(int required, int *provided)
{
    (void)required; /* every level is supported: the interface is under tools_lock or reads constants */
    if (!provided)
        return MPI_T_ERR_INVALID;
    mpcrt_config_load();
    mpcrt_tools_lock();
    int count = atomic_load_explicit(&init_count, memory_order_relaxed);
    if (count == __INT_MAX__) {
        mpcrt_tools_unlock();
        return MPI_T_ERR_CANNOT_INIT;
    }
    atomic_store_explicit(&init_count, count + 1, memory_order_relaxed);
    mpcrt_tools_unlock();
    *provided = MPI_THREAD_MULTIPLE;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_init_thread)

int PMPI_T_finalize(void)
{
    mpcrt_tools_lock();
    int count = atomic_load_explicit(&init_count, memory_order_relaxed);
    if (count == 0) {
        mpcrt_tools_unlock();
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    atomic_store_explicit(&init_count, count - 1, memory_order_relaxed);
    tools_object_t *orphans = NULL;
    if (count == 1) {
        /* The interface is no longer initialized: handles and sessions the tool did not free die with it
         * (a later MPI_T_init_thread starts from none). */
        orphans = live_objects;
        live_objects = NULL;
    }
    mpcrt_tools_unlock();
    while (orphans) {
        tools_object_t *next = orphans->next;
        free(orphans);
        orphans = next;
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_finalize)

int mpcrt_tools_return_count(int *out, int count)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!out)
        return MPI_T_ERR_INVALID;
    *out = count;
    return MPI_SUCCESS;
}
