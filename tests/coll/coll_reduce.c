/* Reductions (reduce, allreduce, reduce_scatter(_block), scan, exscan, their _c forms) with predefined and
 * user operations: MPI_IN_PLACE, several roots, counts from 0 to more than a scratch piece, derived
 * datatypes built by every rank (distinct objects, one layout), and non-commutative user operations
 * (string concatenation, 2x2 matrix products on a strided type) whose results show the rank order. User
 * functions check that they get the calling rank's datatype handle (a privatized global). */
#include "coll_check.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ sums of ints and doubles */

static int ival(int rank, long i)
{
    return (int)((rank * 7 + i * 13) % 101) - 50;
}

static void test_int_sums(MPI_Comm comm, int me, int n, long count)
{
    int *send = malloc(sizeof(int) * (count + 1)), *recv = malloc(sizeof(int) * (count + 1));
    long *want = calloc(count + 1, sizeof(long));
    for (long i = 0; i < count; i++) {
        send[i] = ival(me, i);
        for (int q = 0; q < n; q++)
            want[i] += ival(q, i);
    }
    int roots[2] = {0, n - 1};
    for (int k = 0; k < 2; k++) {
        int root = roots[k];
        for (int in_place = 0; in_place < 2; in_place++) {
            for (long i = 0; i <= count; i++)
                recv[i] = -1;
            if (in_place && me == root)
                memcpy(recv, send, sizeof(int) * count);
            MPI_Reduce(in_place && me == root ? MPI_IN_PLACE : send, recv, (int)count, MPI_INT, MPI_SUM, root,
                       comm);
            if (me == root) {
                for (long i = 0; i < count; i++)
                    CHECK(recv[i] == want[i], "reduce count %ld root %d: [%ld] = %d, expected %ld", count,
                          root, i, recv[i], want[i]);
                CHECK(recv[count] == -1, "reduce wrote past the buffer");
            }
        }
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        for (long i = 0; i <= count; i++)
            recv[i] = in_place && i < count ? send[i] : -1;
        MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, (int)count, MPI_INT, MPI_SUM, comm);
        for (long i = 0; i < count; i++)
            CHECK(recv[i] == want[i], "allreduce count %ld in place %d: [%ld] = %d, expected %ld", count,
                  in_place, i, recv[i], want[i]);
        CHECK(recv[count] == -1, "allreduce wrote past the buffer");
    }
    free(send);
    free(recv);
    free(want);
}

/* Doubles in a strided type (every other double): the packed path of predefined operations. */
static void test_strided_doubles(MPI_Comm comm, int me, int n)
{
    enum { COUNT = 300 };
    MPI_Datatype every_other;
    MPI_Type_vector(2, 1, 2, MPI_DOUBLE, &every_other); /* doubles at 0 and 2, extent 3 doubles */
    MPI_Type_commit(&every_other);
    double *send = malloc(sizeof(double) * 3 * COUNT), *recv = malloc(sizeof(double) * 3 * COUNT);
    for (int in_place = 0; in_place < 2; in_place++) {
        for (long i = 0; i < 3 * COUNT; i++) {
            send[i] = i % 3 == 1 ? -1.0 : me + i * 0.5;
            recv[i] = in_place ? send[i] : -2.0;
        }
        MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, COUNT, every_other, MPI_MAX, comm);
        for (long i = 0; i < 3 * COUNT; i++) {
            double want = i % 3 == 1 ? (in_place ? -1.0 : -2.0) : n - 1 + i * 0.5;
            CHECK(recv[i] == want, "strided max in place %d: [%ld] = %g, expected %g", in_place, i, recv[i],
                  want);
        }
    }
    MPI_Type_free(&every_other);
    free(send);
    free(recv);
}

/* ------------------------------------------------------------------ user operations */

/* A struct reduced field by field: a sums, b keeps the maximum (commutative). */
typedef struct {
    int a;
    double b;
} pair_t;

static MPI_Datatype pair_type; /* this rank's handle (privatized): the user function must get it */
static long user_calls;

