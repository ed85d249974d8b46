/* The predefined reduction operations as loops over packed elements, one per (operation, C type), and which
 * operation applies to which predefined datatype (MPI 4.0 section 6.9.2). Signed integers share the
 * unsigned loops of their width for everything but MAX/MIN: two's complement sums and products wrap the
 * same way, and unsigned arithmetic has no undefined overflow. */
#include "coll.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

typedef __float128 f128_t;            /* MPI_REAL16: IEEE binary128 with gfortran */
typedef _Complex _Float128 c128_t;    /* MPI_COMPLEX32 */
typedef long double _Complex c80_t;   /* x87 80-bit long double in 16 bytes, twice */

/* C types the loops are written for. */
enum {
    K_I8, K_I16, K_I32, K_I64,
    K_U8, K_U16, K_U32, K_U64,
    K_F32, K_F64, K_F80, K_F128,
    K_C32, K_C64, K_C80, K_C128,
    NKINDS
};

/* Groups of basic types of MPI 4.0 section 6.9.2. */
enum {
    G_C_INTEGER = 1 << 0,
    G_FORTRAN_INTEGER = 1 << 1,
    G_FLOATING = 1 << 2,
    G_LOGICAL = 1 << 3,
    G_COMPLEX = 1 << 4,
    G_BYTE = 1 << 5,
};

typedef void (*scalar_fn)(const void *in, void *inout, MPI_Count n);
typedef void (*pair_fn)(const void *in, void *inout, MPI_Count n, MPI_Aint stride, MPI_Aint index_offset);

/* ------------------------------------------------------------------ element loops */

#define LOOP(name, T, EXPR)                                                                              \
    static void name(const void *in_, void *inout_, MPI_Count n)                                         \
    {                                                                                                    \
        const T *in = in_;                                                                               \
        T *inout = inout_;                                                                               \
        for (MPI_Count i = 0; i < n; i++) {                                                              \
            T a = in[i], b = inout[i];                                                                   \
            inout[i] = (T)(EXPR);                                                                        \
        }                                                                                                \
    }

