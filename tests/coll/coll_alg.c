/* The algorithms of the schedule-based collectives (runtime/mpi/nbc/select.c), checked exactly: ctest runs
 * this program on 1, 2, 3, 5, 8 and 16 ranks once with the selection rules and once per forced set of
 * algorithms (MPCRT_COLL_ALGORITHM), so every algorithm meets non-powers of two. Calls go through the
 * non-blocking and persistent forms, which run schedules (blocking intracommunicator calls do not).
 * Sizes straddle the rules' thresholds; in-place forms, a strided datatype, a v form and a
 * non-commutative operation are included. */
#include "coll_check.h"

#include <string.h>

/* (value, 10^digits) concatenation: associative, not commutative (as in coll_nbc.c). */
typedef struct {
    long value, scale;
} digits_t;

static void concat(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    digits_t *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        b[i].value = a[i].value * b[i].scale + b[i].value;
        b[i].scale = a[i].scale * b[i].scale;
    }
}

static void wait1(MPI_Request *req)
{
    MPI_Wait(req, MPI_STATUS_IGNORE);
}

static int value(int rank, int i)
{
    return rank * 1000003 + i * 7 + 1;
}

static void check_bcast(int me, int n)
{
    static const int counts[] = {1, 100, 5000, 40000}; /* the last beyond the k-nomial threshold */
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int count = counts[c];
        int *buf = malloc(sizeof *buf * (size_t)count);
        int roots[] = {0, n - 1, n / 2};
        for (int r = 0; r < 3; r++) {
            int root = roots[r];
            for (int i = 0; i < count; i++)
                buf[i] = me == root ? value(root, i) : -1;
            MPI_Request req;
            MPI_Ibcast(buf, count, MPI_INT, root, MPI_COMM_WORLD, &req);
            wait1(&req);
            int bad = 0;
            for (int i = 0; i < count; i++)
                bad += buf[i] != value(root, i);
            CHECK(bad == 0, "ibcast count %d root %d: %d wrong", count, root, bad);
        }
        free(buf);
    }
}

static void check_allreduce(int me, int n)
{
    static const int counts[] = {1, 3, 1000, 20000}; /* 80 KB: beyond recursive doubling's threshold */
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int count = counts[c];
        long *in = malloc(sizeof *in * (size_t)count), *out = malloc(sizeof *out * (size_t)count);
        double *din = malloc(sizeof *din * (size_t)count), *dout = malloc(sizeof *dout * (size_t)count);
        for (int i = 0; i < count; i++) {
            in[i] = value(me, i);
            din[i] = (double)(me + i);
        }
        MPI_Request req;
        MPI_Iallreduce(in, out, count, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
        wait1(&req);
        int bad = 0;
        for (int i = 0; i < count; i++) {
            long want = 0;
            for (int r = 0; r < n; r++)
                want += value(r, i);
            bad += out[i] != want;
        }
        CHECK(bad == 0, "iallreduce sum count %d: %d wrong", count, bad);

        /* In place, MAX on doubles (exact). */
        memcpy(dout, din, sizeof *din * (size_t)count);
        MPI_Iallreduce(MPI_IN_PLACE, dout, count, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD, &req);
        wait1(&req);
        bad = 0;
        for (int i = 0; i < count; i++)
            bad += dout[i] != (double)(n - 1 + i);
        CHECK(bad == 0, "iallreduce in-place max count %d: %d wrong", count, bad);

        /* Persistent, started twice with new inputs. */
        MPI_Allreduce_init(in, out, count, MPI_LONG, MPI_MIN, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
        for (int round = 0; round < 2; round++) {
            for (int i = 0; i < count; i++)
                in[i] = (long)(me + 1) * (round + 1) + i;
            MPI_Start(&req);
            wait1(&req);
            bad = 0;
            for (int i = 0; i < count; i++)
                bad += out[i] != (long)(round + 1) + i;
            CHECK(bad == 0, "allreduce_init min count %d start %d: %d wrong", count, round, bad);
        }
        MPI_Request_free(&req);
        free(in);
        free(out);
        free(din);
        free(dout);
    }

    /* Non-commutative: the digits of ranks 0..n-1 in rank order, whatever algorithm runs. */
    MPI_Datatype dtype;
    MPI_Type_contiguous(2, MPI_LONG, &dtype);
    MPI_Type_commit(&dtype);
    MPI_Op op;
    MPI_Op_create(concat, 0, &op);
    digits_t d[3], r[3];
    for (int i = 0; i < 3; i++)
        d[i] = (digits_t){(me + i) % 10, 10};
    MPI_Request req;
    MPI_Iallreduce(d, r, 3, dtype, op, MPI_COMM_WORLD, &req);
    wait1(&req);
    for (int i = 0; i < 3; i++) {
        long want = 0, scale = 1;
        for (int k = 0; k < n; k++) {
            want = want * 10 + (k + i) % 10;
            scale *= 10;
        }
        CHECK(r[i].value == want && r[i].scale == scale, "iallreduce non-commutative [%d]: %ld (want %ld)", i,
              r[i].value, want);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&dtype);
}

static void check_allgather(int me, int n)
{
    static const int counts[] = {1, 7, 10000}; /* 40 KB blocks: ring by the rule */
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int count = counts[c];
        int *mine = malloc(sizeof *mine * (size_t)count), *all = malloc(sizeof *all * (size_t)count * n);
        for (int i = 0; i < count; i++)
            mine[i] = value(me, i);
        for (int pass = 0; pass < 2; pass++) { /* separate send buffer, then in place */
            for (int k = 0; k < count * n; k++)
                all[k] = -1;
            MPI_Request req;
            if (pass == 0) {
                MPI_Iallgather(mine, count, MPI_INT, all, count, MPI_INT, MPI_COMM_WORLD, &req);
            } else {
                memcpy(all + (size_t)me * count, mine, sizeof *mine * (size_t)count);
                MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, count, MPI_INT, MPI_COMM_WORLD, &req);
            }
            wait1(&req);
            int bad = 0;
            for (int r = 0; r < n; r++)
                for (int i = 0; i < count; i++)
                    bad += all[(size_t)r * count + i] != value(r, i);
            CHECK(bad == 0, "iallgather count %d pass %d: %d wrong", count, pass, bad);
        }
        free(mine);
        free(all);
    }

    /* v form: rank r gives r + 1 ints, stored in reverse rank order with a gap of 2. */
    int *counts_v = malloc(sizeof(int) * n), *displs = malloc(sizeof(int) * n), total = 0;
    for (int r = n - 1; r >= 0; r--) {
        counts_v[r] = r + 1;
        displs[r] = total;
        total += r + 1 + 2;
    }
    int *all = malloc(sizeof(int) * (size_t)total), mine[16 + 1];
    for (int i = 0; i <= me; i++)
        mine[i] = value(me, i);
    for (int k = 0; k < total; k++)
        all[k] = -1;
    MPI_Request req;
    MPI_Iallgatherv(mine, me + 1, MPI_INT, all, counts_v, displs, MPI_INT, MPI_COMM_WORLD, &req);
    wait1(&req);
    int bad = 0;
    for (int r = 0; r < n; r++) {
        for (int i = 0; i <= r; i++)
            bad += all[displs[r] + i] != value(r, i);
        bad += all[displs[r] + r + 1] != -1 || all[displs[r] + r + 2] != -1; /* gaps untouched */
    }
    CHECK(bad == 0, "iallgatherv: %d wrong", bad);
    free(all);
    free(counts_v);
    free(displs);
}