static void pair_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == pair_type, "pair_op got datatype 0x%x, this rank's is 0x%x", *dt, pair_type);
    user_calls++;
    pair_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        y[i].a += x[i].a;
        if (x[i].b > y[i].b)
            y[i].b = x[i].b;
    }
}

/* Whether every member of comm runs in this process (thread mode). */
static bool same_process(MPI_Comm comm)
{
    int mine = (int)getpid(), low = 0, high = 0;
    MPI_Allreduce(&mine, &low, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&mine, &high, 1, MPI_INT, MPI_MAX, comm);
    return low == high;
}

static void test_struct_user_op(MPI_Comm comm, int me, int n)
{
    /* Enough instances (12 bytes of data each) for every member to get a share (at least 16 KiB). */
    int count = 1500 * n;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {offsetof(pair_t, a), offsetof(pair_t, b)};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &pair_type);
    MPI_Type_commit(&pair_type);
    MPI_Op op;
    MPI_Op_create(pair_op, 1, &op);
    int commute = 0;
    MPI_Op_commutative(op, &commute);
    CHECK(commute == 1, "MPI_Op_commutative of a commutative user op: %d", commute);
    pair_t *send = malloc(sizeof(pair_t) * count), *recv = malloc(sizeof(pair_t) * count);
    for (int i = 0; i < count; i++)
        send[i] = (pair_t){me + i, (double)((me * 3 + i) % n)};
    long calls_before = user_calls;
    MPI_Allreduce(send, recv, count, pair_type, op, comm);
    for (int i = 0; i < count; i++) {
        int want_a = n * (n - 1) / 2 + n * i;
        double want_b = 0;
        for (int q = 0; q < n; q++)
            if ((q * 3 + i) % n > want_b)
                want_b = (q * 3 + i) % n;
        CHECK(recv[i].a == want_a && recv[i].b == want_b,
              "struct allreduce [%d] = (%d, %g), expected (%d, %g)", i, recv[i].a, recv[i].b, want_a, want_b);
    }
    /* Every member of one process reduced its share, in its own ULT (the function checked the member's
     * datatype); across processes a large reduction goes to one member. */
    CHECK(n == 1 || !same_process(comm) || user_calls > calls_before,
          "this rank never ran the user function");
    MPI_Op_free(&op);
    CHECK(op == MPI_OP_NULL, "MPI_Op_free leaves MPI_OP_NULL");
    MPI_Type_free(&pair_type);
    free(send);
    free(recv);
}

/* String concatenation (not commutative): each element holds up to 40 characters. */
typedef struct {
    int len;
    char s[40];
} str_t;

static MPI_Datatype str_type;

static void concat(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    CHECK(*dt == str_type, "concat got datatype 0x%x, this rank's is 0x%x", *dt, str_type);
    str_t *x = in, *y = inout;
    for (int i = 0; i < *len; i++) {
        str_t r;
        r.len = x[i].len + y[i].len;
        if (r.len > 40)
            r.len = 40;
        memcpy(r.s, x[i].s, (size_t)x[i].len);
        memcpy(r.s + x[i].len, y[i].s, (size_t)(r.len - x[i].len));
        y[i] = r;
    }
}

static char rank_char(int q, int i)
{
    return (char)('A' + (q + i) % 26);
}

/* The concatenation of the characters of ranks [first, last) for element i. */
static int expect_str(const str_t *got, int first, int last, int i, const char *what)
{
    char want[40];
    int len = 0;
    for (int q = first; q < last && len < 40; q++)
        want[len++] = rank_char(q, i);
    int ok = got->len == len && memcmp(got->s, want, (size_t)len) == 0;
    CHECK(ok, "%s: element %d is '%.*s', expected '%.*s'", what, i,
          got->len > 0 && got->len <= 40 ? got->len : 0, got->s, len, want);
    return ok;
}

