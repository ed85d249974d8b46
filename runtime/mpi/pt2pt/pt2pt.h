/* Point-to-point in one process (thread mode): requests, per-receiver matching, and the protocols of
 * DESIGN.md section 4. The sender matches: if the receive is posted it copies once, straight into the user's
 * buffer, whatever the size; if not, a small message goes into an eager cell and a large one leaves a
 * descriptor of the send buffer, from which the receiver does the single copy when it matches. Each receiving
 * rank has its own queues and lock (no global lock); queues are binned by (context, source) so that a
 * receive from one source never scans other sources' messages, and MPI_ANY_SOURCE uses per-context lists in
 * posting/arrival order, with sequence numbers keeping MPI's non-overtaking order. */
#ifndef MPCRT_MPI_PT2PT_H
#define MPCRT_MPI_PT2PT_H

#include "../comm/comm.h"
#include "../datatype/datatype.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef enum {
    MPCRT_REQ_SEND,
    MPCRT_REQ_RECV,
    MPCRT_REQ_GREQ,
    MPCRT_REQ_COMPOSITE, /* completes when its children have (MPI_Isendrecv) */
    MPCRT_REQ_COLL, /* a non-blocking or persistent collective: its schedule is `coll` (runtime/mpi/nbc) */
    MPCRT_REQ_PART, /* a partitioned send or receive: its state is `coll` (partitioned.c) */
} mpcrt_req_kind_t;

typedef enum {
    MPCRT_SEND_STANDARD,
    MPCRT_SEND_SYNC,
    MPCRT_SEND_READY,
    MPCRT_SEND_BUFFERED
} mpcrt_send_mode_t;

typedef struct mpcrt_request mpcrt_request_t;
struct mpcrt_request {
    /* The first two cache lines hold what a sender on another core touches when it matches this posted
     * receive (the completion, the status, the buffer, the queue links), so that each message moves two
     * lines between the cores, not five (the request is aligned to a line). The first line holds all a
     * waiting receiver reads once its receive completed (the completion, the status, the inline data), so
     * that its wake-up waits for one line from the sender's core, not two in turn. */
    _Alignas(64) mpcrt_object_t obj;
    _Atomic int complete;
    uint8_t kind; /* mpcrt_req_kind_t */
    /* A blocking receive (its request on the waiting owner's stack, never a composite child), and a user's
     * MPI_Irecv once MPI_Wait waits for it (mpcrt_pt2pt_await_recv), let a sender of this process put up to
     * 8 bytes in inline_data instead of the user's buffer; inline_len says how many, and the owner copies
     * them out after the wait (mpcrt_request_copy_out). The data then crosses the cores in the line the
     * owner reads to see the completion, not in a line of its own (match.c transfer_inline): an MPI_Irecv
     * + MPI_Send + MPI_Wait ping-pong across two cores took 0.154-0.161 us per hop, ~0.10 with it. Only a
     * waiting MPI_Wait asks for it: windows of receives completed by MPI_Waitall keep their senders
     * writing the user's buffers (8-byte message rate with 4 threads per rank was lower with it). */
    bool inline_ok;
    uint8_t inline_len;
    bool user_irecv; /* an MPI_Irecv's request */
    /* Composite requests: the children hold a pointer to their parent, the parent a reference to each
     * child; the last child to complete gives the parent the status of children[0] and completes it. */
    union {
        mpcrt_request_t *parent;
        unsigned char inline_data[8]; /* when inline_ok, see above */
    };
    MPI_Status status;
    bool persistent, active, cancelled;
    bool matched; /* receives: taken by a sender (under the receiver's lock) */
    /* The operation. */
    void *buf;
    MPI_Count count;
    mpcrt_datatype_t *datatype;
    /* Posted-receive queues (receiver's lock). */
    mpcrt_request_t *next, *prev;
    void *match_queue;  /* the (context, source) bin or, for MPI_ANY_SOURCE, the context's queue (match.c) */
    mpcrt_ult_t *owner; /* woken on completion; NULL for a kernel thread (it polls) */
    int tag;
    int peer; /* destination (send) or source (receive, may be MPI_ANY_SOURCE), as a rank of comm */
    /* Colder fields. */
    mpcrt_comm_t *comm;
    uint32_t context;
    mpcrt_send_mode_t mode;
    uint64_t seq; /* posting order, between a source's bin and the context's MPI_ANY_SOURCE queue */
    /* Operations started on a rank's behalf by whoever progresses its collective schedule (another rank's
     * ULT, a progress ULT, an idle VP): the sender's rank in comm and the receiver's queues, which the
     * engine otherwise takes from the calling ULT. */
    bool on_behalf;
    int as_rank;
    mpcrt_match_t *as_match;
    /* A large copy the peer offers to share with this request's waiter (coop_copy.c). */
    _Atomic(struct mpcrt_copy_job *) copy_job;
    /* Only requests made by mpcrt_request_new use the fields from here on: a blocking call's request on the
     * stack is zeroed up to MPCRT_REQUEST_STACK_BYTES only. */
    /* Generalized requests. */
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
    mpcrt_request_t *children[2]; /* composite requests (see parent) */
    _Atomic int pending;
    void *owned_buffer; /* freed with the request (MPI_Isendrecv_replace's packed copy) */
    /* Collectives (MPCRT_REQ_COLL): the schedule, released with the request. */
    void *coll;
    void (*coll_release)(void *coll);
    int (*coll_start)(mpcrt_request_t *req); /* MPI_Start of a persistent collective or partitioned request */
};

