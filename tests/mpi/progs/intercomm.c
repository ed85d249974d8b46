/* Intercommunicators (MPI 4.0 section 7.6): MPI_Intercomm_create between the even and the odd ranks of the
 * world (leaders other than rank 0, a duplicated peer), remote queries, point-to-point in both directions
 * (dest and source are ranks of the remote group), MPI_Intercomm_merge orders for every high/low choice,
 * and dup, compare, create and split of an intercommunicator. */
#include "check.h"

#include <stdlib.h>

/* Every member of one side sends a distinct value to every member of the other, then the reverse; each
 * receive names its source (a remote rank), the last round uses MPI_ANY_SOURCE. */
static void check_pt2pt(MPI_Comm inter, int side)
{
    int rank, local, remote, tag = 11;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &local);
    MPI_Comm_remote_size(inter, &remote);
    for (int dir = 0; dir < 2; dir++) {
        if (side == dir) {
            for (int d = 0; d < remote; d++) {
                int value = 1000 * rank + d;
                MPI_Send(&value, 1, MPI_INT, d, tag, inter);
            }
        } else {
            for (int s = 0; s < remote; s++) {
                int value = -1;
                MPI_Status st;
                MPI_Recv(&value, 1, MPI_INT, s, tag, inter, &st);
                CHECK(value == 1000 * s + rank);
                CHECK(st.MPI_SOURCE == s && st.MPI_TAG == tag);
            }
        }
    }
    /* Any source: side 0 sends to remote rank 0 only; remote rank 0 counts what arrives. */
    if (side == 0) {
        MPI_Send(&rank, 1, MPI_INT, 0, tag + 1, inter);
    } else if (rank == 0) {
        int seen = 0;
        for (int i = 0; i < remote; i++) {
            int value;
            MPI_Status st;
            MPI_Recv(&value, 1, MPI_INT, MPI_ANY_SOURCE, tag + 1, inter, &st);
            CHECK(value == st.MPI_SOURCE && value >= 0 && value < remote);
            seen |= 1 << value;
        }
        CHECK(seen == (1 << remote) - 1);
    }
    (void)local;
}

