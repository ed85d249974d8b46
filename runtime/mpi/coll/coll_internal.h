/* Private interface between the files of runtime/mpi/coll: views of user buffers as packed streams, the
 * copy and combine engines every collective is written with, and the API layer's argument checks. */
#ifndef MPCRT_MPI_COLL_INTERNAL_H
#define MPCRT_MPI_COLL_INTERNAL_H

#include "coll.h"

#include <stddef.h>
#include <stdint.h>

/* buf + off on integers: MPI_BOTTOM (NULL) plus absolute displacements is valid MPI. */
static inline void *coll_at(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* `count` instances of dt at buf (instance k at buf + k * extent), seen as their packed stream of
 * count * size bytes. A rank's view of its buffer is read by its peers during a collective. */
typedef struct {
    void *buf;
    mpcrt_datatype_t *dt;
    MPI_Count count;
} coll_view_t;

static inline MPI_Count coll_view_bytes(const coll_view_t *v)
{
    return v->count * v->dt->size;
}

/* A view of `bytes` bytes of packed data (temporary buffers). */
static inline coll_view_t coll_packed_view(void *buf, MPI_Count bytes)
{
    return (coll_view_t){buf, mpcrt_datatype_get(MPI_BYTE), bytes};
}

/* Copies bytes [src_first, src_first + len) of src's stream to bytes [dst_first, dst_first + len) of dst's
 * (pack and unpack through a small bounce buffer, or directly when one side is contiguous). */
void coll_copy_range(const coll_view_t *src, MPI_Count src_first, const coll_view_t *dst, MPI_Count dst_first,
                     MPI_Count len);
/* Moves one message: src's whole stream into dst. MPI_SUCCESS when the sizes match; MPI_ERR_TRUNCATE
 * (dst receives what fits) when src holds more, MPI_ERR_COUNT when it holds less (collectives require equal
 * amounts, MPI 4.0 section 6.1). */
int coll_copy(const coll_view_t *src, const coll_view_t *dst);

/* Block i of a v/w buffer description. */
coll_view_t coll_block(const mpcrt_coll_blocks_t *b, int i);
MPI_Count coll_block_count(const mpcrt_coll_blocks_t *b, int i);

/* Instances [first, first + n) of a range of `total` shared out among `parts` members (member `index`). */
void coll_share(MPI_Count total, int parts, int index, MPI_Count *first, MPI_Count *n);

/* A list of views read in place: view i is at byte `offset` of descriptor descs[i] (the members'
 * descriptors in the rendezvous), or, without descs, views[i]. No copy of n views per member: with n
 * members all reducing, that would be O(n^2) memory. */
typedef struct {
    void *const *descs;
    size_t offset;
    const coll_view_t *views;
    int n;
} coll_view_list_t;

static inline const coll_view_t *coll_list_at(const coll_view_list_t *l, int i)
{
    return l->descs ? (const coll_view_t *)((const char *)l->descs[i] + l->offset) : &l->views[i];
}

/* The combine engine: for instances [first, first + n) of the inputs' streams (in rank order),
 *   result = in[0] op in[1] op ... op in[ninputs - 1]
 * (folded from the last input, inout = in op inout, so non-commutative operations see rank order), written
 * to instances [out_first, out_first + n) of every output. Inputs may be any layout with the same type
 * signature; user functions see red->dt's layout (inputs of another type are copied into it first). Works
 * in pieces of bounded size; an output may be an input (each piece is read whole before it is written).
 * Returns MPI_SUCCESS, MPI_ERR_OP or MPI_ERR_NO_MEM. */
int coll_combine(const mpcrt_coll_reduction_t *red, const coll_view_list_t *inputs, MPI_Count first,
                 MPI_Count n, const coll_view_list_t *outputs, MPI_Count out_first);

/* Whether two members' operations are the same operation (user operations: the same function). */
bool coll_same_op(const mpcrt_op_t *a, const mpcrt_op_t *b);

/* A user operation (MPI_Op_create, MPI_Op_create_c): MPI_SUCCESS or MPI_ERR_NO_MEM. */
int mpcrt_op_create(MPI_User_function *fn, MPI_User_function_c *fn_c, bool commutative, MPI_Op *handle);

/* ------------------------------------------------------------------ members' descriptors */

struct coll_fused;
/* Every member's descriptor starts with this header: which collective the member called, and its root.
 * Collectives with a fused in-process path (fused.c) also say how many bytes every member must agree on,
 * the operation, and the work the meeting runs for them (meet.h). */
typedef struct {
    uint32_t kind; /* COLL_* */
    int root;      /* rooted collectives; 0 for the others */
    MPI_Count bytes;
    const struct mpcrt_op *op;
    const struct coll_fused *fused; /* NULL: the member reads its peers' buffers in place (pull) */
} coll_header_t;

enum {
    COLL_BCAST = 0x6d636f01, /* unlikely first words for the other users of the rendezvous */
    COLL_GATHER,
    COLL_SCATTER,
    COLL_ALLGATHER,
    COLL_ALLTOALL,
    COLL_REDUCE,
    COLL_ALLREDUCE,
    COLL_REDUCE_SCATTER,
    COLL_SCAN,
    COLL_EXSCAN,
    COLL_BARRIER,
};

/* Member q's descriptor if q called the same collective, NULL otherwise: an erroneous program whose
 * members called different collectives on the communicator (or one whose member failed its argument
 * checks and went on to another collective); the caller then skips q and reports MPI_ERR_OTHER. */
const void *coll_peer(mpcrt_comm_t *comm, int q, uint32_t kind);

/* MPI_ERR_OTHER unless member 0 called the same collective, MPI_ERR_ROOT unless it named the same root (a
 * member whose root differs finds out; no member reads past a peer's buffers either way). */
int coll_same_root(mpcrt_comm_t *comm, uint32_t kind, int root);

/* What each member of a reduction publishes. */
typedef struct {
    coll_header_t header;
    MPI_Count count; /* instances of the input (reduce_scatter: the sum of the counts) */
    MPI_Count bytes; /* count * size */
    const mpcrt_op_t *op;
    coll_view_t input, output;
} coll_red_desc_t;

/* MPI_SUCCESS when the caller and members [0, readers) called the same collective as member 0 and agree
 * with it on the root, the count, the amount of data and the operation; otherwise MPI_ERR_OTHER,
 * MPI_ERR_ROOT, MPI_ERR_COUNT, MPI_ERR_TYPE or MPI_ERR_OP. A member checks every member whose buffers it
 * reads or writes (so it never goes past one), and always itself: a disagreement is reported by the
 * member that has it and by every member that would have used its buffers. O(1) for members with
 * nothing to reduce, so a small allreduce on many ranks stays linear. */
int coll_red_agree(mpcrt_comm_t *comm, uint32_t kind, int me, int readers);

/* The descriptors' field `field` of every member, as a view list. */
#define COLL_MEMBERS(comm, count, field)                                                                     \
    ((coll_view_list_t){(comm)->contributions, offsetof(coll_red_desc_t, field), NULL, (count)})

/* ------------------------------------------------------------------ API layer (api_check.c) */

/* How an API entry point runs its collective: blocking (the in-process rendezvous on intracommunicators, a
 * schedule run to completion on intercommunicators), non-blocking (MPI_I*: a schedule started now) or
 * persistent (*_init: a schedule started by MPI_Start). */
typedef struct {
    enum { COLL_BLOCKING, COLL_NONBLOCKING, COLL_PERSISTENT } mode;
    MPI_Request *request;
} coll_how_t;
extern const coll_how_t coll_blocking;
struct mpcrt_nbc;
/* Runs or issues the schedule a builder returned (build_rc its return value) as `how` says; returns what
 * the entry point returns (errors raised on handle). */
int coll_issue(const char *fn, MPI_Comm handle, int build_rc, struct mpcrt_nbc *s, const coll_how_t *how);
/* Gives a started request its handle in *how->request (start_rc: what starting it returned). */
struct mpcrt_request;
int coll_issue_request(const char *fn, MPI_Comm handle, int start_rc, struct mpcrt_request *req,
                       const coll_how_t *how);
/* Block descriptions: int arrays (MPI_x), MPI_Count/MPI_Aint arrays (MPI_x_c) or none (uniform). */
typedef struct {
    const int *icounts, *idispls;
    const MPI_Count *ccounts;
    const MPI_Aint *adispls;
    const MPI_Datatype *types;
    bool vector; /* the v and w forms: counts and displacements must be given */
    bool typed;  /* alltoallw: types must be given */
} vec_args_t;

/* A request pointer argument of the non-blocking and persistent forms. */
int coll_check_request(const char *fn, MPI_Comm handle, const coll_how_t *how);
/* The size of the group blocks are counted over: the remote group of an intercommunicator. */
int coll_peer_size(const mpcrt_comm_t *comm);

int coll_api_bcast(const char *fn, void *buf, MPI_Count count, MPI_Datatype type, int root, MPI_Comm handle,
                   const coll_how_t *how);
int coll_api_gather(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                    void *recvbuf, MPI_Count recvcount, const vec_args_t *v, MPI_Datatype recvtype, int root,
                    MPI_Comm handle, const coll_how_t *how);
int coll_api_scatter(const char *fn, const void *sendbuf, MPI_Count sendcount, const vec_args_t *v,
                     MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype,
                     int root, MPI_Comm handle, const coll_how_t *how);
int coll_api_allgather(const char *fn, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                       void *recvbuf, MPI_Count recvcount, const vec_args_t *v, MPI_Datatype recvtype,
                       MPI_Comm handle, const coll_how_t *how);
int coll_api_alltoall(const char *fn, const void *sendbuf, MPI_Count sendcount, const vec_args_t *sv,
                      MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, const vec_args_t *rv,
                      MPI_Datatype recvtype, MPI_Comm handle, const coll_how_t *how);
int coll_api_reduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                    MPI_Op op, int root, MPI_Comm handle, const coll_how_t *how);
int coll_api_allreduce(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                       MPI_Op op, MPI_Comm handle, const coll_how_t *how);
int coll_api_reduce_scatter(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                            const int *irecvcounts, const MPI_Count *crecvcounts, bool block,
                            MPI_Datatype type, MPI_Op op, MPI_Comm handle, const coll_how_t *how);
