/* Data-movement collectives (bcast, gather(v), scatter(v), allgather(v), alltoall(v,w) and their _c forms)
 * on MPI_COMM_WORLD, a split communicator with reversed rank order, and MPI_COMM_SELF: every pair of send
 * and receive layouts of one type signature (contiguous ints, a vector, a struct with holes), MPI_IN_PLACE,
 * zero counts, reversed displacements with gaps, which must stay untouched. */
#include "coll_check.h"

#include <stddef.h>
#include <string.h>

enum { T = 6, SENT = -7777777 }; /* ints per block (a multiple of every layout's ints per instance) */

typedef struct {
    const char *name;
    MPI_Datatype type;
    int per, extent; /* ints per instance, extent in ints */
    int off[3];      /* offset of each int of an instance */
} layout_t;

static layout_t layouts[3];
#define NL 3

static void make_layouts(void)
{
    layouts[0] = (layout_t){"int", MPI_INT, 1, 1, {0}};
    MPI_Datatype vec, st, st_resized;
    MPI_Type_vector(2, 1, 3, MPI_INT, &vec); /* ints at 0 and 3 */
    MPI_Type_commit(&vec);
    layouts[1] = (layout_t){"vector", vec, 2, 4, {0, 3}};
    int blocklens[2] = {1, 2};
    MPI_Aint disps[2] = {0, 2 * sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Type_create_struct(2, blocklens, disps, types, &st); /* ints at 0, 2, 3 */
    MPI_Type_create_resized(st, 0, 5 * sizeof(int), &st_resized);
    MPI_Type_free(&st);
    MPI_Type_commit(&st_resized);
    layouts[2] = (layout_t){"struct", st_resized, 3, 5, {0, 2, 3}};
}

static void free_layouts(void)
{
    MPI_Type_free(&layouts[1].type);
    MPI_Type_free(&layouts[2].type);
}

static int val(int src, int dst, long k)
{
    return src * 100000 + dst * 1000 + (int)k;
}

/* Cells (ints) that `instances` instances of L span, and the cell of the e-th int of a stream. */
static long cells(const layout_t *L, long instances)
{
    return instances * L->extent;
}
static int *at(int *buf, const layout_t *L, long e)
{
    return buf + e / L->per * L->extent + L->off[e % L->per];
}
static int *alloc_cells(long n)
{
    int *b = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    for (long i = 0; i < n; i++)
        b[i] = SENT;
    return b;
}
/* Writes val(src, dst, 0..n-1) as ints [first, first + n) of the stream at buf. */
static void fill(int *buf, const layout_t *L, long first, long n, int src, int dst)
{
    for (long k = 0; k < n; k++)
        *at(buf, L, first + k) = val(src, dst, k);
}
static void expect(int *buf, const layout_t *L, long first, long n, int src, int dst, const char *what)
{
    for (long k = 0; k < n; k++) {
        int got = *at(buf, L, first + k);
        CHECK(got == val(src, dst, k), "%s (%s): int %ld from %d to %d is %d, expected %d", what, L->name, k, src,
              dst, got, val(src, dst, k));
    }
}
/* Cells that are no longer the sentinel: data landed nowhere else. */
static void expect_written(const int *buf, long ncells, long n, const char *what)
{
    long w = 0;
    for (long i = 0; i < ncells; i++)
        w += buf[i] != SENT;
    CHECK(w == n, "%s: %ld cells written, expected %ld", what, w, n);
}

/* Ints of the v-collectives' block between ranks p and q: 0, 6 or 12. */
static int vcount(int p, int q)
{
    return ((p + q) % 3) * T;
}

/* ------------------------------------------------------------------ rooted */

static void test_bcast(MPI_Comm comm, int me, int n, int root, const layout_t *Ls, const layout_t *Lr)
{
    const layout_t *L = me == root ? Ls : Lr;
    long ints = 3 * T;
    int *buf = alloc_cells(cells(L, ints / L->per));
    if (me == root)
        fill(buf, L, 0, ints, root, 0);
    MPI_Bcast(buf, (int)(ints / L->per), L->type, root, comm);
    expect(buf, L, 0, ints, root, 0, "bcast");
    expect_written(buf, cells(L, ints / L->per), ints, "bcast");
    free(buf);
    (void)n;
}

static void test_gather(MPI_Comm comm, int me, int n, int root, const layout_t *Ls, const layout_t *Lr,
                        int in_place)
{
    int *send = alloc_cells(cells(Ls, T / Ls->per));
    fill(send, Ls, 0, T, me, root);
    int *recv = NULL;
    long rcells = cells(Lr, (long)n * T / Lr->per);
    if (me == root) {
        recv = alloc_cells(rcells);
        if (in_place)
            fill(recv, Lr, (long)me * T, T, me, root);
    }
    MPI_Gather(in_place && me == root ? MPI_IN_PLACE : send, T / Ls->per, Ls->type, recv, T / Lr->per, Lr->type,
               root, comm);
    if (me == root) {
        for (int q = 0; q < n; q++)
            expect(recv, Lr, (long)q * T, T, q, root, "gather");
        expect_written(recv, rcells, (long)n * T, "gather");
    }
    free(send);
    free(recv);
}

/* v-collectives: block q of a rank's buffer holds vcount(me, q) ints, blocks in reverse rank order with
 * one free instance between them. Fills counts and displacements (in instances of L). */
static long reversed_blocks(const layout_t *L, int me, int n, int *counts, int *displs)
{
    long next = 0;
    for (int q = n - 1; q >= 0; q--) {
        counts[q] = vcount(me, q) / L->per;
        displs[q] = (int)next;
        next += counts[q] + 1;
    }
    return next;
}

static void test_gatherv(MPI_Comm comm, int me, int n, int root, const layout_t *Ls, const layout_t *Lr,
                         int in_place)
{
    int mine = vcount(root, me);
    int *send = alloc_cells(cells(Ls, mine / Ls->per));
    fill(send, Ls, 0, mine, me, root);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    long instances = reversed_blocks(Lr, root, n, counts, displs);
    int *recv = NULL;
    if (me == root) {
        recv = alloc_cells(cells(Lr, instances));
        if (in_place)
            fill(recv, Lr, (long)displs[me] * Lr->per, mine, me, root);
    }
    MPI_Gatherv(in_place && me == root ? MPI_IN_PLACE : send, mine / Ls->per, Ls->type, recv, counts, displs,
                Lr->type, root, comm);
    if (me == root) {
        long total = 0;
        for (int q = 0; q < n; q++) {
            expect(recv, Lr, (long)displs[q] * Lr->per, vcount(root, q), q, root, "gatherv");
            total += vcount(root, q);
        }
        expect_written(recv, cells(Lr, instances), total, "gatherv");
    }
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

static void test_scatter(MPI_Comm comm, int me, int n, int root, const layout_t *Ls, const layout_t *Lr,
                         int in_place)
{
    int *send = NULL;
    if (me == root) {
        send = alloc_cells(cells(Ls, (long)n * T / Ls->per));
        for (int q = 0; q < n; q++)
            fill(send, Ls, (long)q * T, T, root, q);
    }
    int *recv = alloc_cells(cells(Lr, T / Lr->per));
    int root_in_place = in_place && me == root;
    MPI_Scatter(send, T / Ls->per, Ls->type, root_in_place ? MPI_IN_PLACE : recv, T / Lr->per, Lr->type, root,
                comm);
    if (root_in_place) {
        expect(send, Ls, (long)me * T, T, root, me, "scatter in place");
        expect_written(recv, cells(Lr, T / Lr->per), 0, "scatter in place");
    } else {
        expect(recv, Lr, 0, T, root, me, "scatter");
        expect_written(recv, cells(Lr, T / Lr->per), T, "scatter");
    }
    free(send);
    free(recv);
}

static void test_scatterv(MPI_Comm comm, int me, int n, int root, const layout_t *Ls, const layout_t *Lr,
                          int in_place)
{
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    long instances = reversed_blocks(Ls, root, n, counts, displs);
    int *send = NULL;
    if (me == root) {
        send = alloc_cells(cells(Ls, instances));
        for (int q = 0; q < n; q++)
            fill(send, Ls, (long)displs[q] * Ls->per, vcount(root, q), root, q);
    }
    int mine = vcount(root, me);
    int *recv = alloc_cells(cells(Lr, mine / Lr->per));
    int root_in_place = in_place && me == root;
    MPI_Scatterv(send, counts, displs, Ls->type, root_in_place ? MPI_IN_PLACE : recv, mine / Lr->per, Lr->type,
                 root, comm);
    if (!root_in_place) {
        expect(recv, Lr, 0, mine, root, me, "scatterv");
        expect_written(recv, cells(Lr, mine / Lr->per), mine, "scatterv");
    }
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

/* ------------------------------------------------------------------ all to all */

static void test_allgather(MPI_Comm comm, int me, int n, const layout_t *Ls, const layout_t *Lr, int in_place)
{
    int *send = alloc_cells(cells(Ls, T / Ls->per));
    fill(send, Ls, 0, T, me, 0);
    long rcells = cells(Lr, (long)n * T / Lr->per);
    int *recv = alloc_cells(rcells);
    if (in_place)
        fill(recv, Lr, (long)me * T, T, me, 0);
    MPI_Allgather(in_place ? MPI_IN_PLACE : send, T / Ls->per, Ls->type, recv, T / Lr->per, Lr->type, comm);
    for (int q = 0; q < n; q++)
        expect(recv, Lr, (long)q * T, T, q, 0, "allgather");
    expect_written(recv, rcells, (long)n * T, "allgather");
    free(send);
    free(recv);
}

static void test_allgatherv(MPI_Comm comm, int me, int n, const layout_t *Ls, const layout_t *Lr, int in_place)
{
    /* Block q holds vcount(q, 0) ints on every rank. */
    int mine = vcount(me, 0);
    int *send = alloc_cells(cells(Ls, mine / Ls->per));
    fill(send, Ls, 0, mine, me, 0);
    int *counts = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n);
    long next = 0;
    for (int q = n - 1; q >= 0; q--) {
        counts[q] = vcount(q, 0) / Lr->per;
        displs[q] = (int)next;
        next += counts[q] + 1;
    }
    int *recv = alloc_cells(cells(Lr, next));
    if (in_place)
        fill(recv, Lr, (long)displs[me] * Lr->per, mine, me, 0);
    MPI_Allgatherv(in_place ? MPI_IN_PLACE : send, mine / Ls->per, Ls->type, recv, counts, displs, Lr->type, comm);
    long total = 0;
    for (int q = 0; q < n; q++) {
        expect(recv, Lr, (long)displs[q] * Lr->per, vcount(q, 0), q, 0, "allgatherv");
        total += vcount(q, 0);
    }
    expect_written(recv, cells(Lr, next), total, "allgatherv");
    free(send);
    free(recv);
    free(counts);
    free(displs);
}

static void test_alltoall(MPI_Comm comm, int me, int n, const layout_t *Ls, const layout_t *Lr, int in_place)
{
    int *send = alloc_cells(cells(Ls, (long)n * T / Ls->per));
    for (int q = 0; q < n; q++)
        fill(send, Ls, (long)q * T, T, me, q);
    long rcells = cells(Lr, (long)n * T / Lr->per);
    int *recv = alloc_cells(rcells);
    if (in_place)
        for (int q = 0; q < n; q++)
            fill(recv, Lr, (long)q * T, T, me, q);
    MPI_Alltoall(in_place ? MPI_IN_PLACE : send, T / Ls->per, Ls->type, recv, T / Lr->per, Lr->type, comm);
    for (int q = 0; q < n; q++)
        expect(recv, Lr, (long)q * T, T, q, me, "alltoall");
    expect_written(recv, rcells, (long)n * T, "alltoall");
    free(send);
    free(recv);
}

static void test_alltoallv(MPI_Comm comm, int me, int n, const layout_t *Ls, const layout_t *Lr, int in_place)
{
    int *scounts = malloc(sizeof(int) * n), *sdispls = malloc(sizeof(int) * n);
    int *rcounts = malloc(sizeof(int) * n), *rdispls = malloc(sizeof(int) * n);
    long sinst = reversed_blocks(Ls, me, n, scounts, sdispls);
    long rinst = reversed_blocks(Lr, me, n, rcounts, rdispls);
    int *send = alloc_cells(cells(Ls, sinst)), *recv = alloc_cells(cells(Lr, rinst));
    for (int q = 0; q < n; q++) {
        fill(send, Ls, (long)sdispls[q] * Ls->per, vcount(me, q), me, q);
        if (in_place)
            fill(recv, Lr, (long)rdispls[q] * Lr->per, vcount(me, q), me, q);
    }
    MPI_Alltoallv(in_place ? MPI_IN_PLACE : send, scounts, sdispls, Ls->type, recv, rcounts, rdispls, Lr->type,
                  comm);
    long total = 0;
    for (int q = 0; q < n; q++) {
        expect(recv, Lr, (long)rdispls[q] * Lr->per, vcount(q, me), q, me, "alltoallv");
        total += vcount(q, me);
    }
    expect_written(recv, cells(Lr, rinst), total, "alltoallv");
    free(send);
    free(recv);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

/* Alltoallw: the layout of each block depends on the peer; byte displacements, blocks in reverse order. */
static void test_alltoallw(MPI_Comm comm, int me, int n, int shift, int in_place)
{
    int *scounts = malloc(sizeof(int) * n), *sdispls = malloc(sizeof(int) * n);
    int *rcounts = malloc(sizeof(int) * n), *rdispls = malloc(sizeof(int) * n);
    MPI_Datatype *stypes = malloc(sizeof(MPI_Datatype) * n), *rtypes = malloc(sizeof(MPI_Datatype) * n);
    long scells = 0, rcells = 0;
    for (int q = n - 1; q >= 0; q--) {
        const layout_t *Ls = &layouts[(me + q + shift) % NL], *Lr = &layouts[(q + 2 * me + shift) % NL];
        scounts[q] = vcount(me, q) / Ls->per;
        rcounts[q] = vcount(q, me) / Lr->per;
        stypes[q] = Ls->type;
        rtypes[q] = Lr->type;
        sdispls[q] = (int)(scells * sizeof(int));
        rdispls[q] = (int)(rcells * sizeof(int));
        scells += cells(Ls, scounts[q]) + 1;
        rcells += cells(Lr, rcounts[q]) + 1;
    }
    int *send = alloc_cells(scells), *recv = alloc_cells(rcells);
    for (int q = 0; q < n; q++) {
        const layout_t *Ls = &layouts[(me + q + shift) % NL], *Lr = &layouts[(q + 2 * me + shift) % NL];
        fill(send + sdispls[q] / sizeof(int), Ls, 0, vcount(me, q), me, q);
        if (in_place) /* in place, the receive side describes both directions */
            fill(recv + rdispls[q] / sizeof(int), Lr, 0, vcount(me, q), me, q);
    }
    if (in_place)
        for (int q = 0; q < n; q++)
            rcounts[q] = vcount(me, q) / layouts[(q + 2 * me + shift) % NL].per;
    MPI_Alltoallw(in_place ? MPI_IN_PLACE : send, scounts, sdispls, stypes, recv, rcounts, rdispls, rtypes, comm);
    long total = 0;
    for (int q = 0; q < n; q++) {
        const layout_t *Lr = &layouts[(q + 2 * me + shift) % NL];
        expect(recv + rdispls[q] / sizeof(int), Lr, 0, vcount(q, me), q, me, "alltoallw");
        total += vcount(q, me);
    }
    expect_written(recv, rcells, total, "alltoallw");
    free(send);
    free(recv);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
    free(stypes);
    free(rtypes);
}

/* ------------------------------------------------------------------ large-count forms */

static void test_large_count_forms(MPI_Comm comm, int me, int n)
{
    int root = n - 1;
    int *a = alloc_cells((long)n * T), *b = alloc_cells((long)n * T);
    MPI_Count *counts = malloc(sizeof(MPI_Count) * n);
    MPI_Aint *displs = malloc(sizeof(MPI_Aint) * n), *bdispls = malloc(sizeof(MPI_Aint) * n);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * n);
    for (int q = 0; q < n; q++) {
        counts[q] = T;
        displs[q] = (MPI_Aint)(n - 1 - q) * T; /* reversed */
        bdispls[q] = displs[q] * (MPI_Aint)sizeof(int);
        types[q] = MPI_INT;
    }
    const layout_t *L = &layouts[0];

    if (me == root)
        fill(a, L, 0, T, root, 0);
    MPI_Bcast_c(a, T, MPI_INT, root, comm);
    expect(a, L, 0, T, root, 0, "bcast_c");

    fill(a, L, 0, T, me, 1);
    MPI_Gather_c(a, T, MPI_INT, b, T, MPI_INT, root, comm);
    if (me == root)
        for (int q = 0; q < n; q++)
            expect(b, L, (long)q * T, T, q, 1, "gather_c");
    MPI_Gatherv_c(a, T, MPI_INT, b, counts, displs, MPI_INT, root, comm);
    if (me == root)
        for (int q = 0; q < n; q++)
            expect(b, L, displs[q], T, q, 1, "gatherv_c");

    if (me == root)
        for (int q = 0; q < n; q++)
            fill(a, L, (long)q * T, T, root, q);
    MPI_Scatter_c(a, T, MPI_INT, b, T, MPI_INT, root, comm);
    expect(b, L, 0, T, root, me, "scatter_c");
    if (me == root)
        for (int q = 0; q < n; q++)
            fill(a, L, displs[q], T, root, q);
    MPI_Scatterv_c(a, counts, displs, MPI_INT, b, T, MPI_INT, root, comm);
    expect(b, L, 0, T, root, me, "scatterv_c");

    fill(a, L, 0, T, me, 2);
    MPI_Allgather_c(a, T, MPI_INT, b, T, MPI_INT, comm);
    for (int q = 0; q < n; q++)
        expect(b, L, (long)q * T, T, q, 2, "allgather_c");
    MPI_Allgatherv_c(a, T, MPI_INT, b, counts, displs, MPI_INT, comm);
    for (int q = 0; q < n; q++)
        expect(b, L, displs[q], T, q, 2, "allgatherv_c");

    for (int q = 0; q < n; q++)
        fill(a, L, (long)q * T, T, me, q);
    MPI_Alltoall_c(a, T, MPI_INT, b, T, MPI_INT, comm);
    for (int q = 0; q < n; q++)
        expect(b, L, (long)q * T, T, q, me, "alltoall_c");
    for (int q = 0; q < n; q++)
        fill(a, L, displs[q], T, me, q);
    MPI_Alltoallv_c(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, comm);
    for (int q = 0; q < n; q++)
        expect(b, L, displs[q], T, q, me, "alltoallv_c");
    MPI_Alltoallw_c(a, counts, bdispls, types, b, counts, bdispls, types, comm);
    for (int q = 0; q < n; q++)
        expect(b, L, displs[q], T, q, me, "alltoallw_c");
    free(a);
    free(b);
    free(counts);
    free(displs);
    free(bdispls);
    free(types);
}

/* ------------------------------------------------------------------ a struct with a double */

typedef struct {
    char c;
    double d;
    int i;
} item_t;

/* The same signature (char, double, int) packed into 13 bytes and in the C struct's layout. */
static void test_struct_layouts(MPI_Comm comm, int me, int n)
{
    MPI_Datatype packed, natural, tmp;
    int bl[3] = {1, 1, 1};
    MPI_Datatype ty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Aint pd[3] = {0, 1, 9}, nd[3] = {offsetof(item_t, c), offsetof(item_t, d), offsetof(item_t, i)};
    MPI_Type_create_struct(3, bl, pd, ty, &tmp); /* extent 16 after alignment padding: resized to 13 */
    MPI_Type_create_resized(tmp, 0, 13, &packed);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&packed);
    MPI_Type_create_struct(3, bl, nd, ty, &tmp);
    MPI_Type_create_resized(tmp, 0, sizeof(item_t), &natural);
    MPI_Type_free(&tmp);
    MPI_Type_commit(&natural);

    enum { PER = 2 };
    char mine[PER * 13];
    for (int k = 0; k < PER; k++) {
        char c = (char)('a' + (me + k) % 26);
        double d = me + k / 4.0;
        int i = -me * 10 - k;
        memcpy(mine + 13 * k, &c, 1);
        memcpy(mine + 13 * k + 1, &d, 8);
        memcpy(mine + 13 * k + 9, &i, 4);
    }
    item_t *all = calloc((size_t)n * PER, sizeof(item_t));
    MPI_Allgather(mine, PER, packed, all, PER, natural, comm);
    for (int q = 0; q < n; q++)
        for (int k = 0; k < PER; k++) {
            item_t *it = &all[q * PER + k];
            CHECK(it->c == (char)('a' + (q + k) % 26) && it->d == q + k / 4.0 && it->i == -q * 10 - k,
                  "struct allgather: item %d of %d is (%c, %g, %d)", k, q, it->c, it->d, it->i);
        }
    /* And back: the root broadcasts its natural items to packed buffers. */
    char back[PER * 13];
    item_t root_items[PER];
    memcpy(root_items, all, sizeof root_items); /* rank 0's items, the same on every rank */
    MPI_Bcast(me == 0 ? (void *)root_items : (void *)back, PER, me == 0 ? natural : packed, 0, comm);
    if (me != 0)
        for (int k = 0; k < PER; k++) {
            double d;
            memcpy(&d, back + 13 * k + 1, 8);
            CHECK(back[13 * k] == (char)('a' + k % 26) && d == k / 4.0, "struct bcast: item %d", k);
        }
    free(all);
    MPI_Type_free(&packed);
    MPI_Type_free(&natural);
}

/* MPI_BOTTOM with a datatype of absolute addresses. */
static void test_bottom(MPI_Comm comm, int me)
{
    int x[2] = {0, 0};
    double y = 0;
    if (me == 0) {
        x[0] = 11, x[1] = 22, y = 3.5;
    }
    MPI_Aint addr[2];
    MPI_Get_address(x, &addr[0]);
    MPI_Get_address(&y, &addr[1]);
    int bl[2] = {2, 1};
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, abs_type;
    MPI_Type_create_struct(2, bl, addr, ty, &abs_type);
    MPI_Type_commit(&abs_type);
    MPI_Bcast(MPI_BOTTOM, 1, abs_type, 0, comm);
    CHECK(x[0] == 11 && x[1] == 22 && y == 3.5, "bcast to MPI_BOTTOM: %d %d %g", x[0], x[1], y);
    MPI_Type_free(&abs_type);
}

/* ------------------------------------------------------------------ driver */

static void run_all(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int roots[3] = {0, n - 1, n / 2};
    for (int s = 0; s < NL; s++)
        for (int r = 0; r < NL; r++) {
            const layout_t *Ls = &layouts[s], *Lr = &layouts[r];
            for (int k = 0; k < 3; k++) {
                int root = roots[k];
                test_bcast(comm, me, n, root, Ls, Lr);
                for (int in_place = 0; in_place < 2; in_place++) {
                    test_gather(comm, me, n, root, Ls, Lr, in_place);
                    test_gatherv(comm, me, n, root, Ls, Lr, in_place);
                    test_scatter(comm, me, n, root, Ls, Lr, in_place);
                    test_scatterv(comm, me, n, root, Ls, Lr, in_place);
                }
            }
            for (int in_place = 0; in_place < 2; in_place++) {
                test_allgather(comm, me, n, Ls, Lr, in_place);
                test_allgatherv(comm, me, n, Ls, Lr, in_place);
                test_alltoall(comm, me, n, Ls, Lr, in_place);
                test_alltoallv(comm, me, n, Ls, Lr, in_place);
            }
        }
    for (int shift = 0; shift < NL; shift++)
        for (int in_place = 0; in_place < 2; in_place++)
            test_alltoallw(comm, me, n, shift, in_place);
    test_large_count_forms(comm, me, n);
    test_struct_layouts(comm, me, n);
    test_bottom(comm, me);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    make_layouts();
    run_all(MPI_COMM_WORLD);
    MPI_Comm reversed; /* two halves, each in reverse world order */
    MPI_Comm_split(MPI_COMM_WORLD, check_rank % 2, -check_rank, &reversed);
    run_all(reversed);
    MPI_Comm_free(&reversed);
    run_all(MPI_COMM_SELF);
    free_layouts();
    return check_finish();
}
