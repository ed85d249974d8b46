/* Non-blocking and persistent collectives (schedules progressed by the engine of runtime/mpi/nbc): values
 * right for every kind, a non-commutative operation in rank order, a persistent request restarted, an
 * intercommunicator, a neighborhood exchange on a ring, ranks arriving with skewed delays, and an
 * MPI_Iallreduce that completes while its rank computes without calling MPI. */
#include "coll_check.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

/* (a, b) -> a * 10 + b on "digit strings" kept short: associative only with a carried length, so use the
 * pair (value, 10^digits): non-commutative and associative. */
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

static void busy_ms(int ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size;
    MPI_Request req;
    long x = me + 1, s = -1;

    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);

    MPI_Iallreduce(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(s == (long)n * (n + 1) / 2, "iallreduce: %ld", s);

    long b = me == n - 1 ? 77 : 0;
    MPI_Ibcast(&b, 1, MPI_LONG, n - 1, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(b == 77, "ibcast: %ld", b);

    /* Non-commutative: digits 1..n (mod 10) concatenated in rank order. */
    MPI_Datatype dtype;
    MPI_Type_contiguous(2, MPI_LONG, &dtype);
    MPI_Type_commit(&dtype);
    MPI_Op op;
    MPI_Op_create(concat, 0, &op);
    int m = n < 12 ? n : 12; /* digits that fit a long */
    MPI_Comm sub;
    MPI_Comm_split(MPI_COMM_WORLD, me < m, me, &sub);
    if (me < m) {
        digits_t d = {me % 10, 10}, r = {-1, -1};
        long expect = 0, prefix = 0;
        for (int i = 0; i < m; i++)
            expect = expect * 10 + i % 10;
        for (int i = 0; i <= me; i++)
            prefix = prefix * 10 + i % 10;
        MPI_Iallreduce(&d, &r, 1, dtype, op, sub, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(r.value == expect, "non-commutative iallreduce: %ld, expected %ld", r.value, expect);
        r.value = -1;
        MPI_Ireduce(&d, &r, 1, dtype, op, m / 2, sub, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(me != m / 2 || r.value == expect, "non-commutative ireduce: %ld", r.value);
        MPI_Iscan(&d, &r, 1, dtype, op, sub, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(r.value == prefix, "non-commutative iscan: %ld, expected %ld", r.value, prefix);
    }
    MPI_Comm_free(&sub);
    MPI_Op_free(&op);
    MPI_Type_free(&dtype);

    MPI_Iexscan(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(me == 0 || s == (long)me * (me + 1) / 2, "iexscan: %ld", s);

    /* Skewed arrival: rank r enters r ms late; allgather, alltoall and reduce_scatter stay right. */
    long *v = malloc(sizeof(long) * n), *w = malloc(sizeof(long) * n);
    usleep((useconds_t)(1000 * (me % 8)));
    MPI_Iallgather(&x, 1, MPI_LONG, w, 1, MPI_LONG, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == i + 1, "iallgather [%d] = %ld", i, w[i]);
    for (int i = 0; i < n; i++)
        v[i] = (long)me * n + i;
    usleep((useconds_t)(1000 * ((n - me) % 8)));
    MPI_Ialltoall(v, 1, MPI_LONG, w, 1, MPI_LONG, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == (long)i * n + me, "ialltoall [%d] = %ld", i, w[i]);
    MPI_Ialltoall(MPI_IN_PLACE, 1, MPI_LONG, v, 1, MPI_LONG, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        CHECK(v[i] == (long)i * n + me, "in-place ialltoall [%d] = %ld", i, v[i]);
    for (int i = 0; i < n; i++)
        v[i] = me + i;
    MPI_Ireduce_scatter_block(v, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(s == (long)n * (n - 1) / 2 + (long)n * me, "ireduce_scatter_block: %ld", s);
    MPI_Igather(&x, 1, MPI_LONG, w, 1, MPI_LONG, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int i = 0; me == 0 && i < n; i++)
        CHECK(w[i] == i + 1, "igather [%d] = %ld", i, w[i]);

    /* Persistent: one schedule, three starts. */
    MPI_Allreduce_init(&x, &s, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    for (int it = 0; it < 3; it++) {
        x = me + it;
        MPI_Start(&req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(s == n - 1 + it, "persistent allreduce %d: %ld", it, s);
    }
    MPI_Request_free(&req);

    /* Progress while the rank computes: the other members (and idle cores) move the schedule. */
    x = 1;
    MPI_Iallreduce(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &req);
    if (me == 0)
        busy_ms(20);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(s == n, "iallreduce while computing: %ld", s);

    /* Schedules and their small scratch buffers are reused (runtime/mpi/nbc/sched.c's per-VP pools): sizes
     * that grow and shrink, so that a kept buffer fits some calls and not others, and more requests in flight
     * than a pool keeps. */
    {
        enum { INFLIGHT = 40, MAXC = 3000 };
        static const int counts[] = {1, 1000, 3000, 200, 2999, 7, 1024};
        long *a = malloc(sizeof *a * MAXC), *r = calloc((size_t)INFLIGHT * MAXC, sizeof *r);
        MPI_Request reqs[INFLIGHT];
        for (int round = 0; round < 3; round++) {
            for (int k = 0; k < INFLIGHT; k++) {
                int c = counts[(k + round) % 7];
                for (int i = 0; i < c; i++)
                    a[i] = (long)me * i + k;
                MPI_Iallreduce(a, r + (size_t)k * MAXC, c, MPI_LONG, MPI_SUM, MPI_COMM_WORLD, &reqs[k]);
                MPI_Wait(&reqs[k], MPI_STATUS_IGNORE);
            }
            long bad = 0;
            for (int k = 0; k < INFLIGHT; k++) {
                int c = counts[(k + round) % 7];
                for (int i = 0; i < c; i++)
                    bad += r[(size_t)k * MAXC + i] != (long)n * (n - 1) / 2 * i + (long)n * k;
            }
            CHECK(bad == 0, "reused schedules, round %d: %ld wrong elements", round, bad);
            for (int k = 0; k < INFLIGHT; k++) /* in flight together: more than a pool keeps */
                MPI_Iallreduce(MPI_IN_PLACE, r + (size_t)k * MAXC, counts[k % 7], MPI_LONG, MPI_SUM,
                               MPI_COMM_WORLD, &reqs[k]);
            MPI_Waitall(INFLIGHT, reqs, MPI_STATUSES_IGNORE);
            bad = 0;
            for (int k = 0; k < INFLIGHT; k++)
                for (int i = 0; i < counts[k % 7]; i++) {
                    long before = counts[(k + round) % 7] > i ? (long)n * (n - 1) / 2 * i + (long)n * k : 0;
                    bad += r[(size_t)k * MAXC + i] != (long)n * before;
                }
            CHECK(bad == 0, "in-place schedules in flight together, round %d: %ld wrong elements", round, bad);
            memset(r, 0, sizeof *r * INFLIGHT * MAXC);
        }
        free(a);
        free(r);
    }

    /* Neighborhood: a periodic ring, left and right neighbors. */
    MPI_Comm ring;
    int dims[1] = {n}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    long out[2] = {me * 2, me * 2 + 1}, in[2] = {-1, -1};
    MPI_Ineighbor_alltoall(out, 1, MPI_LONG, in, 1, MPI_LONG, ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int left = (me - 1 + n) % n, right = (me + 1) % n;
    CHECK(in[0] == left * 2 + 1 && in[1] == right * 2, "ineighbor_alltoall: %ld %ld", in[0], in[1]);
    MPI_Comm_free(&ring);

    /* An intercommunicator between the even and odd ranks. */
    if (n > 1) {
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, me % 2 ? 0 : 1, 7, &inter);
        int rsize, lrank;
        MPI_Comm_remote_size(inter, &rsize);
        MPI_Comm_rank(half, &lrank);
        long mine = me, sum = -1, expect = 0;
        for (int i = 0; i < n; i++)
            expect += i % 2 != me % 2 ? i : 0;
        MPI_Iallreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, inter, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        CHECK(sum == expect, "intercommunicator iallreduce: %ld, expected %ld", sum, expect);
        long val = me % 2 == 0 && lrank == 0 ? 99 : -1;
        int root = me % 2 == 0 ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Bcast(&val, 1, MPI_LONG, root, inter);
        CHECK(me % 2 == 0 ? (lrank == 0 ? val == 99 : val == -1) : val == 99, "intercommunicator bcast: %ld", val);
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    free(v);
    free(w);
    return check_finish();
}
