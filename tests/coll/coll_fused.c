/* The in-process meeting (runtime/mpi/coll/meet.h): the fused small collectives and the pull path on each
 * side of their thresholds, many rounds in a row (both parities of the meeting's buffers, roots that
 * change), on MPI_COMM_WORLD and on communicators whose ranks do not follow the VPs' order (groups that are
 * not runs of consecutive ranks: reductions must still combine in rank order), with members that arrive
 * late by different amounts (busy delays, as computing ranks would). A non-commutative user operation
 * (composition of affine maps) shows the order of the operands. */
#include "coll_check.h"

#include <string.h>

typedef struct {
    unsigned a, b; /* x -> a x + b */
} affine_t;

/* inout = in o inout: the lower rank's map applied last, so the result is f_0 o f_1 o ... o f_{n-1}. */
static void compose(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    affine_t *f = in, *g = inout;
    for (int i = 0; i < *len; i++)
        g[i] = (affine_t){f[i].a * g[i].a, f[i].a * g[i].b + f[i].b};
}

static affine_t map_of(int rank, int i)
{
    return (affine_t){(unsigned)(rank + 2 + i), (unsigned)(rank * 3 + 1 + 7 * i)};
}

static affine_t fold(int from, int to, int i)
{
    affine_t acc = {1, 0};
    for (int r = to - 1; r >= from; r--) {
        affine_t f = map_of(r, i);
        acc = (affine_t){f.a * acc.a, f.a * acc.b + f.b};
    }
    return acc;
}

static MPI_Datatype affine_type;
static MPI_Op compose_op;
static int delay_scale; /* microseconds per unit of skew; 0: none */

/* A computing rank: busy for a while, without MPI calls (it holds its core, as computation would). */
static void arrive_late(int me, int salt)
{
    if (!delay_scale)
        return;
    /* A core runs its ranks' delays one after another: spread about the same skew over more ranks. */
    double unit = 1e-6 * delay_scale * (check_size > 8 ? 8.0 / check_size : 1.0);
    double until = MPI_Wtime() + unit * ((me * 7 + salt) % 5);
    while (MPI_Wtime() < until)
        ;
}

static void data_movement(MPI_Comm comm, int me, int n, int iter)
{
    enum { BIG = 5000 }; /* ints: above the fused thresholds */
    int *a = malloc(sizeof(int) * BIG * (size_t)(n > 4 ? n : 4)),
        *b = malloc(sizeof(int) * BIG * (size_t)(n > 4 ? n : 4));
    int counts[] = {1, 3, BIG};
    for (int c = 0; c < 3; c++) {
        int count = counts[c];
        for (int k = 0; k < 3; k++) {
            int root = (k * (n / 2 + 1) + iter) % n;
            for (int i = 0; i < count; i++)
                a[i] = me == root ? root * 1000 + i + iter : -1;
            arrive_late(me, root + c);
            CHECK(MPI_Bcast(a, count, MPI_INT, root, comm) == MPI_SUCCESS, "bcast");
            CHECK(a[0] == root * 1000 + iter && a[count - 1] == root * 1000 + count - 1 + iter,
                  "bcast root %d count %d: %d %d", root, count, a[0], a[count - 1]);
        }
        /* Allgather: plain, then in place. */
        int per = count < BIG ? count : 17000 / n + 1; /* above the fused limits: the arrival-aware pulls */
        for (int i = 0; i < per; i++)
            a[i] = me * 100 + i + iter;
        arrive_late(me, c);
        CHECK(MPI_Allgather(a, per, MPI_INT, b, per, MPI_INT, comm) == MPI_SUCCESS, "allgather");
        int bad = 0;
        for (int q = 0; q < n; q++)
            for (int i = 0; i < per; i++)
                bad += b[q * per + i] != q * 100 + i + iter;
        CHECK(bad == 0, "allgather per %d: %d wrong", per, bad);
        for (int i = 0; i < per * n; i++)
            b[i] = i / per == me ? me * 100 + i % per + iter + 1 : -1;
        arrive_late(me, c + 1);
        CHECK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, per, MPI_INT, comm) == MPI_SUCCESS, "ag");
        bad = 0;
        for (int q = 0; q < n; q++)
            for (int i = 0; i < per; i++)
                bad += b[q * per + i] != q * 100 + i + iter + 1;
        CHECK(bad == 0, "allgather in place per %d: %d wrong", per, bad);
        /* Alltoall: block d of member s holds s * 1000 + d * 10 + i. */
        for (int d = 0; d < n; d++)
            for (int i = 0; i < per; i++)
                a[d * per + i] = me * 1000 + d * 10 + i + iter;
        arrive_late(me, c + 2);
        CHECK(MPI_Alltoall(a, per, MPI_INT, b, per, MPI_INT, comm) == MPI_SUCCESS, "alltoall");
        bad = 0;
        for (int s = 0; s < n; s++)
            for (int i = 0; i < per; i++)
                bad += b[s * per + i] != s * 1000 + me * 10 + i + iter;
        CHECK(bad == 0, "alltoall per %d: %d wrong", per, bad);
        CHECK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, a, per, MPI_INT, comm) == MPI_SUCCESS, "a2a");
        bad = 0;
        for (int s = 0; s < n; s++)
            for (int i = 0; i < per; i++)
                bad += a[s * per + i] != s * 1000 + me * 10 + i + iter;
        CHECK(bad == 0, "alltoall in place per %d: %d wrong", per, bad);
        /* Gather and scatter at a root that moves. */
        int root = (iter + c) % n;
        for (int i = 0; i < per; i++)
            a[i] = me * 100 + i;
        arrive_late(me, c + 3);
        CHECK(MPI_Gather(a, per, MPI_INT, b, per, MPI_INT, root, comm) == MPI_SUCCESS, "gather");
        if (me == root) {
            bad = 0;
            for (int q = 0; q < n; q++)
                for (int i = 0; i < per; i++)
                    bad += b[q * per + i] != q * 100 + i;
            CHECK(bad == 0, "gather per %d root %d: %d wrong", per, root, bad);
            for (int i = 0; i < per * n; i++)
                b[i] = i * 3 + iter;
        }
        CHECK(MPI_Scatter(b, per, MPI_INT, a, per, MPI_INT, root, comm) == MPI_SUCCESS, "scatter");
        bad = 0;
        for (int i = 0; i < per; i++)
            bad += a[i] != (me * per + i) * 3 + iter;
        CHECK(bad == 0, "scatter per %d root %d: %d wrong", per, root, bad);
    }
    free(a);
    free(b);
}

