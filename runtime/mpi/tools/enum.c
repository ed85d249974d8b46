/* Enumerations (MPI 4.0 section 15.3.5): no variable is an enumeration yet (every cvar_get_info returns
 * MPI_T_ENUM_NULL), so every enumeration handle, MPI_T_ENUM_NULL included, is invalid. */
#include "tools_internal.h"

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int *num, char *name, int *name_len)
{
    (void)enumtype, (void)num, (void)name, (void)name_len;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    return MPI_T_ERR_INVALID_HANDLE;
}
MPCRT_PMPI_ALIAS(T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int *value, char *name, int *name_len)
{
    (void)enumtype, (void)indx, (void)value, (void)name, (void)name_len;
    if (!mpcrt_tools_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    return MPI_T_ERR_INVALID_HANDLE;
}
MPCRT_PMPI_ALIAS(T_enum_get_item)
