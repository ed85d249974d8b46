/* Events and their sources (MPI 4.0 sections 15.3.8 and 15.3.8.1). No event types are exposed yet, so no
 * registration can be allocated and no instance is ever handed to a callback: every registration and
 * instance handle is invalid. There is no source either: a source only timestamps the instances of
 * events, and MPI_T_source_get_info would hand out an MPI_Info for a clock no event uses. */
#include "tools_internal.h"

/* The common answer of the functions that take an index, a registration or an instance. */
static int nothing_exists(int error)
{
    return mpcrt_tools_initialized() ? error : MPI_T_ERR_NOT_INITIALIZED;
}

int PMPI_T_event_get_num(int *num_events)
{
    return mpcrt_tools_return_count(num_events, 0);
}
MPCRT_PMPI_ALIAS(T_event_get_num)

int PMPI_T_event_get_info(int event_index, char *name, int *name_len, int *verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[],
                          int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len,
                          int *bind)
{
    (void)event_index, (void)name, (void)name_len, (void)verbosity, (void)array_of_datatypes;
    (void)array_of_displacements, (void)num_elements, (void)enumtype, (void)info, (void)desc, (void)desc_len;
    (void)bind;
    return nothing_exists(MPI_T_ERR_INVALID_INDEX);
}
MPCRT_PMPI_ALIAS(T_event_get_info)

int PMPI_T_event_get_index(const char *name, int *event_index)
{
    (void)name;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    return event_index ? MPI_T_ERR_INVALID_NAME : MPI_T_ERR_INVALID;
}
MPCRT_PMPI_ALIAS(T_event_get_index)

int PMPI_T_event_handle_alloc(int event_index, void *obj_handle, MPI_Info info,
                              MPI_T_event_registration *event_registration)
{
    (void)event_index, (void)obj_handle, (void)info, (void)event_registration;
    return nothing_exists(MPI_T_ERR_INVALID_INDEX);
}
MPCRT_PMPI_ALIAS(T_event_handle_alloc)

int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info info)
{
    (void)event_registration, (void)info;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_handle_set_info)

int PMPI_T_event_handle_get_info(MPI_T_event_registration event_registration, MPI_Info *info_used)
{
    (void)event_registration, (void)info_used;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_handle_get_info)

int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info, void *user_data, MPI_T_event_cb_function *event_cb_function)
{
    (void)event_registration, (void)cb_safety, (void)info, (void)user_data, (void)event_cb_function;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_register_callback)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info info)
{
    (void)event_registration, (void)cb_safety, (void)info;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_callback_set_info)

int PMPI_T_event_callback_get_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info *info_used)
{
    (void)event_registration, (void)cb_safety, (void)info_used;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_callback_get_info)

int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void *user_data,
                             MPI_T_event_free_cb_function *free_cb_function)
{
    (void)event_registration, (void)user_data, (void)free_cb_function;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_handle_free)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function *dropped_cb_function)
{
    (void)event_registration, (void)dropped_cb_function;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_set_dropped_handler)

int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void *buffer)
{
    (void)event_instance, (void)element_index, (void)buffer;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void *buffer)
{
    (void)event_instance, (void)buffer;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count *event_timestamp)
{
    (void)event_instance, (void)event_timestamp;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int *source_index)
{
    (void)event_instance, (void)source_index;
    return nothing_exists(MPI_T_ERR_INVALID_HANDLE);
}
MPCRT_PMPI_ALIAS(T_event_get_source)

int PMPI_T_source_get_num(int *num_sources)
{
    return mpcrt_tools_return_count(num_sources, 0);
}
MPCRT_PMPI_ALIAS(T_source_get_num)

int PMPI_T_source_get_info(int source_index, char *name, int *name_len, char *desc, int *desc_len,
                           MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks,
                           MPI_Info *info)
{
    (void)source_index, (void)name, (void)name_len, (void)desc, (void)desc_len, (void)ordering;
    (void)ticks_per_second, (void)max_ticks, (void)info;
    return nothing_exists(MPI_T_ERR_INVALID_INDEX);
}
MPCRT_PMPI_ALIAS(T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count *timestamp)
{
    (void)source_index, (void)timestamp;
    return nothing_exists(MPI_T_ERR_INVALID_INDEX);
}
MPCRT_PMPI_ALIAS(T_source_get_timestamp)
