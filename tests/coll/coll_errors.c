/* Erroneous collective calls return their error class under MPI_ERRORS_RETURN: invalid arguments (checked
 * before the members meet: every member of these cases makes the same mistake, or only members that do
 * not meet the others), and disagreements between members found once they meet (every member finishes the
 * collective, and the communicator works afterwards). With the argument "fatal", one invalid operation
 * under MPI_ERRORS_ARE_FATAL ends the job. */
#include "coll_check.h"

#include <string.h>

#define CHECK_CLASS(call, expected)                                                                          \
    do {                                                                                                     \
        int rc_ = (call), class_ = -1;                                                                       \
        MPI_Error_class(rc_, &class_);                                                                       \
        CHECK(rc_ != MPI_SUCCESS && class_ == (expected), "%s returned %d (class %d), expected %s", #call,   \
              rc_, class_, #expected);                                                                       \
    } while (0)
#define CHECK_OK(call)                                                                                       \
    do {                                                                                                     \
        int rc_ = (call);                                                                                    \
        CHECK(rc_ == MPI_SUCCESS, "%s returned %d", #call, rc_);                                             \
    } while (0)

static void argument_errors(MPI_Comm comm, int me, int n)
{
    int a[8] = {0}, b[8] = {0};
    /* Operations not defined on the type. */
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_BYTE, MPI_MAX, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_MAXLOC, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_C_DOUBLE_COMPLEX, MPI_MAX, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_FLOAT, MPI_BAND, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_DOUBLE_COMPLEX, MPI_LOR, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_WCHAR, MPI_SUM, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_LOGICAL, MPI_SUM, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_OP_NULL, 0, comm), MPI_ERR_OP);
    CHECK_CLASS(MPI_Scan(a, b, 1, MPI_INT, (MPI_Op)0x12345, comm), MPI_ERR_OP);
    MPI_Datatype mixed;
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, 8};
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, bl, disp, types, &mixed);
    MPI_Type_commit(&mixed);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, mixed, MPI_SUM, comm), MPI_ERR_OP);
    MPI_Type_free(&mixed);
    /* Roots, counts, datatypes. */
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_INT, n, comm), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, -1, comm), MPI_ERR_ROOT);
    CHECK_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, comm), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Allreduce(a, b, -2, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, comm), MPI_ERR_TYPE);
    MPI_Datatype uncommitted;
    MPI_Type_contiguous(2, MPI_INT, &uncommitted);
    CHECK_CLASS(MPI_Allgather(a, 1, uncommitted, b, 1, uncommitted, comm), MPI_ERR_TYPE);
    MPI_Type_free(&uncommitted);
    /* Buffers. */
    CHECK_CLASS(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Exscan(a, a, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER); /* rank 0 too */
    CHECK_CLASS(MPI_Alltoall(a, 1, MPI_INT, a, 1, MPI_INT, comm), MPI_ERR_BUFFER);
    int *all = calloc((size_t)n, sizeof(int));
    CHECK_CLASS(MPI_Allgather(&all[me], 1, MPI_INT, all, 1, MPI_INT, comm), MPI_ERR_BUFFER); /* own block */
    free(all);
    CHECK_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Bcast(NULL, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Allreduce(a, MPI_IN_PLACE, 1, MPI_INT, MPI_SUM, comm), MPI_ERR_BUFFER);
    if (me != 0) /* only where it is wrong: rank 0 makes no call, so nobody waits for it */
        CHECK_CLASS(MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, b, 1, MPI_INT, 0, comm), MPI_ERR_BUFFER);
    /* Argument arrays. */
    int counts[64], displs[64];
    for (int q = 0; q < n; q++)
        counts[q] = 1, displs[q] = q;
    CHECK_CLASS(MPI_Allgatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, comm), MPI_ERR_ARG);
    CHECK_CLASS(MPI_Alltoallw(a, counts, displs, NULL, b, counts, displs, NULL, comm), MPI_ERR_ARG);
    counts[n - 1] = -1;
    CHECK_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, comm), MPI_ERR_COUNT);
    CHECK_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_NULL), MPI_ERR_COMM);
}