static void reductions(MPI_Comm comm, int me, int n, int iter)
{
    int counts[] = {1, 2, 3000}; /* 3000 maps: 24 KB, above the fused threshold */
    affine_t *in = malloc(sizeof(affine_t) * 3000), *out = malloc(sizeof(affine_t) * 3000);
    affine_t *want = malloc(sizeof(affine_t) * 3000);
    for (int c = 0; c < 3; c++) {
        int count = counts[c];
        for (int i = 0; i < count; i++)
            in[i] = map_of(me, i + iter);
        arrive_late(me, c);
        CHECK(MPI_Allreduce(in, out, count, affine_type, compose_op, comm) == MPI_SUCCESS, "allreduce");
        int bad = 0;
        for (int i = 0; i < count; i++) {
            want[i] = fold(0, n, i + iter);
            bad += out[i].a != want[i].a || out[i].b != want[i].b;
        }
        CHECK(bad == 0, "allreduce count %d: %d wrong", count, bad);
        int root = (iter * 3 + c) % n;
        for (int i = 0; i < count; i++)
            out[i] = in[i];
        arrive_late(me, c + 1);
        CHECK(MPI_Reduce(me == root ? MPI_IN_PLACE : in, out, count, affine_type, compose_op, root, comm) ==
                  MPI_SUCCESS,
              "reduce");
        if (me == root) {
            bad = 0;
            for (int i = 0; i < count; i++)
                bad += out[i].a != want[i].a || out[i].b != want[i].b;
            CHECK(bad == 0, "reduce count %d root %d: %d wrong", count, root, bad);
        }
        /* A predefined operation, in place. */
        double x[3] = {me, 1, -me};
        arrive_late(me, c + 2);
        CHECK(MPI_Allreduce(MPI_IN_PLACE, x, 3, MPI_DOUBLE, MPI_SUM, comm) == MPI_SUCCESS, "sum");
        CHECK(x[0] == n * (n - 1) / 2.0 && x[1] == n && x[2] == -x[0], "sum: %g %g %g", x[0], x[1], x[2]);
    }
    free(in);
    free(out);
    free(want);
}

/* Nobody leaves a barrier before everybody arrived: member 0 sends each member a message after each
 * barrier, which must not be there before the member arrives at that barrier. */
static void barriers(MPI_Comm comm, int me, int n)
{
    for (int i = 0; i < 20; i++) {
        arrive_late(me, i);
        int early = 0, token = -1;
        MPI_Iprobe(0, 100 + i, comm, &early, MPI_STATUS_IGNORE);
        CHECK(!early, "member 0 left barrier %d before member %d arrived", i, me);
        MPI_Barrier(comm);
        if (me == 0)
            for (int q = 1; q < n; q++)
                MPI_Send(&i, 1, MPI_INT, q, 100 + i, comm);
        else
            MPI_Recv(&token, 1, MPI_INT, 0, 100 + i, comm, MPI_STATUS_IGNORE);
        CHECK(me == 0 || token == i, "token %d after barrier %d", token, i);
    }
}

static void all(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    for (int iter = 0; iter < (n > 16 ? 2 : 4); iter++) { /* both parities, twice on small jobs */
        barriers(comm, me, n);
        data_movement(comm, me, n, iter);
        reductions(comm, me, n, iter);
    }
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_type);
    MPI_Type_commit(&affine_type);
    MPI_Op_create(compose, 0, &compose_op);
    for (delay_scale = 0; delay_scale <= 30; delay_scale += 30) {
        all(MPI_COMM_WORLD);
        /* Ranks in reverse order, then odd ranks before even ones: groups by VP are not runs of
         * consecutive ranks in these. */
        MPI_Comm reversed, interleaved;
        MPI_Comm_split(MPI_COMM_WORLD, 0, check_size - check_rank, &reversed);
        all(reversed);
        MPI_Comm_split(MPI_COMM_WORLD, 0, (check_rank % 2) * check_size + check_rank, &interleaved);
        all(interleaved);
        MPI_Comm_free(&reversed);
        MPI_Comm_free(&interleaved);
        if (delay_scale == 0) {
            /* Two disjoint communicators at once (they may share a context across processes). */
            MPI_Comm half;
            MPI_Comm_split(MPI_COMM_WORLD, check_rank % 2, check_rank, &half);
            all(half);
            MPI_Comm_free(&half);
        }
    }
    MPI_Op_free(&compose_op);
    MPI_Type_free(&affine_type);
    return check_finish();
}
