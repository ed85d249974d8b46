/* Private to runtime/mpi/nbc: the schedule object shared by the builder (sched.c), the engine (engine.c)
 * and the algorithms. */
#ifndef MPCRT_MPI_NBC_INTERNAL_H
#define MPCRT_MPI_NBC_INTERNAL_H

#include "nbc.h"

#include <stdatomic.h>

enum { NBC_SPARE_SCRATCH = 4 };

typedef enum { STEP_SEND, STEP_RECV, STEP_COPY, STEP_REDUCE, STEP_ROUND } step_kind_t;

/* The collective a schedule will be built for by whoever first progresses it (deferred starts, defer.c). */
typedef enum { NBC_BUILT, NBC_DEFERRED_ALLREDUCE, NBC_DEFERRED_ALLTOALL } nbc_deferred_t;

typedef struct {
    step_kind_t kind;
    int peer, tag;
    const void *src; /* send, copy, reduce: what is read */
    void *dst;       /* recv, copy, reduce: what is written */
    MPI_Count scount, dcount;
    mpcrt_datatype_t *sdt, *ddt; /* retained */
} step_t;

/* What a deferred start keeps of its call until its steps are built (defer.c): in its start-ring record,
 * then in its schedule. */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    MPI_Count count;
} nbc_allreduce_args_t;
typedef struct {
    const void *sendbuf; /* or MPI_IN_PLACE */
    void *recvbuf;
    MPI_Count sendcount, recvcount;
    mpcrt_datatype_t *sendtype, *recvtype; /* retained; uniform blocks: no caller's arrays */
} nbc_alltoall_args_t;

struct mpcrt_nbc {
    /* Set by the call (mpcrt_nbc_new, defer.c, start), reset by take(): kept in the first lines, since a
     * schedule the free core finished comes back to the caller's pool with every line it wrote in that
     * core's cache, and the call touches only these. */
    mpcrt_comm_t *comm;          /* the user's communicator (retained) */
    mpcrt_comm_t *net;           /* where messages go: comm, or an intercommunicator's bridge (retained) */
    int local_base, remote_base; /* intercommunicators: bridge ranks of local and remote rank 0 */
    int me;                      /* the owner's rank in comm (its local group's, on an intercommunicator) */
    int as_rank;                 /* the owner's rank in net */
    mpcrt_match_t *as_match;     /* the owner's receive queues */
    mpcrt_priv_view_t view;      /* the caller's privatized globals: user operations run in this view */
    int owner_vp;
    int tag_base;
    mpcrt_coll_reduction_t red;
    bool has_red;
    /* Non-blocking starts: freed by whoever completes the schedule, not by its request (which then holds
     * nothing of it), so the waiting rank only sees the completion. */
    bool freed_on_completion;
    /* A deferred start: the call's arguments (buffers, counts; the datatypes and the operation retained),
     * made into steps by nbc_build_deferred. */
    nbc_deferred_t deferred;
    union {
        nbc_allreduce_args_t allreduce; /* the reduction is s->red */
        nbc_alltoall_args_t alltoall;
    } args;
    int build_error;
    /* Running state, owned by the starter until the schedule is pushed, then by whoever holds the lock of
     * its owner VP's queue (engine.c). */
    int pos;
    int npending;
    int error;
    _Atomic int done;
    mpcrt_request_t *req;   /* the user's request; NULL for a blocking run */
    struct mpcrt_nbc *next; /* in the engine's queues, or in a VP's pool (sched.c) */
    /* Made by the build and kept with the object in a pool (their counts reset when it is given back). */
    int pool_vp; /* the VP whose pool the object goes back to (sched.c); -1: malloc's */
    step_t *steps;
    int nsteps, cap;
    void **scratch;
    int nscratch, scratch_cap;
    mpcrt_request_t **pending;
    int pending_cap;
    /* Small scratch buffers of an earlier schedule, kept while the object sits in a VP's pool. */
    void *spare[NBC_SPARE_SCRATCH];
    int nspare;
};

/* A deferred start recorded in a slot of its VP's start ring (engine.c): what the call fixes. The pass that
 * takes it makes the schedule object from its own VP's pool (nbc_from_record), so the computing rank's call
 * writes no line of an object the free core ran (those came back modified in that core's cache, through a
 * locked exchange of the pool's return stack), and the free core keeps reusing its own objects. */
typedef struct {
    mpcrt_comm_t *comm; /* retained once by the call; the schedule takes it over */
    mpcrt_match_t *as_match;
    mpcrt_request_t *req;
    mpcrt_priv_view_t view;
    int me, as_rank, owner_vp, tag_base;
    nbc_deferred_t deferred;
    int helper; /* the free VP to wake, or -1 (engine.c) */
    union {
        struct {
            nbc_allreduce_args_t call;
            mpcrt_coll_reduction_t red; /* operation and datatype retained */
        } allreduce;
        nbc_alltoall_args_t alltoall;
    } args;
} nbc_record_t;

