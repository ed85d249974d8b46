/* Point-to-point with ranks of other processes, over the rails (DESIGN.md section 4): small messages go
 * eagerly in one packet; large and synchronous ones send a request-to-send (RTS) describing the data in the
 * sender's memory. Once it matched, the receiver answers clear-to-send (CTS) and the sender pushes the
 * message in fragments: on one node both cores copy (into the cells, out of them), which measured 2-3x
 * faster than one copy by the receiver through process_vm_readv. When the rail also shares memory and can
 * read the sender's (shm with CMA), the RTS lends a claim word of the sender's: the sender claims
 * fragments from the front of the message, and a receiver that saw no fragment for STALL_NS (its sender
 * computes outside MPI) claims chunks from the back and reads them itself, so a large message still
 * arrives while its sender is busy. The receiver then answers FIN, which completes the send. Messages of
 * at least MPCRT_SHM_CMA_MIN bytes are read at once.
 * Packets carry the destination rank, so whichever thread polls a rail matches them into the receiver's
 * queues on its behalf (collaborative polling, research/seed000 section 2.4). When a rail reports a peer
 * process lost, every operation pending with it completes with MPI_ERR_PROC_ABORTED (peer_lost), and so
 * does any operation started with it later. */
#include "pt2pt.h"
#include "../core/list.h"
#include "../rails/rail.h"
#include "../wireup/wireup.h"
#include "../../threads/config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { PKT_EAGER = 1, PKT_RTS, PKT_FIN, PKT_CTS, PKT_FRAG };

/* Eager packets carry only the fields up to `src_proc` (EAGER_HEADER bytes, their size is the packet's
 * minus that): with the shm cell's own 12 bytes, a message of up to 32 bytes fills one cache line, which is
 * all the receiver pulls from the sender's core. */
typedef struct {
    uint8_t kind;
    uint8_t unused[3];
    int32_t dst_world; /* the receiving rank: any poller can route the packet */
    int32_t source;    /* sender's rank in the communicator's (local) group */
    int32_t tag;
    uint32_t context;
    int32_t src_proc; /* the sending process, for replies */
    uint64_t bytes;   /* the message's size */
    uint64_t sreq;    /* RTS, FIN, CTS, FRAG: the sender's rendezvous record */
    uint64_t rreq;    /* CTS, FRAG: the receiver's rendezvous record */
    uint64_t offset;  /* RTS: address of the packed data in the sender; CTS, FRAG: offset in the message */
} packet_t;           /* RTS: rreq is the claim word's index + 1, 0 for none */

/* A claim word holds the unclaimed bytes [front, back) of one message: front in the high half, claimed by
 * the sender, back in the low half, claimed by the receiver. */
#define CLAIM(front, back) ((uint64_t)(front) << 32 | (uint64_t)(back))
#define CLAIM_FRONT(w) ((w) >> 32)
#define CLAIM_BACK(w) ((w)&0xffffffffu)

#define EAGER_HEADER offsetof(packet_t, src_proc)
/* A FIN's offset: the receiver answered the RTS without a CTS (empty message, or read at once), so no push
 * will run for that send. */
#define FIN_WITHOUT_CTS 1
#define HEADER_BYTES(pkt) ((pkt)->kind == PKT_EAGER ? EAGER_HEADER : sizeof(packet_t))

/* A rendezvous send waiting for its FIN (or CTS). */
typedef struct rndv_send {
    struct rndv_send *next, *prev; /* in its peer's `tracked` list */
    int proc;
    mpcrt_request_t *req; /* completed at FIN; NULL when already completed (buffered sends) */
    const char *data;     /* the packed bytes the receiver reads */
    void *owned;          /* packing buffer to free, if the user's data was not contiguous */
    uint64_t bytes;
    int word; /* the claim word lent with the RTS, -1 for none */
    /* Two holds: the send itself (dropped at FIN, at the end of a wordless push, or by peer_lost) and the
     * push that answers the CTS (dropped when it ends; at a FIN that says no CTS was sent; or by peer_lost
     * when no CTS came: `push_settled` says which of them dropped it). The record and its claim word go
     * back only when both are dropped (release_send). Pollers deliver packets concurrently, so a FIN can
     * be handled before the CTS sent ahead of it (the receiver read the rest itself): the push then found
     * the record freed and the word lent to the next message, whose bytes it sent under the old message's
     * name, and that receive never completed (MPICH threads/pt2pt/mt_ssendrecv, 4 threads per process,
     * hung in half the runs). */
    _Atomic int holds;
    _Atomic bool push_settled;
} rndv_send_t;

/* A receive filled by fragments (CTS protocol), and by reads of the sender's memory when it can be. */
typedef struct rndv_recv {
    struct rndv_recv *next, *prev;   /* in its peer's `tracked` list */
    struct rndv_recv *rnext, *rprev; /* in `readable` while it has a claim word */
    int proc;
    mpcrt_request_t *req;
    int source, tag;
    uint64_t sent, wanted;
    _Atomic uint64_t received;
    _Atomic uint64_t *word; /* the sender's claim word, NULL for none */
    uint64_t addr;          /* the packed data in the sender's memory */
    uint64_t sreq;          /* the sender's rendezvous record */
    uint64_t cts_ns;        /* when the CTS went out */
    _Atomic bool readable;  /* in `readable` (changed under readable_lock) */
} rndv_recv_t;

/* Receives that may read from the back of their message, checked by progress for senders that stopped
 * pushing. A read holds readable_lock (peer_lost cannot free f meanwhile) for one chunk, tens of us. */
enum { READ_CHUNK_BYTES = 256 << 10 };
#define STALL_NS 50000 /* no fragment from the sender for this long: it does not push */
static _Atomic int readable_lock;
static rndv_recv_t *readable, *readable_tail;
static _Atomic int nreadable;

/* This process's claim words (mpcrt_rails_word), lent to one rendezvous send each. */
static _Atomic int words_lock;
static int free_words[MPCRT_RAIL_WORDS], nfree_words;

