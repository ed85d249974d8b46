/* Collectives on many ranks (run on 1000): values right, and the reductions stay cheap per member (small
 * reductions are done by few members, who alone visit everyone's buffers). */
#include "coll_check.h"

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size;
    long x = me, s = -1;
    for (int it = 0; it < 5; it++) {
        MPI_Allreduce(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
        CHECK(s == (long)n * (n - 1) / 2, "allreduce of one long: %ld", s);
    }
    long *v = malloc(sizeof(long) * n), *w = malloc(sizeof(long) * n);
    for (int i = 0; i < n; i++)
        v[i] = me + i;
    MPI_Allreduce(v, w, n, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == (long)n * (n - 1) / 2 + (long)n * i, "allreduce of %d longs: [%d] = %ld", n, i, w[i]);
    MPI_Reduce(v, w, n, MPI_LONG, MPI_MAX, n - 1, MPI_COMM_WORLD);
    if (me == n - 1)
        CHECK(w[0] == n - 1 && w[n - 1] == 2L * (n - 1), "reduce max: %ld %ld", w[0], w[n - 1]);
    MPI_Allgather(&x, 1, MPI_LONG, w, 1, MPI_LONG, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(w[i] == i, "allgather: [%d] = %ld", i, w[i]);
    MPI_Scan(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(s == (long)me * (me + 1) / 2, "scan: %ld", s);
    MPI_Exscan(&x, &s, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(me == 0 || s == (long)me * (me - 1) / 2, "exscan: %ld", s);
    long b = me == n / 2 ? 42 : 0;
    MPI_Bcast(&b, 1, MPI_LONG, n / 2, MPI_COMM_WORLD);
    CHECK(b == 42, "bcast: %ld", b);
    long r = -1;
    for (int i = 0; i < n; i++)
        v[i] = (long)me * n + i;
    MPI_Scatter(v, 1, MPI_LONG, &r, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    CHECK(r == me, "scatter: %ld", r);
    MPI_Reduce_scatter_block(v, &r, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    CHECK(r == (long)n * n * (n - 1) / 2 + (long)n * me, "reduce_scatter_block: %ld", r);
    free(v);
    free(w);
    return check_finish();
}
