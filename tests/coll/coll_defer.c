/* Deferred starts of MPI_Iallreduce and MPI_Ialltoall (runtime/mpi/nbc/defer.c: the call records its
 * arguments, whoever progresses first builds the schedule): many calls outstanding at once on several
 * communicators, completed in another order than they were started (a different order on each rank), with
 * the communicator and a derived datatype freed right after the calls; every value checked. Also: argument
 * errors are still returned by the call itself, and a failed call does not shift the calls after it (the
 * call number that orders them is taken at call time), and a user operation runs in its caller's view of
 * the privatized globals whoever runs it; more calls outstanding than a VP's start ring holds; requests
 * freed while their schedules run. Run with MPCRT_VPS=1 (nobody free: built in the waits) and with 2 VPs. */
#include "coll_check.h"

#include <string.h>

enum { CALLS = 24, MAX_COUNT = 3000 };

/* Privatized (the test is built with -fmpc-privatize): each rank's own datatype handle. A user operation
 * runs in its caller's view of these globals whoever runs it, so the handle it is given must be the one
 * of that view. */
static MPI_Datatype my_int;
static long wrong_view;

static void checked_sum(void *in, void *inout, int *len, MPI_Datatype *type)
{
    if (*type != my_int)
        wrong_view++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((const int *)in)[i];
}

typedef enum {
    ALLREDUCE,
    ALLREDUCE_IN_PLACE,
    ALLREDUCE_MAX,
    ALLTOALL,
    ALLTOALL_IN_PLACE,
    ALLTOALL_VECTOR,
    ALLREDUCE_USER_OP, /* a commutative user operation on each rank's own datatype handle */
    KINDS
} kind_t;

static MPI_Op user_sum;

static int is_alltoall(kind_t kind)
{
    return kind == ALLTOALL || kind == ALLTOALL_IN_PLACE || kind == ALLTOALL_VECTOR;
}

typedef struct {
    kind_t kind;
    MPI_Comm comm; /* the world, its duplicate (freed after the calls), a split, a reversed split */
    int count;     /* allreduce: elements; alltoall: elements per block */
    int seed;
    int *send, *recv;
    MPI_Request req;
} call_t;

static int value(int rank, int i, int seed)
{
    return (rank + 1) * 7 + i * 3 + seed;
}

/* The block sent from rank `from` to rank `to`, element x. */
static int block_value(int from, int to, int x, int seed)
{
    return from * 100000 + to * 1000 + x % 1000 + seed;
}

static void start(call_t *c, MPI_Datatype one_of_two)
{
    int n, me;
    MPI_Comm_size(c->comm, &n);
    MPI_Comm_rank(c->comm, &me);
    int rc = MPI_SUCCESS;
    switch (c->kind) {
    case ALLREDUCE:
    case ALLREDUCE_MAX:
        for (int i = 0; i < c->count; i++)
            c->send[i] = value(me, i, c->seed);
        rc = MPI_Iallreduce(c->send, c->recv, c->count, MPI_INT, c->kind == ALLREDUCE ? MPI_SUM : MPI_MAX,
                            c->comm, &c->req);
        break;
    case ALLREDUCE_USER_OP:
        for (int i = 0; i < c->count; i++)
            c->send[i] = value(me, i, c->seed);
        rc = MPI_Iallreduce(c->send, c->recv, c->count, my_int, user_sum, c->comm, &c->req);
        break;
    case ALLREDUCE_IN_PLACE:
        for (int i = 0; i < c->count; i++)
            c->recv[i] = value(me, i, c->seed);
        rc = MPI_Iallreduce(MPI_IN_PLACE, c->recv, c->count, MPI_INT, MPI_SUM, c->comm, &c->req);
        break;
    case ALLTOALL:
        for (int j = 0; j < n; j++)
            for (int x = 0; x < c->count; x++)
                c->send[j * c->count + x] = block_value(me, j, x, c->seed);
        rc = MPI_Ialltoall(c->send, c->count, MPI_INT, c->recv, c->count, MPI_INT, c->comm, &c->req);
        break;
    case ALLTOALL_IN_PLACE:
        for (int j = 0; j < n; j++)
            for (int x = 0; x < c->count; x++)
                c->recv[j * c->count + x] = block_value(me, j, x, c->seed);
        rc = MPI_Ialltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, c->recv, c->count, MPI_INT, c->comm, &c->req);
        break;
    case ALLTOALL_VECTOR:
        /* Sends every other int of a strided buffer, receives contiguous ints: the derived type is freed by
         * the caller right after this call, before the schedule is even built. */
        for (int j = 0; j < n; j++)
            for (int x = 0; x < c->count; x++) {
                c->send[2 * (j * c->count + x)] = block_value(me, j, x, c->seed);
                c->send[2 * (j * c->count + x) + 1] = -1;
            }
        rc = MPI_Ialltoall(c->send, c->count, one_of_two, c->recv, c->count, MPI_INT, c->comm, &c->req);
        break;
    }
    CHECK(rc == MPI_SUCCESS, "call kind %d returned %d", (int)c->kind, rc);
}