#define MPCRT_REQUEST_STACK_BYTES offsetof(mpcrt_request_t, query_fn)

/* Zeroes the first `bytes` of a request (a constant; rounded up to 16, within the request) with aligned
 * 16-byte stores: memset's `rep stos` costs tens of cycles to start, on every request of the message path. */
static inline __attribute__((always_inline)) void mpcrt_request_zero(mpcrt_request_t *req, size_t bytes)
{
    typedef long long zero16_t __attribute__((vector_size(16)));
    zero16_t *v = (zero16_t *)(void *)req;
#pragma GCC unroll 32
    for (size_t i = 0; i < (bytes + 15) / 16; i++)
        v[i] = (zero16_t){0, 0};
}

/* The operation a send or receive request stands for (no references taken: callers that keep the request
 * past the call retain the communicator and datatype themselves). */
static inline void mpcrt_request_describe(mpcrt_request_t *req, const void *buf, MPI_Count count,
                                          mpcrt_datatype_t *dt, mpcrt_comm_t *comm, uint32_t context,
                                          int peer, int tag, mpcrt_send_mode_t mode)
{
    req->buf = (void *)buf;
    req->count = count;
    req->datatype = dt;
    req->comm = comm;
    req->context = context;
    req->peer = peer;
    req->tag = tag;
    req->mode = mode;
}

/* The first and the last sizeof(type) bytes of the n at s, to d (sizeof(type) <= n <= 2 * sizeof(type)): all
 * n bytes, the middle ones twice, both read before either is written. */
#define MPCRT_COPY_ENDS(type, d, s, n)                                                                       \
    do {                                                                                                     \
        type head_, tail_;                                                                                   \
        memcpy(&head_, (s), sizeof head_);                                                                   \
        memcpy(&tail_, (s) + (n) - sizeof tail_, sizeof tail_);                                              \
        memcpy((d), &head_, sizeof head_);                                                                   \
        memcpy((d) + (n) - sizeof tail_, &tail_, sizeof tail_);                                              \
    } while (0)

/* Copies n <= 8 bytes without a call: two overlapping 4- or 2-byte moves, or one byte. The inline payload of
 * a blocking receive goes through here twice per message (pt2pt.h, inline_data), and a memcpy call of a
 * variable size cost more than the rest of that copy. */
static inline void mpcrt_copy_upto8(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 4)
        MPCRT_COPY_ENDS(uint32_t, d, s, n);
    else if (n >= 2)
        MPCRT_COPY_ENDS(uint16_t, d, s, n);
    else if (n == 1)
        d[0] = s[0];
}