/* Packets a full queue refused, sent in order by the next progress (per destination process). */
typedef struct pending {
    struct pending *next;
    mpcrt_request_t *send; /* an eager send, completed once its packet is in the rail; or NULL */
    int proc;
    size_t header_bytes, payload_bytes;
    char bytes[];
} pending_t;

typedef struct {
    _Atomic int lock;
    pending_t *head, *tail;
} outbox_t;

/* Per peer process: the rendezvous waiting for it, so that they fail if it dies. */
typedef struct {
    _Atomic int lock;
    rndv_send_t *sends, *sends_tail;
    rndv_recv_t *recvs, *recvs_tail;
    _Atomic uint64_t last_fragment_ns; /* the last fragment it pushed to us arrived then */
} tracked_t;

/* A CTS being answered: its fragments go out as the peer's queue (or socket) has room, straight from the
 * sender's buffer, continued by progress; the receiver copies the first ones while the next are in flight.
 * Putting those that do not fit in the outbox instead copied the whole message once more (a malloc per
 * fragment: all of a 1 GB message over tcp). */
typedef struct push {
    struct push *next;
    rndv_send_t *r;
    int proc, dst_world;
    uint64_t rreq, sent, end; /* sends [sent, end) of the message, then claims more from word */
    _Atomic uint64_t *word;   /* the claim word: the receiver answers FIN, r is not ours to finish */
} push_t;

static _Atomic int push_lock;
static push_t *pushes, **pushes_tail = &pushes; /* oldest first, under push_lock */
static _Atomic int npushes;

static outbox_t *outboxes;
static tracked_t *tracked;

/* MPCRT_COLLAB_POLL=0 (for measuring what collaborative polling brings): a message is matched only by a
 * ULT of the rank it is for. Whoever polls a rail queues the messages (eager, RTS) here, by local rank; each
 * rank takes its own in its waits. Replies (FIN, CTS, fragments) are still handled by whoever polls. */
typedef struct deferred {
    struct deferred *next;
    size_t bytes;
    char packet[];
} deferred_t;

typedef struct {
    _Atomic int lock, busy; /* busy: the rank is handling a batch (keeps arrival order) */
    deferred_t *head, *tail;
} owner_queue_t;

static bool collab = true;
static owner_queue_t *owner_queues; /* by local rank, only when !collab */
static int first_local_rank, nlocal_ranks;
static _Atomic long pending_count;
static int my_proc, ranks_per_proc;
static size_t max_payload;
static uint64_t read_at_once_bytes; /* MPCRT_SHM_CMA_MIN */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------------ sending packets */

static void fail_request(mpcrt_request_t *req)
{
    req->status.MPI_ERROR = MPI_ERR_PROC_ABORTED;
    mpcrt_status_set_bytes(&req->status, 0);
    mpcrt_request_complete(req);
}

/* Sends a packet to proc straight into the rail if nothing waits before it (the order of this process's
 * packets to proc), else keeps it in proc's outbox (`queue`) or leaves it to the caller (-1). A packet for a
 * lost process is dropped when queued (what it served has failed or will: peer_lost drops the outbox under
 * this lock), refused (-1) otherwise. `send`, an eager send, completes once the packet is in the rail (now,
 * or when progress takes it out of the outbox), or fails if the process is lost first: a full queue holds
 * its senders back, as a blocking MPI_Send then waits for room, instead of letting them run ahead of the
 * receiver with copies of their messages. (A sender that ran 300000 8-byte messages ahead left its
 * receiver unexpected messages to take in at 0.9 us apiece, against 0.04 in step: allocations whose pages
 * came and went with the backlog.) */
static int out_to(int proc, const packet_t *pkt, const void *payload, size_t payload_bytes, bool queue,
                  mpcrt_request_t *send)
{
    outbox_t *box = &outboxes[proc];
    mpcrt_spin_lock(&box->lock);
    bool lost = mpcrt_rails_any_lost() && mpcrt_rails_lost(proc);
    if (!lost && !box->head && mpcrt_rails_send(proc, pkt, HEADER_BYTES(pkt), payload, payload_bytes) == 0) {
        mpcrt_spin_unlock(&box->lock);
        if (send)
            mpcrt_request_complete(send);
        return 0;
    }
    if (lost || !queue) {
        mpcrt_spin_unlock(&box->lock);
        if (lost && queue && send)
            fail_request(send);
        return lost && queue ? 0 : -1;
    }
    size_t header_bytes = HEADER_BYTES(pkt);
    pending_t *p = malloc(sizeof *p + header_bytes + payload_bytes);
    if (!p) {
        mpcrt_spin_unlock(&box->lock);
        fprintf(stderr, "mpcrt: process %d: out of memory queueing a message for process %d\n", my_proc,
                proc);
        abort();
    }
    p->next = NULL;
    p->send = send;
    p->proc = proc;
    p->header_bytes = header_bytes;
    p->payload_bytes = payload_bytes;
    memcpy(p->bytes, pkt, header_bytes);
    if (payload_bytes)
        memcpy(p->bytes + header_bytes, payload, payload_bytes);
    if (box->tail)
        box->tail->next = p;
    else
        box->head = p;
    box->tail = p;
    atomic_fetch_add_explicit(&pending_count, 1, memory_order_relaxed);
    mpcrt_spin_unlock(&box->lock);
    return 0;
}

static void out(int proc, const packet_t *pkt, const void *payload, size_t payload_bytes)
{
    out_to(proc, pkt, payload, payload_bytes, true, NULL);
}

/* Frees a list of packets taken out of an outbox (outside its lock): their sends complete, or fail when
 * the packets were dropped for a lost peer. */
static void release_pending(pending_t *list, bool dropped)
{
    while (list) {
        pending_t *p = list;
        list = p->next;
        if (p->send && dropped)
            fail_request(p->send);
        else if (p->send)
            mpcrt_request_complete(p->send);
        free(p);
    }
}