int coll_api_scan(const char *fn, const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype type,
                  MPI_Op op, MPI_Comm handle, bool exclusive, const coll_how_t *how);
/* Fills *b from the arguments of one side of a v/w collective over n peers and checks them (the general
 * path of coll_describe_blocks, below). */
int coll_describe_vector(const char *fn, MPI_Comm handle, int n, void *buf, MPI_Count count,
                         const vec_args_t *v, MPI_Datatype type, const char *what, mpcrt_coll_blocks_t *b);
/* One contiguous side (count instances of type at buf): count, type and buffer checked. */
int coll_check_side(const char *fn, MPI_Comm handle, const void *buf, MPI_Count count, MPI_Datatype type,
                    mpcrt_datatype_t **dt, const char *what);
int coll_api_barrier(const char *fn, MPI_Comm handle, const coll_how_t *how);

/* The checks below are inline: a small collective runs several of them, and as calls they cost as much as
 * its in-process work. Each fast test passes what is certainly right and leaves the rest to its out-of-line
 * `_report` twin, which decides with the full rules and raises the error (cold). */
int coll_check_comm_report(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm);
int coll_check_type_report(const char *fn, MPI_Comm handle, MPI_Datatype type, mpcrt_datatype_t **dt);
int coll_check_count_report(const char *fn, MPI_Comm handle, MPI_Count count);
int coll_check_buffer_report(const char *fn, MPI_Comm handle, const void *buf, MPI_Count count,
                             mpcrt_datatype_t *dt, const char *what);
