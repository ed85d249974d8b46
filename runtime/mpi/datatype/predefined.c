/* The predefined datatypes: their sizes, alignments, names, external32 forms and reduction groups, the
 * objects behind their handles, and MPI_Type_match_size. Sizes are those of x86-64 Linux with GCC (and
 * gfortran: REAL*16 is IEEE binary128, LOGICAL is 4 bytes), which the handles of the MPICH ABI encode. */
#include "datatype_internal.h"

#include <string.h>

#define BASIC(h, size, align, ext32, conv, group) {h, #h, size, align, ext32, DT_CONV_##conv, DT_GROUP_##group}

/* external32 sizes: MPI 4.0 table 13.2 (MPI_LONG and MPI_UNSIGNED_LONG are 4 bytes, MPI_WCHAR 2,
 * MPI_LONG_DOUBLE a 16-byte IEEE quad). */
const dt_basic_info_t mpcrt_dt_basic_info[] = {
    BASIC(MPI_CHAR, 1, 1, 1, COPY, C_INTEGER),
    BASIC(MPI_SIGNED_CHAR, 1, 1, 1, COPY, C_INTEGER),
    BASIC(MPI_UNSIGNED_CHAR, 1, 1, 1, COPY, C_INTEGER),
    BASIC(MPI_BYTE, 1, 1, 1, COPY, BYTE),
    BASIC(MPI_WCHAR, 4, 4, 2, NARROW_UNSIGNED, NONE),
    BASIC(MPI_SHORT, 2, 2, 2, SWAP, C_INTEGER),
    BASIC(MPI_UNSIGNED_SHORT, 2, 2, 2, SWAP, C_INTEGER),
    BASIC(MPI_INT, 4, 4, 4, SWAP, C_INTEGER),
    BASIC(MPI_UNSIGNED, 4, 4, 4, SWAP, C_INTEGER),
    BASIC(MPI_LONG, 8, 8, 4, NARROW_SIGNED, C_INTEGER),
    BASIC(MPI_UNSIGNED_LONG, 8, 8, 4, NARROW_UNSIGNED, C_INTEGER),
    BASIC(MPI_LONG_LONG_INT, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_UNSIGNED_LONG_LONG, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_FLOAT, 4, 4, 4, SWAP, FLOATING),
    BASIC(MPI_DOUBLE, 8, 8, 8, SWAP, FLOATING),
    BASIC(MPI_LONG_DOUBLE, 16, 16, 16, X87, FLOATING),
    BASIC(MPI_PACKED, 1, 1, 1, COPY, NONE),
    BASIC(MPI_LB, 0, 1, 0, NONE, NONE),
    BASIC(MPI_UB, 0, 1, 0, NONE, NONE),
    BASIC(MPI_INT8_T, 1, 1, 1, COPY, C_INTEGER),
    BASIC(MPI_INT16_T, 2, 2, 2, SWAP, C_INTEGER),
    BASIC(MPI_INT32_T, 4, 4, 4, SWAP, C_INTEGER),
    BASIC(MPI_INT64_T, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_UINT8_T, 1, 1, 1, COPY, C_INTEGER),
    BASIC(MPI_UINT16_T, 2, 2, 2, SWAP, C_INTEGER),
    BASIC(MPI_UINT32_T, 4, 4, 4, SWAP, C_INTEGER),
    BASIC(MPI_UINT64_T, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_C_BOOL, 1, 1, 1, COPY, LOGICAL),
    BASIC(MPI_C_FLOAT_COMPLEX, 8, 4, 8, SWAP_PAIR, COMPLEX),
    BASIC(MPI_C_DOUBLE_COMPLEX, 16, 8, 16, SWAP_PAIR, COMPLEX),
    BASIC(MPI_C_LONG_DOUBLE_COMPLEX, 32, 16, 32, X87_PAIR, COMPLEX),
    BASIC(MPI_AINT, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_OFFSET, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_COUNT, 8, 8, 8, SWAP, C_INTEGER),
    BASIC(MPI_CXX_BOOL, 1, 1, 1, COPY, LOGICAL),
    BASIC(MPI_CXX_FLOAT_COMPLEX, 8, 4, 8, SWAP_PAIR, COMPLEX),
    BASIC(MPI_CXX_DOUBLE_COMPLEX, 16, 8, 16, SWAP_PAIR, COMPLEX),
    BASIC(MPI_CXX_LONG_DOUBLE_COMPLEX, 32, 16, 32, X87_PAIR, COMPLEX),
    BASIC(MPI_CHARACTER, 1, 1, 1, COPY, NONE),
    BASIC(MPI_LOGICAL, 4, 4, 4, SWAP, LOGICAL),
    BASIC(MPI_INTEGER, 4, 4, 4, SWAP, FORTRAN_INTEGER),
    BASIC(MPI_REAL, 4, 4, 4, SWAP, FLOATING),
    BASIC(MPI_DOUBLE_PRECISION, 8, 8, 8, SWAP, FLOATING),
    BASIC(MPI_COMPLEX, 8, 4, 8, SWAP_PAIR, COMPLEX),
    BASIC(MPI_DOUBLE_COMPLEX, 16, 8, 16, SWAP_PAIR, COMPLEX),
    BASIC(MPI_INTEGER1, 1, 1, 1, COPY, FORTRAN_INTEGER),
    BASIC(MPI_INTEGER2, 2, 2, 2, SWAP, FORTRAN_INTEGER),
    BASIC(MPI_INTEGER4, 4, 4, 4, SWAP, FORTRAN_INTEGER),
    BASIC(MPI_INTEGER8, 8, 8, 8, SWAP, FORTRAN_INTEGER),
    BASIC(MPI_REAL4, 4, 4, 4, SWAP, FLOATING),
    BASIC(MPI_REAL8, 8, 8, 8, SWAP, FLOATING),
    BASIC(MPI_REAL16, 16, 16, 16, SWAP, FLOATING),
    BASIC(MPI_COMPLEX8, 8, 4, 8, SWAP_PAIR, COMPLEX),
    BASIC(MPI_COMPLEX16, 16, 8, 16, SWAP_PAIR, COMPLEX),
    BASIC(MPI_COMPLEX32, 32, 16, 32, SWAP_PAIR, COMPLEX),
};
const int mpcrt_dt_nbasic = (int)(sizeof mpcrt_dt_basic_info / sizeof mpcrt_dt_basic_info[0]);