/* Copies n <= 64 bytes without a call: overlapping moves of the largest width that fits (16, 8, 4, 2 or 1
 * bytes, one pair from each end). The library's other copies call memcpy (-mmemcpy-strategy=libcall in
 * runtime/CMakeLists.txt), which a small copy on the latency path cannot afford. */
static inline void mpcrt_copy_upto64(void *dst, const void *src, size_t n)
{
    unsigned char *d = dst;
    const unsigned char *s = src;
    if (n >= 16) {
        unsigned char a[16], b[16], c[16], e[16];
        memcpy(a, s, 16);
        memcpy(b, s + n - 16, 16);
        if (n > 32) {
            memcpy(c, s + 16, 16);
            memcpy(e, s + n - 32, 16);
            memcpy(d + 16, c, 16);
            memcpy(d + n - 32, e, 16);
        }
        memcpy(d, a, 16);
        memcpy(d + n - 16, b, 16);
    } else if (n >= 8) {
        MPCRT_COPY_ENDS(uint64_t, d, s, n);
    } else {
        mpcrt_copy_upto8(d, s, n);
    }
}

/* Per-receiving-rank matching state (one per local rank). */
typedef struct mpcrt_match mpcrt_match_t;
mpcrt_match_t *mpcrt_match_create(void);
/* With several ranks in the process: each rank drains the inbox of small messages its senders pushed
 * (match.c, struct mpcrt_match) in its progress and before its ULTs park, so its non-blocking receives
 * can take them from there. Once, at process set-up; -1 if the scheduler has no room for the hooks. */
int mpcrt_match_install_hooks(void);

/* Contexts are allocated in pairs from a counter that never reaches bit 31: this bit on a communicator's
 * point-to-point context gives a third one, which only partitioned messages use (partitioned.c). */
#define MPCRT_PART_CONTEXT_BIT 0x80000000u

/* Drops receiver m's empty queues of n contexts whose communicator is gone (they would otherwise live as
 * long as the rank: a program that creates and frees communicators in a loop grew by a bin and a context
 * queue per peer and communicator). What still holds a message stays. */
void mpcrt_match_forget_contexts(mpcrt_match_t *m, const uint32_t *contexts, int n);
/* The same for every context of comm, in the queues of each of its members of this process. */
void mpcrt_pt2pt_forget_comm(mpcrt_comm_t *comm);

/* Byte count of a status, as MPICH's layout stores it: low 32 bits in count_lo, the next 31 above bit 0
 * (the cancelled flag). Inline: every receive sets it. */
static inline void mpcrt_status_set_bytes(MPI_Status *status, MPI_Count bytes)
{
    status->count_lo = (int)(unsigned)(bytes & 0xffffffff);
    status->count_hi_and_cancelled =
        (int)(((unsigned)(bytes >> 32) << 1) | ((unsigned)status->count_hi_and_cancelled & 1u));
}
/* A status handed to the user by a single-completion call (Recv, Wait, Test, Probe...): every field but
 * MPI_ERROR, which only the multiple-completion calls set, and only when they return MPI_ERR_IN_STATUS. */
static inline void mpcrt_status_out(MPI_Status *out, const MPI_Status *in)
{
    if (out != MPI_STATUS_IGNORE && out != NULL) {
        int error = out->MPI_ERROR;
        *out = *in;
        out->MPI_ERROR = error;
    }
}
MPI_Count mpcrt_status_bytes(const MPI_Status *status);

