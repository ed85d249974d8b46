/* Private to runtime/mpi/nbc: the schedule object shared by the builder (sched.c), the engine (engine.c)
 * and the algorithms. */
#ifndef MPCRT_MPI_NBC_INTERNAL_H
#define MPCRT_MPI_NBC_INTERNAL_H

#include "nbc.h"

#include <stdatomic.h>

typedef enum { STEP_SEND, STEP_RECV, STEP_COPY, STEP_REDUCE, STEP_ROUND } step_kind_t;

typedef struct {
    step_kind_t kind;
    int peer, tag;
    const void *src; /* send, copy, reduce: what is read */
    void *dst;       /* recv, copy, reduce: what is written */
    MPI_Count scount, dcount;
    mpcrt_datatype_t *sdt, *ddt; /* retained */
} step_t;

struct mpcrt_nbc {
    mpcrt_comm_t *comm;          /* the user's communicator (retained) */
    mpcrt_comm_t *net;           /* where messages go: comm, or an intercommunicator's bridge (retained) */
    int local_base, remote_base; /* intercommunicators: bridge ranks of local and remote rank 0 */
    int as_rank;                 /* the owner's rank in net */
    mpcrt_match_t *as_match;     /* the owner's receive queues */
    mpcrt_ult_t *owner;          /* the rank's ULT: user operations run in its privatized view */
    int owner_vp;
    int tag_base;
    step_t *steps;
    int nsteps, cap;
    void **scratch;
    int nscratch, scratch_cap;
    mpcrt_coll_reduction_t red;
    bool has_red;
    int build_error;
    /* Running state (owned by whoever holds `busy`). */
    _Atomic int busy;
    int pos;
    mpcrt_request_t **pending;
    int npending, pending_cap;
    int error;
    mpcrt_request_t *req; /* the user's request; NULL for a blocking run */
    _Atomic int done;
    struct mpcrt_nbc *next; /* in the engine's active list */
};

#endif