static void check_alltoall(int me, int n)
{
    static const int counts[] = {1, 5, 100}; /* 4, 20 and 400 bytes per block: 400 is beyond Bruck's */
    for (size_t c = 0; c < sizeof counts / sizeof *counts; c++) {
        int count = counts[c];
        size_t len = (size_t)count * n;
        int *out = malloc(sizeof *out * len), *in = malloc(sizeof *in * len);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < count; i++)
                out[(size_t)j * count + i] = value(me, j * count + i); /* block j goes to rank j */
        for (int pass = 0; pass < 3; pass++) { /* plain, in place, persistent */
            MPI_Request req;
            if (pass == 1) {
                memcpy(in, out, sizeof *in * len);
                MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, in, count, MPI_INT, MPI_COMM_WORLD, &req);
                wait1(&req);
            } else {
                for (size_t k = 0; k < len; k++)
                    in[k] = -1;
                if (pass == 0) {
                    MPI_Ialltoall(out, count, MPI_INT, in, count, MPI_INT, MPI_COMM_WORLD, &req);
                    wait1(&req);
                } else {
                    MPI_Alltoall_init(out, count, MPI_INT, in, count, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                                      &req);
                    MPI_Start(&req);
                    wait1(&req);
                    MPI_Request_free(&req);
                }
            }
            int bad = 0;
            for (int r = 0; r < n; r++)
                for (int i = 0; i < count; i++)
                    bad += in[(size_t)r * count + i] != value(r, me * count + i);
            CHECK(bad == 0, "ialltoall count %d pass %d: %d wrong", count, pass, bad);
        }
        free(out);
        free(in);
    }

    /* A strided send type (every other int) into contiguous blocks: Bruck packs and unpacks. */
    int count = 3;
    MPI_Datatype strided;
    MPI_Type_vector(count, 1, 2, MPI_INT, &strided);
    MPI_Datatype block;
    MPI_Type_create_resized(strided, 0, (MPI_Aint)sizeof(int) * 2 * count, &block);
    MPI_Type_commit(&block);
    int *out = malloc(sizeof(int) * 2 * count * (size_t)n), *in = malloc(sizeof(int) * count * (size_t)n);
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 2 * count; i++)
            out[j * 2 * count + i] = i % 2 ? -7 : value(me, j * count + i / 2);
    MPI_Request req;
    MPI_Ialltoall(out, 1, block, in, count, MPI_INT, MPI_COMM_WORLD, &req);
    wait1(&req);
    int bad = 0;
    for (int r = 0; r < n; r++)
        for (int i = 0; i < count; i++)
            bad += in[r * count + i] != value(r, me * count + i);
    CHECK(bad == 0, "ialltoall strided: %d wrong", bad);
    MPI_Type_free(&block);
    MPI_Type_free(&strided);
    free(out);
    free(in);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size;
    if (n > 16) {
        printf("rank %d: coll_alg is sized for at most 16 ranks\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_bcast(me, n);
    check_allreduce(me, n);
    check_allgather(me, n);
    check_alltoall(me, n);
    /* A sub-communicator of odd size with a rank order that is not the world's. */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, n - me, &sub);
    int sme, sn;
    MPI_Comm_rank(sub, &sme);
    MPI_Comm_size(sub, &sn);
    long x = sme + 1, sum = 0;
    MPI_Request req;
    MPI_Iallreduce(&x, &sum, 1, MPI_LONG, MPI_SUM, sub, &req);
    wait1(&req);
    CHECK(sum == (long)sn * (sn + 1) / 2, "sub-communicator iallreduce: %ld", sum);
    MPI_Comm_free(&sub);
    return check_finish();
}