/* Predefined types made of two basic elements: MPI_2INT and the Fortran pairs (contiguous), and the
 * value-index pairs of MPI_MINLOC/MPI_MAXLOC, laid out as the C structs {T value; int index;} (MPICH's
 * layouts: MPI_DOUBLE_INT is 12 bytes of data in a 16-byte extent, MPI_SHORT_INT has a hole at 2-3). */
typedef struct {
    MPI_Datatype handle;
    const char *name;
    MPI_Datatype first, second;
    MPI_Aint second_disp, extent;
} dt_pair_info_t;

#define PAIR(h, a, b, disp, extent) {h, #h, a, b, disp, extent}
static const dt_pair_info_t pair_info[] = {
    PAIR(MPI_2INT, MPI_INT, MPI_INT, 4, 8),
    PAIR(MPI_2INTEGER, MPI_INTEGER, MPI_INTEGER, 4, 8),
    PAIR(MPI_2REAL, MPI_REAL, MPI_REAL, 4, 8),
    PAIR(MPI_2DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 8, 16),
    PAIR(MPI_FLOAT_INT, MPI_FLOAT, MPI_INT, 4, 8),
    PAIR(MPI_DOUBLE_INT, MPI_DOUBLE, MPI_INT, 8, 16),
    PAIR(MPI_LONG_INT, MPI_LONG, MPI_INT, 8, 16),
    PAIR(MPI_SHORT_INT, MPI_SHORT, MPI_INT, 4, 8),
    PAIR(MPI_LONG_DOUBLE_INT, MPI_LONG_DOUBLE, MPI_INT, 16, 32),
};
#define NPAIRS ((int)(sizeof pair_info / sizeof pair_info[0]))
#define NBASIC ((int)(sizeof mpcrt_dt_basic_info / sizeof mpcrt_dt_basic_info[0]))

static mpcrt_datatype_t predefined[NBASIC + NPAIRS];
static mpcrt_dt_arena_t *pair_arena;

const dt_basic_info_t *mpcrt_dt_basic_of(MPI_Datatype handle)
{
    mpcrt_datatype_t *dt = mpcrt_datatype_get(handle);
    if (!dt || dt < predefined || dt >= predefined + NBASIC)
        return NULL;
    return &mpcrt_dt_basic_info[dt - predefined];
}

static void init_basic(int i)
{
    const dt_basic_info_t *info = &mpcrt_dt_basic_info[i];
    mpcrt_datatype_t *dt = &predefined[i];
    dt->size = info->size;
    dt->lb = dt->true_lb = 0;
    dt->ub = dt->true_ub = info->size;
    dt->nelements = info->size ? 1 : 0;
    dt->ext32_size = info->ext32_size;
    dt->basic = info->size ? info->handle : MPI_DATATYPE_NULL;
    dt->elem_size = info->size;
    dt->align = info->align;
    unsigned flags = MPCRT_DT_COMMITTED | (info->size ? MPCRT_DT_CONTIGUOUS : 0);
    if (info->handle == MPI_LB)
        flags |= MPCRT_DT_LB_MARK;
    if (info->handle == MPI_UB)
        flags |= MPCRT_DT_UB_MARK;
    atomic_init(&dt->flags, (uint16_t)flags);
    dt->root = (mpcrt_dt_node_t){.count = 1, .iter_size = info->size, .elem = (uint16_t)i};
    atomic_init(&dt->typed_root, &dt->root);
}