static void test_concat(MPI_Comm comm, int me, int n)
{
    enum { COUNT = 7 };
    int bl[2] = {1, 40};
    MPI_Aint disp[2] = {offsetof(str_t, len), offsetof(str_t, s)};
    MPI_Datatype types[2] = {MPI_INT, MPI_CHAR};
    MPI_Type_create_struct(2, bl, disp, types, &str_type);
    MPI_Type_commit(&str_type);
    MPI_Op op;
    MPI_Op_create(concat, 0, &op);
    int commute = 1;
    MPI_Op_commutative(op, &commute);
    CHECK(commute == 0, "MPI_Op_commutative of a non-commutative user op: %d", commute);
    str_t *send = calloc((size_t)COUNT * n, sizeof(str_t)), *recv = calloc((size_t)COUNT * n, sizeof(str_t));
    for (int i = 0; i < COUNT * n; i++) {
        send[i].len = 1;
        send[i].s[0] = rank_char(me, i);
    }
    for (int root = 0; root<n; root += n> 2 ? n - 2 : 1) {
        memset(recv, 0, sizeof(str_t) * COUNT);
        MPI_Reduce(send, recv, COUNT, str_type, op, root, comm);
        if (me == root)
            for (int i = 0; i < COUNT; i++)
                expect_str(&recv[i], 0, n, i, "concat reduce");
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        memcpy(recv, send, sizeof(str_t) * COUNT);
        MPI_Allreduce(in_place ? MPI_IN_PLACE : send, recv, COUNT, str_type, op, comm);
        for (int i = 0; i < COUNT; i++)
            expect_str(&recv[i], 0, n, i, in_place ? "concat allreduce in place" : "concat allreduce");

        memcpy(recv, send, sizeof(str_t) * COUNT);
        MPI_Scan(in_place ? MPI_IN_PLACE : send, recv, COUNT, str_type, op, comm);
        for (int i = 0; i < COUNT; i++)
            expect_str(&recv[i], 0, me + 1, i, "concat scan");

        memcpy(recv, send, sizeof(str_t) * COUNT);
        MPI_Exscan(in_place ? MPI_IN_PLACE : send, recv, COUNT, str_type, op, comm);
        for (int i = 0; i < COUNT && me > 0; i++)
            expect_str(&recv[i], 0, me, i, "concat exscan");
        if (me == 0) /* rank 0's receive buffer is left alone */
            CHECK(memcmp(recv, send, sizeof(str_t) * COUNT) == 0, "exscan changed rank 0's buffer");

        /* Block q of every rank's input: COUNT elements starting at q * COUNT. */
        memcpy(recv, send, sizeof(str_t) * COUNT * n);
        MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : send, recv, COUNT, str_type, op, comm);
        for (int i = 0; i < COUNT; i++)
            expect_str(&recv[i], 0, n, me * COUNT + i, "concat reduce_scatter_block");
    }
    MPI_Op_free(&op);
    MPI_Type_free(&str_type);
    free(send);
    free(recv);
}

/* 2x2 matrix products modulo a prime, the matrices in a strided type (entries at ints 0, 2, 4, 6). The
 * function reads the layout its datatype argument describes. */
enum { PRIME = 10007 };
static MPI_Datatype matrix_type;

static void matmul_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    CHECK(*dt == matrix_type, "matmul got datatype 0x%x, this rank's is 0x%x", *dt, matrix_type);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(*dt, &lb, &extent);
    for (MPI_Count k = 0; k < *len; k++) {
        int *a = (int *)((char *)in + k * extent), *b = (int *)((char *)inout + k * extent);
        long r0 = ((long)a[0] * b[0] + (long)a[2] * b[4]) % PRIME,
             r1 = ((long)a[0] * b[2] + (long)a[2] * b[6]) % PRIME;
        long r2 = ((long)a[4] * b[0] + (long)a[6] * b[4]) % PRIME,
             r3 = ((long)a[4] * b[2] + (long)a[6] * b[6]) % PRIME;
        b[0] = (int)r0, b[2] = (int)r1, b[4] = (int)r2, b[6] = (int)r3;
    }
}

static void matrix_of(int q, int k, long m[4])
{
    m[0] = q + 1 + k, m[1] = 2 * q + 1, m[2] = k % 5, m[3] = q + 3;
}