/* engine.c: the calling VP's next start-ring record for a deferred start of `kind` on comm, with what the
 * call fixes (call number, owner, view; the communicator retained) and the request, active, in *out; the
 * caller fills in the arguments and publishes it. NULL when the start should not stay deferred (across
 * processes without a free core), the caller is no VP or its ring is full (the caller then makes a schedule
 * object, mpcrt_nbc_new), or with *rc = MPI_ERR_NO_MEM. */
nbc_record_t *nbc_record_begin(mpcrt_comm_t *comm, nbc_deferred_t kind, mpcrt_request_t **out, int *rc);
void nbc_record_publish(nbc_record_t *r);
/* sched.c: the fields of mpcrt_nbc_new (call number, owner, view; the communicator retained). */
void nbc_record_init(nbc_record_t *r, mpcrt_comm_t *comm);
/* The schedule of a taken record, from the calling VP's pool; NULL when out of memory. */
mpcrt_nbc_t *nbc_from_record(const nbc_record_t *r);

/* Scratch memory (scratch.c): large buffers are reused across schedules instead of being mapped afresh. */
void *mpcrt_nbc_scratch_alloc(size_t bytes);
void mpcrt_nbc_scratch_release(void *buf);
/* The bytes asked for when buf was allocated, and whether it comes from malloc's bins (below the cache's
 * threshold): sched.c keeps such buffers with a pooled schedule. */
size_t mpcrt_nbc_scratch_size(const void *buf);
bool mpcrt_nbc_scratch_small(const void *buf);

/* Builders for a schedule made by mpcrt_nbc_new (intra.c): they name the owner by s->me, so anyone may run
 * them (a deferred start is built by its progressor). Intracommunicators only. */
void nbc_allreduce_steps(mpcrt_nbc_t *s, const void *sendbuf, void *recvbuf, MPI_Count count);
void nbc_alltoall_steps(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv);

/* Deferred starts (defer.c): makes the steps of a schedule whose call only recorded its arguments (no-op
 * for a built one); a failure is left in build_error. */
void nbc_build_deferred(mpcrt_nbc_t *s);
/* Releases what a deferred start holds for its build (a schedule freed unbuilt, or just built). */
void nbc_drop_deferred(mpcrt_nbc_t *s);

/* ------------------------------------------------------------------ algorithm table (select.c) */

typedef enum { NBC_BCAST, NBC_ALLREDUCE, NBC_ALLGATHER, NBC_ALLTOALL, NBC_NCOLL } nbc_coll_t;
enum { NBC_MAX_ALGS = 4 };
/* Algorithm indices, per collective, in the order of select.c's table. */
enum { NBC_BCAST_BINOMIAL, NBC_BCAST_KNOMIAL };
enum { NBC_ALLREDUCE_REDUCE_BCAST, NBC_ALLREDUCE_RECURSIVE_DOUBLING };
enum { NBC_ALLGATHER_DIRECT, NBC_ALLGATHER_RING };
enum { NBC_ALLTOALL_DIRECT, NBC_ALLTOALL_BRUCK };

/* What the rules look at; equal on every member of the call. */
typedef struct {
    int ranks;
    MPI_Count bytes;  /* bcast, allreduce: the message; allgather: all blocks; alltoall: one block */
    bool commutative; /* allreduce */
    bool uniform;     /* alltoall: not a v or w form */
} nbc_choice_t;

/* The algorithm of one call: the MPCRT_COLL_ALGORITHM override of the collective if it names one that
 * applies, else the rule of select.c. */
int nbc_select(nbc_coll_t coll, const nbc_choice_t *c);

/* The alternative algorithms (intra_alg.c), appended to s for member me of n. */
void nbc_knomial_bcast(mpcrt_nbc_t *s, int n, int me, void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                       int root);
/* Needs s's reduction set; in may be recvbuf. */
void nbc_recdoub_allreduce(mpcrt_nbc_t *s, int n, int me, const void *in, void *recvbuf, MPI_Count count,
                           mpcrt_datatype_t *dt);
void nbc_ring_allgather(mpcrt_nbc_t *s, int n, int me, const void *sendbuf, MPI_Count sendcount,
                        mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv);
/* Uniform blocks only (not the v/w forms). */
void nbc_bruck_alltoall(mpcrt_nbc_t *s, int n, int me, const mpcrt_coll_blocks_t *send,
                        const mpcrt_coll_blocks_t *recv);

#endif