/* Requests. */
/* The handle of an MPI_Isend that completed within the call (request.c): a builtin request handle, shared. */
#define MPCRT_REQUEST_COMPLETED_SEND ((MPI_Request)0x6c000001)
mpcrt_request_t *mpcrt_request_new(mpcrt_req_kind_t kind);
/* Publish completion, wake the owner. Inline: every message completes one or two requests. */
void mpcrt_request_complete_parent(mpcrt_request_t *parent, mpcrt_request_t *child);
static inline void mpcrt_request_complete(mpcrt_request_t *req)
{
    /* Read the owner and parent first: once `complete` is visible the request (maybe on the owner's stack)
     * can go. A child is only freed with its parent, which cannot complete before this child does. */
    mpcrt_ult_t *owner = req->owner;
    mpcrt_request_t *parent = req->inline_ok ? NULL : req->parent;
    /* release: the data copied into the receive buffer and the status are visible to the waiter. */
    atomic_store_explicit(&req->complete, 1, memory_order_release);
    if (owner)
        mpcrt_ult_poke(owner); /* owners wait in mpcrt_wait_until; a spurious poke is harmless */
    if (parent)
        mpcrt_request_complete_parent(parent, req);
}
/* A completed receive's inline bytes (see inline_ok) into the user's buffer, once. */
static inline void mpcrt_request_copy_out(mpcrt_request_t *req)
{
    if (req->inline_len) {
        mpcrt_copy_upto8((char *)req->buf + req->datatype->true_lb, req->inline_data, req->inline_len);
        req->inline_len = 0;
    }
}
/* MPI_Wait of the calling rank on its MPI_Irecv req, not complete: a sender that matches it from now on may
 * put small data inline (the waiter copies it out), and senders go back to matching under the rank's lock
 * instead of its inbox, what they pushed there drained now (struct mpcrt_match in match.c: what the park
 * hook does before a ULT of the rank sleeps). */
void mpcrt_pt2pt_await_recv(mpcrt_request_t *req);
/* MPI_Request_free of a request that has not completed: takes over the caller's reference and drops it
 * once the operation completed (reaped by later calls and at MPI_Finalize; never released before). */
void mpcrt_request_orphan(mpcrt_request_t *req);
void mpcrt_request_reap_orphans(void);
/* Waits for req to complete, helping with a copy its peer offers meanwhile (coop_copy.c). Inline: in a
 * window of requests most are complete by the time the caller waits for them. */
void mpcrt_request_wait_slow(mpcrt_request_t *req);
static inline bool mpcrt_request_done(const mpcrt_request_t *req);
static inline void mpcrt_request_wait(mpcrt_request_t *req)
{
    if (!mpcrt_request_done(req) && !(mpcrt_wait_yield_once() && mpcrt_request_done(req)))
        mpcrt_request_wait_slow(req);
}
/* Copies len contiguous bytes for a message whose other side waits on `peer` (may be NULL): a large copy
 * is shared with peer's waiter when it runs on another core. Returns once every byte is copied. */
typedef struct mpcrt_copy_job mpcrt_copy_job_t;
void mpcrt_pt2pt_copy(void *dst, const void *src, MPI_Count len, mpcrt_request_t *peer);
/* Makes child (not started yet) one of the two children of a composite request; returns its slot. */
int mpcrt_request_adopt(mpcrt_request_t *parent, mpcrt_request_t *child);
static inline bool mpcrt_request_done(const mpcrt_request_t *req)
{
    return atomic_load_explicit(&((mpcrt_request_t *)req)->complete, memory_order_acquire);
}

/* Starts a send or a receive described by req (fields buf...mode set). Returns an MPI error class for
 * arguments the engine checks (the API layer checks the rest). */
int mpcrt_pt2pt_start_send(mpcrt_request_t *req);
int mpcrt_pt2pt_start_recv(mpcrt_request_t *req);
/* The fast path of MPI_Send and MPI_Isend: a small standard send needs no request, to a rank of this
 * process (into the posted receive, or an eager cell) or of another (mpcrt_remote_send_small). Returns an MPI
 * error class, or -1 when it does not apply (large message, MPI_PROC_NULL, see mpcrt_remote_send_small). */
int mpcrt_pt2pt_send_small(const void *buf, MPI_Count count, mpcrt_datatype_t *dt, mpcrt_comm_t *comm,
                           int dest, int tag);
