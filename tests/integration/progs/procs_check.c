/* Point-to-point and collectives between ranks of several processes (and threads of one): eager and
 * rendezvous sizes, non-contiguous types, MPI_ANY_SOURCE and probes, synchronous sends, non-overtaking,
 * communicator creation, every blocking collective. Prints "rank R of N: ok" when every check passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            fprintf(stderr, "rank %d: check failed at line %d: %s\n", rank, __LINE__, #cond);                \
        }                                                                                                    \
    } while (0)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* Sizes across the eager limit and the rendezvous. */
    int sizes[] = {0, 1, 8, 9, 100, 2000, 8192, 100000, 1 << 20}; /* 8 ints: the most a one-line shm cell holds */
    for (unsigned s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        int n = sizes[s];
        int *out = malloc(sizeof(int) * (size_t)(n + 1)), *in = malloc(sizeof(int) * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            out[i] = rank * 7 + i;
        MPI_Status st;
        MPI_Sendrecv(out, n, MPI_INT, next, 10 + (int)s, in, n, MPI_INT, prev, 10 + (int)s, MPI_COMM_WORLD,
                     &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == n && st.MPI_SOURCE == prev);
        int bad = 0;
        for (int i = 0; i < n; i++)
            bad += in[i] != prev * 7 + i;
        CHECK(bad == 0);
        free(out);
        free(in);
    }

    /* A strided type on both sides, large enough for the rendezvous. */
    enum { ROWS = 5000 };
    MPI_Datatype column;
    MPI_Type_vector(ROWS, 1, 3, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);
    double *grid = calloc(3 * ROWS, sizeof(double)), *grid_in = calloc(3 * ROWS, sizeof(double));
    for (int i = 0; i < ROWS; i++)
        grid[3 * i + 1] = rank + i * 0.5;
    MPI_Sendrecv(grid + 1, 1, column, next, 30, grid_in + 2, 1, column, prev, 30, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    int bad = 0;
    for (int i = 0; i < ROWS; i++)
        bad += grid_in[3 * i + 2] != prev + i * 0.5 || grid_in[3 * i] != 0;
    CHECK(bad == 0);
    MPI_Type_free(&column);
    free(grid);
    free(grid_in);

    /* Non-overtaking: a large then a small message with the same tag arrive in order. */
    /* Not static: ranks of one process share static data (this program is not privatized). */
    int *big = calloc(50000, sizeof(int));
    if (rank == 0) {
        for (int src = 1; src < size; src++) {
            int small = -1;
            MPI_Recv(big, 50000, MPI_INT, src, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(&small, 1, MPI_INT, src, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(big[49999] == src && small == src + 1000);
        }
    } else {
        big[49999] = rank;
        int small = rank + 1000;
        MPI_Request r[2];
        MPI_Isend(big, 50000, MPI_INT, 0, 40, MPI_COMM_WORLD, &r[0]);
        MPI_Isend(&small, 1, MPI_INT, 0, 40, MPI_COMM_WORLD, &r[1]);
        MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
    }
    free(big);

    /* MPI_ANY_SOURCE with a probe first, and a synchronous send. */
    if (rank == 0) {
        int seen = 0;
        for (int i = 1; i < size; i++) {
            MPI_Status st;
            MPI_Probe(MPI_ANY_SOURCE, 50, MPI_COMM_WORLD, &st);
            int v = -1;
            MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 50, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == st.MPI_SOURCE * 3);
            seen += st.MPI_SOURCE;
        }
        CHECK(seen == size * (size - 1) / 2);
    } else {
        int v = rank * 3;
        MPI_Ssend(&v, 1, MPI_INT, 0, 50, MPI_COMM_WORLD);
    }

    /* Truncation is reported to the receiver. */
    if (size > 1 && rank < 2) {
        int two[2] = {1, 2}, one = 0;
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        if (rank == 0)
            MPI_Send(two, 2, MPI_INT, 1, 60, MPI_COMM_WORLD);
        else
            CHECK(MPI_Recv(&one, 1, MPI_INT, 0, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }

    /* Communicators and collectives. */
    MPI_Comm dup, parity;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &parity);
    int prank, psize;
    MPI_Comm_rank(parity, &prank);
    MPI_Comm_size(parity, &psize);
    CHECK(psize == (size + 1 - rank % 2) / 2);
    int root_world = -1;
    if (prank == 0)
        root_world = rank;
    MPI_Bcast(&root_world, 1, MPI_INT, 0, parity);
    CHECK(root_world % 2 == rank % 2 && root_world >= rank); /* ordered by decreasing world rank */
    long sum = 0, me = rank + 1;
    MPI_Allreduce(&me, &sum, 1, MPI_LONG, MPI_SUM, dup);
    CHECK(sum == (long)size * (size + 1) / 2);
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, dup);
    for (int i = 0; i < size; i++)
        CHECK(all[i] == i);
    int *to = malloc(sizeof(int) * (size_t)size), *from = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++)
        to[i] = rank * 100 + i;
    MPI_Alltoall(to, 1, MPI_INT, from, 1, MPI_INT, dup);
    for (int i = 0; i < size; i++)
        CHECK(from[i] == i * 100 + rank);
    int scan = 0;
    MPI_Scan(&rank, &scan, 1, MPI_INT, MPI_SUM, dup);
    CHECK(scan == rank * (rank + 1) / 2);
    int mx = -1;
    MPI_Reduce(&rank, &mx, 1, MPI_INT, MPI_MAX, size - 1, dup);
    if (rank == size - 1)
        CHECK(mx == size - 1);
    int gathered[64] = {0}, piece = -1;
    MPI_Gather(&rank, 1, MPI_INT, gathered, 1, MPI_INT, 0, dup);
    if (rank == 0)
        for (int i = 0; i < size && i < 64; i++)
            CHECK(gathered[i] == i);
    for (int i = 0; i < size && i < 64; i++)
        gathered[i] = i * 11;
    MPI_Scatter(gathered, 1, MPI_INT, &piece, 1, MPI_INT, 0, dup);
    CHECK(piece == rank * 11);
    int block = 0;
    MPI_Reduce_scatter_block(to, &block, 1, MPI_INT, MPI_SUM, dup);
    CHECK(block == 100 * size * (size - 1) / 2 + size * rank);
    MPI_Barrier(parity);
    free(all);
    free(to);
    free(from);
    MPI_Comm_free(&parity);
    MPI_Comm_free(&dup);

    printf("rank %d of %d: %s\n", rank, size, failures ? "FAILED" : "ok");
    MPI_Finalize();
    return failures != 0;
}
