/* external32 (MPI 4.0 section 13.5.2): big-endian bytes, the standard's fixed sizes (MPI_LONG in 4 bytes,
 * MPI_LONG_DOUBLE as an IEEE binary128), sizes of derived types, and round trips. */
#include "dt_test_util.h"

#include <math.h>

static MPI_Aint ext_size(MPI_Datatype t, int count)
{
    MPI_Aint size = -1;
    assert_int_equal(MPI_Pack_external_size("external32", count, t, &size), MPI_SUCCESS);
    return size;
}

/* Packs `count` items and checks the bytes; returns the position reached. */
static void expect_bytes(MPI_Datatype t, const void *in, int count, const unsigned char *expect, size_t n)
{
    unsigned char out[128];
    MPI_Aint pos = 0;
    memset(out, 0xee, sizeof out);
    assert_int_equal(MPI_Pack_external("external32", in, count, t, out, sizeof out, &pos), MPI_SUCCESS);
    assert_int_equal(pos, (MPI_Aint)n);
    assert_memory_equal(out, expect, n);
    assert_int_equal(out[n], 0xee); /* nothing written past the end */
}

static void sizes_follow_the_standard_table(void **state)
{
    (void)state;
    assert_int_equal(ext_size(MPI_INT, 3), 12);
    assert_int_equal(ext_size(MPI_LONG, 1), 4);
    assert_int_equal(ext_size(MPI_UNSIGNED_LONG, 2), 8);
    assert_int_equal(ext_size(MPI_LONG_LONG, 1), 8);
    assert_int_equal(ext_size(MPI_WCHAR, 1), 2);
    assert_int_equal(ext_size(MPI_LONG_DOUBLE, 1), 16);
    assert_int_equal(ext_size(MPI_C_DOUBLE_COMPLEX, 1), 16);
    assert_int_equal(ext_size(MPI_LONG_INT, 1), 8);
    assert_int_equal(ext_size(MPI_DOUBLE_INT, 2), 24);
    assert_int_equal(ext_size(MPI_SHORT_INT, 1), 6);
    assert_int_equal(ext_size(MPI_AINT, 1), 8);
    assert_int_equal(ext_size(MPI_LB, 5), 0);
    MPI_Datatype t;
    int bl[] = {2, 1};
    MPI_Aint disp[] = {0, 16};
    MPI_Datatype types[] = {MPI_LONG, MPI_SHORT};
    MPI_Type_create_struct(2, bl, disp, types, &t);
    assert_int_equal(ext_size(t, 3), 3 * (2 * 4 + 2));
    MPI_Count c;
    assert_int_equal(MPI_Pack_external_size_c("external32", 1L << 33, t, &c), MPI_SUCCESS);
    assert_int_equal(c, 10L << 33);
    MPI_Type_free(&t);
}

static void integers_are_big_endian(void **state)
{
    (void)state;
    int i[2] = {0x01020304, -2};
    const unsigned char ei[] = {1, 2, 3, 4, 0xff, 0xff, 0xff, 0xfe};
    expect_bytes(MPI_INT, i, 2, ei, sizeof ei);
    short s = 0x0a0b;
    const unsigned char es[] = {0x0a, 0x0b};
    expect_bytes(MPI_SHORT, &s, 1, es, sizeof es);
    long long ll = 0x0102030405060708LL;
    const unsigned char ell[] = {1, 2, 3, 4, 5, 6, 7, 8};
    expect_bytes(MPI_LONG_LONG, &ll, 1, ell, sizeof ell);
    /* MPI_LONG is 4 bytes in external32 */
    long l[2] = {-2, 0x11223344};
    const unsigned char el[] = {0xff, 0xff, 0xff, 0xfe, 0x11, 0x22, 0x33, 0x44};
    expect_bytes(MPI_LONG, l, 2, el, sizeof el);
    unsigned long ul = 0x500000007UL; /* truncated to its low 32 bits */
    const unsigned char eul[] = {0, 0, 0, 7};
    expect_bytes(MPI_UNSIGNED_LONG, &ul, 1, eul, sizeof eul);
    char c[3] = {'a', 'b', 'c'};
    expect_bytes(MPI_CHAR, c, 3, (const unsigned char *)"abc", 3);
}

