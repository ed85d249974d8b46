/* Group algebra (MPI 4.0 section 7.3) checked against values computed by hand for any job size:
 * constructors, set operations and their order, translate_ranks, compare, MPI_GROUP_EMPTY.
 * With an argument, makes one erroneous call instead (the job must end with that error's class). */
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* The world ranks of g's members, in g's order. */
static void members(MPI_Group g, MPI_Group world, int *out, int *n)
{
    MPI_Group_size(g, n);
    int *ranks = malloc(sizeof(int) * (size_t)(*n + 1));
    for (int i = 0; i < *n; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(g, *n, ranks, world, out);
    free(ranks);
}

static void expect_members(MPI_Group g, MPI_Group world, const int *expected, int n)
{
    int got[256], size;
    members(g, world, got, &size);
    CHECK(size == n);
    CHECK_INTS(got, expected, n);
}

static int erroneous(const char *what, MPI_Group world, int size)
{
    MPI_Group out;
    int ranks[2] = {0, 0};
    if (strcmp(what, "rank") == 0) {
        ranks[0] = size; /* one past the last rank */
        MPI_Group_incl(world, 1, ranks, &out);
    } else if (strcmp(what, "duplicate") == 0) {
        MPI_Group_excl(world, 2, ranks, &out);
    } else if (strcmp(what, "stride") == 0) {
        int ranges[1][3] = {{0, size - 1, 0}};
        MPI_Group_range_incl(world, 1, ranges, &out);
    } else if (strcmp(what, "null") == 0) {
        int s;
        MPI_Group_size(MPI_GROUP_NULL, &s);
    } else if (strcmp(what, "translate") == 0) {
        int in = -5, res;
        MPI_Group_translate_ranks(world, 1, &in, world, &res);
    }
    return 0; /* not reached: errors are fatal */
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 3 && size <= 256);
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    if (argc > 1) {
        if (rank == size - 1)
            erroneous(argv[1], world, size);
        MPI_Barrier(MPI_COMM_WORLD); /* the other ranks wait to be ended */
        MPI_Finalize();
        return 0;
    }

    int n, r, expected[256], ranks[256];
    MPI_Group_size(world, &n);
    MPI_Group_rank(world, &r);
    CHECK(n == size && r == rank);

    /* incl, reversed: rank i is world rank size-1-i. */
    for (int i = 0; i < size; i++)
        ranks[i] = expected[i] = size - 1 - i;
    MPI_Group rev;
    MPI_Group_incl(world, size, ranks, &rev);
    expect_members(rev, world, expected, size);
    MPI_Group_rank(rev, &r);
    CHECK(r == size - 1 - rank);

    /* excl of the odd ranks: the evens, in order. */
    int nodd = 0, neven = 0;
    for (int i = 1; i < size; i += 2)
        ranks[nodd++] = i;
    for (int i = 0; i < size; i += 2)
        expected[neven++] = i;
    MPI_Group evens;
    MPI_Group_excl(world, nodd, ranks, &evens);
    expect_members(evens, world, expected, neven);
    MPI_Group_rank(evens, &r);
    CHECK(r == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED));

    /* range_incl: (size-1 down to 1 by -2), stopping at 1 or 2, then (0 to 0 by 1). */
    int ranges[2][3] = {{size - 1, 1, -2}, {0, 0, 1}};
    int k = 0;
    for (int i = size - 1; i >= 1; i -= 2)
        expected[k++] = i;
    expected[k++] = 0;
    MPI_Group_range_incl(world, 2, ranges, &g);
    expect_members(g, world, expected, k);
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL);

    /* range_excl of (1, size-1, 3): keeps every rank not congruent to 1 mod 3. */
    int ex[1][3] = {{1, size - 1, 3}};
    k = 0;
    for (int i = 0; i < size; i++)
        if (i % 3 != 1)
            expected[k++] = i;
    MPI_Group_range_excl(world, 1, ex, &g);
    expect_members(g, world, expected, k);
    MPI_Group_free(&g);

    /* Set operations: a = {size-1, ..., 0 step -1} = rev, b = evens. */
    MPI_Group u, in, diff;
    MPI_Group_union(evens, rev, &u); /* evens in order, then the odds in rev's (descending) order */
    k = 0;
    for (int i = 0; i < size; i += 2)
        expected[k++] = i;
    for (int i = size - 1; i >= 0; i--)
        if (i % 2)
            expected[k++] = i;
    expect_members(u, world, expected, size);
    MPI_Group_intersection(rev, evens, &in); /* evens, in rev's order */
    k = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 2 == 0)
            expected[k++] = i;
    expect_members(in, world, expected, k);
    MPI_Group_difference(rev, evens, &diff); /* odds, descending */
    k = 0;
    for (int i = size - 1; i >= 0; i--)
        if (i % 2)
            expected[k++] = i;
    expect_members(diff, world, expected, k);
    MPI_Group_rank(diff, &r);
    CHECK(rank % 2 == 1 || r == MPI_UNDEFINED);
    if (rank % 2) {
        int pos = 0;
        while (expected[pos] != rank)
            pos++;
        CHECK(r == pos);
    }

    /* translate_ranks: evens -> rev, with MPI_PROC_NULL, and to a group missing the rank. */
    int from[3] = {0, MPI_PROC_NULL, neven - 1}, to[3];
    MPI_Group_translate_ranks(evens, 3, from, rev, to);
    CHECK(to[0] == size - 1 && to[1] == MPI_PROC_NULL && to[2] == size - 1 - 2 * (neven - 1));
    int odd_rank0 = 0;
    MPI_Group_translate_ranks(diff, 1, &odd_rank0, evens, to);
    CHECK(to[0] == MPI_UNDEFINED);
    MPI_Group_translate_ranks(world, 1, &odd_rank0, MPI_GROUP_EMPTY, to);
    CHECK(to[0] == MPI_UNDEFINED);

    /* compare */
    int result;
    MPI_Group_compare(world, world, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_compare(world, rev, &result);
    CHECK(result == MPI_SIMILAR);
    MPI_Group_compare(u, world, &result);
    CHECK(result == (size <= 2 ? MPI_IDENT : MPI_SIMILAR));
    MPI_Group_compare(evens, world, &result);
    CHECK(result == MPI_UNEQUAL);
    MPI_Group world2;
    MPI_Comm_group(MPI_COMM_WORLD, &world2);
    MPI_Group_compare(world, world2, &result);
    CHECK(result == MPI_IDENT);
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    MPI_Group_incl(world, size, ranks, &g); /* a new object with the same members and order */
    MPI_Group_compare(world, g, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_free(&world2);

    /* MPI_GROUP_EMPTY: what empty constructions return; may be freed; rank undefined. */
    MPI_Group_incl(world, 0, NULL, &g);
    CHECK(g == MPI_GROUP_EMPTY);
    MPI_Group_size(g, &n);
    MPI_Group_rank(g, &r);
    CHECK(n == 0 && r == MPI_UNDEFINED);
    MPI_Group_free(&g);
    CHECK(g == MPI_GROUP_NULL);
    MPI_Group_difference(world, rev, &g);
    CHECK(g == MPI_GROUP_EMPTY);
    MPI_Group_union(MPI_GROUP_EMPTY, evens, &g);
    MPI_Group_compare(g, evens, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_free(&g);
    MPI_Group_intersection(evens, diff, &g);
    CHECK(g == MPI_GROUP_EMPTY);
    MPI_Group_compare(g, MPI_GROUP_EMPTY, &result);
    CHECK(result == MPI_IDENT);
    MPI_Group_excl(world, size, ranks, &g);
    CHECK(g == MPI_GROUP_EMPTY);
    MPI_Group_compare(MPI_GROUP_EMPTY, world, &result);
    CHECK(result == MPI_UNEQUAL);

    /* A group outlives the communicator it came from. */
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_group(dup, &g);
    MPI_Comm_free(&dup);
    MPI_Group_size(g, &n);
    CHECK(n == size);
    MPI_Group_free(&g);

    MPI_Group_free(&u);
    MPI_Group_free(&in);
    MPI_Group_free(&diff);
    MPI_Group_free(&evens);
    MPI_Group_free(&rev);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("groups: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
