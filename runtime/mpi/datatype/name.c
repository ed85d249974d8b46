/* MPI API: datatype names (MPI 4.0 section 7.8). Predefined types start with their MPI names; user types
 * with an empty name (duplicates do not inherit names). One lock serializes all name changes and reads:
 * they are rare and short. */
#include "datatype_internal.h"

#include <string.h>

static mpcrt_mutex_t name_lock = MPCRT_MUTEX_INITIALIZER;

int PMPI_Type_set_name(MPI_Datatype datatype, const char *type_name)
{
    static const char fn[] = "MPI_Type_set_name";
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!type_name)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "type_name is NULL");
    mpcrt_mutex_lock(&name_lock);
    /* Longer names are truncated to MPI_MAX_OBJECT_NAME - 1 characters. */
    strncpy(dt->name, type_name, MPI_MAX_OBJECT_NAME - 1);
    dt->name[MPI_MAX_OBJECT_NAME - 1] = '\0';
    mpcrt_mutex_unlock(&name_lock);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char *type_name, int *resultlen)
{
    static const char fn[] = "MPI_Type_get_name";
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!type_name || !resultlen)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "type_name or resultlen is NULL");
    mpcrt_mutex_lock(&name_lock);
    strcpy(type_name, dt->name);
    mpcrt_mutex_unlock(&name_lock);
    *resultlen = (int)strlen(type_name);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_get_name)