int coll_check_alias_report(const char *fn, MPI_Comm handle, const void *sendbuf, const void *recvbuf);

/* The communicator `handle` names when MPI is active for the caller, a member that has not freed it; NULL
 * otherwise (MPI_COMM_SELF too: it is not in the handle table), which callers leave to the report path. */
static inline mpcrt_comm_t *coll_comm_quick(MPI_Comm handle)
{
    mpcrt_mpi_rank_t *self;
    mpcrt_comm_t *c = mpcrt_mpi_self_active_fast(&self) ? mpcrt_comm_get(handle) : NULL;
    int me = c ? mpcrt_comm_rank(c) : MPI_UNDEFINED;
    return __builtin_expect(me != MPI_UNDEFINED && !c->members[me].freed, 1) ? c : NULL;
}
/* Checks that MPI is initialized and `handle` names a communicator the caller belongs to and has not freed;
 * raises MPI_ERR_OTHER or MPI_ERR_COMM. */
static inline int coll_check_comm(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm)
{
    mpcrt_comm_t *c = coll_comm_quick(handle);
    if (__builtin_expect(c != NULL, 1)) {
        *comm = c;
        return MPI_SUCCESS;
    }
    return coll_check_comm_report(fn, handle, comm);
}
/* A datatype argument: valid and committed, else MPI_ERR_TYPE. */
static inline int coll_check_type(const char *fn, MPI_Comm handle, MPI_Datatype type, mpcrt_datatype_t **dt)
{
    mpcrt_datatype_t *d = mpcrt_datatype_get(type);
    if (__builtin_expect(d && mpcrt_datatype_is_committed(d), 1)) {
        *dt = d;
        return MPI_SUCCESS;
    }
    return coll_check_type_report(fn, handle, type, dt);
}
static inline int coll_check_count(const char *fn, MPI_Comm handle, MPI_Count count)
{
    return __builtin_expect(count >= 0, 1) ? MPI_SUCCESS : coll_check_count_report(fn, handle, count);
}
int coll_check_root(const char *fn, MPI_Comm handle, mpcrt_comm_t *comm, int root);
/* MPI_ERR_BUFFER for a NULL buffer that cannot be MPI_BOTTOM with absolute addresses, or MPI_IN_PLACE. */
static inline int coll_check_buffer(const char *fn, MPI_Comm handle, const void *buf, MPI_Count count,
                                    mpcrt_datatype_t *dt, const char *what)
{
    if (__builtin_expect(buf && buf != MPI_IN_PLACE, 1))
        return MPI_SUCCESS;
    return coll_check_buffer_report(fn, handle, buf, count, dt, what);
}
/* MPI_ERR_BUFFER when a send and a receive buffer are the same memory (not MPI_IN_PLACE). */
static inline int coll_check_alias(const char *fn, MPI_Comm handle, const void *sendbuf, const void *recvbuf)
{
    if (__builtin_expect(sendbuf != recvbuf, 1))
        return MPI_SUCCESS;
    return coll_check_alias_report(fn, handle, sendbuf, recvbuf);
}
/* An operation for a datatype: valid handle, defined on the type; else MPI_ERR_OP. */
int coll_check_op(const char *fn, MPI_Comm handle, MPI_Op op_handle, mpcrt_datatype_t *dt, mpcrt_op_t **op);
/* A counts (and optional displacements) array of `n` entries: not NULL, no negative count. */
int coll_check_counts(const char *fn, MPI_Comm handle, int n, const int *icounts, const MPI_Count *ccounts,
                      const void *displs, const char *what);
