/* Every predefined reduction operation on every predefined type it is defined for, through MPI_Allreduce
 * (all ranks, rank order) and MPI_Reduce_local (two buffers), against the same fold computed here in C;
 * MINLOC/MAXLOC on every pair type (ties: the smaller index), also inside derived types; MPI_REPLACE and
 * MPI_NO_OP in MPI_Reduce_local; MPI_Op_commutative of the predefined operations. */
#include "coll_check.h"

#include <complex.h>
#include <stdint.h>
#include <string.h>

enum { SUM, PROD, MAX, MIN, LAND, LOR, LXOR, BAND, BOR, BXOR, NOPS };
static const MPI_Op ops[NOPS] = {MPI_SUM,  MPI_PROD, MPI_MAX, MPI_MIN, MPI_LAND,
                                 MPI_LOR,  MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
static const char *const op_names[NOPS] = {"SUM", "PROD", "MAX", "MIN", "LAND", "LOR", "LXOR", "BAND", "BOR", "BXOR"};

#define ARITH ((1u << SUM) | (1u << PROD) | (1u << MAX) | (1u << MIN))
#define LOGICAL ((1u << LAND) | (1u << LOR) | (1u << LXOR))
#define BITWISE ((1u << BAND) | (1u << BOR) | (1u << BXOR))

/* Values of rank q, element i, small enough for int8_t whatever the job size (16 ranks at most here). */
static int gen(int op, int q, int i)
{
    switch (op) {
    case SUM:
        return (q + i) % 5;
    case PROD:
        return (q + i) % 3 == 0 ? 2 : 1; /* at most 2^6 */
    case MAX:
    case MIN:
        return (q * 7 + i * 3) % 11;
    case LAND:
        return (q + i) % 4 == 0 ? 0 : q + 1;
    case LOR:
        return (q + 2 * i) % 5 == 0 ? q % 2 : 0;
    case LXOR:
        return (q * 3 + i) % 4 == 0 ? 2 : 0;
    case BAND:
        return 0x7f & ~(1 << ((q + i) % 7));
    case BOR:
        return 1 << ((q + i) % 7);
    default:
        return (q * 5 + i * 3) % 128;
    }
}

#define COMMON_CASES(T)                                                                                  \
    case SUM:                                                                                            \
        return (T)(a + b);                                                                               \
    case PROD:                                                                                           \
        return (T)(a * b);                                                                               \
    case MAX:                                                                                            \
        return a > b ? a : b;                                                                            \
    case MIN:                                                                                            \
        return a < b ? a : b;                                                                            \
    case LAND:                                                                                           \
        return (T)((a != 0) && (b != 0));                                                                \
    case LOR:                                                                                            \
        return (T)((a != 0) || (b != 0));                                                                \
    case LXOR:                                                                                           \
        return (T)((a != 0) != (b != 0));

/* One test function per C type: Allreduce and Reduce_local of every operation in `mask`. MAX/MIN values
 * are shifted by `offset` (negative values for signed types); `logical` makes every value 0 or 1. */
#define DEFINE_TEST(fname, T, COMBINE_BODY, VALUE, SHOW)                                                 \
    static T fname##_combine(int op, T a, T b)                                                           \
    {                                                                                                    \
        switch (op) { COMBINE_BODY }                                                                     \
        return a;                                                                                        \
    }                                                                                                    \
    static T fname##_value(int op, int q, int i, int offset, int logical)                                \
    {                                                                                                    \
        int v = gen(op, q, i);                                                                           \
        if (logical)                                                                                     \
            v = v != 0;                                                                                  \
        else if (op == MAX || op == MIN)                                                                 \
            v -= offset;                                                                                 \
        return VALUE;                                                                                    \
    }                                                                                                    \
    static void fname(MPI_Comm comm, int me, int n, MPI_Datatype type, const char *tname, unsigned mask,  \
                      int offset, int logical)                                                           \
    {                                                                                                    \
        enum { C = 10 };                                                                                 \
        T in[C], out[C], want[C], io[C];                                                                 \
        for (int op = 0; op < NOPS; op++) {                                                              \
            if (!(mask & (1u << op)))                                                                    \
                continue;                                                                                \
            for (int i = 0; i < C; i++) {                                                                \
                in[i] = fname##_value(op, me, i, offset, logical);                                       \
                want[i] = fname##_value(op, 0, i, offset, logical);                                      \
                for (int q = 1; q < n; q++)                                                              \
                    want[i] = fname##_combine(op, want[i], fname##_value(op, q, i, offset, logical));    \
            }                                                                                            \
            memset(out, 0, sizeof out);                                                                  \
            int rc = MPI_Allreduce(in, out, C, type, ops[op], comm);                                     \
            CHECK(rc == MPI_SUCCESS, "MPI_Allreduce %s on %s returned %d", op_names[op], tname, rc);     \
            for (int i = 0; i < C; i++)                                                                  \
                CHECK(out[i] == want[i], "allreduce %s on %s: [%d] = %g, expected %g", op_names[op],     \
                      tname, i, SHOW(out[i]), SHOW(want[i]));                                            \
            for (int i = 0; i < C; i++) {                                                                \
                io[i] = fname##_value(op, me + 1, i, offset, logical);                                   \
                want[i] = fname##_combine(op, in[i], io[i]);                                             \
            }                                                                                            \
            MPI_Reduce_local(in, io, C, type, ops[op]);                                                  \
            for (int i = 0; i < C; i++)                                                                  \
                CHECK(io[i] == want[i], "reduce_local %s on %s: [%d] = %g, expected %g", op_names[op],   \
                      tname, i, SHOW(io[i]), SHOW(want[i]));                                             \
        }                                                                                                \
    }

#define INTEGER_BODY(T)                                                                                  \
    COMMON_CASES(T)                                                                                      \
    case BAND:                                                                                           \
        return (T)(a & b);                                                                               \
    case BOR:                                                                                            \
        return (T)(a | b);                                                                               \
    case BXOR:                                                                                           \
        return (T)(a ^ b);
#define LOGICAL_BODY(T)                                                                                  \
    case LAND:                                                                                           \
        return (T)((a != 0) && (b != 0));                                                                \
    case LOR:                                                                                            \
        return (T)((a != 0) || (b != 0));                                                                \
    case LXOR:                                                                                           \
        return (T)((a != 0) != (b != 0));
#define SCALAR_VALUE(T) (T) v
#define SHOW_REAL(x) ((double)(x))
#define SHOW_COMPLEX(x) ((double)__real__(x))

#define INTEGER_TEST(s, T) DEFINE_TEST(test_##s, T, INTEGER_BODY(T), SCALAR_VALUE(T), SHOW_REAL)
#define FLOATING_TEST(s, T) DEFINE_TEST(test_##s, T, COMMON_CASES(T), SCALAR_VALUE(T), SHOW_REAL)
/* Complex: sums and products only; values with an imaginary part (products of 1 + i stay exact). */
#define COMPLEX_BODY(T)                                                                                  \
    case SUM:                                                                                            \
        return a + b;                                                                                    \
    case PROD:                                                                                           \
        return a * b;
#define COMPLEX_VALUE(T) (op == PROD ? (v == 2 ? (T)(1 + 1 * I) : (T)1) : (T)(v + (v % 3) * I))
#define COMPLEX_TEST(s, T) DEFINE_TEST(test_##s, T, COMPLEX_BODY(T), COMPLEX_VALUE(T), SHOW_COMPLEX)

INTEGER_TEST(i8, int8_t)
INTEGER_TEST(u8, uint8_t)
INTEGER_TEST(i16, int16_t)
INTEGER_TEST(u16, uint16_t)
INTEGER_TEST(i32, int32_t)
INTEGER_TEST(u32, uint32_t)
INTEGER_TEST(i64, int64_t)
INTEGER_TEST(u64, uint64_t)
DEFINE_TEST(test_bool, _Bool, LOGICAL_BODY(_Bool), SCALAR_VALUE(_Bool), SHOW_REAL)
FLOATING_TEST(f32, float)
FLOATING_TEST(f64, double)
FLOATING_TEST(f80, long double)
FLOATING_TEST(f128, __float128)
COMPLEX_TEST(c32, float _Complex)
COMPLEX_TEST(c64, double _Complex)
COMPLEX_TEST(c80, long double _Complex)
COMPLEX_TEST(c128, _Complex _Float128)

static void test_all_scalars(MPI_Comm comm, int me, int n)
{
    const unsigned ints = ARITH | LOGICAL | BITWISE;
    const unsigned floats = ARITH | LOGICAL; /* logical operations on floating point: MPICH's extension */
    test_i8(comm, me, n, MPI_CHAR, "MPI_CHAR", ints, 5, 0);
    test_i8(comm, me, n, MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR", ints, 5, 0);
    test_u8(comm, me, n, MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", ints, 0, 0);
    test_i16(comm, me, n, MPI_SHORT, "MPI_SHORT", ints, 5, 0);
    test_u16(comm, me, n, MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", ints, 0, 0);
    test_i32(comm, me, n, MPI_INT, "MPI_INT", ints, 5, 0);
    test_u32(comm, me, n, MPI_UNSIGNED, "MPI_UNSIGNED", ints, 0, 0);
    test_i64(comm, me, n, MPI_LONG, "MPI_LONG", ints, 5, 0);
    test_u64(comm, me, n, MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", ints, 0, 0);
    test_i64(comm, me, n, MPI_LONG_LONG, "MPI_LONG_LONG", ints, 5, 0);
    test_u64(comm, me, n, MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG", ints, 0, 0);
    test_i8(comm, me, n, MPI_INT8_T, "MPI_INT8_T", ints, 5, 0);
    test_u8(comm, me, n, MPI_UINT8_T, "MPI_UINT8_T", ints, 0, 0);
    test_i16(comm, me, n, MPI_INT16_T, "MPI_INT16_T", ints, 5, 0);
    test_u16(comm, me, n, MPI_UINT16_T, "MPI_UINT16_T", ints, 0, 0);
    test_i32(comm, me, n, MPI_INT32_T, "MPI_INT32_T", ints, 5, 0);
    test_u32(comm, me, n, MPI_UINT32_T, "MPI_UINT32_T", ints, 0, 0);
    test_i64(comm, me, n, MPI_INT64_T, "MPI_INT64_T", ints, 5, 0);
    test_u64(comm, me, n, MPI_UINT64_T, "MPI_UINT64_T", ints, 0, 0);
    test_i64(comm, me, n, MPI_AINT, "MPI_AINT", ints, 5, 0);
    test_i64(comm, me, n, MPI_OFFSET, "MPI_OFFSET", ints, 5, 0);
    test_i64(comm, me, n, MPI_COUNT, "MPI_COUNT", ints, 5, 0);
    test_i32(comm, me, n, MPI_INTEGER, "MPI_INTEGER", ints, 5, 0);
    test_i8(comm, me, n, MPI_INTEGER1, "MPI_INTEGER1", ints, 5, 0);
    test_i16(comm, me, n, MPI_INTEGER2, "MPI_INTEGER2", ints, 5, 0);
    test_i32(comm, me, n, MPI_INTEGER4, "MPI_INTEGER4", ints, 5, 0);
    test_i64(comm, me, n, MPI_INTEGER8, "MPI_INTEGER8", ints, 5, 0);
    test_u8(comm, me, n, MPI_BYTE, "MPI_BYTE", BITWISE, 0, 0);
    test_bool(comm, me, n, MPI_C_BOOL, "MPI_C_BOOL", LOGICAL, 0, 1);
    test_bool(comm, me, n, MPI_CXX_BOOL, "MPI_CXX_BOOL", LOGICAL, 0, 1);
    test_i32(comm, me, n, MPI_LOGICAL, "MPI_LOGICAL", LOGICAL, 0, 1);
    test_f32(comm, me, n, MPI_FLOAT, "MPI_FLOAT", floats, 5, 0);
    test_f64(comm, me, n, MPI_DOUBLE, "MPI_DOUBLE", floats, 5, 0);
    test_f80(comm, me, n, MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", floats, 5, 0);
    test_f32(comm, me, n, MPI_REAL, "MPI_REAL", floats, 5, 0);
    test_f64(comm, me, n, MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", floats, 5, 0);
    test_f32(comm, me, n, MPI_REAL4, "MPI_REAL4", floats, 5, 0);
    test_f64(comm, me, n, MPI_REAL8, "MPI_REAL8", floats, 5, 0);
    test_f128(comm, me, n, MPI_REAL16, "MPI_REAL16", floats, 5, 0);
    const unsigned cplx = (1u << SUM) | (1u << PROD);
    test_c32(comm, me, n, MPI_C_FLOAT_COMPLEX, "MPI_C_FLOAT_COMPLEX", cplx, 0, 0);
    test_c64(comm, me, n, MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", cplx, 0, 0);
    test_c80(comm, me, n, MPI_C_LONG_DOUBLE_COMPLEX, "MPI_C_LONG_DOUBLE_COMPLEX", cplx, 0, 0);
    test_c32(comm, me, n, MPI_CXX_FLOAT_COMPLEX, "MPI_CXX_FLOAT_COMPLEX", cplx, 0, 0);
    test_c64(comm, me, n, MPI_CXX_DOUBLE_COMPLEX, "MPI_CXX_DOUBLE_COMPLEX", cplx, 0, 0);
    test_c80(comm, me, n, MPI_CXX_LONG_DOUBLE_COMPLEX, "MPI_CXX_LONG_DOUBLE_COMPLEX", cplx, 0, 0);
    test_c32(comm, me, n, MPI_COMPLEX, "MPI_COMPLEX", cplx, 0, 0);
    test_c64(comm, me, n, MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", cplx, 0, 0);
    test_c32(comm, me, n, MPI_COMPLEX8, "MPI_COMPLEX8", cplx, 0, 0);
    test_c64(comm, me, n, MPI_COMPLEX16, "MPI_COMPLEX16", cplx, 0, 0);
    test_c128(comm, me, n, MPI_COMPLEX32, "MPI_COMPLEX32", cplx, 0, 0);
}

/* ------------------------------------------------------------------ MINLOC and MAXLOC */

static int loc_value(int q, int i)
{
    return (q * 5 + i) % 4; /* many ties: the smaller index must win */
}

/* Expected (value, index) of MINLOC (sign 1) or MAXLOC (sign -1) over ranks 0..n-1. */
static void loc_expect(int n, int i, int sign, int *value, int *index)
{
    *value = loc_value(0, i), *index = 0;
    for (int q = 1; q < n; q++)
        if (sign * loc_value(q, i) < sign * *value)
            *value = loc_value(q, i), *index = q;
}

#define PAIR_TEST(fname, V, I)                                                                           \
    static void fname(MPI_Comm comm, int me, int n, MPI_Datatype type, const char *tname)               \
    {                                                                                                    \
        enum { C = 9 };                                                                                  \
        struct {                                                                                         \
            V v;                                                                                         \
            I i;                                                                                         \
        } in[C], out[C];                                                                                 \
        for (int sign = 1; sign >= -1; sign -= 2) {                                                      \
            for (int i = 0; i < C; i++) {                                                                \
                in[i].v = (V)loc_value(me, i);                                                           \
                in[i].i = (I)me;                                                                         \
            }                                                                                            \
            MPI_Allreduce(in, out, C, type, sign > 0 ? MPI_MINLOC : MPI_MAXLOC, comm);                   \
            for (int i = 0; i < C; i++) {                                                                \
                int v, x;                                                                                \
                loc_expect(n, i, sign, &v, &x);                                                          \
                CHECK(out[i].v == (V)v && out[i].i == (I)x, "%s on %s: [%d] = (%g, %g), expected (%d, %d)", \
                      sign > 0 ? "MINLOC" : "MAXLOC", tname, i, (double)out[i].v, (double)out[i].i, v, x);  \
            }                                                                                            \
        }                                                                                                \
    }

PAIR_TEST(test_float_int, float, int)
PAIR_TEST(test_double_int, double, int)
PAIR_TEST(test_long_int, long, int)
PAIR_TEST(test_short_int, short, int)
PAIR_TEST(test_long_double_int, long double, int)
PAIR_TEST(test_int_int, int, int)
PAIR_TEST(test_real_real, float, float)
PAIR_TEST(test_double_double, double, double)

/* Pairs inside derived types: three MPI_DOUBLE_INT (12 bytes of data in 16) contiguous, and MPI_SHORT_INT
 * every other element: the packed path of the kernels. */
static void test_derived_pairs(MPI_Comm comm, int me, int n)
{
    struct {
        double v;
        int i;
    } d[6], dout[6];
    struct {
        short v;
        int i;
    } s[6], sout[6];
    MPI_Datatype three, alternate;
    MPI_Type_contiguous(3, MPI_DOUBLE_INT, &three);
    MPI_Type_commit(&three);
    MPI_Type_vector(3, 1, 2, MPI_SHORT_INT, &alternate);
    MPI_Type_commit(&alternate);
    for (int k = 0; k < 6; k++) {
        d[k].v = loc_value(me, k), d[k].i = me;
        s[k].v = (short)loc_value(me, k), s[k].i = me;
        sout[k].v = -1, sout[k].i = -1;
    }
    MPI_Allreduce(d, dout, 2, three, MPI_MAXLOC, comm);
    MPI_Allreduce(s, sout, 1, alternate, MPI_MINLOC, comm);
    for (int k = 0; k < 6; k++) {
        int v, x;
        loc_expect(n, k, -1, &v, &x);
        CHECK(dout[k].v == v && dout[k].i == x, "MAXLOC on contiguous MPI_DOUBLE_INT: [%d] = (%g, %d)", k, dout[k].v,
              dout[k].i);
        if (k % 2 == 0) {
            loc_expect(n, k, 1, &v, &x);
            CHECK(sout[k].v == v && sout[k].i == x, "MINLOC on strided MPI_SHORT_INT: [%d] = (%d, %d)", k, sout[k].v,
                  sout[k].i);
        } else {
            CHECK(sout[k].v == -1 && sout[k].i == -1, "MINLOC on strided MPI_SHORT_INT wrote a hole");
        }
    }
    /* Reduce_local on the predefined padded pair itself. */
    struct {
        long double v;
        int i;
    } a[2] = {{1.5L, 7}, {2.0L, 1}}, b[2] = {{1.5L, 3}, {1.0L, 0}};
    MPI_Reduce_local(a, b, 2, MPI_LONG_DOUBLE_INT, MPI_MINLOC);
    CHECK(b[0].v == 1.5L && b[0].i == 3 && b[1].v == 1.0L && b[1].i == 0, "reduce_local MINLOC long double int");
    MPI_Type_free(&three);
    MPI_Type_free(&alternate);
}

/* ------------------------------------------------------------------ REPLACE, NO_OP, commutativity */

static void test_replace_noop(void)
{
    int in[6] = {1, 2, 3, 4, 5, 6}, io[6] = {-1, -2, -3, -4, -5, -6};
    MPI_Reduce_local(in, io, 6, MPI_INT, MPI_NO_OP);
    CHECK(io[0] == -1 && io[5] == -6, "MPI_NO_OP changed the buffer");
    MPI_Reduce_local(in, io, 6, MPI_INT, MPI_REPLACE);
    CHECK(io[0] == 1 && io[5] == 6, "MPI_REPLACE did not copy");
    MPI_Datatype every_other;
    MPI_Type_vector(3, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    int io2[6] = {-1, -2, -3, -4, -5, -6};
    MPI_Reduce_local(in, io2, 1, every_other, MPI_REPLACE);
    CHECK(io2[0] == 1 && io2[1] == -2 && io2[2] == 3 && io2[3] == -4 && io2[4] == 5 && io2[5] == -6,
          "MPI_REPLACE on a strided type");
    int io3[6] = {10, 0, 20, 0, 30, 0};
    MPI_Reduce_local(in, io3, 1, every_other, MPI_SUM);
    CHECK(io3[0] == 11 && io3[1] == 0 && io3[2] == 23 && io3[4] == 35 && io3[5] == 0, "MPI_SUM on a strided type");
    MPI_Type_free(&every_other);
    MPI_Op all[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR,
                    MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        int commute = 0;
        MPI_Op_commutative(all[k], &commute);
        CHECK(commute == 1, "predefined operation 0x%x is commutative", all[k]);
    }
    long long big_in[3] = {1LL << 40, -5, 7}, big_io[3] = {1LL << 41, 5, -7};
    MPI_Reduce_local_c(big_in, big_io, 3, MPI_LONG_LONG, MPI_SUM);
    CHECK(big_io[0] == 3LL << 40 && big_io[1] == 0 && big_io[2] == 0, "reduce_local_c");
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int n = check_size, me = check_rank;
    test_all_scalars(MPI_COMM_WORLD, me, n);
    test_float_int(MPI_COMM_WORLD, me, n, MPI_FLOAT_INT, "MPI_FLOAT_INT");
    test_double_int(MPI_COMM_WORLD, me, n, MPI_DOUBLE_INT, "MPI_DOUBLE_INT");
    test_long_int(MPI_COMM_WORLD, me, n, MPI_LONG_INT, "MPI_LONG_INT");
    test_short_int(MPI_COMM_WORLD, me, n, MPI_SHORT_INT, "MPI_SHORT_INT");
    test_long_double_int(MPI_COMM_WORLD, me, n, MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT");
    test_int_int(MPI_COMM_WORLD, me, n, MPI_2INT, "MPI_2INT");
    test_int_int(MPI_COMM_WORLD, me, n, MPI_2INTEGER, "MPI_2INTEGER");
    test_real_real(MPI_COMM_WORLD, me, n, MPI_2REAL, "MPI_2REAL");
    test_double_double(MPI_COMM_WORLD, me, n, MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION");
    test_derived_pairs(MPI_COMM_WORLD, me, n);
    test_replace_noop();
    return check_finish();
}
