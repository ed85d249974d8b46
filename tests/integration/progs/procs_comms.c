/* Communicator constructors whose members live in several processes (mpcrun -p P, --mode=process):
 * intercommunicators (create, point-to-point, barrier, a reduction, dup, split, merge),
 * MPI_Comm_create_group, MPI_Comm_idup, Cartesian and distributed-graph topologies (with neighbor exchanges),
 * and non-blocking collectives. Every result is checked by value; prints "rank R of N: ok" when all passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int failures, rank;
#define CHECK(cond)                                                                                          \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            failures++;                                                                                      \
            fprintf(stderr, "rank %d: check failed at line %d: %s\n", rank, __LINE__, #cond);                \
        }                                                                                                    \
    } while (0)

static int sum_to(int n) /* 0 + 1 + ... + n - 1 */
{
    return n * (n - 1) / 2;
}

/* Even world ranks on one side, odd ones on the other (at least 2 ranks). */
static void intercomms(int size)
{
    MPI_Comm half, inter, dup, merged, split;
    int color = rank % 2, local_rank, local_size, remote_size;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Comm_rank(half, &local_rank);
    MPI_Comm_size(half, &local_size);
    /* Leaders: local rank 0 of each half, world ranks 0 and 1. */
    CHECK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 77, &inter) == MPI_SUCCESS);
    int flag = 0;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &remote_size);
    CHECK(flag && remote_size == (color ? (size + 1) / 2 : size / 2));

    /* Point-to-point: local rank i of each side exchanges with remote rank i when it exists. */
    if (local_rank < remote_size) {
        int out = rank * 10, in = -1;
        MPI_Status st;
        MPI_Sendrecv(&out, 1, MPI_INT, local_rank, 5, &in, 1, MPI_INT, local_rank, 5, inter, &st);
        CHECK(in == (2 * local_rank + 1 - color) * 10 && st.MPI_SOURCE == local_rank);
    }
    CHECK(MPI_Barrier(inter) == MPI_SUCCESS);
    /* Allreduce on an intercommunicator: each side gets the sum over the other side's world ranks. */
    int other = 0, expect = 0;
    for (int r = 0; r < size; r++)
        expect += r % 2 != color ? r : 0;
    MPI_Allreduce(&rank, &other, 1, MPI_INT, MPI_SUM, inter);
    CHECK(other == expect);

    CHECK(MPI_Comm_dup(inter, &dup) == MPI_SUCCESS);
    int dflag = 0, dremote = 0, back = -1;
    MPI_Comm_test_inter(dup, &dflag);
    MPI_Comm_remote_size(dup, &dremote);
    CHECK(dflag && dremote == remote_size);
    /* Remote rank 0 of each side sends its world rank to the other side's rank 0. */
    if (local_rank == 0)
        MPI_Sendrecv(&rank, 1, MPI_INT, 0, 9, &back, 1, MPI_INT, 0, 9, dup, MPI_STATUS_IGNORE);
    if (local_rank == 0)
        CHECK(back == 1 - color);

    /* Merge with the odd side high: the even ranks come first, each side in its local order. */
    CHECK(MPI_Intercomm_merge(inter, color, &merged) == MPI_SUCCESS);
    int mrank, msize, total = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == size && mrank == (color ? (size + 1) / 2 + local_rank : local_rank));
    MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == sum_to(size));

    /* Split of the pair: local rank 0 of each side alone in color 0, the others in color 1. */
    CHECK(MPI_Comm_split(inter, local_rank == 0 ? 0 : 1, 0, &split) == MPI_SUCCESS);
    if (local_rank == 0) {
        int rs = 0;
        MPI_Comm_remote_size(split, &rs);
        CHECK(split != MPI_COMM_NULL && rs == 1);
    }
    if (split != MPI_COMM_NULL)
        MPI_Comm_free(&split);
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