/* A blocking receive, its arguments checked: errors reported for fn on comm_handle. */
int mpcrt_pt2pt_recv_checked(const char *fn, MPI_Comm comm_handle, void *buf, MPI_Count count,
                             mpcrt_datatype_t *dt, mpcrt_comm_t *comm, int source, int tag,
                             MPI_Status *status);
/* MPI_Send and MPI_Recv, which tail-call them with their own arguments (nothing to move between registers):
 * the latency path checks the arguments inline (mpcrt_pt2pt_quick_check) and runs the engine in the same
 * frame; whatever the quick check does not take goes to the general paths below (api_send_recv.c), which
 * check again and report errors as MPI_Send's and MPI_Recv's. */
int mpcrt_pt2pt_send_api(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mpcrt_pt2pt_recv_api(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                         MPI_Status *status);
int mpcrt_pt2pt_send_general(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm);
int mpcrt_pt2pt_recv_general(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                             MPI_Status *status);

/* The argument checks of the latency path, with no call in them: the calling rank (*self, and its world
 * rank *world, which its engine then needs not read again), the communicator and the datatype, or false,
 * which sends the caller to its general path (an error, or what the quick check leaves to it:
 * MPI_COMM_SELF, whose per-rank objects are not in the handle table, MPI_DATATYPE_NULL, MPI_PROC_NULL, a
 * kernel thread that is no rank's...). */
static inline __attribute__((always_inline)) bool
mpcrt_pt2pt_quick_check(mpcrt_mpi_rank_t **self, int *world, MPI_Comm comm_handle, mpcrt_comm_t **comm,
                        MPI_Datatype type, mpcrt_datatype_t **dt, MPI_Count count, int peer, int tag,
                        bool receiving)
{
    if (!mpcrt_mpi_self_active_fast(self) || count < 0)
        return false;
    *world = mpcrt_self_rank(); /* a rank's (>= 0): the fast test above vouches for it */
    *comm = (mpcrt_comm_t *)mpcrt_handle_lookup(MPCRT_OBJ_COMM, comm_handle);
    *dt = mpcrt_datatype_get(type);
    if (!*comm || !*dt || !mpcrt_datatype_is_committed(*dt))
        return false;
    int size = mpcrt_comm_peer_group(*comm)->size;
    if (!(receiving && peer == MPI_ANY_SOURCE) && (peer < 0 || peer >= size))
        return false;
    return (receiving && tag == MPI_ANY_TAG) || (tag >= 0 && tag <= MPCRT_TAG_UB);
}

/* A blocking send of any mode through a request on the caller's stack (arguments checked). */
int mpcrt_pt2pt_send_request(const char *fn, const void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                             mpcrt_comm_t *comm, int dest, int tag, MPI_Comm comm_handle,
                             mpcrt_send_mode_t mode);
/* Probe the queues of receiver `match` (the caller's: mpcrt_mpi_self()->match, captured by the caller
 * because the check may run as a parked predicate in another ULT's context) for a matching unexpected
 * message; with `take`, remove it (MPI_Mprobe) into *message. */
bool mpcrt_pt2pt_probe(mpcrt_match_t *match, int source, int tag, uint32_t context, MPI_Status *status,
                       bool take, void **message);
/* Receive a message taken by a matched probe. */
int mpcrt_pt2pt_recv_message(void *message, mpcrt_request_t *req);
/* Cancel a receive that has not matched yet; true if it was cancelled. */
bool mpcrt_pt2pt_cancel_recv(mpcrt_request_t *req);
/* Completes a matched receive: status from (source, tag), MPI_ERR_TRUNCATE when sent > copied. */
void mpcrt_pt2pt_finish_recv(mpcrt_request_t *recv, int source, int tag, MPI_Count sent, MPI_Count copied);

/* ------------------------------------------------------------------ the library's own messages (internal.c)
 */

/* Nonblocking sends and receives on comm's collective context (context + 1), for collectives and creations
 * that span processes; waitall waits, releases every request and returns the first status error. */
/* A standard-mode send or receive of the library's own, described (comm and dt retained), not started: on
 * any context (the partitioned one, partitioned.c), for a caller that sets more fields first. */
mpcrt_request_t *mpcrt_p2p_prepare(mpcrt_req_kind_t kind, mpcrt_comm_t *comm, uint32_t context, int peer,
                                   int tag, const void *buf, MPI_Count count, mpcrt_datatype_t *dt);
int mpcrt_p2p_isend(mpcrt_comm_t *comm, int dest, int tag, const void *buf, MPI_Count count,
                    mpcrt_datatype_t *dt, mpcrt_request_t **req);
int mpcrt_p2p_irecv(mpcrt_comm_t *comm, int source, int tag, void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                    mpcrt_request_t **req);
int mpcrt_p2p_waitall(mpcrt_request_t **reqs, int n);
int mpcrt_p2p_sendrecv(mpcrt_comm_t *comm, int tag, const void *sbuf, MPI_Count scount, mpcrt_datatype_t *sdt,
                       int dest, void *rbuf, MPI_Count rcount, mpcrt_datatype_t *rdt, int source);

/* ------------------------------------------------------------------ ranks of other processes (remote.c) */

/* A message from another process, as its packet described it: eager (the bytes are at eager_data, valid
 * only during the call) or a rendezvous request (the packed bytes are at `addr` in process `proc`). */
typedef struct {
    int proc, source, tag;
    uint32_t context;
    uint64_t bytes, sreq, addr;
    uint32_t word; /* the sender's claim word + 1 (remote.c), 0 for none */
    const void *eager_data;
} mpcrt_remote_rts_t;

/* Opens the rails and registers the progress hook; collective over the job's processes. */
int mpcrt_remote_init(void);
bool mpcrt_remote_ready(void);
/* Waits until every packet this process queued has been handed to its rail (before the process leaves). */
void mpcrt_remote_flush(void);
/* The process hosting a world rank. */
int mpcrt_remote_proc_of(int world_rank);
/* Starts a send to world rank dst_world of another process; `me` is the sender's rank in its group. */
int mpcrt_remote_send(mpcrt_request_t *send, int dst_world, int me);
/* A small contiguous standard send that needs no request: straight into the rail to dst_world's process.
 * Returns MPI_SUCCESS (sent), or -1 when the request path must take it (too large, not contiguous, packets
 * already waiting for that process or its rail full, the process lost). */
int mpcrt_remote_send_small(const void *buf, MPI_Count count, mpcrt_datatype_t *dt, uint32_t context, int tag,
                            int dst_world, int me);
/* Matches an arriving message into receiver m's queues (called by whichever thread polled the rail). */
void mpcrt_match_remote_arrival(mpcrt_match_t *m, const mpcrt_remote_rts_t *in);
/* The same for an eager message, from its fields (the latency and message-rate path: no descriptor). */
void mpcrt_match_remote_eager(mpcrt_match_t *m, uint32_t context, int source, int tag, const void *data,
                              size_t bytes);
/* Moves a matched rendezvous message into recv and completes it (now, or when the fragments are in). */
void mpcrt_remote_pull(const mpcrt_remote_rts_t *rts, mpcrt_request_t *recv);
/* Peer `peer` of comm lives in a process a rail reported lost (false at once while none is). */
bool mpcrt_remote_peer_lost(mpcrt_comm_t *comm, int peer);
/* Some rank that comm's point-to-point peers include lives in process proc (-1: in any lost process). */
bool mpcrt_remote_comm_spans(mpcrt_comm_t *comm, int proc);
/* Completes recv with MPI_ERR_PROC_ABORTED: its sender's process is gone. */
void mpcrt_remote_fail_recv(mpcrt_request_t *recv);
/* Fails every receive posted in m from a rank of process proc, and the MPI_ANY_SOURCE ones posted on a
 * communicator that spans proc (another rank might still have matched them, but nothing says one will: as
 * with the fault-tolerance proposal's MPI_ERR_PROC_FAILED_PENDING, the program decides; here the receive
 * completes with MPI_ERR_PROC_ABORTED and may be posted again). */
void mpcrt_match_fail_proc(mpcrt_match_t *m, int proc);

#endif