/* The world ranks of a communicator's (local) group, in order. */
static void world_members(MPI_Comm comm, bool remote_group, int *out, int *n)
{
    MPI_Group g, world;
    if (remote_group)
        MPI_Comm_remote_group(comm, &g);
    else
        MPI_Comm_group(comm, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(g, n);
    int ranks[256];
    for (int i = 0; i < *n; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(g, *n, ranks, world, out);
    MPI_Group_free(&g);
    MPI_Group_free(&world);
}

static void check_merge(MPI_Comm inter, int side, int high_even, int high_odd, int world_rank, int size)
{
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, side == 0 ? high_even : high_odd, &merged);
    int n, r, flag, members[256];
    MPI_Comm_size(merged, &n);
    MPI_Comm_rank(merged, &r);
    MPI_Comm_test_inter(merged, &flag);
    CHECK(n == size && !flag);
    world_members(merged, false, members, &n);
    int neven = (size + 1) / 2, nodd = size / 2;
    bool odds_first = high_even && !high_odd;
    /* Equal choices: either order, the same for everyone (the ring below checks that all agree). */
    if (high_even == high_odd)
        odds_first = members[0] % 2 == 1;
    for (int i = 0; i < n; i++) {
        int expected;
        if (odds_first)
            expected = i < nodd ? 2 * i + 1 : 2 * (i - nodd);
        else
            expected = i < neven ? 2 * i : 2 * (i - neven) + 1;
        CHECK(members[i] == expected);
    }
    CHECK(members[r] == world_rank);
    /* The merged communicator works: a message to the next rank. */
    int got = -1;
    MPI_Sendrecv(&world_rank, 1, MPI_INT, (r + 1) % n, 3, &got, 1, MPI_INT, (r + n - 1) % n, 3, merged,
                 MPI_STATUS_IGNORE);
    CHECK(got == members[(r + n - 1) % n]);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size >= 2);
    int side = rank % 2, neven = (size + 1) / 2, nodd = size / 2;
    MPI_Comm local, peer, inter;
    MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local);
    MPI_Comm_dup(MPI_COMM_WORLD, &peer);
    if (side == 1) /* the odds' side of the intercommunicator inherits it, the evens' does not */
        MPI_Comm_set_errhandler(local, MPI_ERRORS_RETURN);
    /* Leaders: the last even rank and world rank 1 (local rank 0 of the odds). */
    int last_even = 2 * (neven - 1);
    int local_leader = side == 0 ? neven - 1 : 0, remote_leader = side == 0 ? 1 : last_even;
    MPI_Intercomm_create(local, local_leader, peer, remote_leader, 42, &inter);

    int flag, n, r, remote_n, members[256];
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_size(inter, &n);
    MPI_Comm_rank(inter, &r);
    MPI_Comm_remote_size(inter, &remote_n);
    CHECK(flag && n == (side ? nodd : neven) && r == rank / 2 && remote_n == (side ? neven : nodd));
    world_members(inter, true, members, &remote_n);
    for (int i = 0; i < remote_n; i++)
        CHECK(members[i] == 2 * i + (1 - side));
    world_members(inter, false, members, &n);
    for (int i = 0; i < n; i++)
        CHECK(members[i] == 2 * i + side);

    MPI_Errhandler eh;
    MPI_Comm_get_errhandler(inter, &eh);
    CHECK(eh == (side ? MPI_ERRORS_RETURN : MPI_ERRORS_ARE_FATAL));
    MPI_Errhandler_free(&eh);

    check_pt2pt(inter, side);

    /* The barrier of an intercommunicator waits for both groups: the odds leave only after every even
     * rank has entered (each even rank sends a message before entering; it must be there after it). */
    MPI_Request sent = MPI_REQUEST_NULL;
    if (side == 0 && nodd > 0)
        MPI_Isend(&rank, 1, MPI_INT, 0, 99, inter, &sent);
    MPI_Barrier(inter);
    if (side == 1 && r == 0) {
        for (int i = 0; i < neven; i++) {
            int flag2 = 0;
            MPI_Iprobe(i, 99, inter, &flag2, MPI_STATUS_IGNORE);
            CHECK(flag2);
            int v;
            MPI_Recv(&v, 1, MPI_INT, i, 99, inter, MPI_STATUS_IGNORE);
            CHECK(v == 2 * i);
        }
    }
    MPI_Wait(&sent, MPI_STATUS_IGNORE);

    check_merge(inter, side, 0, 1, rank, size); /* evens low: evens first */
    check_merge(inter, side, 1, 0, rank, size); /* evens high: odds first */
    check_merge(inter, side, 0, 0, rank, size);
    check_merge(inter, side, 1, 1, rank, size);

    /* dup: a congruent intercommunicator with its own context (messages do not cross). */
    MPI_Comm dup;
    MPI_Comm_dup(inter, &dup);
    int result;
    MPI_Comm_compare(inter, dup, &result);
    CHECK(result == MPI_CONGRUENT);
    MPI_Comm_compare(inter, MPI_COMM_WORLD, &result);
    CHECK(result == MPI_UNEQUAL);
    if (side == 0 && r == 0) {
        int a = 1, b = 2;
        MPI_Send(&a, 1, MPI_INT, 0, 0, inter);
        MPI_Send(&b, 1, MPI_INT, 0, 0, dup);
    } else if (side == 1 && r == 0) {
        int got = 0;
        MPI_Recv(&got, 1, MPI_INT, 0, 0, dup, MPI_STATUS_IGNORE);
        CHECK(got == 2);
        MPI_Recv(&got, 1, MPI_INT, 0, 0, inter, MPI_STATUS_IGNORE);
        CHECK(got == 1);
    }
    check_pt2pt(dup, side);
    MPI_Comm_free(&dup);

    /* idup of the intercommunicator: both groups take part, nobody waits in the call (remote rank 0 of
     * each side begins only after the other side's members have). */
    MPI_Request req;
    if (r == 0) {
        for (int i = 1; i < remote_n; i++)
            MPI_Recv(&flag, 1, MPI_INT, i, 5, inter, MPI_STATUS_IGNORE);
        MPI_Comm_idup(inter, &dup, &req);
    } else {
        MPI_Comm_idup(inter, &dup, &req);
        MPI_Ssend(&r, 1, MPI_INT, 0, 5, inter);
    }
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Comm_test_inter(dup, &flag);
    MPI_Comm_compare(inter, dup, &result);
    CHECK(flag && result == MPI_CONGRUENT);
    check_pt2pt(dup, side);
    MPI_Comm_free(&dup);

    /* create: each side keeps its first ceil(half) members. */
    MPI_Group lg, sub;
    MPI_Comm_group(inter, &lg);
    int keep[1][3] = {{0, (n - 1) / 2, 1}};
    MPI_Group_range_incl(lg, 1, keep, &sub);
    MPI_Comm created;
    MPI_Comm_create(inter, sub, &created);
    int remote_keep = (remote_n - 1) / 2 + 1;
    if (r <= (n - 1) / 2) {
        int cn, crn;
        CHECK(created != MPI_COMM_NULL);
        MPI_Comm_size(created, &cn);
        MPI_Comm_remote_size(created, &crn);
        CHECK(cn == (n - 1) / 2 + 1 && crn == remote_keep);
        check_pt2pt(created, side);
        MPI_Comm_free(&created);
    } else {
        CHECK(created == MPI_COMM_NULL);
    }
    MPI_Group_free(&sub);
    MPI_Group_free(&lg);

    /* split: by local rank parity, key reverses; a color with one side only gets MPI_COMM_NULL. */
    MPI_Comm split;
    MPI_Comm_split(inter, r % 2, -r, &split);
    int local_same = (n - r % 2 + 1) / 2, remote_same = (remote_n - r % 2 + 1) / 2;
    if (remote_same == 0) {
        CHECK(split == MPI_COMM_NULL);
    } else {
        int sn, sr, srn;
        MPI_Comm_size(split, &sn);
        MPI_Comm_rank(split, &sr);
        MPI_Comm_remote_size(split, &srn);
        CHECK(sn == local_same && srn == remote_same && sr == local_same - 1 - r / 2);
        check_pt2pt(split, side);
        MPI_Comm_free(&split);
    }

    /* From groups alone: the evens and the odds, each side naming its own group first, leaders chosen
     * differently from MPI_Intercomm_create's. */
    MPI_Group wg, evens, odds;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int all_evens[1][3] = {{0, size - 1, 2}};
    MPI_Group_range_incl(wg, 1, all_evens, &evens);
    MPI_Group_difference(wg, evens, &odds);
    MPI_Comm fg;
    MPI_Intercomm_create_from_groups(side ? odds : evens, 0, side ? evens : odds, side ? neven - 1 : 0,
                                     "mpcrt intercomm test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &fg);
    MPI_Comm_test_inter(fg, &flag);
    MPI_Comm_size(fg, &n);
    MPI_Comm_rank(fg, &r);
    MPI_Comm_remote_size(fg, &remote_n);
    CHECK(flag && n == (side ? nodd : neven) && r == rank / 2 && remote_n == (side ? neven : nodd));
    MPI_Comm_get_errhandler(fg, &eh);
    CHECK(eh == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
    check_pt2pt(fg, side);
    check_merge(fg, side, 1, 0, rank, size);
    MPI_Comm_free(&fg);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&wg);

    MPI_Comm_free(&inter);
    MPI_Comm_free(&peer);
    MPI_Comm_free(&local);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("intercomm: %d ranks ok\n", size);
    MPI_Finalize();
    return 0;
}
