/* Communicator creation (MPI 4.0 section 7.4.2): MPI_Comm_create with one group and with disjoint groups,
 * MPI_Comm_create_group called by a subgroup only (two subgroups at once, the same key twice in a row),
 * MPI_Comm_split_type, MPI_Comm_dup_with_info, MPI_Comm_idup, MPI_Comm_get_parent. Each new communicator
 * is checked for its size, the caller's rank and a message round. */
#include "check.h"

#include <string.h>

/* A ring shift in comm: every member receives its left neighbour's world rank. */
static void check_ring(MPI_Comm comm, MPI_Group world)
{
    int rank, size, left_world = -1, mine, left_rank;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &mine);
    MPI_Sendrecv(&mine, 1, MPI_INT, (rank + 1) % size, 7, &left_world, 1, MPI_INT, (rank + size - 1) % size, 7,
                 comm, MPI_STATUS_IGNORE);
    MPI_Group g;
    MPI_Comm_group(comm, &g);
    left_rank = (rank + size - 1) % size;
    int expected;
    MPI_Group_translate_ranks(g, 1, &left_rank, world, &expected);
    CHECK(left_world == expected);
    MPI_Group_free(&g);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, n, r;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranges[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(world, 1, ranges, &evens);
    MPI_Group_difference(world, evens, &odds);
    int neven = (size + 1) / 2, nodd = size / 2;
    MPI_Comm c;

    /* MPI_Comm_create, one group for all: evens get a communicator, odds MPI_COMM_NULL. */
    MPI_Comm_create(MPI_COMM_WORLD, evens, &c);
    if (rank % 2) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &r);
        CHECK(n == neven && r == rank / 2);
        check_ring(c, world);
        MPI_Comm_free(&c);
        CHECK(c == MPI_COMM_NULL);
    }

    /* Disjoint groups (MPI 2.2): each half gets its own communicator. */
    MPI_Comm_create(MPI_COMM_WORLD, rank % 2 ? odds : evens, &c);
    CHECK(c != MPI_COMM_NULL);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == (rank % 2 ? nodd : neven) && r == rank / 2);
    check_ring(c, world);
    /* ...and MPI_Comm_create on that communicator, with the empty group. */
    MPI_Comm none;
    MPI_Comm_create(c, MPI_GROUP_EMPTY, &none);
    CHECK(none == MPI_COMM_NULL);
    MPI_Comm_free(&c);

    /* MPI_Comm_create_group: only the group's members call; evens and odds at the same time with the same
     * tag (different groups: different meetings), twice in a row (the same key: two meetings). */
    for (int round = 0; round < 2; round++) {
        MPI_Comm_create_group(MPI_COMM_WORLD, rank % 2 ? odds : evens, 5, &c);
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &r);
        CHECK(n == (rank % 2 ? nodd : neven) && r == rank / 2);
        check_ring(c, world);
        MPI_Comm_free(&c);
    }
    /* A reversed group over the whole world, from a subcommunicator's parent. */
    int rev[256];
    for (int i = 0; i < size; i++)
        rev[i] = size - 1 - i;
    MPI_Group reversed;
    MPI_Group_incl(world, size, rev, &reversed);
    MPI_Comm_create_group(MPI_COMM_WORLD, reversed, 9, &c);
    MPI_Comm_rank(c, &r);
    CHECK(r == size - 1 - rank);
    check_ring(c, world);
    MPI_Comm_free(&c);
    /* Only rank 0 in its own group: no one else needs to call. */
    if (rank == 0) {
        int zero = 0;
        MPI_Group solo;
        MPI_Group_incl(world, 1, &zero, &solo);
        MPI_Comm_create_group(MPI_COMM_WORLD, solo, 1, &c);
        MPI_Comm_size(c, &n);
        CHECK(n == 1);
        MPI_Comm_free(&c);
        MPI_Group_free(&solo);
    }
    /* From the group alone (no parent), twice with the same tag, with an error handler. */
    for (int round = 0; round < 2; round++) {
        MPI_Comm_create_from_group(rank % 2 ? odds : evens, "mpcrt comm test", MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                   &c);
        MPI_Comm_size(c, &n);
        MPI_Comm_rank(c, &r);
        CHECK(n == (rank % 2 ? nodd : neven) && r == rank / 2);
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(c, &eh);
        CHECK(eh == MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&eh);
        check_ring(c, world);
        MPI_Comm_free(&c);
    }
    /* A caller outside the group gets MPI_COMM_NULL at once. */
    if (rank % 2) {
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 3, &c);
        CHECK(c == MPI_COMM_NULL);
    }

    /* MPI_Comm_split_type: one process, so MPI_COMM_TYPE_SHARED is everyone; key reverses the order. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size - rank, MPI_INFO_NULL, &c);
    MPI_Comm_size(c, &n);
    MPI_Comm_rank(c, &r);
    CHECK(n == size && r == size - 1 - rank);
    check_ring(c, world);
    MPI_Comm_free(&c);
    MPI_Comm_split_type(MPI_COMM_WORLD, rank == 1 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &c);
    if (rank == 1) {
        CHECK(c == MPI_COMM_NULL);
    } else {
        MPI_Comm_size(c, &n);
        CHECK(n == size - 1);
        MPI_Comm_free(&c);
    }
    /* HW_GUIDED: MPI_COMM_NULL without the key or for a resource mpcrt does not model. */
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, MPI_INFO_NULL, &c);
    CHECK(c == MPI_COMM_NULL);
    MPI_Info hw;
    MPI_Info_create(&hw);
    MPI_Info_set(hw, "mpi_hw_resource_type", "gpu");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c);
    CHECK(c == MPI_COMM_NULL);
    MPI_Info_set(hw, "mpi_hw_resource_type", "mpi_shared_memory");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c);
    MPI_Comm_size(c, &n);
    CHECK(n == size);
    MPI_Comm_free(&c);
    MPI_Info_set(hw, "mpi_hw_resource_type", "core");
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, hw, &c);
    MPI_Comm_size(c, &n);
    CHECK(n >= 1 && n <= size);
    MPI_Comm_free(&c);
    MPI_Info_free(&hw);
    /* HW_UNGUIDED: a strict subset (ranks sharing a core) or MPI_COMM_NULL; the info names the level. */
    MPI_Info_create(&hw);
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_UNGUIDED, 0, hw, &c);
    if (c != MPI_COMM_NULL) {
        char level[MPI_MAX_INFO_VAL + 1];
        int len = sizeof level, has = 0;
        MPI_Comm_size(c, &n);
        MPI_Info_get_string(hw, "mpi_hw_resource_type", &len, level, &has);
        CHECK(n < size && has && level[0]);
        MPI_Comm_free(&c);
    }
    MPI_Info_free(&hw);

    /* Names are local to each rank's handle (MPI 4.0 section 7.8): every rank names MPI_COMM_WORLD (one
     * object for the ranks of a process in thread mode) differently and reads its own name back. */
    char name[MPI_MAX_OBJECT_NAME], got[MPI_MAX_OBJECT_NAME];
    int len = 0;
    MPI_Comm_get_name(MPI_COMM_WORLD, got, &len);
    CHECK(strcmp(got, "MPI_COMM_WORLD") == 0 && len == 14);
    snprintf(name, sizeof name, "world seen by %d", rank);
    MPI_Comm_set_name(MPI_COMM_WORLD, name);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_get_name(MPI_COMM_WORLD, got, &len);
    CHECK(strcmp(got, name) == 0 && len == (int)strlen(name));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Comm_set_name(MPI_COMM_WORLD, "MPI_COMM_WORLD");

    /* Duplicates. */
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c);
    int result;
    MPI_Comm_compare(c, MPI_COMM_WORLD, &result);
    CHECK(result == MPI_CONGRUENT);
    check_ring(c, world);
    MPI_Comm_free(&c);
    /* dup_with_info: the duplicate's hints are the given ones, not the parent's. */
    MPI_Info info, used;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_set_info(MPI_COMM_WORLD, info);
    MPI_Info_free(&info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_exact_length", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Comm_get_info(c, &used);
    char value[MPI_MAX_INFO_VAL + 1];
    int buflen = sizeof value, flag = 0;
    MPI_Info_get_string(used, "mpi_assert_exact_length", &buflen, value, &flag);
    CHECK(flag);
    buflen = sizeof value;
    MPI_Info_get_string(used, "mpi_assert_no_any_tag", &buflen, value, &flag);
    CHECK(!flag);
    MPI_Info_free(&used);
    MPI_Comm_free(&c);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &c);
    MPI_Comm_get_info(c, &used);
    int nkeys = -1;
    MPI_Info_get_nkeys(used, &nkeys);
    CHECK(nkeys == 0);
    MPI_Info_free(&used);
    MPI_Comm_free(&c);
    MPI_Info_free(&info);
    /* Error handlers are inherited by every constructor. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_create_group(MPI_COMM_WORLD, evens, 2, &c);
    if (c != MPI_COMM_NULL) {
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(c, &eh);
        CHECK(eh == MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&eh);
        MPI_Comm_free(&c);
    }
    MPI_Comm_create(MPI_COMM_WORLD, odds, &c);
    if (c != MPI_COMM_NULL) {
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(c, &eh);
        CHECK(eh == MPI_ERRORS_RETURN);
        MPI_Errhandler_free(&eh);
        MPI_Comm_free(&c);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Request req;
    MPI_Status status;
    /* MPI_Comm_idup does not wait for the others: rank 0 begins its own only after every other rank has
     * begun one and completed a synchronous send to it. */
    if (rank == 0) {
        for (int i = 1; i < size; i++)
            MPI_Recv(&n, 1, MPI_INT, i, 21, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &req);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &c, &req);
        MPI_Ssend(&rank, 1, MPI_INT, 0, 21, MPI_COMM_WORLD);
    }
    MPI_Wait(&req, &status);
    CHECK(req == MPI_REQUEST_NULL && status.MPI_ERROR == MPI_SUCCESS);
    MPI_Comm_compare(c, MPI_COMM_WORLD, &result);
    CHECK(result == MPI_CONGRUENT);
    check_ring(c, world);
    /* Two idups in flight on two communicators, begun in opposite orders by even and odd ranks, completed
     * by one MPI_Waitall; the second with info hints. */
    MPI_Comm d1, d2;
    MPI_Request two[2];
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "true");
    if (rank % 2) {
        MPI_Comm_idup(c, &d1, &two[0]);
        MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d2, &two[1]);
    } else {
        MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d2, &two[1]);
        MPI_Comm_idup(c, &d1, &two[0]);
    }
    MPI_Info_free(&info);
    MPI_Status statuses[2];
    MPI_Waitall(2, two, statuses);
    check_ring(d1, world);
    check_ring(d2, world);
    MPI_Comm_get_info(d2, &used);
    buflen = sizeof value;
    MPI_Info_get_string(used, "mpi_assert_allow_overtaking", &buflen, value, &flag);
    CHECK(flag);
    MPI_Info_free(&used);
    MPI_Comm_free(&d1);
    MPI_Comm_free(&d2);
    MPI_Comm_free(&c);

    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    CHECK(parent == MPI_COMM_NULL);

    /* Misuse reports errors, it does not crash or hang: null output arguments (MPI_ERR_ARG), and a
     * communicator this rank freed while the others still hold it (MPI_ERR_COMM), used in a collective. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls;
    MPI_Error_class(MPI_Comm_size(MPI_COMM_WORLD, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Comm_rank(MPI_COMM_WORLD, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Comm_group(MPI_COMM_WORLD, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_SELF, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Comm_test_inter(MPI_COMM_WORLD, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Error_class(MPI_Comm_get_name(MPI_COMM_WORLD, name, NULL), &cls);
    CHECK(cls == MPI_ERR_ARG);
    MPI_Comm dup, copy;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    copy = dup;
    MPI_Comm_free(&copy);
    MPI_Error_class(MPI_Barrier(dup), &cls);
    CHECK(cls == MPI_ERR_COMM);
    MPI_Error_class(MPI_Allreduce(&rank, &n, 1, MPI_INT, MPI_SUM, dup), &cls);
    CHECK(cls == MPI_ERR_COMM);
    /* A grid larger than the communicator fails and leaves MPI_COMM_NULL behind. */
    int dims[2] = {size + 1, 1}, periods[2] = {0, 0};
    c = MPI_COMM_WORLD;
    MPI_Error_class(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &c), &cls);
    CHECK(cls == MPI_ERR_ARG && c == MPI_COMM_NULL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);

    MPI_Group_free(&reversed);
    MPI_Group_free(&odds);
    MPI_Group_free(&evens);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("comm_create: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
