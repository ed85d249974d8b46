/* MPI API: the datatype constructors (contiguous, vector, hvector, indexed, hindexed, indexed_block,
 * hindexed_block, struct, resized, dup; their MPI 4.0 large-count `_c` forms; the MPI-1 names kept by the
 * MPICH ABI; the Fortran 90 parameterized types, unsupported). Each checks its arguments, records the
 * envelope and lets type.c compute the rest. Subarray and darray live in subarray.c and darray.c. */
#include "datatype_internal.h"
#include "../attr/attr.h"

#include <limits.h>
#include <stdio.h>

#define TRY(call)                                                                                          \
    do {                                                                                                   \
        int try_rc_ = (call);                                                                              \
        if (try_rc_ != MPI_SUCCESS)                                                                        \
            return try_rc_;                                                                                \
    } while (0)

static int check_count(const char *fn, const char *what, MPI_Count count)
{
    if (count < 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "%s is negative (%ld)", what, (long)count);
    return MPI_SUCCESS;
}

static int check_blocklen(const char *fn, MPI_Count i, MPI_Count blocklen)
{
    if (blocklen < 0)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "block length %ld (block %ld) is negative",
                               (long)blocklen, (long)i);
    return MPI_SUCCESS;
}

static int check_ptr(const char *fn, const char *what, const void *p, bool needed)
{
    if (needed && !p)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_ARG, "%s is NULL", what);
    return MPI_SUCCESS;
}

/* Envelope sizes are ints; a count that needs more entries than an int can index is refused. */
static int check_entries(const char *fn, MPI_Count entries)
{
    if (entries > INT_MAX - 2)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_COUNT, "count %ld is too large", (long)entries);
    return MPI_SUCCESS;
}

static int alloc_type(const char *fn, int combiner, MPI_Count ni, MPI_Count na, MPI_Count nc, MPI_Count nt,
                      mpcrt_datatype_t **out)
{
    TRY(check_entries(fn, ni > nc ? ni : nc));
    *out = mpcrt_dt_new(combiner, (int)ni, (int)na, (int)nc, (int)nt);
    if (!*out)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_NO_MEM, "cannot allocate the new datatype");
    return MPI_SUCCESS;
}

static int finish(const char *fn, mpcrt_datatype_t *dt, MPI_Datatype *newtype)
{
    int rc = mpcrt_dt_finish(dt, newtype);
    if (rc == MPI_ERR_ARG)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "the new datatype would exceed %ld bytes", (long)LONG_MAX);
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "cannot build the new datatype");
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ contiguous, vector, hvector */

static int contiguous(const char *fn, MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype, bool large)
{
    mpcrt_datatype_t *old, *dt;
    TRY(check_count(fn, "count", count));
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    TRY(check_ptr(fn, "newtype", newtype, true));
    TRY(alloc_type(fn, MPI_COMBINER_CONTIGUOUS, large ? 0 : 1, 0, large ? 1 : 0, 1, &dt));
    if (large)
        dt->counts[0] = count;
    else
        dt->ints[0] = (int)count;
    mpcrt_dt_set_type(dt, 0, old);
    return finish(fn, dt, newtype);
}

int PMPI_Type_contiguous(int count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous", count, oldtype, newtype, false);
}
MPCRT_PMPI_ALIAS(Type_contiguous)

int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return contiguous("MPI_Type_contiguous_c", count, oldtype, newtype, true);
}
MPCRT_PMPI_ALIAS(Type_contiguous_c)

/* vector (stride in elements) and hvector (stride in bytes). */
static int vector(const char *fn, int combiner, MPI_Count count, MPI_Count blocklength, MPI_Count stride,
                  MPI_Datatype oldtype, MPI_Datatype *newtype, bool large)
{
    mpcrt_datatype_t *old, *dt;
    TRY(check_count(fn, "count", count));
    TRY(check_blocklen(fn, 0, blocklength));
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    TRY(check_ptr(fn, "newtype", newtype, true));
    bool bytes = combiner == MPI_COMBINER_HVECTOR;
    if (large) {
        TRY(alloc_type(fn, combiner, 0, 0, 3, 1, &dt));
        dt->counts[0] = count;
        dt->counts[1] = blocklength;
        dt->counts[2] = stride;
    } else {
        TRY(alloc_type(fn, combiner, bytes ? 2 : 3, bytes ? 1 : 0, 0, 1, &dt));
        dt->ints[0] = (int)count;
        dt->ints[1] = (int)blocklength;
        if (bytes)
            dt->aints[0] = stride;
        else
            dt->ints[2] = (int)stride;
    }
    mpcrt_dt_set_type(dt, 0, old);
    return finish(fn, dt, newtype);
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector", MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype, newtype, false);
}
MPCRT_PMPI_ALIAS(Type_vector)