static void matrix_product(int first, int last, int k, long r[4])
{
    r[0] = 1, r[1] = 0, r[2] = 0, r[3] = 1;
    for (int q = first; q < last; q++) {
        long m[4], t[4];
        matrix_of(q, k, m);
        t[0] = (r[0] * m[0] + r[1] * m[2]) % PRIME, t[1] = (r[0] * m[1] + r[1] * m[3]) % PRIME;
        t[2] = (r[2] * m[0] + r[3] * m[2]) % PRIME, t[3] = (r[2] * m[1] + r[3] * m[3]) % PRIME;
        memcpy(r, t, sizeof t);
    }
}

static void test_matrices(MPI_Comm comm, int me, int n)
{
    enum { COUNT = 40 };
    MPI_Type_vector(4, 1, 2, MPI_INT, &matrix_type); /* 7 ints of extent, entries at 0, 2, 4, 6 */
    MPI_Datatype resized;
    MPI_Type_create_resized(matrix_type, 0, 8 * sizeof(int), &resized);
    MPI_Type_free(&matrix_type);
    matrix_type = resized;
    MPI_Type_commit(&matrix_type);
    MPI_Op op;
    MPI_Op_create_c(matmul_c, 0, &op);
    int *send = malloc(sizeof(int) * 8 * COUNT), *recv = malloc(sizeof(int) * 8 * COUNT);
    for (int k = 0; k < COUNT; k++) {
        long m[4];
        matrix_of(me, k, m);
        for (int j = 0; j < 4; j++) {
            send[8 * k + 2 * j] = (int)m[j];
            send[8 * k + 2 * j + 1] = -9; /* holes */
        }
    }
    for (int in_place = 0; in_place < 2; in_place++) {
        memcpy(recv, send, sizeof(int) * 8 * COUNT);
        MPI_Allreduce_c(in_place ? MPI_IN_PLACE : send, recv, COUNT, matrix_type, op, comm);
        for (int k = 0; k < COUNT; k++) {
            long want[4];
            matrix_product(0, n, k, want);
            int ok = 1;
            for (int j = 0; j < 4; j++)
                ok &= recv[8 * k + 2 * j] == want[j] && recv[8 * k + 2 * j + 1] == -9;
            CHECK(ok,
                  "matrix allreduce in place %d: product %d is [%d %d; %d %d], expected [%ld %ld; %ld %ld]",
                  in_place, k, recv[8 * k], recv[8 * k + 2], recv[8 * k + 4], recv[8 * k + 6], want[0],
                  want[1], want[2], want[3]);
        }
        memcpy(recv, send, sizeof(int) * 8 * COUNT);
        MPI_Scan_c(in_place ? MPI_IN_PLACE : send, recv, COUNT, matrix_type, op, comm);
        for (int k = 0; k < COUNT; k++) {
            long want[4];
            matrix_product(0, me + 1, k, want);
            CHECK(recv[8 * k] == want[0] && recv[8 * k + 2] == want[1] && recv[8 * k + 4] == want[2] &&
                      recv[8 * k + 6] == want[3],
                  "matrix scan: product %d", k);
        }
    }
    MPI_Op_free(&op);
    MPI_Type_free(&matrix_type);
    free(send);
    free(recv);
}

/* ------------------------------------------------------------------ scatter and scan forms with sums */

