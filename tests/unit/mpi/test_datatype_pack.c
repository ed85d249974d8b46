/* Packing and unpacking with every constructor (nested, negative strides, resized with a lower bound,
 * structs with gaps, MPI_BOTTOM with absolute addresses), checked against the envelope-based oracle of
 * dt_test_util.h, including partial ranges split at every byte and segment lists. */
#include "dt_test_util.h"

static void check_and_free(MPI_Datatype t, int count)
{
    check_pack(t, count);
    assert_int_equal(MPI_Type_free(&t), MPI_SUCCESS);
    assert_int_equal(t, MPI_DATATYPE_NULL);
}

static void predefined_types_pack_their_bytes(void **state)
{
    (void)state;
    const MPI_Datatype types[] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_C_DOUBLE_COMPLEX,
                                  MPI_2INT, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        check_pack(types[i], 5);
}

static void short_int_skips_its_hole(void **state)
{
    (void)state;
    struct {
        short v;
        int i;
    } in[2] = {{1, 10}, {2, 20}}, out[2];
    memset(out, 0x55, sizeof out);
    char packed[12];
    int pos = 0;
    assert_int_equal(MPI_Pack(in, 2, MPI_SHORT_INT, packed, 12, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 12);
    short s;
    int v;
    memcpy(&s, packed + 6, 2);
    memcpy(&v, packed + 8, 4);
    assert_int_equal(s, 2);
    assert_int_equal(v, 20);
    pos = 0;
    assert_int_equal(MPI_Unpack(packed, 12, &pos, out, 2, MPI_SHORT_INT, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(out[1].v, 2);
    assert_int_equal(out[1].i, 20);
    assert_int_equal(((unsigned char *)&out[0])[2], 0x55); /* the hole is not written */
}

static void contiguous_and_vector(void **state)
{
    (void)state;
    MPI_Datatype t;
    assert_int_equal(MPI_Type_contiguous(3, MPI_INT, &t), MPI_SUCCESS);
    check_and_free(t, 4);
    assert_int_equal(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
    check_and_free(t, 2);
    assert_int_equal(MPI_Type_vector(4, 1, 3, MPI_DOUBLE, &t), MPI_SUCCESS);
    check_and_free(t, 3);
    assert_int_equal(MPI_Type_vector(5, 3, 3, MPI_SHORT, &t), MPI_SUCCESS); /* stride == blocklength */
    check_and_free(t, 2);
    assert_int_equal(MPI_Type_vector(0, 3, 3, MPI_SHORT, &t), MPI_SUCCESS); /* empty */
    check_and_free(t, 2);
}

static void vector_with_hand_computed_stream(void **state)
{
    (void)state;
    int buf[24], out[12];
    for (int i = 0; i < 24; i++)
        buf[i] = i;
    MPI_Datatype t;
    assert_int_equal(MPI_Type_vector(3, 2, 4, MPI_INT, &t), MPI_SUCCESS);
    assert_int_equal(MPI_Type_commit(&t), MPI_SUCCESS);
    int pos = 0;
    assert_int_equal(MPI_Pack(buf, 2, t, out, sizeof out, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    /* extent 10 ints: the second instance starts at buf[10] */
    const int expect[12] = {0, 1, 4, 5, 8, 9, 10, 11, 14, 15, 18, 19};
    assert_memory_equal(out, expect, sizeof expect);
    MPI_Type_free(&t);
}

static void negative_strides(void **state)
{
    (void)state;
    MPI_Datatype t;
    assert_int_equal(MPI_Type_vector(4, 2, -3, MPI_INT, &t), MPI_SUCCESS);
    check_and_free(t, 3);
    assert_int_equal(MPI_Type_create_hvector(3, 2, -20, MPI_SHORT, &t), MPI_SUCCESS);
    check_and_free(t, 2);
    assert_int_equal(MPI_Type_create_hvector(3, 1, -7, MPI_CHAR, &t), MPI_SUCCESS); /* unaligned */
    check_and_free(t, 4);
}

static void indexed_family(void **state)
{
    (void)state;
    MPI_Datatype t;
    const int bl[] = {2, 0, 3, 1};
    const int disp[] = {5, 0, -3, 9};
    assert_int_equal(MPI_Type_indexed(4, bl, disp, MPI_INT, &t), MPI_SUCCESS);
    check_and_free(t, 3);
    const MPI_Aint hdisp[] = {13, -40, 0, 101};
    assert_int_equal(MPI_Type_create_hindexed(4, bl, hdisp, MPI_DOUBLE, &t), MPI_SUCCESS);
    check_and_free(t, 2);
    const int bdisp[] = {7, 1, 4};
    assert_int_equal(MPI_Type_create_indexed_block(3, 2, bdisp, MPI_FLOAT, &t), MPI_SUCCESS);
    check_and_free(t, 3);
    const MPI_Aint bhdisp[] = {-9, 33, 3};
    assert_int_equal(MPI_Type_create_hindexed_block(3, 3, bhdisp, MPI_CHAR, &t), MPI_SUCCESS);
    check_and_free(t, 3);
    /* adjacent blocks that the engine merges */
    const int abl[] = {2, 3, 1};
    const int adisp[] = {0, 2, 5};
    assert_int_equal(MPI_Type_indexed(3, abl, adisp, MPI_INT, &t), MPI_SUCCESS);
    const mpcrt_datatype_t *dt = mpcrt_datatype_get(t);
    assert_true(mpcrt_datatype_is_contiguous(dt));
    check_and_free(t, 2);
}

static void struct_with_gaps_and_markers(void **state)
{
    (void)state;
    struct rec {
        char c;
        double d;
        int i[3];
        short s;
    };
    MPI_Datatype t;
    int bl[] = {1, 1, 3, 1};
    MPI_Aint disp[] = {offsetof(struct rec, c), offsetof(struct rec, d), offsetof(struct rec, i),
                       offsetof(struct rec, s)};
    MPI_Datatype types[] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT};
    assert_int_equal(MPI_Type_create_struct(4, bl, disp, types, &t), MPI_SUCCESS);
    assert_int_equal(test_extent(t), (MPI_Aint)sizeof(struct rec));
    check_and_free(t, 3);

    /* explicit bounds through MPI_LB / MPI_UB */
    int bl2[] = {1, 2, 1, 1};
    MPI_Aint disp2[] = {-8, 4, 24, 2};
    MPI_Datatype types2[] = {MPI_LB, MPI_INT, MPI_UB, MPI_CHAR};
    assert_int_equal(MPI_Type_create_struct(4, bl2, disp2, types2, &t), MPI_SUCCESS);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    assert_int_equal(lb, -8);
    assert_int_equal(extent, 32);
    check_and_free(t, 3);
}

static void resized_with_lower_bound(void **state)
{
    (void)state;
    MPI_Datatype c, t;
    assert_int_equal(MPI_Type_contiguous(3, MPI_INT, &c), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_resized(c, -8, 20, &t), MPI_SUCCESS);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    assert_int_equal(lb, -8);
    assert_int_equal(extent, 20);
    check_pack(t, 4); /* instances at 0, 20, 40, 60: overlapping the lb does not move data */
    /* resized smaller than the data: instances overlap */
    MPI_Datatype o;
    assert_int_equal(MPI_Type_create_resized(c, 0, 4, &o), MPI_SUCCESS);
    check_and_free(o, 3);
    MPI_Type_free(&t);
    MPI_Type_free(&c);
}

static void nested_types(void **state)
{
    (void)state;
    /* vector of structs */
    MPI_Datatype s, v, idx, r, outer, dup;
    int bl[] = {1, 2};
    MPI_Aint disp[] = {0, 8};
    MPI_Datatype types[] = {MPI_DOUBLE, MPI_SHORT};
    assert_int_equal(MPI_Type_create_struct(2, bl, disp, types, &s), MPI_SUCCESS);
    assert_int_equal(MPI_Type_vector(3, 2, 3, s, &v), MPI_SUCCESS);
    check_pack(v, 2);
    /* indexed of a resized vector: a matrix transpose-like walk */
    MPI_Datatype col;
    assert_int_equal(MPI_Type_vector(4, 1, 5, MPI_INT, &col), MPI_SUCCESS);
    assert_int_equal(MPI_Type_create_resized(col, 0, sizeof(int), &r), MPI_SUCCESS);
    const int ibl[] = {2, 1};
    const int idisp[] = {3, 0};
    assert_int_equal(MPI_Type_indexed(2, ibl, idisp, r, &idx), MPI_SUCCESS);
    check_pack(idx, 2);
    /* a struct of everything, three levels deep, then duplicated */
    int obl[] = {1, 2, 1};
    MPI_Aint odisp[] = {-64, 200, 7};
    MPI_Datatype otypes[] = {v, idx, MPI_CHAR};
    assert_int_equal(MPI_Type_create_struct(3, obl, odisp, otypes, &outer), MPI_SUCCESS);
    check_pack(outer, 2);
    assert_int_equal(MPI_Type_dup(outer, &dup), MPI_SUCCESS);
    check_and_free(dup, 2);
    /* inner types may be freed while outer ones still use them */
    MPI_Type_free(&s);
    MPI_Type_free(&col);
    MPI_Type_free(&r);
    check_and_free(v, 1);
    MPI_Type_free(&idx);
    check_and_free(outer, 1);
}

static void subarray_orders(void **state)
{
    (void)state;
    MPI_Datatype t;
    const int sizes[] = {5, 6, 4}, subsizes[] = {2, 3, 2}, starts[] = {1, 2, 1};
    assert_int_equal(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &t), MPI_SUCCESS);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(t, &lb, &extent);
    assert_int_equal(lb, 0);
    assert_int_equal(extent, 5 * 6 * 4 * 4);
    check_and_free(t, 2);
    assert_int_equal(MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, MPI_SHORT, &t),
                     MPI_SUCCESS);
    check_and_free(t, 2);
    /* hand-computed: the 2x2 block at (1,1) of a 3x4 int matrix, C order: elements 5, 6, 9, 10 */
    const int s2[] = {3, 4}, sub2[] = {2, 2}, st2[] = {1, 1};
    assert_int_equal(MPI_Type_create_subarray(2, s2, sub2, st2, MPI_ORDER_C, MPI_INT, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    int m[12], out[4], pos = 0;
    for (int i = 0; i < 12; i++)
        m[i] = i;
    MPI_Pack(m, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD);
    const int expect[] = {5, 6, 9, 10};
    assert_memory_equal(out, expect, sizeof expect);
    MPI_Type_free(&t);
}

/* Global indices owned by `rank` in a darray, in memory order, computed from the distribution rules. */
static int darray_expected(int ndims, const int *gsizes, const int *distribs, const int *dargs, const int *psizes,
                           int order, int rank, int *out)
{
    int coords[8], n = 0;
    for (int i = ndims - 1, r = rank; i >= 0; i--) {
        coords[i] = r % psizes[i];
        r /= psizes[i];
    }
    long total = 1;
    for (int d = 0; d < ndims; d++)
        total *= gsizes[d];
    for (long lin = 0; lin < total; lin++) {
        long rest = lin;
        bool mine = true;
        for (int k = 0; k < ndims; k++) {
            int d = order == MPI_ORDER_C ? ndims - 1 - k : k;
            int idx = (int)(rest % gsizes[d]);
            rest /= gsizes[d];
            int p = psizes[d], owner = 0;
            if (distribs[d] == MPI_DISTRIBUTE_BLOCK) {
                int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (gsizes[d] + p - 1) / p : dargs[d];
                owner = idx / b;
            } else if (distribs[d] == MPI_DISTRIBUTE_CYCLIC) {
                int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
                owner = (idx / b) % p;
            }
            mine = mine && owner == coords[d];
        }
        if (mine)
            out[n++] = (int)lin;
    }
    return n;
}

static void check_darray(int size, int ndims, const int *gsizes, const int *distribs, const int *dargs,
                         const int *psizes, int order)
{
    long total = 1;
    for (int d = 0; d < ndims; d++)
        total *= gsizes[d];
    int *global = malloc((size_t)total * sizeof *global), *expect = malloc((size_t)total * sizeof *expect);
    int *packed = malloc((size_t)total * sizeof *packed);
    for (long i = 0; i < total; i++)
        global[i] = (int)i;
    long seen = 0;
    for (int rank = 0; rank < size; rank++) {
        MPI_Datatype t;
        assert_int_equal(MPI_Type_create_darray(size, rank, ndims, gsizes, distribs, dargs, psizes, order, MPI_INT,
                                                &t),
                         MPI_SUCCESS);
        MPI_Type_commit(&t);
        MPI_Aint lb, extent;
        MPI_Type_get_extent(t, &lb, &extent);
        assert_int_equal(lb, 0);
        assert_int_equal(extent, total * 4);
        int n = darray_expected(ndims, gsizes, distribs, dargs, psizes, order, rank, expect);
        int size_bytes;
        MPI_Type_size(t, &size_bytes);
        assert_int_equal(size_bytes, n * 4);
        int pos = 0;
        assert_int_equal(MPI_Pack(global, 1, t, packed, (int)(total * 4), &pos, MPI_COMM_WORLD), MPI_SUCCESS);
        assert_int_equal(pos, n * 4);
        assert_memory_equal(packed, expect, (size_t)n * 4);
        seen += n;
        MPI_Type_free(&t);
    }
    assert_int_equal(seen, total); /* the processes partition the array */
    free(global);
    free(expect);
    free(packed);
}

static void darray_distributions(void **state)
{
    (void)state;
    const int dflt = MPI_DISTRIBUTE_DFLT_DARG;
    { /* 1-D block and cyclic(2) over 3 processes, 10 elements */
        int g[] = {10}, p[] = {3}, blk[] = {MPI_DISTRIBUTE_BLOCK}, cyc[] = {MPI_DISTRIBUTE_CYCLIC};
        int d1[] = {dflt}, d2[] = {2};
        check_darray(3, 1, g, blk, d1, p, MPI_ORDER_C);
        check_darray(3, 1, g, cyc, d2, p, MPI_ORDER_C);
        check_darray(3, 1, g, cyc, d1, p, MPI_ORDER_FORTRAN);
    }
    { /* 2-D block x cyclic(3) on a 2x2 grid, both orders; a short last cyclic block */
        int g[] = {7, 11}, p[] = {2, 2}, dist[] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC};
        int da[] = {dflt, 3};
        check_darray(4, 2, g, dist, da, p, MPI_ORDER_C);
        check_darray(4, 2, g, dist, da, p, MPI_ORDER_FORTRAN);
    }
    { /* 3-D with an undistributed dimension and an explicit block size */
        int g[] = {4, 3, 5}, p[] = {2, 1, 3};
        int dist[] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_NONE, MPI_DISTRIBUTE_BLOCK};
        int da[] = {1, dflt, 2};
        check_darray(6, 3, g, dist, da, p, MPI_ORDER_C);
    }
}

static int g_values[4] = {11, 22, 33, 44};

static void bottom_with_absolute_addresses(void **state)
{
    (void)state;
    double *heap = malloc(2 * sizeof *heap);
    heap[0] = 1.5;
    heap[1] = -2.25;
    char local = 'z';
    MPI_Aint addr[3];
    MPI_Get_address(&g_values[1], &addr[0]);
    MPI_Get_address(heap, &addr[1]);
    MPI_Get_address(&local, &addr[2]);
    int bl[] = {2, 2, 1};
    MPI_Datatype types[] = {MPI_INT, MPI_DOUBLE, MPI_CHAR}, t;
    assert_int_equal(MPI_Type_create_struct(3, bl, addr, types, &t), MPI_SUCCESS);
    MPI_Type_commit(&t);
    char packed[32];
    int pos = 0;
    assert_int_equal(MPI_Pack(MPI_BOTTOM, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(pos, 8 + 16 + 1);
    int iv[2];
    double dv[2];
    memcpy(iv, packed, 8);
    memcpy(dv, packed + 8, 16);
    assert_int_equal(iv[0], 22);
    assert_int_equal(iv[1], 33);
    assert_true(dv[0] == 1.5 && dv[1] == -2.25);
    assert_int_equal(packed[24], 'z');
    /* segments of MPI_BOTTOM types are absolute addresses */
    mpcrt_dt_segment_t segs[4];
    int nseg;
    assert_int_equal(mpcrt_datatype_segments(mpcrt_datatype_get(t), 1, 0, 25, segs, 4, &nseg), 25);
    assert_int_equal(nseg, 3);
    assert_int_equal(segs[0].offset, addr[0]);
    assert_int_equal(segs[1].offset, addr[1]);
    assert_int_equal(segs[2].offset, addr[2]);
    /* and back */
    g_values[1] = g_values[2] = 0;
    heap[0] = heap[1] = 0;
    local = 0;
    pos = 0;
    assert_int_equal(MPI_Unpack(packed, 25, &pos, MPI_BOTTOM, 1, t, MPI_COMM_WORLD), MPI_SUCCESS);
    assert_int_equal(g_values[1], 22);
    assert_int_equal(g_values[2], 33);
    assert_true(heap[0] == 1.5 && heap[1] == -2.25);
    assert_int_equal(local, 'z');
    MPI_Type_free(&t);
    free(heap);
}

static void pack_appends_at_position(void **state)
{
    (void)state;
    int a[3] = {1, 2, 3};
    double d = 4.5;
    char buf[64];
    int pos = 0, size;
    MPI_Pack_size(3, MPI_INT, MPI_COMM_WORLD, &size);
    assert_int_equal(size, 12);
    MPI_Pack(a, 3, MPI_INT, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    MPI_Pack(&d, 1, MPI_DOUBLE, buf, sizeof buf, &pos, MPI_COMM_WORLD);
    assert_int_equal(pos, 20);
    int b[3] = {0};
    double e = 0;
    pos = 0;
    MPI_Unpack(buf, 20, &pos, b, 3, MPI_INT, MPI_COMM_WORLD);
    MPI_Unpack(buf, 20, &pos, &e, 1, MPI_DOUBLE, MPI_COMM_WORLD);
    assert_int_equal(pos, 20);
    assert_memory_equal(a, b, sizeof a);
    assert_true(e == 4.5);
    MPI_Count csize, cpos = 0;
    assert_int_equal(MPI_Pack_size_c(3, MPI_DOUBLE, MPI_COMM_SELF, &csize), MPI_SUCCESS);
    assert_int_equal(csize, 24);
    assert_int_equal(MPI_Pack_c(a, 2, MPI_INT, buf, 8, &cpos, MPI_COMM_SELF), MPI_SUCCESS);
    assert_int_equal(cpos, 8);
}

static void large_vector_matches_a_loop(void **state)
{
    (void)state;
    enum { N = 100000 };
    double *src = malloc(3 * N * sizeof *src), *out = malloc(N * sizeof *out);
    for (int i = 0; i < 3 * N; i++)
        src[i] = i;
    MPI_Datatype t;
    MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    const mpcrt_datatype_t *dt = mpcrt_datatype_get(t);
    /* the layout is one strided block, whatever N */
    assert_int_equal(dt->root.nchildren, 0);
    assert_int_equal(dt->root.count, N);
    /* fragments of 4 KiB, as a protocol would send them */
    for (MPI_Count at = 0; at < 8 * N; at += 4096) {
        MPI_Count len = 8 * N - at < 4096 ? 8 * N - at : 4096;
        assert_int_equal(mpcrt_datatype_pack(dt, src, 1, at, len, (char *)out + at), len);
    }
    for (int i = 0; i < N; i++)
        assert_true(out[i] == 3.0 * i);
    MPI_Type_free(&t);
    free(src);
    free(out);
}

/* mpcrt_datatype_copy from one layout into another equals pack-then-unpack, whole or in windows. */
static void check_copy(MPI_Datatype st, int scount, MPI_Datatype rt, int rcount)
{
    const mpcrt_datatype_t *sdt = mpcrt_datatype_get(st), *rdt = mpcrt_datatype_get(rt);
    MPI_Count total = scount * sdt->size;
    assert_int_equal(total, rcount * rdt->size);
    test_buf_t src = test_buf(1 << 14, 99), ref = test_buf(1 << 14, 0), dst = test_buf(1 << 14, 0);
    test_buf_zero(&ref);
    char *packed = malloc((size_t)total);
    assert_int_equal(mpcrt_datatype_pack(sdt, src.origin, scount, 0, total, packed), total);
    assert_int_equal(mpcrt_datatype_unpack(rdt, ref.origin, rcount, 0, total, packed), total);
    const MPI_Count windows[] = {total, 1, 3, 8, 13, 100};
    for (size_t w = 0; w < sizeof windows / sizeof windows[0]; w++) {
        test_buf_zero(&dst);
        for (MPI_Count at = 0; at < total; at += windows[w]) {
            MPI_Count len = total - at < windows[w] ? total - at : windows[w];
            assert_int_equal(mpcrt_datatype_copy(sdt, src.origin, scount, rdt, dst.origin, rcount, at, len), len);
        }
        assert_memory_equal(dst.mem, ref.mem, 2 * dst.margin);
    }
    free(packed);
    free(src.mem);
    free(ref.mem);
    free(dst.mem);
}

static void typed_copies_equal_pack_then_unpack(void **state)
{
    (void)state;
    MPI_Datatype v, idx, s, c, many;
    MPI_Type_vector(4, 3, 5, MPI_DOUBLE, &v); /* 12 doubles */
    const int bl[] = {5, 7, 12}, disp[] = {-3, 10, 30};
    MPI_Type_indexed(3, bl, disp, MPI_DOUBLE, &idx); /* 24 doubles */
    int sbl[] = {1, 2};
    MPI_Aint sdisp[] = {0, 24};
    MPI_Datatype stypes[] = {MPI_DOUBLE, MPI_DOUBLE};
    MPI_Type_create_struct(2, sbl, sdisp, stypes, &s); /* 3 doubles with a gap */
    MPI_Type_contiguous(24, MPI_DOUBLE, &c);
    MPI_Type_vector(200, 1, 2, MPI_DOUBLE, &many); /* more segments than a batch */
    check_copy(v, 2, idx, 1);
    check_copy(idx, 1, v, 2);
    check_copy(s, 8, v, 2);
    check_copy(v, 2, c, 1);  /* contiguous receiver */
    check_copy(c, 1, s, 8);  /* contiguous sender */
    check_copy(c, 1, c, 1);
    check_copy(many, 3, many, 3);
    MPI_Datatype all[] = {v, idx, s, c, many};
    for (int i = 0; i < 5; i++)
        MPI_Type_free(&all[i]);
}

/* MPI_Type_free while an operation still holds the type (an MPI_Isend would): the handle dies at once, the
 * object lives until the operation releases it (ASan checks the use after the free). */
static void freed_type_lives_while_retained(void **state)
{
    (void)state;
    long live = mpcrt_handle_count(MPCRT_OBJ_DATATYPE);
    MPI_Datatype inner, t;
    MPI_Type_vector(3, 1, 2, MPI_INT, &inner);
    MPI_Type_contiguous(2, inner, &t);
    MPI_Type_commit(&t);
    mpcrt_datatype_t *dt = mpcrt_datatype_get(t);
    mpcrt_datatype_retain(dt); /* the pending operation's reference */
    MPI_Datatype handle = t;
    MPI_Type_free(&t);
    MPI_Type_free(&inner);
    assert_null(mpcrt_datatype_get(handle));
    assert_int_equal(mpcrt_handle_count(MPCRT_OBJ_DATATYPE), live);
    int src[20], out[6];
    for (int i = 0; i < 20; i++)
        src[i] = i;
    assert_int_equal(mpcrt_datatype_pack(dt, src, 1, 0, 24, out), 24);
    const int expect[] = {0, 2, 4, 5, 7, 9}; /* the vector's extent is 5 ints */
    assert_memory_equal(out, expect, sizeof expect);
    mpcrt_datatype_release(dt); /* the operation completes: the type and its inner type go */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(predefined_types_pack_their_bytes),
        cmocka_unit_test(short_int_skips_its_hole),
        cmocka_unit_test(contiguous_and_vector),
        cmocka_unit_test(vector_with_hand_computed_stream),
        cmocka_unit_test(negative_strides),
        cmocka_unit_test(indexed_family),
        cmocka_unit_test(struct_with_gaps_and_markers),
        cmocka_unit_test(resized_with_lower_bound),
        cmocka_unit_test(nested_types),
        cmocka_unit_test(subarray_orders),
        cmocka_unit_test(darray_distributions),
        cmocka_unit_test(bottom_with_absolute_addresses),
        cmocka_unit_test(pack_appends_at_position),
        cmocka_unit_test(large_vector_matches_a_loop),
        cmocka_unit_test(typed_copies_equal_pack_then_unpack),
        cmocka_unit_test(freed_type_lives_while_retained),
    };
    return cmocka_run_group_tests(tests, mpi_setup, mpi_teardown);
}