int PMPI_Type_vector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                       MPI_Datatype *newtype)
{
    return vector("MPI_Type_vector_c", MPI_COMBINER_VECTOR, count, blocklength, stride, oldtype, newtype, true);
}
MPCRT_PMPI_ALIAS(Type_vector_c)

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                             MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype,
                  newtype, false);
}
MPCRT_PMPI_ALIAS(Type_create_hvector)

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype)
{
    return vector("MPI_Type_create_hvector_c", MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype,
                  newtype, true);
}
MPCRT_PMPI_ALIAS(Type_create_hvector_c)

int PMPI_Type_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    return vector("MPI_Type_hvector", MPI_COMBINER_HVECTOR, count, blocklength, stride, oldtype, newtype,
                  false);
}
MPCRT_PMPI_ALIAS(Type_hvector)

/* ------------------------------------------------------------------ indexed family and struct */

/* One function for the five block-list constructors. Exactly one of the int/aint/count arrays is given for
 * block lengths and for displacements; `types` only for struct. */
typedef struct {
    const char *fn;
    int combiner;
    MPI_Count count;
    bool large;
    bool one_blocklength; /* indexed_block, hindexed_block */
    MPI_Count blocklength;
    const int *int_blocklengths;
    const MPI_Count *count_blocklengths;
    const int *int_displs;
    const MPI_Aint *aint_displs;
    const MPI_Count *count_displs;
    const MPI_Datatype *types;
    MPI_Datatype oldtype;
} blocks_args_t;

static MPI_Count blocklength_at(const blocks_args_t *a, MPI_Count i)
{
    if (a->one_blocklength)
        return a->blocklength;
    return a->int_blocklengths ? a->int_blocklengths[i] : a->count_blocklengths[i];
}

static MPI_Aint displ_at(const blocks_args_t *a, MPI_Count i)
{
    return a->int_displs ? a->int_displs[i] : a->aint_displs ? a->aint_displs[i] : a->count_displs[i];
}

static int blocks(const blocks_args_t *a, MPI_Datatype *newtype)
{
    const char *fn = a->fn;
    MPI_Count n = a->count;
    bool is_struct = a->combiner == MPI_COMBINER_STRUCT;
    mpcrt_datatype_t *old = NULL, *dt;
    TRY(check_count(fn, "count", n));
    TRY(check_entries(fn, 2 * n + 1));
    if (a->one_blocklength)
        TRY(check_blocklen(fn, 0, a->blocklength));
    else
        TRY(check_ptr(fn, "array_of_blocklengths", a->int_blocklengths ? (const void *)a->int_blocklengths
                                                                      : (const void *)a->count_blocklengths,
                      n > 0));
    TRY(check_ptr(fn, "array_of_displacements",
                  a->int_displs ? (const void *)a->int_displs
                  : a->aint_displs ? (const void *)a->aint_displs : (const void *)a->count_displs,
                  n > 0));
    if (is_struct)
        TRY(check_ptr(fn, "array_of_types", a->types, n > 0));
    else
        TRY(mpcrt_dt_arg(a->oldtype, fn, "oldtype", &old));
    TRY(check_ptr(fn, "newtype", newtype, true));
    for (MPI_Count i = 0; i < n && !a->one_blocklength; i++)
        TRY(check_blocklen(fn, i, blocklength_at(a, i)));
    if (is_struct) {
        for (MPI_Count i = 0; i < n; i++) {
            mpcrt_datatype_t *t;
            char what[64];
            snprintf(what, sizeof what, "array_of_types[%ld]", (long)i);
            TRY(mpcrt_dt_arg(a->types[i], fn, what, &t));
        }
    }
    /* Envelope layout: MPI 4.0 section 5.1.13, tables of MPI_Type_get_contents. */
    bool bytes = a->aint_displs != NULL;
    MPI_Count ni, na = 0, nc = 0, nt = is_struct ? n : 1;
    if (a->large) {
        ni = 0;
        nc = a->one_blocklength ? n + 2 : 2 * n + 1;
    } else {
        ni = a->one_blocklength ? (bytes ? 2 : n + 2) : (bytes ? n + 1 : 2 * n + 1);
        na = bytes ? n : 0;
    }
    TRY(alloc_type(fn, a->combiner, ni, na, nc, nt, &dt));
    if (a->large) {
        dt->counts[0] = n;
        MPI_Count *bl = &dt->counts[1];
        MPI_Count *displs = a->one_blocklength ? &dt->counts[2] : &dt->counts[1 + n];
        if (a->one_blocklength)
            bl[0] = a->blocklength;
        for (MPI_Count i = 0; i < n; i++) {
            if (!a->one_blocklength)
                bl[i] = blocklength_at(a, i);
            displs[i] = displ_at(a, i);
        }
    } else {
        dt->ints[0] = (int)n;
        if (a->one_blocklength)
            dt->ints[1] = (int)a->blocklength;
        for (MPI_Count i = 0; i < n; i++) {
            if (!a->one_blocklength)
                dt->ints[1 + i] = (int)blocklength_at(a, i);
            if (bytes)
                dt->aints[i] = a->aint_displs[i];
            else
                dt->ints[(a->one_blocklength ? 2 : 1 + n) + i] = a->int_displs[i];
        }
    }
    if (is_struct) {
        for (MPI_Count i = 0; i < n; i++)
            mpcrt_dt_set_type(dt, (int)i, mpcrt_datatype_get(a->types[i]));
    } else {
        mpcrt_dt_set_type(dt, 0, old);
    }
    return finish(fn, dt, newtype);
}