static int drain_outboxes(void)
{
    int sent = 0;
    /* A packet half-written to a peer (tcp) goes out before anything else to it, also when nothing else
     * is queued for it: the last fragment of a rendezvous, say, whose receiver waits for its end. */
    bool unflushed = mpcrt_rails_unflushed();
    for (int proc = 0; proc < mpcrt_wireup_num_procs(); proc++) {
        outbox_t *box = &outboxes[proc];
        if ((!box->head && !unflushed) || atomic_exchange_explicit(&box->lock, 1, memory_order_acquire))
            continue; /* empty, or someone else is at it */
        if (unflushed && mpcrt_rails_flush(proc) != 0) {
            mpcrt_spin_unlock(&box->lock);
            continue;
        }
        pending_t *done = NULL, **done_tail = &done; /* their sends complete once the lock is released */
        while (box->head) {
            pending_t *p = box->head;
            if (mpcrt_rails_send(proc, p->bytes, p->header_bytes, p->bytes + p->header_bytes,
                                 p->payload_bytes))
                break;
            box->head = p->next;
            if (!box->head)
                box->tail = NULL;
            p->next = NULL;
            *done_tail = p;
            done_tail = &p->next;
            sent++;
            atomic_fetch_sub_explicit(&pending_count, 1, memory_order_relaxed);
        }
        mpcrt_spin_unlock(&box->lock);
        release_pending(done, false);
    }
    return sent;
}

/* ------------------------------------------------------------------ claim words */

static int take_word(int proc, uint64_t bytes)
{
    if (bytes > 0xffffffffu || !mpcrt_rails_word(proc, true, 0) || mpcrt_rails_get(proc, NULL, 0, 0, 0) != 0)
        return -1; /* no shared memory, no reads of ours by the peer, or too large for a word's halves */
    mpcrt_spin_lock(&words_lock);
    int word = nfree_words ? free_words[--nfree_words] : -1;
    mpcrt_spin_unlock(&words_lock);
    return word;
}

static void give_word(int word)
{
    if (word < 0)
        return;
    mpcrt_spin_lock(&words_lock);
    free_words[nfree_words++] = word;
    mpcrt_spin_unlock(&words_lock);
}

/* Drops one hold on r (see rndv_send_t): the last one gives the claim word back and frees r. */
static void release_send(rndv_send_t *r)
{
    /* acq_rel: the other holder's last use of r and of the word happens before the free. */
    if (atomic_fetch_sub_explicit(&r->holds, 1, memory_order_acq_rel) != 1)
        return;
    give_word(r->word);
    free(r->owned);
    free(r);
}

/* The push's hold when no push will run (a FIN without CTS, or the peer lost before its CTS): dropped once,
 * by whoever settles it first. */
static void release_unpushed(rndv_send_t *r)
{
    if (!atomic_exchange_explicit(&r->push_settled, true, memory_order_acq_rel))
        release_send(r);
}

/* ------------------------------------------------------------------ peers that disappear */

static void unlink_readable(rndv_recv_t *f) /* under readable_lock */
{
    MPCRT_LIST_REMOVE(readable, readable_tail, f, rnext, rprev);
    atomic_store_explicit(&f->readable, false, memory_order_relaxed);
    atomic_fetch_sub_explicit(&nreadable, 1, memory_order_relaxed);
}

/* proc's rendezvous lists, locked; NULL (not locked) when proc is lost. peer_lost takes this lock after
 * marking the process lost, so a record is either in the lists it fails and frees, or added or removed
 * here and never seen there. */
static tracked_t *lock_tracked(int proc)
{
    tracked_t *t = &tracked[proc];
    mpcrt_spin_lock(&t->lock);
    if (!mpcrt_rails_lost(proc))
        return t;
    mpcrt_spin_unlock(&t->lock);
    return NULL;
}

/* Records a rendezvous with its peer; false (not recorded) when that process is already lost. */
static bool track_send(rndv_send_t *r)
{
    tracked_t *t = lock_tracked(r->proc);
    if (!t)
        return false;
    MPCRT_LIST_APPEND(t->sends, t->sends_tail, r, next, prev);
    mpcrt_spin_unlock(&t->lock);
    return true;
}

static bool track_recv(rndv_recv_t *f)
{
    tracked_t *t = lock_tracked(f->proc);
    if (!t)
        return false;
    MPCRT_LIST_APPEND(t->recvs, t->recvs_tail, f, next, prev);
    mpcrt_spin_unlock(&t->lock);
    return true;
}

void mpcrt_remote_fail_recv(mpcrt_request_t *recv)
{
    recv->status.MPI_SOURCE = recv->peer;
    recv->status.MPI_TAG = recv->tag;
    fail_request(recv);
}

bool mpcrt_remote_peer_lost(mpcrt_comm_t *comm, int peer)
{
    if (!mpcrt_rails_any_lost() || peer < 0 || !comm)
        return false;
    int world = mpcrt_comm_peer_group(comm)->world[peer];
    return world >= 0 && !mpcrt_mpi_rank_state(world) && mpcrt_rails_lost(mpcrt_remote_proc_of(world));
}

bool mpcrt_remote_comm_spans(mpcrt_comm_t *comm, int proc)
{
    if (!mpcrt_rails_any_lost() || !comm)
        return false;
    const mpcrt_group_t *g = mpcrt_comm_peer_group(comm);
    for (int i = 0; i < g->size; i++) {
        int world = g->world[i];
        if (world < 0 || mpcrt_mpi_rank_state(world))
            continue;
        int p = mpcrt_remote_proc_of(world);
        if (proc >= 0 ? p == proc : mpcrt_rails_lost(p))
            return true;
    }
    return false;
}

