/* Helpers of the datatype tests: an independent type-map oracle built only from MPI_Type_get_envelope /
 * get_contents and MPI_Type_get_extent (it never looks at the engine's layouts), checks that compare the
 * engine's pack, unpack, partial ranges and segments against it, and a test buffer with room on both sides
 * of its origin for negative displacements. */
#ifndef MPCRT_TEST_DT_UTIL_H
#define MPCRT_TEST_DT_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mpi.h"
#include "mpi/datatype/datatype.h"

typedef struct {
    long off;
    int len;
} piece_t;

typedef struct {
    piece_t *p;
    size_t n, cap;
} typemap_t;

static inline void typemap_add(typemap_t *m, long off, int len)
{
    if (len <= 0)
        return;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->p = realloc(m->p, m->cap * sizeof *m->p);
        assert_non_null(m->p);
    }
    m->p[m->n++] = (piece_t){off, len};
}

static inline MPI_Aint test_extent(MPI_Datatype t)
{
    MPI_Aint lb, extent;
    assert_int_equal(MPI_Type_get_extent(t, &lb, &extent), MPI_SUCCESS);
    return extent;
}

/* Layouts of the predefined pair types, as C structs {T value; int index;}. */
static inline bool pair_layout(MPI_Datatype t, int *first, long *second_off)
{
    struct {
        MPI_Datatype t;
        int first;
        long second;
    } pairs[] = {{MPI_FLOAT_INT, 4, 4}, {MPI_DOUBLE_INT, 8, 8}, {MPI_LONG_INT, 8, 8}, {MPI_SHORT_INT, 2, 4},
                 {MPI_LONG_DOUBLE_INT, 16, 16}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        if (pairs[i].t == t) {
            *first = pairs[i].first;
            *second_off = pairs[i].second;
            return true;
        }
    }
    return false;
}

static inline void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, combiner;
    assert_int_equal(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), MPI_SUCCESS);
    if (combiner != MPI_COMBINER_NAMED)
        assert_int_equal(MPI_Type_free(&t), MPI_SUCCESS);
}

/* Appends the type map of one instance of t at `base` (bytes of basic elements, in order). */
static inline void flatten(MPI_Datatype t, long base, typemap_t *m)
{
    int ni, na, nd, combiner;
    assert_int_equal(MPI_Type_get_envelope(t, &ni, &na, &nd, &combiner), MPI_SUCCESS);
    if (combiner == MPI_COMBINER_NAMED) {
        int size, first;
        long second;
        assert_int_equal(MPI_Type_size(t, &size), MPI_SUCCESS);
        if (pair_layout(t, &first, &second)) {
            typemap_add(m, base, first);
            typemap_add(m, base + second, 4);
        } else {
            typemap_add(m, base, size);
        }
        return;
    }
    int *in = malloc((size_t)(ni + 1) * sizeof *in);
    MPI_Aint *a = malloc((size_t)(na + 1) * sizeof *a);
    MPI_Datatype *ty = malloc((size_t)(nd + 1) * sizeof *ty);
    assert_int_equal(MPI_Type_get_contents(t, ni, na, nd, in, a, ty), MPI_SUCCESS);
    MPI_Aint ext = test_extent(ty[0]);
    switch (combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        flatten(ty[0], base, m);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        for (long i = 0; i < in[0]; i++)
            flatten(ty[0], base + i * ext, m);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        for (long i = 0; i < in[0]; i++) {
            long start = combiner == MPI_COMBINER_VECTOR ? i * in[2] * ext : i * a[0];
            for (long j = 0; j < in[1]; j++)
                flatten(ty[0], base + start + j * ext, m);
        }
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
        for (long i = 0; i < in[0]; i++) {
            long start = combiner == MPI_COMBINER_INDEXED ? in[1 + in[0] + i] * ext : a[i];
            for (long j = 0; j < in[1 + i]; j++)
                flatten(ty[0], base + start + j * ext, m);
        }
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (long i = 0; i < in[0]; i++) {
            long start = combiner == MPI_COMBINER_INDEXED_BLOCK ? in[2 + i] * ext : a[i];
            for (long j = 0; j < in[1]; j++)
                flatten(ty[0], base + start + j * ext, m);
        }
        break;
    case MPI_COMBINER_STRUCT:
        for (long i = 0; i < in[0]; i++) {
            MPI_Aint e = test_extent(ty[i]);
            for (long j = 0; j < in[1 + i]; j++)
                flatten(ty[i], base + a[i] + j * e, m);
        }
        break;
    case MPI_COMBINER_SUBARRAY: {
        /* Elements of the sub-block in memory order (MPI 4.0 section 5.1.3). */
        int n = in[0], order = in[1 + 3 * n];
        const int *sizes = in + 1, *sub = in + 1 + n, *starts = in + 1 + 2 * n;
        long stride[16], elements = 1;
        assert_true(n <= 16);
        for (int k = 0; k < n; k++) {
            int d = order == MPI_ORDER_C ? n - 1 - k : k; /* k-th fastest dimension */
            int prev = order == MPI_ORDER_C ? d + 1 : d - 1;
            stride[d] = k == 0 ? 1 : stride[prev] * sizes[prev];
            elements *= sub[d];
        }
        for (long e = 0; e < elements; e++) {
            long rest = e, off = 0;
            for (int k = 0; k < n; k++) {
                int d = order == MPI_ORDER_C ? n - 1 - k : k;
                off += (starts[d] + rest % sub[d]) * stride[d];
                rest /= sub[d];
            }
            flatten(ty[0], base + off * ext, m);
        }
        break;
    }
    default:
        fail_msg("the oracle does not expand combiner %d", combiner);
    }
    for (int i = 0; i < nd; i++)
        free_if_derived(ty[i]);
    free(in);
    free(a);
    free(ty);
}

