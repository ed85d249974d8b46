/* MPI API: decoding datatypes (MPI 4.0 section 5.1.13): MPI_Type_get_envelope and MPI_Type_get_contents,
 * and their large-count `_c` forms. Predefined types (the pair types included) are MPI_COMBINER_NAMED and
 * have no contents. Inner types come back as the predefined handle for predefined types and as a new handle
 * for derived ones, which the caller must free (it names the same object, held by one more reference). */
#include "datatype_internal.h"

#include <string.h>

/* Types built with a `_c` constructor keep their counts in the large-count array (n_counts > 0). */
static bool is_large(const mpcrt_datatype_t *dt)
{
    return dt->n_counts > 0;
}

int PMPI_Type_get_envelope(MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes,
                           int *combiner)
{
    static const char fn[] = "MPI_Type_get_envelope";
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_integers || !num_addresses || !num_datatypes || !combiner)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an output argument is NULL");
    if (is_large(dt))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE,
                               "the datatype was built by a large-count constructor: use "
                               "MPI_Type_get_envelope_c");
    *num_integers = dt->n_ints;
    *num_addresses = dt->n_aints;
    *num_datatypes = dt->n_types;
    *combiner = dt->combiner;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_get_envelope)

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count *num_integers, MPI_Count *num_addresses,
                             MPI_Count *num_large_counts, MPI_Count *num_datatypes, int *combiner)
{
    static const char fn[] = "MPI_Type_get_envelope_c";
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an output argument is NULL");
    *num_integers = dt->n_ints;
    *num_addresses = dt->n_aints;
    *num_large_counts = dt->n_counts;
    *num_datatypes = dt->n_types;
    *combiner = dt->combiner;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_get_envelope_c)

static int contents(const char *fn, MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                    MPI_Count max_large_counts, MPI_Count max_datatypes, int *integers, MPI_Aint *addresses,
                    MPI_Count *large_counts, MPI_Datatype *datatypes, bool large_form)
{
    mpcrt_datatype_t *dt;
    int rc = mpcrt_dt_arg(datatype, fn, "datatype", &dt);
    if (rc != MPI_SUCCESS)
        return rc;
    if (dt->combiner == MPI_COMBINER_NAMED)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE,
                               "%s is a predefined datatype (MPI_COMBINER_NAMED): it has no contents", dt->name);
    if (!large_form && is_large(dt))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_TYPE,
                               "the datatype was built by a large-count constructor: use "
                               "MPI_Type_get_contents_c");
    if (max_integers < dt->n_ints || max_addresses < dt->n_aints || max_large_counts < dt->n_counts ||
        max_datatypes < dt->n_types)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG,
                               "arrays too small: the envelope needs %d integers, %d addresses, %d large counts "
                               "and %d datatypes",
                               dt->n_ints, dt->n_aints, dt->n_counts, dt->n_types);
    if ((dt->n_ints && !integers) || (dt->n_aints && !addresses) || (dt->n_counts && !large_counts) ||
        (dt->n_types && !datatypes))
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "an output array is NULL");
    for (int i = 0; i < dt->n_types; i++) {
        rc = mpcrt_dt_handle_for(dt->types[i], &datatypes[i]);
        if (rc != MPI_SUCCESS) {
            while (--i >= 0) /* undo the handles given so far */
                if (!mpcrt_datatype_is_predefined(dt->types[i]))
                    mpcrt_handle_free(MPCRT_OBJ_DATATYPE, datatypes[i]);
            return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "cannot allocate handles for the inner datatypes");
        }
    }
    if (dt->n_ints)
        memcpy(integers, dt->ints, (size_t)dt->n_ints * sizeof *integers);
    if (dt->n_aints)
        memcpy(addresses, dt->aints, (size_t)dt->n_aints * sizeof *addresses);
    if (dt->n_counts)
        memcpy(large_counts, dt->counts, (size_t)dt->n_counts * sizeof *large_counts);
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes,
                           int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents", datatype, max_integers, max_addresses, 0, max_datatypes,
                    array_of_integers, array_of_addresses, NULL, array_of_datatypes, false);
}
MPCRT_PMPI_ALIAS(Type_get_contents)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[])
{
    return contents("MPI_Type_get_contents_c", datatype, max_integers, max_addresses, max_large_counts,
                    max_datatypes, array_of_integers, array_of_addresses, array_of_large_counts,
                    array_of_datatypes, true);
}
MPCRT_PMPI_ALIAS(Type_get_contents_c)