int PMPI_Type_indexed(int count, const int array_of_blocklengths[], const int array_of_displacements[],
                      MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_indexed", .combiner = MPI_COMBINER_INDEXED, .count = count,
                       .int_blocklengths = array_of_blocklengths, .int_displs = array_of_displacements,
                       .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_indexed)

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                        const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_indexed_c", .combiner = MPI_COMBINER_INDEXED, .count = count,
                       .large = true, .count_blocklengths = array_of_blocklengths,
                       .count_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_indexed_c)

int PMPI_Type_create_hindexed(int count, const int array_of_blocklengths[],
                              const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                              MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_hindexed", .combiner = MPI_COMBINER_HINDEXED, .count = count,
                       .int_blocklengths = array_of_blocklengths, .aint_displs = array_of_displacements,
                       .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_hindexed)

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                                const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_hindexed_c", .combiner = MPI_COMBINER_HINDEXED, .count = count,
                       .large = true, .count_blocklengths = array_of_blocklengths,
                       .count_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_hindexed_c)

int PMPI_Type_hindexed(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                       MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_hindexed", .combiner = MPI_COMBINER_HINDEXED, .count = count,
                       .int_blocklengths = array_of_blocklengths, .aint_displs = array_of_displacements,
                       .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_hindexed)

int PMPI_Type_create_indexed_block(int count, int blocklength, const int array_of_displacements[],
                                   MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_indexed_block", .combiner = MPI_COMBINER_INDEXED_BLOCK,
                       .count = count, .one_blocklength = true, .blocklength = blocklength,
                       .int_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_indexed_block)

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count blocklength,
                                     const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                     MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_indexed_block_c", .combiner = MPI_COMBINER_INDEXED_BLOCK,
                       .count = count, .large = true, .one_blocklength = true, .blocklength = blocklength,
                       .count_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_indexed_block_c)

int PMPI_Type_create_hindexed_block(int count, int blocklength, const MPI_Aint array_of_displacements[],
                                    MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_hindexed_block", .combiner = MPI_COMBINER_HINDEXED_BLOCK,
                       .count = count, .one_blocklength = true, .blocklength = blocklength,
                       .aint_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_hindexed_block)

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count blocklength,
                                      const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                      MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_hindexed_block_c", .combiner = MPI_COMBINER_HINDEXED_BLOCK,
                       .count = count, .large = true, .one_blocklength = true, .blocklength = blocklength,
                       .count_displs = array_of_displacements, .oldtype = oldtype};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_hindexed_block_c)