/* A rail reports process proc lost (under its poll lock: whatever proc sent before was delivered). Its
 * packets waiting in our outbox are dropped, and every operation pending with it fails: rendezvous sends
 * waiting for its FIN, receives waiting for its fragments, and receives posted from one of its ranks. */
static void peer_lost(int proc)
{
    outbox_t *box = &outboxes[proc];
    mpcrt_spin_lock(&box->lock);
    pending_t *dropped = box->head;
    for (pending_t *p = dropped; p; p = p->next)
        atomic_fetch_sub_explicit(&pending_count, 1, memory_order_relaxed);
    box->head = box->tail = NULL;
    mpcrt_spin_unlock(&box->lock);
    release_pending(dropped, true);

    /* Pushes to it stop (their records are among the tracked sends failed below). continue_pushes sends
     * under this lock, so none is reading a record once we hold it. */
    mpcrt_spin_lock(&push_lock);
    for (push_t **at = &pushes; *at;) {
        push_t *p = *at;
        if (p->proc != proc) {
            at = &p->next;
            continue;
        }
        *at = p->next;
        if (pushes_tail == &p->next)
            pushes_tail = at;
        release_send(p->r); /* the push's hold; the send's goes with the tracked sends below */
        free(p);
        atomic_fetch_sub_explicit(&npushes, 1, memory_order_relaxed);
    }
    mpcrt_spin_unlock(&push_lock);

    /* Out of `readable` before they are freed; a read in progress holds the lock until its chunk is in. */
    mpcrt_spin_lock(&readable_lock);
    for (rndv_recv_t *f = readable, *next; f; f = next) {
        next = f->rnext;
        if (f->proc == proc)
            unlink_readable(f);
    }
    mpcrt_spin_unlock(&readable_lock);

    tracked_t *t = &tracked[proc];
    mpcrt_spin_lock(&t->lock);
    rndv_send_t *sends = t->sends;
    rndv_recv_t *recvs = t->recvs;
    t->sends = t->sends_tail = NULL;
    t->recvs = t->recvs_tail = NULL;
    mpcrt_spin_unlock(&t->lock);
    for (rndv_send_t *r = sends, *next; r; r = next) {
        next = r->next;
        if (r->req)
            fail_request(r->req);
        release_unpushed(r); /* no CTS came: nobody else drops the push's hold */
        release_send(r);
    }
    for (rndv_recv_t *f = recvs, *next; f; f = next) {
        next = f->next;
        mpcrt_remote_fail_recv(f->req);
        free(f);
    }
    for (int i = 0; i < mpcrt_mpi_process.nranks; i++)
        if (mpcrt_mpi_process.ranks[i].match)
            mpcrt_match_fail_proc(mpcrt_mpi_process.ranks[i].match, proc);
}

/* ------------------------------------------------------------------ sender side */

int mpcrt_remote_proc_of(int world_rank)
{
    /* Process mode (one rank per process) skips the division: this runs on every remote send. */
    return ranks_per_proc == 1 ? world_rank : world_rank / ranks_per_proc;
}

int mpcrt_remote_send(mpcrt_request_t *send, int dst_world, int me)
{
    int proc = mpcrt_remote_proc_of(dst_world);
    uint64_t bytes = (uint64_t)(send->count * send->datatype->size);
    bool contig = mpcrt_datatype_is_contiguous(send->datatype);
    const char *data = (const char *)send->buf + send->datatype->true_lb;
    packet_t pkt = {.dst_world = dst_world,
                    .src_proc = my_proc,
                    .source = me,
                    .tag = send->tag,
                    .context = send->context,
                    .bytes = bytes};
    void *packed = NULL;
    if (mpcrt_rails_any_lost() && mpcrt_rails_lost(proc)) {
        send->status.MPI_ERROR = MPI_ERR_PROC_ABORTED;
        mpcrt_request_complete(send);
        return MPI_SUCCESS; /* the error is the request's, as for a send pending when the peer died */
    }
    if (!contig && bytes) {
        if (!(packed = malloc(bytes)))
            return MPI_ERR_NO_MEM;
        mpcrt_datatype_pack(send->datatype, send->buf, send->count, 0, (MPI_Count)bytes, packed);
        data = packed;
    }
    if (send->mode != MPCRT_SEND_SYNC && bytes <= max_payload) {
        pkt.kind = PKT_EAGER;
        /* A buffered send is local (MPI 4.0 section 3.4): the packet holds its copy, so it completes now,
         * however full the queue; the others complete once their packet is in the rail. */
        bool buffered = send->mode == MPCRT_SEND_BUFFERED;
        out_to(proc, &pkt, data, bytes, true, buffered ? NULL : send);
        free(packed);
        if (buffered)
            mpcrt_request_complete(send);
        return MPI_SUCCESS;
    }
    rndv_send_t *r = malloc(sizeof *r);
    if (!r) {
        free(packed);
        return MPI_ERR_NO_MEM;
    }
    *r = (rndv_send_t){
        .proc = proc, .req = send, .data = data, .owned = packed, .bytes = bytes, .word = -1, .holds = 2};
    if (send->mode == MPCRT_SEND_BUFFERED) {
        /* The buffer must be free when the call returns: the receiver reads a copy. */
        if (!packed && bytes && !(r->owned = malloc(bytes))) {
            free(r);
            return MPI_ERR_NO_MEM;
        }
        if (!packed && bytes)
            r->data = memcpy(r->owned, data, bytes);
        r->req = NULL;
    }
    pkt.kind = PKT_RTS;
    pkt.sreq = (uint64_t)(uintptr_t)r;
    pkt.offset = (uint64_t)(uintptr_t)r->data;
    r->word = take_word(proc, bytes);
    pkt.rreq = (uint64_t)(r->word + 1);
    bool buffered = send->mode == MPCRT_SEND_BUFFERED;
    if (!track_send(r)) {
        give_word(r->word);
        free(r->owned);
        free(r);
        if (buffered)
            mpcrt_request_complete(send);
        else
            fail_request(send);
        return MPI_SUCCESS;
    }
    out(proc, &pkt, NULL, 0); /* r may be gone once this returns (FIN, or the peer lost) */
    if (buffered)
        mpcrt_request_complete(send);
    return MPI_SUCCESS;
}