#define ORDERED_LOOPS(s, T)                                                                              \
    LOOP(max_##s, T, a > b ? a : b)                                                                      \
    LOOP(min_##s, T, a < b ? a : b)
#define LOGICAL_LOOPS(s, T)                                                                              \
    LOOP(land_##s, T, (a != 0) && (b != 0))                                                              \
    LOOP(lor_##s, T, (a != 0) || (b != 0))                                                               \
    LOOP(lxor_##s, T, (a != 0) != (b != 0))
/* Unsigned: products in 64 bits, so that uint16_t operands promoted to int cannot overflow. */
#define UNSIGNED_LOOPS(s, T)                                                                             \
    ORDERED_LOOPS(s, T)                                                                                  \
    LOGICAL_LOOPS(s, T)                                                                                  \
    LOOP(sum_##s, T, (uint64_t)a + (uint64_t)b)                                                          \
    LOOP(prod_##s, T, (uint64_t)a * (uint64_t)b)                                                         \
    LOOP(band_##s, T, a & b)                                                                             \
    LOOP(bor_##s, T, a | b)                                                                              \
    LOOP(bxor_##s, T, a ^ b)
#define FLOATING_LOOPS(s, T)                                                                             \
    ORDERED_LOOPS(s, T)                                                                                  \
    LOGICAL_LOOPS(s, T)                                                                                  \
    LOOP(sum_##s, T, a + b)                                                                              \
    LOOP(prod_##s, T, a * b)
#define COMPLEX_LOOPS(s, T)                                                                              \
    LOOP(sum_##s, T, a + b)                                                                              \
    LOOP(prod_##s, T, a * b)

ORDERED_LOOPS(i8, int8_t)
ORDERED_LOOPS(i16, int16_t)
ORDERED_LOOPS(i32, int32_t)
ORDERED_LOOPS(i64, int64_t)
UNSIGNED_LOOPS(u8, uint8_t)
UNSIGNED_LOOPS(u16, uint16_t)
UNSIGNED_LOOPS(u32, uint32_t)
UNSIGNED_LOOPS(u64, uint64_t)
FLOATING_LOOPS(f32, float)
FLOATING_LOOPS(f64, double)
FLOATING_LOOPS(f80, long double)
FLOATING_LOOPS(f128, f128_t)
COMPLEX_LOOPS(c32, float _Complex)
COMPLEX_LOOPS(c64, double _Complex)
COMPLEX_LOOPS(c80, c80_t)
COMPLEX_LOOPS(c128, c128_t)

#define UNSIGNED_FOR_ALL_INTEGERS(f)                                                                     \
    [K_I8] = f##_u8, [K_I16] = f##_u16, [K_I32] = f##_u32, [K_I64] = f##_u64, [K_U8] = f##_u8,            \
    [K_U16] = f##_u16, [K_U32] = f##_u32, [K_U64] = f##_u64
#define FOR_FLOATING(f) [K_F32] = f##_f32, [K_F64] = f##_f64, [K_F80] = f##_f80, [K_F128] = f##_f128
#define FOR_COMPLEX(f) [K_C32] = f##_c32, [K_C64] = f##_c64, [K_C80] = f##_c80, [K_C128] = f##_c128
#define ORDERED_FOR_ALL(f)                                                                               \
    [K_I8] = f##_i8, [K_I16] = f##_i16, [K_I32] = f##_i32, [K_I64] = f##_i64, [K_U8] = f##_u8,            \
    [K_U16] = f##_u16, [K_U32] = f##_u32, [K_U64] = f##_u64, FOR_FLOATING(f)

static const scalar_fn scalar_loops[MPCRT_OP_NPREDEFINED][NKINDS] = {
    [MPCRT_OP_MAX] = {ORDERED_FOR_ALL(max)},
    [MPCRT_OP_MIN] = {ORDERED_FOR_ALL(min)},
    [MPCRT_OP_SUM] = {UNSIGNED_FOR_ALL_INTEGERS(sum), FOR_FLOATING(sum), FOR_COMPLEX(sum)},
    [MPCRT_OP_PROD] = {UNSIGNED_FOR_ALL_INTEGERS(prod), FOR_FLOATING(prod), FOR_COMPLEX(prod)},
    [MPCRT_OP_LAND] = {UNSIGNED_FOR_ALL_INTEGERS(land), FOR_FLOATING(land)},
    [MPCRT_OP_LOR] = {UNSIGNED_FOR_ALL_INTEGERS(lor), FOR_FLOATING(lor)},
    [MPCRT_OP_LXOR] = {UNSIGNED_FOR_ALL_INTEGERS(lxor), FOR_FLOATING(lxor)},
    [MPCRT_OP_BAND] = {UNSIGNED_FOR_ALL_INTEGERS(band)},
    [MPCRT_OP_BOR] = {UNSIGNED_FOR_ALL_INTEGERS(bor)},
    [MPCRT_OP_BXOR] = {UNSIGNED_FOR_ALL_INTEGERS(bxor)},
};

/* Which groups each operation accepts: MPI 4.0 section 6.9.2, plus MPICH's extensions that its test suite
 * checks (logical operations on floating point; MPI_CHAR counts as a C integer, see basic_info). */
static const uint8_t allowed_groups[MPCRT_OP_NPREDEFINED] = {
    [MPCRT_OP_MAX] = G_C_INTEGER | G_FORTRAN_INTEGER | G_FLOATING,
    [MPCRT_OP_MIN] = G_C_INTEGER | G_FORTRAN_INTEGER | G_FLOATING,
    [MPCRT_OP_SUM] = G_C_INTEGER | G_FORTRAN_INTEGER | G_FLOATING | G_COMPLEX,
    [MPCRT_OP_PROD] = G_C_INTEGER | G_FORTRAN_INTEGER | G_FLOATING | G_COMPLEX,
    [MPCRT_OP_LAND] = G_C_INTEGER | G_FORTRAN_INTEGER | G_LOGICAL | G_FLOATING,
    [MPCRT_OP_LOR] = G_C_INTEGER | G_FORTRAN_INTEGER | G_LOGICAL | G_FLOATING,
    [MPCRT_OP_LXOR] = G_C_INTEGER | G_FORTRAN_INTEGER | G_LOGICAL | G_FLOATING,
    [MPCRT_OP_BAND] = G_C_INTEGER | G_FORTRAN_INTEGER | G_BYTE,
    [MPCRT_OP_BOR] = G_C_INTEGER | G_FORTRAN_INTEGER | G_BYTE,
    [MPCRT_OP_BXOR] = G_C_INTEGER | G_FORTRAN_INTEGER | G_BYTE,
};

/* ------------------------------------------------------------------ MINLOC and MAXLOC */

/* (u, i) op (v, j): the better value, and the smaller index when the values are equal (MPI 4.0 section
 * 6.9.4). Pair elements are not aligned in a packed stream (MPI_DOUBLE_INT packs to 12 bytes), hence
 * memcpy. */
#define PAIR_LOOP(name, V, I, BETTER)                                                                    \
    static void name(const void *in_, void *inout_, MPI_Count n, MPI_Aint stride, MPI_Aint index_offset) \
    {                                                                                                    \
        const char *in = in_;                                                                            \
        char *inout = inout_;                                                                            \
        for (MPI_Count k = 0; k < n; k++, in += stride, inout += stride) {                               \
            V u, v;                                                                                      \
            I i, j;                                                                                      \
            memcpy(&u, in, sizeof u);                                                                    \
            memcpy(&v, inout, sizeof v);                                                                 \
            memcpy(&i, in + index_offset, sizeof i);                                                     \
            memcpy(&j, inout + index_offset, sizeof j);                                                  \
            if (u BETTER v) {                                                                            \
                memcpy(inout, &u, sizeof u);                                                             \
                memcpy(inout + index_offset, &i, sizeof i);                                              \
            } else if (u == v && i < j) {                                                                \
                memcpy(inout + index_offset, &i, sizeof i);                                              \
            }                                                                                            \
        }                                                                                                \
    }
#define PAIR_LOOPS(s, V, I) PAIR_LOOP(minloc_##s, V, I, <) PAIR_LOOP(maxloc_##s, V, I, >)

PAIR_LOOPS(float_int, float, int32_t)
PAIR_LOOPS(double_int, double, int32_t)
PAIR_LOOPS(long_int, int64_t, int32_t)
PAIR_LOOPS(short_int, int16_t, int32_t)
PAIR_LOOPS(long_double_int, long double, int32_t)
PAIR_LOOPS(int_int, int32_t, int32_t)
PAIR_LOOPS(real_real, float, float)
PAIR_LOOPS(double_double, double, double)

typedef struct {
    MPI_Datatype handle;
    pair_fn minloc, maxloc;
    uint8_t value_size, native_index_offset, native_stride;
} pair_info_t;

/* The predefined pair types' layouts (datatype/predefined.c builds the same ones). */
#define PAIR(h, s, V, index_offset, stride) {h, minloc_##s, maxloc_##s, sizeof(V), index_offset, stride}
static const pair_info_t pairs[] = {
    PAIR(MPI_FLOAT_INT, float_int, float, 4, 8),
    PAIR(MPI_DOUBLE_INT, double_int, double, 8, 16),
    PAIR(MPI_LONG_INT, long_int, int64_t, 8, 16),
    PAIR(MPI_SHORT_INT, short_int, int16_t, 4, 8),
    PAIR(MPI_LONG_DOUBLE_INT, long_double_int, long double, 16, 32),
    PAIR(MPI_2INT, int_int, int32_t, 4, 8),
    PAIR(MPI_2INTEGER, int_int, int32_t, 4, 8),
    PAIR(MPI_2REAL, real_real, float, 4, 8),
    PAIR(MPI_2DOUBLE_PRECISION, double_double, double, 8, 16),
};

/* ------------------------------------------------------------------ basic types */

typedef struct {
    int8_t kind;    /* K_*, -1 for types no arithmetic operation accepts */
    uint8_t groups; /* G_* */
} basic_info_t;

static basic_info_t basic_info(MPI_Datatype type)
{
    switch (type) {
    case MPI_CHAR: /* not a C integer in MPI 4.0, but MPICH accepts it and its tests check that */
    case MPI_SIGNED_CHAR:
    case MPI_INT8_T:
        return (basic_info_t){K_I8, G_C_INTEGER};
    case MPI_UNSIGNED_CHAR:
    case MPI_UINT8_T:
        return (basic_info_t){K_U8, G_C_INTEGER};
    case MPI_SHORT:
    case MPI_INT16_T:
        return (basic_info_t){K_I16, G_C_INTEGER};
    case MPI_UNSIGNED_SHORT:
    case MPI_UINT16_T:
        return (basic_info_t){K_U16, G_C_INTEGER};
    case MPI_INT:
    case MPI_INT32_T:
        return (basic_info_t){K_I32, G_C_INTEGER};
    case MPI_UNSIGNED:
    case MPI_UINT32_T:
        return (basic_info_t){K_U32, G_C_INTEGER};
    case MPI_LONG:
    case MPI_LONG_LONG_INT:
    case MPI_INT64_T:
        return (basic_info_t){K_I64, G_C_INTEGER};
    case MPI_UNSIGNED_LONG:
    case MPI_UNSIGNED_LONG_LONG:
    case MPI_UINT64_T:
        return (basic_info_t){K_U64, G_C_INTEGER};
    case MPI_AINT: /* both C and Fortran integers since MPI 3.0 */
    case MPI_OFFSET:
    case MPI_COUNT:
        return (basic_info_t){K_I64, G_C_INTEGER | G_FORTRAN_INTEGER};
    case MPI_INTEGER1:
        return (basic_info_t){K_I8, G_FORTRAN_INTEGER};
    case MPI_INTEGER2:
        return (basic_info_t){K_I16, G_FORTRAN_INTEGER};
    case MPI_INTEGER:
    case MPI_INTEGER4:
        return (basic_info_t){K_I32, G_FORTRAN_INTEGER};
    case MPI_INTEGER8:
        return (basic_info_t){K_I64, G_FORTRAN_INTEGER};
    case MPI_FLOAT:
    case MPI_REAL:
    case MPI_REAL4:
        return (basic_info_t){K_F32, G_FLOATING};
    case MPI_DOUBLE:
    case MPI_DOUBLE_PRECISION:
    case MPI_REAL8:
        return (basic_info_t){K_F64, G_FLOATING};
    case MPI_LONG_DOUBLE:
        return (basic_info_t){K_F80, G_FLOATING};
    case MPI_REAL16:
        return (basic_info_t){K_F128, G_FLOATING};
    case MPI_C_FLOAT_COMPLEX:
    case MPI_CXX_FLOAT_COMPLEX:
    case MPI_COMPLEX:
    case MPI_COMPLEX8:
        return (basic_info_t){K_C32, G_COMPLEX};
    case MPI_C_DOUBLE_COMPLEX:
    case MPI_CXX_DOUBLE_COMPLEX:
    case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
        return (basic_info_t){K_C64, G_COMPLEX};
    case MPI_C_LONG_DOUBLE_COMPLEX:
    case MPI_CXX_LONG_DOUBLE_COMPLEX:
        return (basic_info_t){K_C80, G_COMPLEX};
    case MPI_COMPLEX32:
        return (basic_info_t){K_C128, G_COMPLEX};
    /* Logicals: one byte for C and C++ bool, four for Fortran LOGICAL (gfortran's .TRUE. is 1). */
    case MPI_C_BOOL:
    case MPI_CXX_BOOL:
        return (basic_info_t){K_U8, G_LOGICAL};
    case MPI_LOGICAL:
        return (basic_info_t){K_U32, G_LOGICAL};
    case MPI_BYTE:
        return (basic_info_t){K_U8, G_BYTE};
    default: /* MPI_WCHAR, MPI_CHARACTER, MPI_PACKED, pair types */
        return (basic_info_t){-1, 0};
    }
}

/* ------------------------------------------------------------------ REPLACE and NO_OP */

static void replace_bytes(const void *in, void *inout, MPI_Count n)
{
    memmove(inout, in, (size_t)n);
}

static void keep_bytes(const void *in, void *inout, MPI_Count n)
{
    (void)in, (void)inout, (void)n;
}

int mpcrt_op_kernel(int op, const mpcrt_datatype_t *dt, mpcrt_op_kernel_t *kernel)
{
    memset(kernel, 0, sizeof *kernel);
    if (op == MPCRT_OP_REPLACE || op == MPCRT_OP_NO_OP) {
        kernel->scalar = op == MPCRT_OP_REPLACE ? replace_bytes : keep_bytes;
        kernel->elem_size = 1;
        return MPI_SUCCESS;
    }
    if (op <= MPCRT_OP_USER || op >= MPCRT_OP_NPREDEFINED)
        return MPI_ERR_OP;
    MPI_Datatype basic = dt->basic;
    if (basic == MPI_DATATYPE_NULL)
        return dt->size == 0 ? MPI_SUCCESS : MPI_ERR_OP; /* nothing to reduce in an empty type */
    /* A predefined type is its own basic type: no second lookup (every reduction asks, twice). */
    const mpcrt_datatype_t *b = dt->obj.handle == (int)basic ? dt : mpcrt_datatype_get(basic);
    if (op == MPCRT_OP_MINLOC || op == MPCRT_OP_MAXLOC) {
        for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
            if (pairs[i].handle != basic)
                continue;
            kernel->pair = op == MPCRT_OP_MINLOC ? pairs[i].minloc : pairs[i].maxloc;
            kernel->elem_size = b->size;
            kernel->index_offset = pairs[i].value_size;
            kernel->native_stride = pairs[i].native_stride;
            kernel->native_index_offset = pairs[i].native_index_offset;
            return MPI_SUCCESS;
        }
        return MPI_ERR_OP;
    }
    basic_info_t info = basic_info(basic);
    if (info.kind < 0 || !(info.groups & allowed_groups[op]) || !scalar_loops[op][info.kind])
        return MPI_ERR_OP;
    kernel->scalar = scalar_loops[op][info.kind];
    kernel->elem_size = b->size;
    return MPI_SUCCESS;
}

/* mpcrt_op_kernel's verdicts by (operation, handle kind of the basic type, its low byte): 0 unknown, 1
 * defined, 2 not. A basic type is a predefined handle, builtin or direct, and its low byte names it among
 * its kind's. Racing first calls store the same verdict. */
static _Atomic uint8_t defined_memo[MPCRT_OP_NPREDEFINED][2][256];

bool mpcrt_op_defined_on(int op, const mpcrt_datatype_t *dt)
{
    mpcrt_op_kernel_t kernel;
    MPI_Datatype basic = dt->basic;
    unsigned hk = mpcrt_handle_kind(basic);
    if (op <= MPCRT_OP_USER || op >= MPCRT_OP_NPREDEFINED || basic == MPI_DATATYPE_NULL ||
        (hk != MPCRT_HANDLE_BUILTIN && hk != MPCRT_HANDLE_DIRECT))
        return mpcrt_op_kernel(op, dt, &kernel) == MPI_SUCCESS;
    _Atomic uint8_t *verdict = &defined_memo[op][hk - MPCRT_HANDLE_BUILTIN][(unsigned)basic & 0xffu];
    uint8_t known = atomic_load_explicit(verdict, memory_order_relaxed);
    if (!known) {
        known = mpcrt_op_kernel(op, dt, &kernel) == MPI_SUCCESS ? 1 : 2;
        atomic_store_explicit(verdict, known, memory_order_relaxed);
    }
    return known == 1;
}
