/* Broadcasts back to back, which the root of a communicator of few members may run ahead of (its ring of
 * slots, runtime/mpi/coll/bcast_ring.c). Phase 1: one root, readers slower than it, so that it laps them
 * and must wait for its slots. Phase 2: the root moves, sizes cycle through one int, a full slot (128
 * ints: 512 bytes), one int more (the root lends its buffer and waits for everyone) and a strided type,
 * with an allreduce now and then; every value is checked. */
#include "coll_check.h"

enum { SLOW_CALLS = 400, MIXED_CALLS = 1200, MAX = 129 };

static void spin_us(double us)
{
    double until = MPI_Wtime() + us * 1e-6;
    while (MPI_Wtime() < until)
        ;
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size, bad = 0;
    for (int call = 0; call < SLOW_CALLS; call++) {
        int v = me == 0 ? call : -1;
        if (me != 0)
            spin_us(5);
        CHECK(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS, "bcast %d", call);
        bad += v != call;
    }
    CHECK(bad == 0, "%d wrong values with slow readers", bad);
    MPI_Datatype every_other;
    MPI_Type_vector(MAX, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    const int counts[] = {1, 128, 129, 0}; /* 0: the strided type */
    int a[2 * MAX];
    bad = 0;
    for (int call = 0; call < MIXED_CALLS; call++) {
        int root = (call / 30) % n, count = counts[call % 4], strided = count == 0;
        for (int i = 0; i < 2 * MAX; i++)
            a[i] = me == root ? call * 1000 + i : -1;
        if (me != root && call % 100 < 20)
            spin_us(2);
        if (strided)
            CHECK(MPI_Bcast(a, 1, every_other, root, MPI_COMM_WORLD) == MPI_SUCCESS, "strided bcast %d",
                  call);
        else
            CHECK(MPI_Bcast(a, count, MPI_INT, root, MPI_COMM_WORLD) == MPI_SUCCESS, "bcast %d", call);
        int last = strided ? 2 * MAX - 2 : count - 1;
        for (int i = 0; i <= last; i += strided ? 2 : 1)
            bad += a[i] != call * 1000 + i;
        if (strided && me != root)
            bad += a[1] != -1; /* the gaps stay */
        if (call % 25 == 24) {
            int sum = 0, one = 1;
            CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "allreduce");
            CHECK(sum == n, "allreduce between broadcasts: %d", sum);
        }
    }
    CHECK(bad == 0, "%d wrong values with moving roots and sizes", bad);
    MPI_Type_free(&every_other);
    return check_finish();
}