int mpcrt_remote_send_small(const void *buf, MPI_Count count, mpcrt_datatype_t *dt, uint32_t context, int tag,
                            int dst_world, int me)
{
    uint64_t bytes = (uint64_t)(count * dt->size);
    if (bytes > max_payload || (bytes && !mpcrt_datatype_is_contiguous(dt)))
        return -1;
    int proc = mpcrt_remote_proc_of(dst_world);
    packet_t pkt = {.kind = PKT_EAGER,
                    .dst_world = dst_world,
                    .source = me,
                    .tag = tag,
                    .context = context,
                    .bytes = bytes};
    /* Only straight into the rail: a packet that would wait in the outbox goes through mpcrt_remote_send,
     * whose request's wait runs the progress that drains it; a lost peer's error is the request's too. */
    return out_to(proc, &pkt, (const char *)buf + dt->true_lb, bytes, false, NULL) == 0 ? MPI_SUCCESS : -1;
}

/* The receiver has every byte (FIN, or the last fragment pushed): the send completes, and lets go of r. A
 * push may finish outside any poll lock, after peer_lost took the tracked list (the peer is marked lost
 * before): the send's hold is then peer_lost's to drop, and r is not touched here. */
static void finish_rndv_send(rndv_send_t *r, int proc)
{
    tracked_t *t = lock_tracked(proc);
    if (!t)
        return;
    MPCRT_LIST_REMOVE(t->sends, t->sends_tail, r, next, prev);
    mpcrt_spin_unlock(&t->lock);
    if (r->req)
        mpcrt_request_complete(r->req);
    release_send(r);
}

/* Claims the next fragment from the front of p's claim word: false when the receiver has the rest. */
static bool claim_fragment(push_t *p)
{
    if (!p->word)
        return false;
    uint64_t w = atomic_load_explicit(p->word, memory_order_relaxed), front, n;
    do {
        front = CLAIM_FRONT(w);
        if (front >= CLAIM_BACK(w))
            return false;
        n = CLAIM_BACK(w) - front < max_payload ? CLAIM_BACK(w) - front : max_payload;
    } while (!atomic_compare_exchange_weak_explicit(p->word, &w, CLAIM(front + n, CLAIM_BACK(w)),
                                                    memory_order_relaxed, memory_order_relaxed));
    p->sent = front;
    p->end = front + n;
    return true;
}

/* A fragment p claimed did not fit in the peer's queue: its bytes go back to the front of the claim word.
 * Kept, they were the receiver's to wait for: a sender that then computes outside MPI pushes nothing, and
 * the receiver, reading from the back what is not pushed, stops at the front, so the receive hung until
 * the sender's next MPI call (integration.procs_busy_rounds). Only the sender moves the front, which is
 * still p->end; the receiver may have lowered the back to it meanwhile. */
static void unclaim_fragment(push_t *p)
{
    uint64_t w = atomic_load_explicit(p->word, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(p->word, &w, CLAIM(p->sent, CLAIM_BACK(w)),
                                                  memory_order_relaxed, memory_order_relaxed))
        ;
    p->end = p->sent;
}

/* Sends what fits of p's fragments; true when every one is sent (or claimed by the receiver). */
static bool continue_push(push_t *p)
{
    outbox_t *box = &outboxes[p->proc];
    /* The outbox lock serializes this process's sends to p->proc (a rail's send is not reentrant per peer);
     * fragments need no place in its order, their record and offset say where they go. */
    if (atomic_exchange_explicit(&box->lock, 1, memory_order_acquire))
        return false; /* another thread sends to that peer: next progress */
    packet_t frag = {.kind = PKT_FRAG, .dst_world = p->dst_world, .src_proc = my_proc, .rreq = p->rreq};
    bool done = false;
    for (;;) {
        if (p->sent == p->end && !claim_fragment(p)) {
            done = true;
            break;
        }
        uint64_t n = p->end - p->sent < max_payload ? p->end - p->sent : max_payload;
        frag.offset = p->sent;
        frag.bytes = n;
        if (mpcrt_rails_send(p->proc, &frag, sizeof frag, p->r->data + p->sent, n) != 0) {
            /* Full: the receiver frees cells as it takes them, and may read a claimed fragment itself. */
            if (p->word)
                unclaim_fragment(p);
            break;
        }
        p->sent += n;
    }
    mpcrt_spin_unlock(&box->lock);
    return done;
}

/* A push that sent (or saw the receiver take) its last fragment. Without a claim word the receiver has
 * every byte in its cells and answers no FIN: the send completes now. */
static void end_push(push_t *p)
{
    if (!p->word)
        finish_rndv_send(p->r, p->proc);
    release_send(p->r);
    free(p);
}

static void push_fragments(const packet_t *cts)
{
    rndv_send_t *r = (rndv_send_t *)(uintptr_t)cts->sreq;
    push_t *p = malloc(sizeof *p);
    if (!p) {
        fprintf(stderr, "mpcrt: process %d: out of memory sending a message to process %d\n", my_proc,
                cts->src_proc);
        abort();
    }
    /* With a claim word the fragments are claimed from it one by one, else CTS says how many to send. */
    _Atomic uint64_t *word = r->word >= 0 ? mpcrt_rails_word(cts->src_proc, true, (uint32_t)r->word) : NULL;
    *p = (push_t){NULL, r, cts->src_proc, cts->dst_world, cts->rreq, 0, word ? 0 : cts->bytes, word};
    /* The push's hold, taken with the record (a FIN may be handled before this CTS): ours to drop now. */
    atomic_store_explicit(&r->push_settled, true, memory_order_relaxed);
    if (continue_push(p)) {
        end_push(p);
        return;
    }
    mpcrt_spin_lock(&push_lock);
    *pushes_tail = p;
    pushes_tail = &p->next;
    atomic_fetch_add_explicit(&npushes, 1, memory_order_relaxed);
    mpcrt_spin_unlock(&push_lock);
}