static int init_pair(int p)
{
    const dt_pair_info_t *info = &pair_info[p];
    mpcrt_datatype_t *dt = &predefined[NBASIC + p];
    mpcrt_datatype_t *a = mpcrt_datatype_get(info->first), *b = mpcrt_datatype_get(info->second);
    dt->size = a->size + b->size;
    dt->lb = dt->true_lb = 0;
    dt->ub = info->extent;
    dt->true_ub = info->second_disp + b->size;
    dt->nelements = 2;
    dt->ext32_size = a->ext32_size + b->ext32_size;
    dt->basic = info->handle;
    dt->elem_size = a->size == b->size ? a->elem_size : 0;
    dt->align = a->align > b->align ? a->align : b->align;
    unsigned flags = MPCRT_DT_COMMITTED | (dt->size == info->extent ? MPCRT_DT_CONTIGUOUS : 0);
    atomic_init(&dt->flags, (uint16_t)flags);
    mpcrt_dt_node_t parts[2] = {a->root, b->root};
    parts[1].disp = info->second_disp;
    mpcrt_dt_node_t *typed = mpcrt_dt_arena_alloc(&pair_arena, sizeof *typed);
    if (!typed || mpcrt_dt_node_sequence(&pair_arena, parts, 2, false, &dt->root) != 0 ||
        mpcrt_dt_node_sequence(&pair_arena, parts, 2, true, typed) != 0)
        return -1;
    atomic_init(&dt->typed_root, typed);
    return 0;
}

static void init_common(mpcrt_datatype_t *dt, MPI_Datatype handle, const char *name)
{
    /* MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX share a handle: MPICH names it with the older name. */
    if (handle == MPI_C_FLOAT_COMPLEX)
        name = "MPI_C_COMPLEX";
    mpcrt_object_init(&dt->obj, MPCRT_OBJ_DATATYPE, NULL);
    mpcrt_handle_register_predefined(&dt->obj, MPCRT_OBJ_DATATYPE, handle);
    dt->combiner = MPI_COMBINER_NAMED;
    strncpy(dt->name, name, sizeof dt->name - 1);
}

__attribute__((constructor)) static void init_predefined(void)
{
    for (int i = 0; i < NBASIC; i++) {
        init_common(&predefined[i], mpcrt_dt_basic_info[i].handle, mpcrt_dt_basic_info[i].name);
        init_basic(i);
    }
    for (int p = 0; p < NPAIRS; p++) {
        init_common(&predefined[NBASIC + p], pair_info[p].handle, pair_info[p].name);
        if (init_pair(p) != 0) /* a few hundred bytes at library load: only a broken process fails here */
            predefined[NBASIC + p].obj.handle = MPI_DATATYPE_NULL;
    }
}

MPI_Datatype mpcrt_datatype_basic_type(const mpcrt_datatype_t *dt, MPI_Count *per_instance)
{
    if (dt->basic == MPI_DATATYPE_NULL) {
        *per_instance = 0;
        return MPI_DATATYPE_NULL;
    }
    const mpcrt_datatype_t *b = mpcrt_datatype_get(dt->basic);
    *per_instance = b && b->size ? dt->size / b->size : 0;
    return dt->basic;
}

/* MPI_Type_match_size: the Fortran size-specific types (MPI 4.0 section 19.1.9). */
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *datatype)
{
    static const MPI_Datatype reals[] = {MPI_REAL4, MPI_REAL8, MPI_REAL16};
    static const MPI_Datatype integers[] = {MPI_INTEGER1, MPI_INTEGER2, MPI_INTEGER4, MPI_INTEGER8};
    static const MPI_Datatype complexes[] = {MPI_COMPLEX8, MPI_COMPLEX16, MPI_COMPLEX32};
    const MPI_Datatype *list;
    int n;
    switch (typeclass) {
    case MPI_TYPECLASS_REAL:
        list = reals, n = 3;
        break;
    case MPI_TYPECLASS_INTEGER:
        list = integers, n = 4;
        break;
    case MPI_TYPECLASS_COMPLEX:
        list = complexes, n = 3;
        break;
    default:
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Type_match_size", MPI_ERR_ARG,
                               "typeclass %d is not one of MPI_TYPECLASS_REAL, _INTEGER, _COMPLEX", typeclass);
    }
    if (!datatype)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Type_match_size", MPI_ERR_ARG, "datatype is NULL");
    for (int i = 0; i < n; i++) {
        if (mpcrt_datatype_get(list[i])->size == size) {
            *datatype = list[i];
            return MPI_SUCCESS;
        }
    }
    return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Type_match_size", MPI_ERR_ARG,
                           "no predefined type of class %d has %d bytes", typeclass, size);
}
MPCRT_PMPI_ALIAS(Type_match_size)