int PMPI_Type_create_struct(int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                            const MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_struct", .combiner = MPI_COMBINER_STRUCT, .count = count,
                       .int_blocklengths = array_of_blocklengths, .aint_displs = array_of_displacements,
                       .types = array_of_types};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_struct)

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count array_of_blocklengths[],
                              const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[],
                              MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_create_struct_c", .combiner = MPI_COMBINER_STRUCT, .count = count,
                       .large = true, .count_blocklengths = array_of_blocklengths,
                       .count_displs = array_of_displacements, .types = array_of_types};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_create_struct_c)

int PMPI_Type_struct(int count, int array_of_blocklengths[], MPI_Aint array_of_displacements[],
                     MPI_Datatype array_of_types[], MPI_Datatype *newtype)
{
    blocks_args_t a = {.fn = "MPI_Type_struct", .combiner = MPI_COMBINER_STRUCT, .count = count,
                       .int_blocklengths = array_of_blocklengths, .aint_displs = array_of_displacements,
                       .types = array_of_types};
    return blocks(&a, newtype);
}
MPCRT_PMPI_ALIAS(Type_struct)

/* ------------------------------------------------------------------ resized, dup */

static int resized(const char *fn, MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype,
                   bool large)
{
    mpcrt_datatype_t *old, *dt;
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    TRY(check_ptr(fn, "newtype", newtype, true));
    TRY(alloc_type(fn, MPI_COMBINER_RESIZED, 0, large ? 0 : 2, large ? 2 : 0, 1, &dt));
    if (large) {
        dt->counts[0] = lb;
        dt->counts[1] = extent;
    } else {
        dt->aints[0] = lb;
        dt->aints[1] = extent;
    }
    mpcrt_dt_set_type(dt, 0, old);
    return finish(fn, dt, newtype);
}

int PMPI_Type_create_resized(MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized", oldtype, lb, extent, newtype, false);
}
MPCRT_PMPI_ALIAS(Type_create_resized)

int PMPI_Type_create_resized_c(MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype)
{
    return resized("MPI_Type_create_resized_c", oldtype, lb, extent, newtype, true);
}
MPCRT_PMPI_ALIAS(Type_create_resized_c)

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    static const char fn[] = "MPI_Type_dup";
    mpcrt_datatype_t *old, *dt;
    TRY(mpcrt_dt_arg(oldtype, fn, "oldtype", &old));
    TRY(check_ptr(fn, "newtype", newtype, true));
    TRY(alloc_type(fn, MPI_COMBINER_DUP, 0, 0, 0, 1, &dt));
    mpcrt_dt_set_type(dt, 0, old);
    TRY(finish(fn, dt, newtype));
    /* The duplicate has the same committed state (MPI 4.0 section 5.1.9: "exactly the same properties"). */
    if (mpcrt_datatype_is_committed(old))
        atomic_fetch_or_explicit(&dt->flags, MPCRT_DT_COMMITTED, memory_order_relaxed);
    /* and the attributes the copy callbacks keep (attr/); if one fails, there is no duplicate. */
    int rc = mpcrt_attr_type_dup(oldtype, *newtype);
    if (rc != MPI_SUCCESS) {
        mpcrt_attr_type_free(*newtype);
        mpcrt_handle_free(MPCRT_OBJ_DATATYPE, *newtype);
        *newtype = MPI_DATATYPE_NULL;
        return mpcrt_mpi_error(DT_ERR_COMM, fn, rc, "an attribute copy callback failed (or no memory)");
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Type_dup)

/* ------------------------------------------------------------------ Fortran 90 parameterized types */

static int f90_unsupported(const char *fn)
{
    return mpcrt_mpi_error(DT_ERR_COMM, fn, MPI_ERR_UNSUPPORTED_OPERATION,
                           "parameterized Fortran 90 types are not supported yet; use the size-specific "
                           "types (MPI_REAL8, MPI_INTEGER4, ...) or MPI_Type_match_size");
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    (void)r;
    (void)newtype;
    return f90_unsupported("MPI_Type_create_f90_integer");
}
MPCRT_PMPI_ALIAS(Type_create_f90_integer)

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    (void)p;
    (void)r;
    (void)newtype;
    return f90_unsupported("MPI_Type_create_f90_real");
}
MPCRT_PMPI_ALIAS(Type_create_f90_real)

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    (void)p;
    (void)r;
    (void)newtype;
    return f90_unsupported("MPI_Type_create_f90_complex");
}
MPCRT_PMPI_ALIAS(Type_create_f90_complex)