/* From progress: the pushes the peers' queues had no room for, oldest first. */
static int continue_pushes(void)
{
    if (atomic_exchange_explicit(&push_lock, 1, memory_order_acquire))
        return 0; /* another poller is at it */
    push_t *done = NULL;
    int events = 0;
    for (push_t **at = &pushes; *at;) {
        push_t *p = *at;
        uint64_t before = p->sent;
        bool finished = continue_push(p);
        events += p->sent != before;
        if (!finished) {
            at = &p->next;
            continue;
        }
        *at = p->next;
        if (pushes_tail == &p->next)
            pushes_tail = at;
        p->next = done;
        done = p;
        atomic_fetch_sub_explicit(&npushes, 1, memory_order_relaxed);
    }
    mpcrt_spin_unlock(&push_lock);
    /* Completions outside the lock: the sender's owner may run at once. */
    for (push_t *p = done, *next; p; p = next) {
        next = p->next;
        end_push(p);
    }
    return events;
}

/* ------------------------------------------------------------------ receiver side */

/* Every byte is in: the receive completes (and the send, at FIN, when it lent a claim word). f is out of
 * `readable`. Reads run outside the rail's poll lock, under which peer_lost runs: a process lost since
 * then owns f (as in finish_rndv_send). */
static void finish_fragmented(rndv_recv_t *f, int proc)
{
    tracked_t *t = lock_tracked(proc);
    if (!t)
        return;
    MPCRT_LIST_REMOVE(t->recvs, t->recvs_tail, f, next, prev);
    mpcrt_spin_unlock(&t->lock);
    if (f->word) {
        packet_t fin = {.kind = PKT_FIN, .dst_world = -1, .src_proc = my_proc, .sreq = f->sreq};
        out(proc, &fin, NULL, 0);
    }
    mpcrt_pt2pt_finish_recv(f->req, f->source, f->tag, (MPI_Count)f->sent, (MPI_Count)f->wanted);
    free(f);
}

/* Bytes of f arrived (fragments, or a read): true when they were the last. */
static bool count_in(rndv_recv_t *f, uint64_t bytes)
{
    return atomic_fetch_add_explicit(&f->received, bytes, memory_order_acq_rel) + bytes == f->wanted;
}

/* From progress: a receive whose sender pushed nothing for STALL_NS claims a chunk from the back of its
 * message and reads it from the sender's memory. One reader at a time. A receive stays in `readable` until
 * every byte is in (or a read fails), also while the sender has claimed everything left: a fragment it
 * claimed but found no room for comes back to the word (unclaim_fragment), possibly after we looked, and
 * the sender may compute outside MPI from then on. */
static int read_stalled(void)
{
    if (atomic_exchange_explicit(&readable_lock, 1, memory_order_acquire))
        return 0;
    uint64_t now = now_ns(), w = 0;
    rndv_recv_t *f = readable;
    for (; f; f = f->rnext) {
        if (now - f->cts_ns <= STALL_NS ||
            now - atomic_load_explicit(&tracked[f->proc].last_fragment_ns, memory_order_relaxed) <= STALL_NS)
            continue;
        w = atomic_load_explicit(f->word, memory_order_relaxed);
        if (CLAIM_FRONT(w) < CLAIM_BACK(w)) /* else its last fragments are on their way */
            break;
    }
    uint64_t back = 0, n = 0;
    while (f) {
        back = CLAIM_BACK(w);
        n = back - CLAIM_FRONT(w) < READ_CHUNK_BYTES ? back - CLAIM_FRONT(w) : READ_CHUNK_BYTES;
        if (!n || atomic_compare_exchange_weak_explicit(f->word, &w, w - n, memory_order_relaxed,
                                                        memory_order_relaxed))
            break;
    }
    if (!n) { /* no stalled receive, or its sender claimed the rest meanwhile */
        mpcrt_spin_unlock(&readable_lock);
        return 0;
    }
    bool done = false;
    struct iovec iov = {(char *)f->req->buf + f->req->datatype->true_lb + back - n, n};
    if (mpcrt_rails_get(f->proc, &iov, 1, f->addr + back - n, n) == 0) {
        done = count_in(f, n);
    } else {
        /* Refused, or the sender is gone (its rail reports that): give the chunk back for the sender to
         * push, unless it claimed everything meanwhile, and read no more. */
        w = atomic_load_explicit(f->word, memory_order_relaxed);
        while (!atomic_compare_exchange_weak_explicit(f->word, &w, w + n, memory_order_relaxed,
                                                      memory_order_relaxed))
            ;
        n = 0;
    }
    if (n == 0 || done)
        unlink_readable(f);
    int proc = f->proc; /* f may be peer_lost's once the lock is released */
    mpcrt_spin_unlock(&readable_lock);
    if (done)
        finish_fragmented(f, proc);
    return 1;
}