static void verify(const call_t *c, int n, int me)
{
    int bad = 0, first = -1;
    switch (c->kind) {
    case ALLREDUCE:
    case ALLREDUCE_IN_PLACE:
    case ALLREDUCE_MAX:
    case ALLREDUCE_USER_OP:
        for (int i = 0; i < c->count; i++) {
            int want = 0;
            for (int r = 0; r < n; r++)
                want = c->kind == ALLREDUCE_MAX ? value(n - 1, i, c->seed) : want + value(r, i, c->seed);
            if (c->recv[i] != want && !bad++)
                first = i;
        }
        break;
    default:
        for (int j = 0; j < n; j++)
            for (int x = 0; x < c->count; x++)
                if (c->recv[j * c->count + x] != block_value(j, me, x, c->seed) && !bad++)
                    first = j * c->count + x;
        break;
    }
    CHECK(!bad, "call kind %d on %d ranks (count %d, seed %d): %d wrong values, first at %d", (int)c->kind, n,
          c->count, c->seed, bad, first);
}

/* A call that must fail, with the class it must return: MPI_Iallreduce uses send, scount (its count),
 * stype (its type), recv, op, comm and req; MPI_Ialltoall every field but op. */
typedef struct {
    const void *send;
    int scount;
    MPI_Datatype stype;
    void *recv;
    int rcount;
    MPI_Datatype rtype;
    MPI_Op op;
    MPI_Comm comm;
    MPI_Request *req;
    int cls;
    const char *what;
} bad_call_t;

/* Argument errors come back from the call itself, before anything is deferred, and the calls that failed
 * take no call number: the next collective on the communicator still matches the other ranks' next. */