/* The expected packed bytes of `count` instances of t at origin. */
static inline size_t oracle_pack(MPI_Datatype t, int count, const char *origin, char *out)
{
    typemap_t m = {0};
    MPI_Aint ext = test_extent(t);
    for (int k = 0; k < count; k++)
        flatten(t, k * ext, &m);
    size_t n = 0;
    for (size_t i = 0; i < m.n; i++) {
        memcpy(out + n, origin + m.p[i].off, (size_t)m.p[i].len);
        n += (size_t)m.p[i].len;
    }
    free(m.p);
    return n;
}

/* A buffer whose origin has `margin` bytes on each side, filled with a position-dependent pattern. */
typedef struct {
    char *mem;
    char *origin;
    size_t margin;
} test_buf_t;

static inline test_buf_t test_buf(size_t margin, unsigned char salt)
{
    test_buf_t b = {.mem = malloc(2 * margin), .margin = margin};
    assert_non_null(b.mem);
    for (size_t i = 0; i < 2 * margin; i++)
        b.mem[i] = (char)((i * 131u + salt) & 0xff);
    b.origin = b.mem + margin;
    return b;
}

static inline void test_buf_zero(test_buf_t *b)
{
    memset(b->mem, 0, 2 * b->margin);
}

/* Checks everything about packing `count` instances of t (committed here if needed): MPI_Pack against the
 * oracle, MPI_Unpack restoring exactly the type map's bytes, and the internal ranges and segments. */
static inline void check_pack(MPI_Datatype t, int count)
{
    MPI_Datatype committed = t;
    assert_int_equal(MPI_Type_commit(&committed), MPI_SUCCESS);
    int size;
    assert_int_equal(MPI_Type_size(t, &size), MPI_SUCCESS);
    size_t total = (size_t)size * (size_t)count;
    test_buf_t src = test_buf(1 << 16, 17), dst = test_buf(1 << 16, 0);
    char *expect = malloc(total + 1), *packed = malloc(total + 1), *part = malloc(total + 1);

    assert_int_equal(oracle_pack(t, count, src.origin, expect), total);
    int pos = 0;
    assert_int_equal(MPI_Pack(src.origin, count, t, packed, (int)total, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, (int)total);
    assert_memory_equal(packed, expect, total);

    /* Unpack into a zeroed buffer: the type map's bytes come back, every other byte stays zero. */
    test_buf_zero(&dst);
    pos = 0;
    assert_int_equal(MPI_Unpack(packed, (int)total, &pos, dst.origin, count, t, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, (int)total);
    test_buf_t ref = test_buf(1 << 16, 0);
    test_buf_zero(&ref);
    typemap_t m = {0};
    MPI_Aint ext = test_extent(t);
    for (int k = 0; k < count; k++)
        flatten(t, k * ext, &m);
    for (size_t i = 0; i < m.n; i++)
        memcpy(ref.origin + m.p[i].off, src.origin + m.p[i].off, (size_t)m.p[i].len);
    assert_memory_equal(dst.mem, ref.mem, 2 * dst.margin);
    free(m.p);

    /* Internal ranges: every split point, then small windows, give the same stream. */
    const mpcrt_datatype_t *dt = mpcrt_datatype_get(t);
    assert_non_null(dt);
    for (size_t cut = 0; cut <= total; cut++) {
        memset(part, 0, total + 1);
        assert_int_equal(mpcrt_datatype_pack(dt, src.origin, count, 0, (MPI_Count)cut, part), (MPI_Count)cut);
        assert_int_equal(mpcrt_datatype_pack(dt, src.origin, count, (MPI_Count)cut, (MPI_Count)(total - cut),
                                             part + cut),
                         (MPI_Count)(total - cut));
        assert_memory_equal(part, expect, total);
    }
    for (size_t window = 1; window <= 7; window++) {
        memset(part, 0, total + 1);
        test_buf_zero(&dst);
        for (size_t at = 0; at < total; at += window) {
            size_t len = total - at < window ? total - at : window;
            mpcrt_datatype_pack(dt, src.origin, count, (MPI_Count)at, (MPI_Count)len, part + at);
            mpcrt_datatype_unpack(dt, dst.origin, count, (MPI_Count)at, (MPI_Count)len, expect + at);
        }
        assert_memory_equal(part, expect, total);
        assert_memory_equal(dst.mem, ref.mem, 2 * dst.margin);
    }

    /* Segments, with room for 1, 2, 3 and many at a time, gather the same stream. */
    const int room[] = {1, 2, 3, 1000};
    for (size_t r = 0; r < sizeof room / sizeof room[0]; r++) {
        mpcrt_dt_segment_t segs[1000];
        size_t at = 0;
        while (at < total) {
            int nseg = 0;
            MPI_Count covered = mpcrt_datatype_segments(dt, count, (MPI_Count)at, (MPI_Count)(total - at), segs,
                                                        room[r], &nseg);
            assert_true(covered > 0);
            assert_true(nseg >= 1 && nseg <= room[r]);
            MPI_Count sum = 0;
            for (int s = 0; s < nseg; s++) {
                memcpy(part + at + sum, src.origin + segs[s].offset, (size_t)segs[s].len);
                sum += segs[s].len;
            }
            assert_int_equal(sum, covered);
            at += (size_t)covered;
        }
        assert_int_equal(at, total);
        assert_memory_equal(part, expect, total);
    }
    free(ref.mem);
    free(src.mem);
    free(dst.mem);
    free(expect);
    free(packed);
    free(part);
}

static inline int mpi_setup(void **state)
{
    (void)state;
    return MPI_Init(NULL, NULL);
}

static inline int mpi_teardown(void **state)
{
    (void)state;
    return MPI_Finalize();
}

#endif