/* A matched RTS: answer CTS for fragments, or read it at once and answer FIN. */
void mpcrt_remote_pull(const mpcrt_remote_rts_t *rts, mpcrt_request_t *recv)
{
    MPI_Count capacity = recv->count * recv->datatype->size;
    uint64_t n = rts->bytes < (uint64_t)capacity ? rts->bytes : (uint64_t)capacity;
    packet_t reply = {.dst_world = -1, .src_proc = my_proc, .sreq = rts->sreq};
    if (mpcrt_rails_any_lost() && mpcrt_rails_lost(rts->proc)) {
        mpcrt_remote_fail_recv(recv); /* its data went with it */
        return;
    }
    bool contig = mpcrt_datatype_is_contiguous(recv->datatype);
    int rc = 0;
    if (n > 0 && n >= read_at_once_bytes) {
        void *temp = contig ? NULL : malloc(n);
        struct iovec iov = {contig ? (char *)recv->buf + recv->datatype->true_lb : temp, n};
        rc = iov.iov_base ? mpcrt_rails_get(rts->proc, &iov, 1, rts->addr, n) : -ENOMEM;
        if (rc == 0 && temp)
            mpcrt_datatype_unpack(recv->datatype, recv->buf, recv->count, 0, (MPI_Count)n, temp);
        free(temp);
    }
    if (n == 0 || (n >= read_at_once_bytes && rc == 0)) {
        reply.kind = PKT_FIN;
        reply.offset = FIN_WITHOUT_CTS;
        out(rts->proc, &reply, NULL, 0);
        mpcrt_pt2pt_finish_recv(recv, rts->source, rts->tag, (MPI_Count)rts->bytes, (MPI_Count)n);
        return;
    }
    rndv_recv_t *f = malloc(sizeof *f);
    if (!f) {
        fprintf(stderr, "mpcrt: out of memory receiving a message from process %d\n", rts->proc);
        abort();
    }
    _Atomic uint64_t *word = rts->word ? mpcrt_rails_word(rts->proc, false, rts->word - 1) : NULL;
    *f = (rndv_recv_t){.proc = rts->proc,
                       .req = recv,
                       .source = rts->source,
                       .tag = rts->tag,
                       .sent = rts->bytes,
                       .wanted = n,
                       .word = word,
                       .addr = rts->addr,
                       .sreq = rts->sreq,
                       .cts_ns = now_ns()};
    if (word) /* the sender claims from it only once it has our CTS */
        atomic_store_explicit(word, CLAIM(0, n), memory_order_relaxed);
    if (!track_recv(f)) {
        free(f);
        mpcrt_remote_fail_recv(recv);
        return;
    }
    /* Reads go straight into the user's buffer: only for a contiguous receive the rail can read for. */
    if (word && contig && mpcrt_rails_get(rts->proc, NULL, 0, 0, 0) == 0) {
        /* Before the CTS: fragments may complete f on another thread as soon as it is out. */
        mpcrt_spin_lock(&readable_lock);
        atomic_store_explicit(&f->readable, true, memory_order_relaxed);
        MPCRT_LIST_APPEND(readable, readable_tail, f, rnext, rprev);
        atomic_fetch_add_explicit(&nreadable, 1, memory_order_relaxed);
        mpcrt_spin_unlock(&readable_lock);
    }
    reply.kind = PKT_CTS;
    reply.rreq = (uint64_t)(uintptr_t)f;
    reply.bytes = n;
    out(rts->proc, &reply, NULL, 0);
}

static void take_fragment(const packet_t *frag, const char *data)
{
    rndv_recv_t *f = (rndv_recv_t *)(uintptr_t)frag->rreq;
    mpcrt_request_t *recv = f->req;
    if (atomic_load_explicit(&f->readable, memory_order_relaxed)) /* only decides whether to note the time */
        atomic_store_explicit(&tracked[f->proc].last_fragment_ns, now_ns(), memory_order_relaxed);
    mpcrt_datatype_unpack(recv->datatype, recv->buf, recv->count, (MPI_Count)frag->offset,
                          (MPI_Count)frag->bytes, data);
    if (!count_in(f, frag->bytes))
        return;
    if (atomic_load_explicit(&f->readable, memory_order_relaxed)) {
        /* The sender claimed the last bytes: f leaves `readable` before it is freed. */
        mpcrt_spin_lock(&readable_lock);
        if (atomic_load_explicit(&f->readable, memory_order_relaxed))
            unlink_readable(f);
        mpcrt_spin_unlock(&readable_lock);
    }
    finish_fragmented(f, f->proc);
}

static void deliver_now(const void *packet, size_t bytes);

static void defer(int dst_world, const void *packet, size_t bytes)
{
    int local = dst_world - first_local_rank;
    deferred_t *d = (unsigned)local < (unsigned)nlocal_ranks ? malloc(sizeof *d + bytes) : NULL;
    if (!d) {
        deliver_now(packet, bytes); /* not ours to route (deliver_now reports it), or no memory */
        return;
    }
    d->next = NULL;
    d->bytes = bytes;
    memcpy(d->packet, packet, bytes);
    owner_queue_t *q = &owner_queues[local];
    mpcrt_spin_lock(&q->lock);
    if (q->tail)
        q->tail->next = d;
    else
        q->head = d;
    q->tail = d;
    mpcrt_spin_unlock(&q->lock);
}

/* The calling rank handles the messages queued for it, in arrival order. */
static int take_own(void)
{
    int local = mpcrt_self_rank() - first_local_rank;
    if ((unsigned)local >= (unsigned)nlocal_ranks)
        return 0;
    owner_queue_t *q = &owner_queues[local];
    if (!q->head || atomic_exchange_explicit(&q->busy, 1, memory_order_acquire))
        return 0;
    int handled = 0;
    for (;;) {
        mpcrt_spin_lock(&q->lock);
        deferred_t *batch = q->head;
        q->head = q->tail = NULL;
        mpcrt_spin_unlock(&q->lock);
        if (!batch)
            break;
        for (deferred_t *d = batch, *next; d; d = next) {
            next = d->next;
            deliver_now(d->packet, d->bytes);
            free(d);
            handled++;
        }
    }
    atomic_store_explicit(&q->busy, 0, memory_order_release);
    return handled;
}

static void deliver(const void *packet, size_t bytes)
{
    uint8_t kind = *(const uint8_t *)packet;
    if (!collab && (kind == PKT_EAGER || kind == PKT_RTS)) {
        int32_t dst_world;
        memcpy(&dst_world, (const char *)packet + offsetof(packet_t, dst_world), sizeof dst_world);
        defer(dst_world, packet, bytes);
        return;
    }
    deliver_now(packet, bytes);
}

