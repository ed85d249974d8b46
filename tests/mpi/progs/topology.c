/* Virtual topologies (MPI 4.0 chapter 8): MPI_Dims_create results, Cartesian coordinates, ranks, shifts
 * (periodic and not) with a halo exchange, sub-grids, a grid smaller than the communicator, duplicates,
 * graphs, distributed graphs (adjacent and general forms, weighted and not), MPI_Topo_test. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

static void check_dims(void)
{
    int d2[2] = {0, 0}, d3[3] = {0, 0, 0};
    MPI_Dims_create(12, 2, d2);
    CHECK(d2[0] == 4 && d2[1] == 3);
    MPI_Dims_create(16, 3, d3);
    CHECK(d3[0] == 4 && d3[1] == 2 && d3[2] == 2);
    d2[0] = d2[1] = 0;
    MPI_Dims_create(7, 2, d2);
    CHECK(d2[0] == 7 && d2[1] == 1);
    d2[0] = d2[1] = 0;
    MPI_Dims_create(72, 2, d2); /* the closest pair, not 12 x 6 */
    CHECK(d2[0] == 9 && d2[1] == 8);
    int fixed[3] = {0, 3, 0};
    MPI_Dims_create(24, 3, fixed);
    CHECK(fixed[0] == 4 && fixed[1] == 3 && fixed[2] == 2);
    int big[3] = {0, 0, 0};
    MPI_Dims_create(1000 * 1000 * 1000, 3, big);
    CHECK(big[0] == 1000 && big[1] == 1000 && big[2] == 1000);
    int prime[3] = {0, 0, 0};
    MPI_Dims_create(453420, 3, prime); /* 229 is a prime factor above the cube root */
    CHECK(prime[0] == 229 && prime[1] == 45 && prime[2] == 44);
    int tie[3] = {0, 0, 0};
    MPI_Dims_create(5040, 3, tie); /* spread 6 either way: the larger smallest dimension wins */
    CHECK(tie[0] == 21 && tie[1] == 16 && tie[2] == 15);
    int spread[3] = {0, 0, 0};
    MPI_Dims_create(453468, 3, spread); /* spread 40, against 44 for 106 x 69 x 62 */
    CHECK(spread[0] == 93 && spread[1] == 92 && spread[2] == 53);
    int all_fixed[2] = {2, 3};
    CHECK(MPI_Dims_create(6, 2, all_fixed) == MPI_SUCCESS && all_fixed[0] == 2 && all_fixed[1] == 3);
    CHECK(MPI_Dims_create(1, 0, NULL) == MPI_SUCCESS);
}

