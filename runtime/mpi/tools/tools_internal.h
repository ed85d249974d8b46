/* Private interface of the MPI tool information interface (runtime/mpi/tools, MPI 4.0 chapter 15): the
 * initialization count, the registry of live tool objects, and the string convention shared by every
 * MPI_T_*_get_info function. */
#ifndef MPCRT_MPI_TOOLS_INTERNAL_H
#define MPCRT_MPI_TOOLS_INTERNAL_H

#include "../mpi_internal.h"

#include <stdbool.h>

/* Objects a tool holds handles to. MPI_T handles are pointers (MPICH ABI): a handle is valid when the
 * registry holds it, so a freed, stale or garbage handle is rejected without being dereferenced. */
typedef enum { TOOLS_CVAR_HANDLE = 1, TOOLS_PVAR_SESSION } tools_kind_t;

typedef struct tools_object {
    struct tools_object *next;
    tools_kind_t kind;
} tools_object_t;

/* Whether the interface is initialized (more MPI_T_init_thread than MPI_T_finalize calls so far). Every
 * MPI_T function but init checks it first and returns MPI_T_ERR_NOT_INITIALIZED when it is not. */
bool mpcrt_tools_initialized(void);

/* The registry and the count are under one leaf lock, so that a handle cannot be created after the last
 * MPI_T_finalize emptied the registry. Functions that create, find or free objects hold it around the
 * whole operation (tools calls are rare, never on an MPI fast path). */
void mpcrt_tools_lock(void);
void mpcrt_tools_unlock(void);
/* Under the lock: the same as mpcrt_tools_initialized. */
bool mpcrt_tools_initialized_locked(void);
/* Under the lock. */
void mpcrt_tools_register(tools_object_t *obj, tools_kind_t kind);
/* Under the lock: the object a handle names, NULL when no live object of that kind has this address. */
tools_object_t *mpcrt_tools_find(const void *handle, tools_kind_t kind);
/* Under the lock: removes obj from the registry (the caller frees it). */
void mpcrt_tools_unregister(tools_object_t *obj);

/* The body of every MPI_T_*_get_num: the count of a kind of object, once the interface is initialized. */
int mpcrt_tools_return_count(int *out, int count);

/* The convention for returning strings (MPI 4.0 section 15.3.3): with len NULL nothing is returned;
 * otherwise *len becomes strlen(text) + 1, and unless buf is NULL or *len was 0, at most *len - 1
 * characters and a null terminator are written to buf (truncated when the text does not fit: the full
 * length tells the tool how much to allocate). */
void mpcrt_tools_copy_string(const char *text, char *buf, int *len);

#endif