static void deliver_now(const void *packet, size_t bytes)
{
    if (*(const uint8_t *)packet == PKT_EAGER && bytes >= EAGER_HEADER) {
        /* The message-rate path: the fields straight from the cell (unaligned loads), no packet copy. */
        int32_t dst_world, source, tag;
        uint32_t context;
        const char *p = packet;
        memcpy(&dst_world, p + offsetof(packet_t, dst_world), sizeof dst_world);
        memcpy(&source, p + offsetof(packet_t, source), sizeof source);
        memcpy(&tag, p + offsetof(packet_t, tag), sizeof tag);
        memcpy(&context, p + offsetof(packet_t, context), sizeof context);
        mpcrt_mpi_rank_t *dest = mpcrt_mpi_rank_state(dst_world);
        if (dest && dest->match) {
            mpcrt_match_remote_eager(dest->match, context, source, tag, p + EAGER_HEADER,
                                     bytes - EAGER_HEADER);
            return;
        }
    }
    packet_t pkt;
    /* Cells keep no alignment promise for the header's fields: copy them out. */
    memcpy(&pkt, packet, EAGER_HEADER);
    if (pkt.kind == PKT_EAGER) {
        pkt.src_proc = -1; /* not sent: an eager message needs no reply */
        pkt.bytes = bytes - EAGER_HEADER;
        pkt.sreq = pkt.offset = 0;
    } else {
        memcpy(&pkt, packet, sizeof pkt);
    }
    const char *payload = (const char *)packet + HEADER_BYTES(&pkt);
    if (pkt.kind >= PKT_FIN && mpcrt_rails_any_lost() && mpcrt_rails_lost(pkt.src_proc))
        return; /* about a rendezvous that failed with its peer */
    switch (pkt.kind) {
    case PKT_EAGER:
    case PKT_RTS: {
        mpcrt_mpi_rank_t *dest = mpcrt_mpi_rank_state(pkt.dst_world);
        if (!dest || !dest->match) {
            fprintf(stderr, "mpcrt: process %d got a message for rank %d, which it does not host\n", my_proc,
                    pkt.dst_world);
            return;
        }
        mpcrt_remote_rts_t in = {.proc = pkt.src_proc,
                                 .source = pkt.source,
                                 .tag = pkt.tag,
                                 .context = pkt.context,
                                 .bytes = pkt.bytes,
                                 .sreq = pkt.sreq,
                                 .addr = pkt.offset,
                                 .word = (uint32_t)pkt.rreq,
                                 .eager_data = pkt.kind == PKT_EAGER ? payload : NULL};
        mpcrt_match_remote_arrival(dest->match, &in);
        break;
    }
    case PKT_FIN: {
        rndv_send_t *r = (rndv_send_t *)(uintptr_t)pkt.sreq;
        if (pkt.offset == FIN_WITHOUT_CTS)
            release_unpushed(r); /* first: r lives on by the send's hold until finish_rndv_send */
        finish_rndv_send(r, pkt.src_proc);
        break;
    }
    case PKT_CTS:
        push_fragments(&pkt);
        break;
    case PKT_FRAG:
        take_fragment(&pkt, payload);
        break;
    default:
        fprintf(stderr, "mpcrt: process %d got a packet of unknown kind %d\n", my_proc, pkt.kind);
    }
}

/* The progress hook: whichever ULT waits, or an idle VP, polls the rails and flushes refused packets. */
static int progress(void *arg)
{
    (void)arg;
    int events = mpcrt_rails_poll(deliver);
    if (atomic_load_explicit(&pending_count, memory_order_relaxed) || mpcrt_rails_unflushed())
        events += drain_outboxes();
    if (atomic_load_explicit(&npushes, memory_order_relaxed))
        events += continue_pushes();
    if (atomic_load_explicit(&nreadable, memory_order_relaxed))
        events += read_stalled();
    if (!collab)
        events += take_own();
    return events;
}

static bool outboxes_empty(void *arg)
{
    (void)arg;
    return atomic_load_explicit(&pending_count, memory_order_relaxed) == 0 &&
           atomic_load_explicit(&npushes, memory_order_relaxed) == 0 && !mpcrt_rails_unflushed();
}

void mpcrt_remote_flush(void)
{
    /* Packets a full queue refused, or a socket took only part of, are only in this process: they must
     * reach their peers before it exits (an eager send completed long ago; the last round of the final
     * barrier). */
    if (outboxes)
        mpcrt_wait_until(outboxes_empty, NULL);
}

bool mpcrt_remote_ready(void)
{
    return mpcrt_rails_ready();
}

int mpcrt_remote_init(void)
{
    my_proc = mpcrt_wireup_proc();
    ranks_per_proc = mpcrt_job_local_ranks();
    outboxes = calloc((size_t)mpcrt_wireup_num_procs(), sizeof *outboxes);
    tracked = calloc((size_t)mpcrt_wireup_num_procs(), sizeof *tracked);
    if (!outboxes || !tracked)
        return -ENOMEM;
    mpcrt_rails_on_lost(peer_lost);
    collab = mpcrt_config_int(MPCRT_CFG_COLLAB_POLL) != 0;
    first_local_rank = mpcrt_job_first_rank();
    nlocal_ranks = mpcrt_job_local_ranks();
    if (!collab && !(owner_queues = calloc((size_t)nlocal_ranks, sizeof *owner_queues)))
        return -ENOMEM;
    int rc = mpcrt_rails_init();
    if (rc)
        return rc;
    max_payload = mpcrt_rails_max_packet() - sizeof(packet_t);
    read_at_once_bytes = (uint64_t)mpcrt_config_int(MPCRT_CFG_SHM_CMA_MIN);
    for (nfree_words = 0; nfree_words < MPCRT_RAIL_WORDS; nfree_words++)
        free_words[nfree_words] = MPCRT_RAIL_WORDS - 1 - nfree_words;
    return mpcrt_sched_add_progress_hook(progress, NULL);
}