static void argument_errors(MPI_Comm comm)
{
    int n, me;
    MPI_Comm_size(comm, &n);
    MPI_Comm_rank(comm, &me);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* where MPI_COMM_NULL's error goes */
    int in[4] = {1, 2, 3, 4}, out[4 * 64];
    MPI_Request req = MPI_REQUEST_NULL;
    /* The errors of MPI_Iallreduce, among them what its inline path leaves to the general one. */
    double din[4] = {0}, dout[4];
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair); /* not committed */
    bad_call_t bad_reductions[] = {
        {in, -1, MPI_INT, out, -1, MPI_INT, MPI_SUM, comm, &req, MPI_ERR_COUNT, "negative count"},
        {in, 4, MPI_INT, out, 4, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_OP, "MPI_OP_NULL"},
        {in, 4, MPI_DATATYPE_NULL, out, 4, MPI_DATATYPE_NULL, MPI_SUM, comm, &req, MPI_ERR_TYPE,
         "MPI_DATATYPE_NULL"},
        {in, 4, MPI_INT, out, 4, MPI_INT, MPI_SUM, comm, NULL, MPI_ERR_REQUEST, "null request pointer"},
        {in, 4, MPI_INT, in, 4, MPI_INT, MPI_SUM, comm, &req, MPI_ERR_BUFFER, "aliased buffers"},
        {din, 4, MPI_DOUBLE, dout, 4, MPI_DOUBLE, MPI_BAND, comm, &req, MPI_ERR_OP, "MPI_BAND on MPI_DOUBLE"},
        {in, 4, MPI_INT, MPI_IN_PLACE, 4, MPI_INT, MPI_SUM, comm, &req, MPI_ERR_BUFFER,
         "MPI_IN_PLACE receive buffer"},
        {in, 4, MPI_INT, NULL, 4, MPI_INT, MPI_SUM, comm, &req, MPI_ERR_BUFFER, "NULL receive buffer"},
        {in, 2, pair, out, 2, pair, MPI_SUM, comm, &req, MPI_ERR_TYPE, "uncommitted type"},
    };
    int rc, cls = -1;
    for (size_t i = 0; i < sizeof bad_reductions / sizeof bad_reductions[0]; i++) {
        rc = MPI_Iallreduce(bad_reductions[i].send, bad_reductions[i].recv, bad_reductions[i].scount,
                            bad_reductions[i].stype, bad_reductions[i].op, bad_reductions[i].comm,
                            bad_reductions[i].req);
        MPI_Error_class(rc, &cls);
        CHECK(cls == bad_reductions[i].cls, "%s: class %d, expected %d", bad_reductions[i].what, cls,
              bad_reductions[i].cls);
    }
    /* The same for MPI_Ialltoall. */
    bad_call_t bad_exchanges[] = {
        {in, -1, MPI_INT, out, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_COUNT, "negative send count"},
        {in, 1, MPI_INT, out, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_NULL, &req, MPI_ERR_COMM, "MPI_COMM_NULL"},
        {in, 1, MPI_INT, out, 1, MPI_INT, MPI_OP_NULL, comm, NULL, MPI_ERR_REQUEST, "null request pointer"},
        {out, 1, MPI_INT, out, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_BUFFER, "aliased buffers"},
        {in, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_BUFFER,
         "MPI_IN_PLACE receive buffer"},
        {NULL, 1, MPI_INT, out, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_BUFFER, "NULL send buffer"},
        {in, 1, MPI_INT, NULL, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_BUFFER, "NULL receive buffer"},
        {in, 1, MPI_DATATYPE_NULL, out, 1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_TYPE,
         "MPI_DATATYPE_NULL send type"},
        {in, 1, MPI_INT, out, 1, pair, MPI_OP_NULL, comm, &req, MPI_ERR_TYPE, "uncommitted receive type"},
        {in, 1, MPI_INT, out, -1, MPI_INT, MPI_OP_NULL, comm, &req, MPI_ERR_COUNT, "negative receive count"},
    };
    for (size_t i = 0; i < sizeof bad_exchanges / sizeof bad_exchanges[0]; i++) {
        rc = MPI_Ialltoall(bad_exchanges[i].send, bad_exchanges[i].scount, bad_exchanges[i].stype,
                           bad_exchanges[i].recv, bad_exchanges[i].rcount, bad_exchanges[i].rtype,
                           bad_exchanges[i].comm, bad_exchanges[i].req);
        MPI_Error_class(rc, &cls);
        CHECK(cls == bad_exchanges[i].cls, "alltoall %s: class %d, expected %d", bad_exchanges[i].what, cls,
              bad_exchanges[i].cls);
    }
    MPI_Type_free(&pair);
    CHECK(req == MPI_REQUEST_NULL, "a failed call left a request");
    /* Zero bytes need no buffers: a valid call every rank makes. */
    rc = MPI_Ialltoall(NULL, 0, MPI_INT, NULL, 0, MPI_INT, comm, &req);
    CHECK(rc == MPI_SUCCESS && req != MPI_REQUEST_NULL, "empty alltoall with NULL buffers: %d", rc);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    /* Rank 0 alone makes one more failing call: the calls after it must still pair up. */
    if (me == 0) {
        rc = MPI_Iallreduce(in, out, 4, MPI_INT, MPI_OP_NULL, comm, &req);
        CHECK(rc != MPI_SUCCESS, "MPI_OP_NULL accepted");
    }
    int mine = me + 1, sum = 0;
    rc = MPI_Iallreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, comm, &req);
    CHECK(rc == MPI_SUCCESS, "valid call after errors returned %d", rc);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(sum == n * (n + 1) / 2, "sum after failed calls: %d", sum);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size;
    MPI_Comm dup, split, reversed;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &split);
    MPI_Comm_split(MPI_COMM_WORLD, 0, n - me, &reversed);
    MPI_Comm comms[4] = {MPI_COMM_WORLD, dup, split, reversed};
    MPI_Type_dup(MPI_INT, &my_int);
    MPI_Op_create(checked_sum, 1, &user_sum);
    static const int counts[] = {1, 5, 1024, MAX_COUNT};
    for (int round = 0; round < 3; round++) {
        call_t calls[CALLS];
        MPI_Datatype one_of_two; /* an int, then a gap of one: every other int */
        MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &one_of_two);
        MPI_Type_commit(&one_of_two);
        for (int k = 0; k < CALLS; k++) {
            call_t *c = &calls[k];
            c->kind = (kind_t)((k + round) % KINDS);
            c->comm = comms[(k / 2 + round) % 4];
            c->count = counts[(k + 2 * round) % 4];
            if (is_alltoall(c->kind) && c->count > 600)
                c->count /= 5; /* blocks: count per peer */
            c->seed = 1000 * round + k;
            size_t elems = (size_t)c->count * (size_t)(is_alltoall(c->kind) ? n : 1);
            c->send = malloc(2 * elems * sizeof(int) + sizeof(int));
            c->recv = malloc(elems * sizeof(int) + sizeof(int));
            start(c, one_of_two);
        }
        /* The user may free what the pending calls use. */
        MPI_Type_free(&one_of_two);
        /* Complete in an order of this rank's own: the others complete theirs in other orders. */
        if (round == 0) {
            for (int k = CALLS - 1; k >= 0; k--)
                MPI_Wait(&calls[k].req, MPI_STATUS_IGNORE);
        } else if (round == 1) {
            for (int step = 0; step < CALLS; step++) {
                int k = (step * 7 + me * 5) % CALLS; /* 7 is prime to CALLS: a permutation */
                int done = 0;
                while (!done)
                    MPI_Test(&calls[k].req, &done, MPI_STATUS_IGNORE);
            }
        } else {
            MPI_Request all[CALLS];
            for (int k = 0; k < CALLS; k++)
                all[k] = calls[k].req;
            int left = CALLS;
            while (left > 0) {
                int idx;
                MPI_Waitany(CALLS, all, &idx, MPI_STATUS_IGNORE);
                left--;
            }
        }
        for (int k = 0; k < CALLS; k++) {
            int cn, cme;
            MPI_Comm_size(calls[k].comm, &cn);
            MPI_Comm_rank(calls[k].comm, &cme);
            verify(&calls[k], cn, cme);
            free(calls[k].send);
            free(calls[k].recv);
        }
        if (round == 1) {
            /* Calls outstanding on a communicator the user already freed. */
            MPI_Comm gone;
            MPI_Comm_dup(MPI_COMM_WORLD, &gone);
            int mine[64], sum[64];
            for (int i = 0; i < 64; i++)
                mine[i] = value(me, i, 77);
            MPI_Request req;
            MPI_Iallreduce(mine, sum, 64, MPI_INT, MPI_SUM, gone, &req);
            MPI_Comm_free(&gone);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            int bad = 0;
            for (int i = 0; i < 64; i++) {
                int want = 0;
                for (int r = 0; r < n; r++)
                    want += value(r, i, 77);
                bad += sum[i] != want;
            }
            CHECK(!bad, "allreduce on a freed communicator: %d wrong", bad);
        }
    }
    /* More calls outstanding than a VP's start ring holds (engine.c, RING): the rest go to the queue's stack,
     * and all complete, in reverse order. With MPCRT_VPS=1 every rank's calls go to one VP's queue. */
    enum { MANY = 200 };
    int *many_in = malloc(MANY * sizeof(int)), *many_out = malloc(MANY * sizeof(int));
    MPI_Request many[MANY];
    for (int k = 0; k < MANY; k++) {
        many_in[k] = value(me, k, 5);
        MPI_Iallreduce(&many_in[k], &many_out[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &many[k]);
    }
    for (int k = MANY - 1; k >= 0; k--)
        MPI_Wait(&many[k], MPI_STATUS_IGNORE);
    int many_bad = 0;
    for (int k = 0; k < MANY; k++) {
        int want = 0;
        for (int r = 0; r < n; r++)
            want += value(r, k, 5);
        many_bad += many_out[k] != want;
    }
    CHECK(!many_bad, "%d of %d outstanding allreduces wrong", many_bad, (int)MANY);
    free(many_in);
    free(many_out);
    /* MPI_Request_free while the schedules run (on the free core, or in the waits below): each request lives
     * on as an orphan until its completion writes into it, and later frees reap it (the engine holds no
     * reference of its own; an ASan build sees a use after free). A persistent request freed while active
     * takes its schedule with it once done. The buffers stay alive to the end: nothing tells when the
     * operations finished. */
    {
        enum { FREED = 96 };
        static int freed_in[FREED], freed_out[FREED], freed_send[FREED], freed_a2a[FREED * 64], persist_in,
            persist_out;
        MPI_Request persist;
        MPI_Allreduce_init(&persist_in, &persist_out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &persist);
        persist_in = me;
        for (int k = 0; k < FREED; k++)
            freed_send[k] = value(me, k, 11);
        for (int k = 0; k < FREED; k++) {
            MPI_Request r;
            freed_in[k] = value(me, k, 9);
            if (k % 3 == 2)
                MPI_Ialltoall(freed_send, 1, MPI_INT, &freed_a2a[(k % 64) * n], 1, MPI_INT, MPI_COMM_WORLD,
                              &r);
            else
                MPI_Iallreduce(&freed_in[k], &freed_out[k], 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
            MPI_Request_free(&r);
            if (k == FREED / 2) {
                MPI_Start(&persist);
                MPI_Request_free(&persist);
            }
        }
        int one = 1, all = 0;
        MPI_Allreduce(&one, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        CHECK(all == n, "allreduce after freed requests: %d", all);
    }
    CHECK(wrong_view == 0, "a user operation ran %ld times in another rank's view", wrong_view);
    MPI_Op_free(&user_sum);
    MPI_Type_free(&my_int);
    argument_errors(dup);
    argument_errors(MPI_COMM_WORLD);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&split);
    MPI_Comm_free(&reversed);
    return check_finish();
}