/* Raises the error a collective returned after everyone left it (see coll.h). */
int coll_raise(const char *fn, MPI_Comm handle, int error_class);
/* The result of a blocking collective on handle: rc, or MPI_ERR_PROC_ABORTED when it seemed to succeed but
 * the communicator spans a process that ended (a member of a process whose leader's exchange failed saw only
 * the in-process phases: every member must learn the collective failed, and a broadcast from a dead root
 * must not look like one). Then raised on handle; MPI_SUCCESS as is. */
int coll_finish(const char *fn, MPI_Comm handle, int rc);

/* Fills *b from the arguments of one side of a v/w collective over n peers and checks them. Uniform blocks
 * (no count array: MPI_Alltoall and its non-blocking form) are checked here, inline: through the general
 * path a side cost 125 instructions instead of 60, of the 880 of an MPI_Ialltoall call (callgrind), time
 * that a rank computing in Taboada's overlap setting cannot hide. */
static inline int coll_describe_blocks(const char *fn, MPI_Comm handle, int n, void *buf, MPI_Count count,
                                       const vec_args_t *v, MPI_Datatype type, const char *what,
                                       mpcrt_coll_blocks_t *b)
{
    if (v->vector || v->typed || v->icounts || v->ccounts)
        return coll_describe_vector(fn, handle, n, buf, count, v, type, what, b);
    int rc;
    *b = (mpcrt_coll_blocks_t){.buf = buf, .count = count, .idispls = v->idispls, .adispls = v->adispls};
    if ((rc = coll_check_type(fn, handle, type, &b->dt)) || (rc = coll_check_count(fn, handle, count)))
        return rc;
    /* Every block holds count instances of the type: the first stands for all. */
    if (n > 0 && count > 0 && b->dt->size > 0)
        return coll_check_buffer(fn, handle, buf, count, b->dt, what);
    return buf == MPI_IN_PLACE ? coll_check_buffer(fn, handle, buf, 0, NULL, what) : MPI_SUCCESS;
}

#endif