static void test_reduce_scatter(MPI_Comm comm, int me, int n)
{
    int *counts = malloc(sizeof(int) * n);
    MPI_Count *ccounts = malloc(sizeof(MPI_Count) * n);
    long total = 0, first = 0;
    for (int q = 0; q < n; q++) {
        counts[q] = (q % 3) * 5; /* zero counts too */
        ccounts[q] = counts[q];
        if (q == me)
            first = total;
        total += counts[q];
    }
    int *send = malloc(sizeof(int) * (total + 1)), *recv = malloc(sizeof(int) * (total + 1));
    for (int form = 0; form < 2; form++)
        for (int in_place = 0; in_place < 2; in_place++) {
            for (long i = 0; i < total; i++)
                send[i] = ival(me, i);
            for (long i = 0; i <= total; i++)
                recv[i] = in_place && i < total ? send[i] : -1;
            const void *sb = in_place ? MPI_IN_PLACE : send;
            if (form == 0)
                MPI_Reduce_scatter(sb, recv, counts, MPI_INT, MPI_SUM, comm);
            else
                MPI_Reduce_scatter_c(sb, recv, ccounts, MPI_INT, MPI_SUM, comm);
            for (long i = 0; i < counts[me]; i++) {
                long want = 0;
                for (int q = 0; q < n; q++)
                    want += ival(q, first + i);
                CHECK(recv[i] == want, "reduce_scatter form %d in place %d: [%ld] = %d, expected %ld", form,
                      in_place, i, recv[i], want);
            }
            if (!in_place)
                CHECK(recv[counts[me]] == -1, "reduce_scatter wrote past its block");
        }
    /* The _block forms. */
    enum { B = 9 };
    int *bsend = malloc(sizeof(int) * B * n), brecv[B + 1];
    for (long i = 0; i < (long)B * n; i++)
        bsend[i] = ival(me, i);
    brecv[B] = -1;
    MPI_Reduce_scatter_block(bsend, brecv, B, MPI_INT, MPI_SUM, comm);
    for (int i = 0; i < B; i++) {
        long want = 0;
        for (int q = 0; q < n; q++)
            want += ival(q, (long)me * B + i);
        CHECK(brecv[i] == want, "reduce_scatter_block: [%d] = %d, expected %ld", i, brecv[i], want);
    }
    CHECK(brecv[B] == -1, "reduce_scatter_block wrote past its block");
    MPI_Reduce_scatter_block_c(bsend, brecv, B, MPI_INT, MPI_SUM, comm);
    CHECK(brecv[0] != -1, "reduce_scatter_block_c");
    free(bsend);
    free(send);
    free(recv);
    free(counts);
    free(ccounts);
}

static void test_scans(MPI_Comm comm, int me, int n)
{
    enum { COUNT = 33 };
    long send[COUNT], recv[COUNT];
    for (int excl = 0; excl < 2; excl++)
        for (int in_place = 0; in_place < 2; in_place++) {
            for (int i = 0; i < COUNT; i++) {
                send[i] = ival(me, i);
                recv[i] = in_place ? send[i] : -12345;
            }
            const void *sb = in_place ? MPI_IN_PLACE : send;
            if (excl)
                MPI_Exscan(sb, recv, COUNT, MPI_LONG, MPI_SUM, comm);
            else
                MPI_Scan(sb, recv, COUNT, MPI_LONG, MPI_SUM, comm);
            for (int i = 0; i < COUNT; i++) {
                long want = 0;
                for (int q = 0; q < me + !excl; q++)
                    want += ival(q, i);
                if (excl && me == 0)
                    want = in_place ? send[i] : -12345; /* untouched */
                CHECK(recv[i] == want, "%s in place %d: [%d] = %ld, expected %ld", excl ? "exscan" : "scan",
                      in_place, i, recv[i], want);
            }
        }
    long one = me + 1, r = 0;
    MPI_Exscan_c(&one, &r, 1, MPI_LONG, MPI_SUM, comm);
    CHECK(me == 0 || r == (long)me * (me + 1) / 2, "exscan_c: %ld", r);
    MPI_Reduce_c(&one, &r, 1, MPI_LONG, MPI_PROD, 0, comm);
    if (me == 0) {
        long f = 1;
        for (int q = 1; q <= n; q++)
            f *= q;
        CHECK(r == f, "reduce_c prod: %ld, expected %ld", r, f);
    }
    (void)n;
}

static void run_all(MPI_Comm comm)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    long counts[] = {0, 1, 7, 1000, 40000};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        test_int_sums(comm, me, n, counts[k]);
    test_strided_doubles(comm, me, n);
    test_struct_user_op(comm, me, n);
    test_concat(comm, me, n);
    test_matrices(comm, me, n);
    test_reduce_scatter(comm, me, n);
    test_scans(comm, me, n);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    run_all(MPI_COMM_WORLD);
    MPI_Comm reversed;
    MPI_Comm_split(MPI_COMM_WORLD, check_rank % 3, -check_rank, &reversed);
    run_all(reversed);
    MPI_Comm_free(&reversed);
    run_all(MPI_COMM_SELF);
    return check_finish();
}
