/* Control variables (MPI 4.0 section 15.3.6): mpcrt's tunables, one per entry of the configuration table
 * (runtime/threads/config.c, same order), named by their environment variable. The runtime reads them
 * once when it starts, so their scope is MPI_T_SCOPE_CONSTANT: a read returns the value in effect and a
 * write fails with MPI_T_ERR_CVAR_SET_NEVER. */
#include "tools_internal.h"
#include "../../threads/config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct MPIR_T_cvar_handle_s {
    tools_object_t obj; /* first: the registry holds handles by this address */
    mpcrt_config_id_t id;
};

static bool valid_index(int index)
{
    return index >= 0 && index < mpcrt_config_count();
}

/* Table 15.3 of the standard lists the datatypes a tool must handle: sizes are byte counts, never
 * negative, so MPI_UNSIGNED_LONG_LONG; a bool is an MPI_INT 0 or 1. */
static MPI_Datatype datatype_of(mpcrt_config_type_t type)
{
    switch (type) {
    case MPCRT_CONFIG_SIZE:
        return MPI_UNSIGNED_LONG_LONG;
    case MPCRT_CONFIG_STRING:
        return MPI_CHAR;
    case MPCRT_CONFIG_INT:
    case MPCRT_CONFIG_BOOL:
        break;
    }
    return MPI_INT;
}

/* Elements of the value: 1, or for a string its length with the terminator (MPI_CHAR values are null
 * terminated, section 15.3.5). */
static int count_of(mpcrt_config_id_t id)
{
    mpcrt_config_desc_t d;
    mpcrt_config_describe(id, &d);
    return d.type == MPCRT_CONFIG_STRING ? (int)strlen(mpcrt_config_str(id)) + 1 : 1;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    return mpcrt_tools_return_count(num_cvar, mpcrt_config_count());
}
MPCRT_PMPI_ALIAS(T_cvar_get_num)

/* Any output argument may be NULL: it is then not returned. */
int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype,
                         MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    mpcrt_config_desc_t d;
    mpcrt_config_describe(cvar_index, &d);
    mpcrt_tools_copy_string(d.name, name, name_len);
    mpcrt_tools_copy_string(d.doc, desc, desc_len);
    if (verbosity)
        *verbosity = MPI_T_VERBOSITY_USER_BASIC; /* documented settings of mpcrun --show-config */
    if (datatype)
        *datatype = datatype_of(d.type);
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT; /* process-wide settings */
    if (scope)
        *scope = MPI_T_SCOPE_CONSTANT;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_cvar_get_info)

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!cvar_index)
        return MPI_T_ERR_INVALID;
    if (name) {
        for (int i = 0; i < mpcrt_config_count(); i++) {
            mpcrt_config_desc_t d;
            mpcrt_config_describe(i, &d);
            if (strcmp(d.name, name) == 0) {
                *cvar_index = i;
                return MPI_SUCCESS;
            }
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}
MPCRT_PMPI_ALIAS(T_cvar_get_index)

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count)
{
    (void)obj_handle; /* ignored for MPI_T_BIND_NO_OBJECT, the binding of every variable */
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_index(cvar_index))
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_T_ERR_INVALID;
    struct MPIR_T_cvar_handle_s *h = malloc(sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->id = cvar_index;
    mpcrt_tools_lock();
    if (!mpcrt_tools_initialized_locked()) { /* the last MPI_T_finalize ran meanwhile */
        mpcrt_tools_unlock();
        free(h);
        return MPI_T_ERR_NOT_INITIALIZED;
    }
    mpcrt_tools_register(&h->obj, TOOLS_CVAR_HANDLE);
    mpcrt_tools_unlock();
    *handle = h;
    *count = count_of(cvar_index);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!handle)
        return MPI_T_ERR_INVALID;
    mpcrt_tools_lock();
    tools_object_t *obj = mpcrt_tools_find(*handle, TOOLS_CVAR_HANDLE);
    if (obj)
        mpcrt_tools_unregister(obj);
    mpcrt_tools_unlock();
    if (!obj)
        return MPI_T_ERR_INVALID_HANDLE;
    free(obj);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_cvar_handle_free)

/* The variable a live handle names, or -1 (MPI_T_ERR_INVALID_HANDLE). */
static int variable_of(MPI_T_cvar_handle handle)
{
    mpcrt_tools_lock();
    tools_object_t *obj = mpcrt_tools_find(handle, TOOLS_CVAR_HANDLE);
    int id = obj ? (int)((struct MPIR_T_cvar_handle_s *)obj)->id : -1;
    mpcrt_tools_unlock();
    return id;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    int id = variable_of(handle);
    if (id < 0)
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_T_ERR_INVALID;
    mpcrt_config_desc_t d;
    mpcrt_config_describe(id, &d);
    switch (d.type) {
    case MPCRT_CONFIG_INT:
    case MPCRT_CONFIG_BOOL: {
        /* the table accepts any non-negative long; no int tunable makes sense beyond INT_MAX */
        long value = mpcrt_config_int(id);
        *(int *)buf = value > INT_MAX ? INT_MAX : (int)value;
        break;
    }
    case MPCRT_CONFIG_SIZE:
        *(unsigned long long *)buf = (unsigned long long)mpcrt_config_int(id);
        break;
    case MPCRT_CONFIG_STRING: {
        const char *text = mpcrt_config_str(id);
        memcpy(buf, text, strlen(text) + 1); /* the count MPI_T_cvar_handle_alloc returned */
        break;
    }
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)buf;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (variable_of(handle) < 0)
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_CVAR_SET_NEVER; /* read once at start: changing one now would not be seen */
}
MPCRT_PMPI_ALIAS(T_cvar_write)