static void check_cart(int rank, int size)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0};
    MPI_Dims_create(size, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &cart);
    int status, ndims, r;
    MPI_Topo_test(cart, &status);
    MPI_Cartdim_get(cart, &ndims);
    MPI_Comm_rank(cart, &r);
    CHECK(status == MPI_CART && ndims == 2 && r == rank);
    int gd[2], gp[2], coords[2];
    MPI_Cart_get(cart, 2, gd, gp, coords);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0);
    CHECK(coords[0] == rank / dims[1] && coords[1] == rank % dims[1]); /* row-major */
    for (int q = 0; q < size; q++) {
        int c[2], back;
        MPI_Cart_coords(cart, q, 2, c);
        CHECK(c[0] == q / dims[1] && c[1] == q % dims[1]);
        MPI_Cart_rank(cart, c, &back);
        CHECK(back == q);
    }
    int wrapped[2] = {coords[0] + dims[0], coords[1]}, back; /* dimension 0 is periodic */
    MPI_Cart_rank(cart, wrapped, &back);
    CHECK(back == rank);
    wrapped[0] = coords[0] - 3 * dims[0];
    MPI_Cart_rank(cart, wrapped, &back);
    CHECK(back == rank);

    /* Shifts: periodic rows wrap, non-periodic columns end in MPI_PROC_NULL. */
    int src, dst;
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    CHECK(src == ((coords[0] + dims[0] - 1) % dims[0]) * dims[1] + coords[1]);
    CHECK(dst == ((coords[0] + 1) % dims[0]) * dims[1] + coords[1]);
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    CHECK(src == (coords[1] == 0 ? MPI_PROC_NULL : rank - 1));
    CHECK(dst == (coords[1] == dims[1] - 1 ? MPI_PROC_NULL : rank + 1));
    MPI_Cart_shift(cart, 1, -2, &src, &dst);
    CHECK(dst == (coords[1] < 2 ? MPI_PROC_NULL : rank - 2));
    CHECK(src == (coords[1] + 2 >= dims[1] ? MPI_PROC_NULL : rank + 2));
    /* A halo exchange along the columns: MPI_PROC_NULL ends give nothing. */
    MPI_Cart_shift(cart, 1, 1, &src, &dst);
    int from_left = -7;
    MPI_Sendrecv(&rank, 1, MPI_INT, dst, 4, &from_left, 1, MPI_INT, src, 4, cart, MPI_STATUS_IGNORE);
    CHECK(from_left == (src == MPI_PROC_NULL ? -7 : rank - 1));

    /* Sub-grids: keeping the columns gives the rows. */
    int keep_cols[2] = {0, 1};
    MPI_Comm row;
    MPI_Cart_sub(cart, keep_cols, &row);
    int n, rr;
    MPI_Comm_size(row, &n);
    MPI_Comm_rank(row, &rr);
    MPI_Cartdim_get(row, &ndims);
    CHECK(n == dims[1] && rr == coords[1] && ndims == 1);
    MPI_Cart_get(row, 1, gd, gp, coords);
    CHECK(gd[0] == dims[1] && gp[0] == 0 && coords[0] == rr);
    MPI_Comm_free(&row);
    int keep_none[2] = {0, 0};
    MPI_Comm point;
    MPI_Cart_sub(cart, keep_none, &point); /* zero dimensions: rank 0 only, as MPI_Cart_create makes it */
    CHECK((point == MPI_COMM_NULL) == (rank != 0));
    if (point != MPI_COMM_NULL) {
        int result;
        MPI_Comm_size(point, &n);
        MPI_Cartdim_get(point, &ndims);
        MPI_Comm_compare(point, MPI_COMM_SELF, &result);
        CHECK(n == 1 && ndims == 0 && result == MPI_CONGRUENT);
        MPI_Comm_free(&point);
    }

    /* A duplicate keeps the topology. */
    MPI_Comm dup;
    MPI_Comm_dup(cart, &dup);
    MPI_Topo_test(dup, &status);
    MPI_Cart_coords(dup, rank, 2, coords);
    CHECK(status == MPI_CART && coords[0] == rank / dims[1]);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&cart);

    /* A grid smaller than the communicator: the others get MPI_COMM_NULL; MPI_Cart_map agrees. */
    int line[1] = {(size + 1) / 2}, open[1] = {0}, newrank;
    MPI_Cart_map(MPI_COMM_WORLD, 1, line, open, &newrank);
    CHECK(newrank == (rank < line[0] ? rank : MPI_UNDEFINED));
    MPI_Cart_create(MPI_COMM_WORLD, 1, line, open, 0, &cart);
    CHECK((cart == MPI_COMM_NULL) == (rank >= line[0]));
    if (cart != MPI_COMM_NULL) {
        MPI_Comm_size(cart, &n);
        CHECK(n == line[0]);
        MPI_Comm_free(&cart);
    }
    /* Zero dimensions: one rank. */
    MPI_Cart_create(MPI_COMM_WORLD, 0, NULL, NULL, 0, &cart);
    CHECK((cart == MPI_COMM_NULL) == (rank != 0));
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
}

static void check_graph(int rank, int size)
{
    /* A ring with chords: node i -> i+1, and even nodes also -> i+2 (mod size). */
    int *index = malloc(sizeof(int) * (size_t)size), *edges = malloc(sizeof(int) * (size_t)(2 * size));
    int ne = 0;
    for (int i = 0; i < size; i++) {
        edges[ne++] = (i + 1) % size;
        if (i % 2 == 0)
            edges[ne++] = (i + 2) % size;
        index[i] = ne;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size, index, edges, 0, &graph);
    int status, nnodes, nedges, count, nb[2];
    MPI_Topo_test(graph, &status);
    MPI_Graphdims_get(graph, &nnodes, &nedges);
    CHECK(status == MPI_GRAPH && nnodes == size && nedges == ne);
    MPI_Graph_neighbors_count(graph, rank, &count);
    MPI_Graph_neighbors(graph, rank, 2, nb);
    CHECK(count == (rank % 2 == 0 ? 2 : 1) && nb[0] == (rank + 1) % size);
    CHECK(count == 1 || nb[1] == (rank + 2) % size);
    int *gi = malloc(sizeof(int) * (size_t)size), *ge = malloc(sizeof(int) * (size_t)ne);
    MPI_Graph_get(graph, size, ne, gi, ge);
    CHECK_INTS(gi, index, size);
    CHECK_INTS(ge, edges, ne);
    int newrank;
    MPI_Graph_map(MPI_COMM_WORLD, size, index, edges, &newrank);
    CHECK(newrank == rank);
    MPI_Comm_free(&graph);
    free(gi);
    free(ge);
    free(index);
    free(edges);
}