static void floats_are_big_endian_ieee(void **state)
{
    (void)state;
    double d = 1.0;
    const unsigned char ed[] = {0x3f, 0xf0, 0, 0, 0, 0, 0, 0};
    expect_bytes(MPI_DOUBLE, &d, 1, ed, sizeof ed);
    float f[2] = {1.0f, 2.0f}; /* also the layout of a float complex */
    const unsigned char ef[] = {0x3f, 0x80, 0, 0, 0x40, 0, 0, 0};
    expect_bytes(MPI_FLOAT, f, 2, ef, sizeof ef);
    expect_bytes(MPI_C_FLOAT_COMPLEX, f, 1, ef, sizeof ef);
    /* long double -> binary128: 1.0 is 0x3fff followed by zeros, -2.5 is 0xc000 4000 ... */
    long double ld[2] = {1.0L, -2.5L};
    unsigned char eld[32] = {0x3f, 0xff};
    eld[16] = 0xc0;
    eld[17] = 0x00;
    eld[18] = 0x40;
    expect_bytes(MPI_LONG_DOUBLE, ld, 2, eld, sizeof eld);
}

static void round_trips_restore_values(void **state)
{
    (void)state;
    long double ld[6] = {1.0L, -2.5L, 3.141592653589793238462643383279L, 1e-4940L, INFINITY, 0.0L};
    long double ld_back[6];
    unsigned char buf[256];
    MPI_Aint pos = 0;
    MPI_Pack_external("external32", ld, 6, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
    assert_int_equal(pos, 96);
    pos = 0;
    assert_int_equal(MPI_Unpack_external("external32", buf, 96, &pos, ld_back, 6, MPI_LONG_DOUBLE), MPI_SUCCESS);
    for (int i = 0; i < 6; i++)
        assert_true(ld[i] == ld_back[i]); /* exact: binary128 holds every x87 value */
    long l[3] = {-2, 123456789, -2147483648L}, l_back[3];
    pos = 0;
    MPI_Pack_external("external32", l, 3, MPI_LONG, buf, sizeof buf, &pos);
    pos = 0;
    MPI_Unpack_external("external32", buf, 12, &pos, l_back, 3, MPI_LONG);
    assert_memory_equal(l, l_back, sizeof l);
    unsigned long ul[2] = {4000000000UL, 7}, ul_back[2];
    pos = 0;
    MPI_Pack_external("external32", ul, 2, MPI_UNSIGNED_LONG, buf, sizeof buf, &pos);
    pos = 0;
    MPI_Unpack_external("external32", buf, 8, &pos, ul_back, 2, MPI_UNSIGNED_LONG);
    assert_memory_equal(ul, ul_back, sizeof ul);
    wchar_t w[2] = {L'A', 0x263a}, w_back[2];
    pos = 0;
    MPI_Pack_external("external32", w, 2, MPI_WCHAR, buf, sizeof buf, &pos);
    assert_int_equal(pos, 4);
    assert_int_equal(buf[0], 0);
    assert_int_equal(buf[1], 'A');
    assert_int_equal(buf[2], 0x26);
    pos = 0;
    MPI_Unpack_external("external32", buf, 4, &pos, w_back, 2, MPI_WCHAR);
    assert_memory_equal(w, w_back, sizeof w);
    double _Complex z = 1.5 - 2.0 * __builtin_complex(0.0, 1.0), z_back;
    pos = 0;
    MPI_Pack_external("external32", &z, 1, MPI_C_DOUBLE_COMPLEX, buf, sizeof buf, &pos);
    assert_int_equal(buf[0], 0x3f);
    assert_int_equal(buf[1], 0xf8);
    assert_int_equal(buf[8], 0xc0);
    pos = 0;
    MPI_Unpack_external("external32", buf, 16, &pos, &z_back, 1, MPI_C_DOUBLE_COMPLEX);
    assert_true(z == z_back);
}

static void derived_types_convert_each_element(void **state)
{
    (void)state;
    struct rec {
        char tag;
        int n;
        double x;
        long l;
    } in[3], out[3];
    memset(in, 0, sizeof in);
    memset(out, 0, sizeof out);
    for (int i = 0; i < 3; i++)
        in[i] = (struct rec){(char)('a' + i), 1000 + i, 0.5 * i, -7 - i};
    MPI_Datatype t;
    int bl[] = {1, 1, 1, 1};
    MPI_Aint disp[] = {offsetof(struct rec, tag), offsetof(struct rec, n), offsetof(struct rec, x),
                       offsetof(struct rec, l)};
    MPI_Datatype types[] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG};
    MPI_Type_create_struct(4, bl, disp, types, &t);
    MPI_Type_commit(&t);
    assert_int_equal(ext_size(t, 3), 3 * 17);
    unsigned char buf[64];
    MPI_Aint pos = 0;
    assert_int_equal(MPI_Pack_external("external32", in, 3, t, buf, sizeof buf, &pos), MPI_SUCCESS);
    assert_int_equal(pos, 51);
    /* the second record: 'b', 1001 big-endian, 0.5, -8 as 4 bytes */
    const unsigned char rec1[] = {'b', 0, 0, 0x03, 0xe9, 0x3f, 0xe0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xf8};
    assert_memory_equal(buf + 17, rec1, sizeof rec1);
    pos = 0;
    assert_int_equal(MPI_Unpack_external("external32", buf, 51, &pos, out, 3, t), MPI_SUCCESS);
    assert_int_equal(pos, 51);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(out[i].tag, in[i].tag);
        assert_int_equal(out[i].n, in[i].n);
        assert_true(out[i].x == in[i].x);
        assert_int_equal(out[i].l, in[i].l);
    }
    MPI_Type_free(&t);

    /* a vector with a negative stride, packed after other data at a position */
    int m[12];
    for (int i = 0; i < 12; i++)
        m[i] = i;
    MPI_Type_vector(3, 2, -4, MPI_INT, &t);
    MPI_Type_commit(&t);
    pos = 4;
    memset(buf, 0, sizeof buf);
    MPI_Pack_external("external32", m + 8, 1, t, buf, sizeof buf, &pos);
    assert_int_equal(pos, 4 + 24);
    const unsigned char ev[] = {0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 1};
    assert_memory_equal(buf + 4, ev, sizeof ev);
    MPI_Type_free(&t);

    /* pair types: value then index */
    struct {
        double v;
        int i;
    } di = {2.0, 5};
    const unsigned char edi[] = {0x40, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5};
    expect_bytes(MPI_DOUBLE_INT, &di, 1, edi, sizeof edi);
}

static void large_count_forms(void **state)
{
    (void)state;
    int v[4] = {1, 2, 3, 4}, back[4] = {0};
    unsigned char buf[16];
    MPI_Count pos = 0;
    assert_int_equal(MPI_Pack_external_c("external32", v, 4, MPI_INT, buf, 16, &pos), MPI_SUCCESS);
    assert_int_equal(pos, 16);
    assert_int_equal(buf[15], 4);
    pos = 0;
    assert_int_equal(MPI_Unpack_external_c("external32", buf, 16, &pos, back, 4, MPI_INT), MPI_SUCCESS);
    assert_memory_equal(v, back, sizeof v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sizes_follow_the_standard_table),
        cmocka_unit_test(integers_are_big_endian),
        cmocka_unit_test(floats_are_big_endian_ieee),
        cmocka_unit_test(round_trips_restore_values),
        cmocka_unit_test(derived_types_convert_each_element),
        cmocka_unit_test(large_count_forms),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