static void create_group(int size)
{
    /* The even world ranks, in reverse order. */
    MPI_Group world_group, evens;
    int n = (size + 1) / 2, *ranks = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        ranks[i] = 2 * (n - 1 - i);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    MPI_Group_incl(world_group, n, ranks, &evens);
    free(ranks);
    MPI_Comm made = MPI_COMM_NULL;
    if (rank % 2 == 0) {
        CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 3, &made) == MPI_SUCCESS);
        int r = -1, s = 0, total = 0;
        MPI_Comm_rank(made, &r);
        MPI_Comm_size(made, &s);
        CHECK(s == n && r == n - 1 - rank / 2);
        MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, made);
        CHECK(total == 2 * sum_to(n));
        MPI_Comm_free(&made);
    }
    MPI_Group_free(&evens);
    MPI_Group_free(&world_group);
}

static void idup(int size)
{
    MPI_Comm copies[2];
    MPI_Request reqs[2];
    for (int i = 0; i < 2; i++)
        CHECK(MPI_Comm_idup(MPI_COMM_WORLD, &copies[i], &reqs[i]) == MPI_SUCCESS);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 2; i++) {
        int r = -1, total = 0, result;
        MPI_Comm_rank(copies[i], &r);
        CHECK(r == rank);
        MPI_Comm_compare(copies[i], MPI_COMM_WORLD, &result);
        CHECK(result == MPI_CONGRUENT);
        MPI_Allreduce(&rank, &total, 1, MPI_INT, MPI_SUM, copies[i]);
        CHECK(total == sum_to(size));
        MPI_Comm_free(&copies[i]);
    }
}

static void topologies(int size)
{
    /* A periodic ring as a 1-D Cartesian grid, then a 2-D grid when the size allows. */
    int dims[2] = {size, 1}, periods[2] = {1, 0};
    MPI_Comm cart, graph;
    CHECK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart) == MPI_SUCCESS);
    int src, dst, coords[2];
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK(src == (rank + size - 1) % size && dst == (rank + 1) % size);
    MPI_Cart_coords(cart, rank, 2, coords);
    CHECK(coords[0] == rank && coords[1] == 0);
    int got[4] = {-1, -1, -1, -1};
    /* Neighbor order: -1 then +1 of dimension 0, then dimension 1 (MPI_PROC_NULL: untouched). */
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, got, 1, MPI_INT, cart);
    CHECK(got[0] == src && got[1] == dst && got[2] == -1 && got[3] == -1);
    MPI_Comm_free(&cart);

    /* Distributed graph: every rank names the edge to its successor (general form). */
    int next = (rank + 1) % size, weight = rank + 100;
    CHECK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank, (int[]){1}, &next, &weight, MPI_INFO_NULL, 0,
                                &graph) == MPI_SUCCESS);
    int indeg = -1, outdeg = -1, weighted = 0;
    MPI_Dist_graph_neighbors_count(graph, &indeg, &outdeg, &weighted);
    CHECK(indeg == 1 && outdeg == 1 && weighted);
    int sources[1], sw[1], dests[1], dw[1];
    MPI_Dist_graph_neighbors(graph, 1, sources, sw, 1, dests, dw);
    int prev = (rank + size - 1) % size;
    CHECK(sources[0] == prev && sw[0] == prev + 100 && dests[0] == next && dw[0] == weight);
    int from = -1;
    MPI_Neighbor_allgather(&rank, 1, MPI_INT, &from, 1, MPI_INT, graph);
    CHECK(from == prev);
    MPI_Comm_free(&graph);
}

static void nonblocking(int size)
{
    int total = -1, root_value = rank == size - 1 ? 42 : 0;
    MPI_Request reqs[2];
    MPI_Iallreduce(&rank, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &reqs[0]);
    MPI_Ibcast(&root_value, 1, MPI_INT, size - 1, MPI_COMM_WORLD, &reqs[1]);
    MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
    CHECK(total == sum_to(size) && root_value == 42);
    int *all = malloc(sizeof(int) * (size_t)size);
    MPI_Request req;
    MPI_Iallgather(&rank, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int r = 0; r < size; r++)
        CHECK(all[r] == r);
    free(all);
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    int size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size >= 2)
        intercomms(size);
    create_group(size);
    idup(size);
    topologies(size);
    nonblocking(size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!failures)
        printf("rank %d of %d: ok\n", rank, size);
    MPI_Finalize();
    return failures ? 1 : 0;
}