static void check_dist_graph(int rank, int size)
{
    /* Adjacent form: in from r-1 and r-2, out to r+1 and r+2 (mod size), weight = 10 * source + dest. */
    int in[2] = {(rank + size - 1) % size, (rank + size - 2) % size}, out[2] = {(rank + 1) % size, (rank + 2) % size};
    int inw[2] = {10 * in[0] + rank, 10 * in[1] + rank}, outw[2] = {10 * rank + out[0], 10 * rank + out[1]};
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, in, inw, 2, out, outw, MPI_INFO_NULL, 0, &dg);
    int status, indeg, outdeg, weighted, s[2], sw[2], d[2], dw[2];
    MPI_Topo_test(dg, &status);
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(status == MPI_DIST_GRAPH && indeg == 2 && outdeg == 2 && weighted);
    MPI_Dist_graph_neighbors(dg, 2, s, sw, 2, d, dw);
    CHECK_INTS(s, in, 2);
    CHECK_INTS(sw, inw, 2);
    CHECK_INTS(d, out, 2);
    CHECK_INTS(dw, outw, 2);
    MPI_Comm_free(&dg);

    /* Unweighted, and a rank without edges (MPI_WEIGHTS_EMPTY is not needed when unweighted). */
    int deg = rank == 0 ? 0 : 1, prev = rank - 1, next = rank + 1 < size ? rank + 1 : 0;
    int outdeg_line = rank + 1 < size ? 1 : 0;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, deg, &prev, MPI_UNWEIGHTED, outdeg_line, &next, MPI_UNWEIGHTED,
                                   MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(indeg == deg && outdeg == outdeg_line && !weighted);
    if (deg) {
        MPI_Dist_graph_neighbors(dg, 1, s, MPI_UNWEIGHTED, 1, d, MPI_UNWEIGHTED);
        CHECK(s[0] == rank - 1);
    }
    MPI_Comm_free(&dg);

    /* General form: rank 0 describes the whole ring i -> i+1 with weight i; the others give nothing. */
    int n = rank == 0 ? size : 0;
    int *sources = malloc(sizeof(int) * (size_t)size), *degrees = malloc(sizeof(int) * (size_t)size);
    int *dests = malloc(sizeof(int) * (size_t)size), *weights = malloc(sizeof(int) * (size_t)size);
    for (int i = 0; i < size; i++) {
        sources[i] = i;
        degrees[i] = 1;
        dests[i] = (i + 1) % size;
        weights[i] = i;
    }
    MPI_Dist_graph_create(MPI_COMM_WORLD, n, sources, degrees, dests, rank == 0 ? weights : MPI_WEIGHTS_EMPTY,
                          MPI_INFO_NULL, 0, &dg);
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(indeg == 1 && outdeg == 1 && weighted);
    MPI_Dist_graph_neighbors(dg, 1, s, sw, 1, d, dw);
    int left = (rank + size - 1) % size;
    CHECK(s[0] == left && sw[0] == left && d[0] == (rank + 1) % size && dw[0] == rank);
    /* Messages along the graph's edges. */
    int got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, d[0], 8, &got, 1, MPI_INT, s[0], 8, dg, MPI_STATUS_IGNORE);
    CHECK(got == left);
    MPI_Comm_free(&dg);
    free(sources);
    free(degrees);
    free(dests);
    free(weights);
}

/* One erroneous call by the last rank (the job must end with the error's class). */
static void erroneous(const char *what, int size)
{
    int dims[2] = {size, 1}, periods[2] = {0, 0}, coords[2] = {size, 0}, r;
    MPI_Comm cart;
    if (strcmp(what, "dims") == 0) {
        int d[2] = {0, 5};
        MPI_Dims_create(12, 2, d);
    } else if (strcmp(what, "topology") == 0) {
        MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &r, &r);
    } else {
        MPI_Cart_create(MPI_COMM_SELF, 1, dims, periods, 0, &cart);
        dims[0] = 1;
        MPI_Comm_free(&cart);
        MPI_Cart_create(MPI_COMM_SELF, 2, dims, periods, 0, &cart);
        if (strcmp(what, "rank") == 0)
            MPI_Cart_coords(cart, 1, 2, coords);
        else
            MPI_Cart_rank(cart, coords, &r); /* coordinate 'size' of a non-periodic dimension of 1 */
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, status;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1) {
        if (rank == size - 1)
            erroneous(argv[1], 1);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Finalize();
        return 0;
    }
    MPI_Topo_test(MPI_COMM_WORLD, &status);
    CHECK(status == MPI_UNDEFINED);
    check_dims();
    check_cart(rank, size);
    check_graph(rank, size);
    check_dist_graph(rank, size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("topology: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