/* Errors without a communicator: raised on MPI_COMM_SELF. */
static void local_errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {0};
    CHECK_CLASS(MPI_Reduce_local(MPI_IN_PLACE, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(a, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(b, b, 4, MPI_INT, MPI_SUM), MPI_ERR_BUFFER);
    CHECK_CLASS(MPI_Reduce_local(a, b, 4, MPI_DOUBLE, MPI_BXOR), MPI_ERR_OP);
    CHECK_CLASS(MPI_Reduce_local(a, b, -1, MPI_INT, MPI_SUM), MPI_ERR_COUNT);
    MPI_Op op = MPI_SUM;
    CHECK_CLASS(MPI_Op_free(&op), MPI_ERR_OP);
    op = MPI_OP_NULL;
    CHECK_CLASS(MPI_Op_free(&op), MPI_ERR_OP);
    int commute;
    CHECK_CLASS(MPI_Op_commutative(MPI_OP_NULL, &commute), MPI_ERR_OP);
    CHECK_OK(MPI_Reduce_local(a, b, 4, MPI_INT, MPI_SUM));
    CHECK(b[3] == 4, "reduce_local after errors: %d", b[3]);
}

/* Members that disagree: every member completes; each reports what it can see. */
static void disagreements(MPI_Comm comm, int me, int n)
{
    int a[4] = {me + 1, me + 1, me + 1, me + 1}, b[64];
    /* Receivers expecting more than the root sends, then less. */
    int rc = MPI_Bcast(a, me == 0 ? 1 : 2, MPI_INT, 0, comm);
    if (me == 0)
        CHECK(rc == MPI_SUCCESS, "bcast root: %d", rc);
    else
        CHECK_CLASS(rc, MPI_ERR_COUNT);
    rc = MPI_Bcast(a, me == 0 ? 2 : 1, MPI_INT, 0, comm);
    if (me == 0)
        CHECK(rc == MPI_SUCCESS, "bcast root: %d", rc);
    else
        CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
    CHECK(a[0] == 1, "bcast delivered %d", a[0]);
    /* The same through MPI_Ibcast: at least the root's direct children see the short message (the others
     * may receive from a child what it forwards, which has their length). */
    MPI_Request req;
    int ia[4] = {me + 1, me + 1, me + 1, me + 1};
    CHECK_OK(MPI_Ibcast(ia, me == 0 ? 1 : 2, MPI_INT, 0, comm, &req));
    rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (me == 0 || n > 2) {
        int cls;
        MPI_Error_class(rc, &cls);
        CHECK(me != 0 || rc == MPI_SUCCESS, "ibcast root: %d", rc);
        CHECK(cls == MPI_SUCCESS || cls == MPI_ERR_COUNT, "ibcast member: class %d", cls);
    } else {
        CHECK_CLASS(rc, MPI_ERR_COUNT); /* two members: the receiver is the root's child */
    }
    CHECK(ia[0] == 1, "ibcast delivered %d", ia[0]);
    /* A root that receives less room than the members send. */
    rc = MPI_Gather(a, 2, MPI_INT, b, 1, MPI_INT, 0, comm);
    if (me == 0)
        CHECK_CLASS(rc, MPI_ERR_TRUNCATE);
    else
        CHECK(rc == MPI_SUCCESS, "gather sender: %d", rc);
    if (n > 1) {
        /* Different operations, counts, roots: every member sees it. */
        CHECK_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, me == 0 ? MPI_SUM : MPI_PROD, comm), MPI_ERR_OP);
        CHECK_CLASS(MPI_Reduce(a, b, me == 0 ? 2 : 1, MPI_INT, MPI_SUM, 0, comm), MPI_ERR_COUNT);
        /* Members 0 and 1 both take themselves for the root. A meeting tells every member whose root
         * differs from member 0's; with few members (no meeting, coll/bcast_ring.c) both roots publish
         * without waiting, and at least one of them sees the other. Either way somebody is told, and
         * nobody gets another error. */
        rc = MPI_Bcast(a, 1, MPI_INT, me == 0 ? 0 : 1, comm);
        int cls = -1, told = 0;
        MPI_Error_class(rc, &cls);
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ROOT, "bcast with roots 0 and 1: class %d", cls);
        if (n > 4)
            CHECK(me == 0 ? rc == MPI_SUCCESS : cls == MPI_ERR_ROOT, "bcast with roots 0 and 1: class %d", cls);
        int mine = rc != MPI_SUCCESS;
        CHECK_OK(MPI_Allreduce(&mine, &told, 1, MPI_INT, MPI_MAX, comm));
        CHECK(told == 1, "no member was told of the two roots");
        /* Nobody takes itself for the root (each names the next member): told, not left waiting. */
        rc = MPI_Bcast(a, 1, MPI_INT, (me + 1) % n, comm);
        MPI_Error_class(rc, &cls);
        CHECK(rc == MPI_SUCCESS || cls == MPI_ERR_ROOT, "bcast with no root: class %d", cls);
        mine = rc != MPI_SUCCESS;
        CHECK_OK(MPI_Allreduce(&mine, &told, 1, MPI_INT, MPI_MAX, comm));
        CHECK(told == 1, "no member was told that nobody is the root");
        /* Different collectives: reported, not a crash. */
        if (me == 0)
            rc = MPI_Allgather(a, 1, MPI_INT, b, 1, MPI_INT, comm);
        else
            rc = MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, comm);
        CHECK_CLASS(rc, MPI_ERR_OTHER);
        int c[64] = {0};
        if (me == n - 1)
            rc = MPI_Exscan(a, b, 1, MPI_INT, MPI_SUM, comm);
        else
            rc = MPI_Alltoall(c, 1, MPI_INT, b, 1, MPI_INT, comm);
        CHECK_CLASS(rc, MPI_ERR_OTHER);
    }
    /* The communicator still works. */
    int one = 1, sum = 0;
    CHECK_OK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm));
    CHECK(sum == n, "allreduce after errors: %d", sum);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    if (argc > 1 && strcmp(argv[1], "fatal") == 0) {
        int a = 0, b;
        MPI_Allreduce(&a, &b, 1, MPI_BYTE, MPI_MAX, MPI_COMM_WORLD);
        return check_finish();
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    argument_errors(MPI_COMM_WORLD, check_rank, check_size);
    local_errors();
    disagreements(MPI_COMM_WORLD, check_rank, check_size);
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup); /* inherits MPI_ERRORS_RETURN */
    disagreements(dup, check_rank, check_size);
    MPI_Comm_free(&dup);
    return check_finish();
}
