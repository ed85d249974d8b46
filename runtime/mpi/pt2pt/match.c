/* Per-receiver matching and the same-process protocols (see pt2pt.h). Lock order: one receiver's match
 * lock at a time, never held while copying user data or waking anyone. */
#include "pt2pt.h"
#include "stream_ring.h"
#include "../core/list.h"
#include "../core/vpcache.h"
#include "../rails/rail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../threads/config.h"

typedef struct bin bin_t;

typedef struct message {
    struct message *src_next, *src_prev; /* in its (context, source) bin */
    struct message *all_next, *all_prev; /* in its context's arrival list */
    bin_t *bin;
    int source, tag;
    MPI_Count bytes;
    mpcrt_request_t *send;       /* descriptor of a large or synchronous send; NULL: the data is in `data` */
    mpcrt_remote_rts_t *remote;  /* rendezvous request from another process (its data stays there) */
    bool cell;                   /* from the per-VP cell cache (small eager messages), else from malloc */
    char data[];
} message_t;

struct bin { /* one (context, source) pair */
    uint64_t key;
    bin_t *hash_next;
    struct ctxq *ctx;
    mpcrt_request_t *posted_head, *posted_tail;
    message_t *unexp_head, *unexp_tail;
};

/* A bin of its own allocation (every bin but the hot one), on its context's list so that the context's bins
 * can go with its communicator (mpcrt_match_forget_contexts). In the bin's line: the bin is 56 bytes. */
typedef struct heap_bin {
    bin_t bin;
    struct heap_bin *ctx_next;
} heap_bin_t;

typedef struct ctxq { /* one context */
    uint32_t context;
    struct ctxq *hash_next;
    mpcrt_request_t *any_head, *any_tail; /* MPI_ANY_SOURCE receives */
    message_t *all_head, *all_tail;       /* every unexpected message, in arrival order */
    heap_bin_t *bins;                     /* its bins but the hot one */
} ctxq_t;

struct mpcrt_match {
    /* The first line holds the lock and one bin, the hot bin: a sender on another core that takes the lock
     * gets the bin of the pair in use with it (posted receives), and so does the receiver posting its next
     * receive, so a message moves one line less each way. A new pair takes the hot bin over when it is empty
     * (find_bin_slow), so the pair a rank talks with now is usually there. Hence a bin pointer is only good
     * while the lock is held: every other bin lives as long as its receiver, the hot one may change pairs.
     * The lock is biased (sched.h): two ranks of one VP take it without an atomic exchange. */
    _Alignas(64) mpcrt_biased_lock_t lock;
    bin_t hot; /* hot.ctx == NULL: not in use */
    uint64_t next_seq;
    bin_t *last_bin; /* the last bin looked up: a rank talking to one peer at a time skips the hash */
    bin_t **bins;
    size_t bin_buckets, nbins;
    ctxq_t **ctxs;
    size_t ctx_buckets, nctxs;
    size_t nposted; /* posted receives, in every queue */
    /* Receives a drain matched with ring records (copied under the lock), completed by whoever unlocks
     * (unlock_complete): completing wakes, which the lock never covers. Linked through `next`. */
    mpcrt_request_t *ring_done;
    /* Thread mode's small-message streams: while `streaming`, senders of this process write small
     * messages into a ring per sending rank (`rings`, stream_ring.h) instead of taking the lock, which a
     * sender and its receiver on two cores took three times per message between them, and the receiver
     * matches them when it drains the inbox (its rings). Whoever takes the lock to match drains the inbox
     * first, so a sender's messages keep their order (a sender whose ring is full takes the lock, which
     * drains its ring first).
     * `streaming` is set by a small message that found no receive posted at all (so nobody can be waiting
     * for one), and by a ULT of the rank that starts spinning in a wait for the only receive posted, its
     * own (stream_to_spinner: its spin drains). From then on the receiving rank drains: in every MPI call
     * that takes its lock but an MPI_Irecv's posting (post_recv), in its progress hook (so in every wait and
     * test), and before any of its ULTs parks (mpcrt_match_park: clear, then drain). So a message may sit in
     * the inbox while a receive it matches is posted, but never while a thread of the rank sleeps on that
     * receive. Postings that no such drain follows clear the flag and drain, as a park does: a blocking
     * MPI_Recv whose ULT will not spin (two ranks of one core: a sender then copies straight into it, the
     * latency path), a receive posted for the rank by the collectives' engine (its progress must not depend
     * on the rank calling MPI), one posted from a kernel thread, and every posting when the hooks are not
     * installed (one rank per process). A sender that pushed reads `streaming` again and drains itself if it
     * was cleared meanwhile: with the clear-then-drain this is a Dekker pair, so either the clearer's drain
     * or the pusher's sees each message. Own lines: the flag and the ring table are read by every sender and
     * rarely written; the bell is written by them. */
    _Alignas(64) _Atomic bool streaming;
    mpcrt_ring_t *_Atomic *_Atomic rings; /* by the sender's local rank index; made at the first push */
    mpcrt_ring_t *_Atomic ring_list;      /* every ring made, for the drains (push-only) */
    _Atomic unsigned nrings;              /* on ring_list */
    _Atomic unsigned ring_claims;         /* rings given out (or about to be), up to RINGS_MAX */
    /* With more than RINGS_UNBELLED rings: set by a sender after it published a record, cleared by the
     * drain (an exchange) before it reads the rings, so that a drain does not look at every ring, and one
     * that finds the bell clear looks at none. A sender that read the bell set before the drain's exchange
     * published before it, so the drain sees its record. With fewer rings every drain looks at each (one
     * line each, where the record is): a bell set and cleared around every message moved one more line
     * each way (8 B windows across two cores, 0.064 us per message with it). */
    _Alignas(64) _Atomic bool bell;
};

/* RINGS_MAX: rings a receiving rank gives out (8 KiB each), to the first senders that stream to it; the
 * others take the lock. Rings for every pair took 32 MiB more with 64 ranks exchanging small messages all
 * to all (0.5 GiB at 256). NO_RING marks a sender that got none. */
enum { RINGS_UNBELLED = 2, RINGS_MAX = 8 };
#define NO_RING ((mpcrt_ring_t *)(uintptr_t)1)

_Static_assert(offsetof(struct mpcrt_match, next_seq) == 64, "the lock and the hot bin fill the first line");

static MPI_Count eager_limit = -1;
/* The most bytes a message in an eager cell holds: the largest message the streams take (struct
 * mpcrt_match), and the largest queued in a cell rather than malloc'd memory (alloc_message). */
#define CELL_DATA_BYTES (MPCRT_VPCACHE_CELL_BYTES - sizeof(message_t))
_Static_assert(CELL_DATA_BYTES <= MPCRT_RING_MAX_PAYLOAD, "every message the streams take fits a ring record");
/* The progress and park hooks that drain a rank's inbox are installed (mpcrt_match_install_hooks). */
static bool rank_drains;

mpcrt_match_t *mpcrt_match_create(void)
{
    mpcrt_match_t *m = aligned_alloc(64, (sizeof *m + 63) / 64 * 64);
    if (m)
        memset(m, 0, sizeof *m);
    if (!m)
        return NULL;
    mpcrt_biased_lock_init(&m->lock);
    m->bin_buckets = 16;
    m->ctx_buckets = 8;
    m->bins = calloc(m->bin_buckets, sizeof *m->bins);
    m->ctxs = calloc(m->ctx_buckets, sizeof *m->ctxs);
    if (!m->bins || !m->ctxs) {
        free(m->bins);
        free(m->ctxs);
        free(m);
        return NULL;
    }
    if (eager_limit < 0)
        eager_limit = mpcrt_config_int(MPCRT_CFG_EAGER_LIMIT);
    return m;
}

static size_t hash64(uint64_t key, size_t buckets)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)(key & (buckets - 1));
}

static ctxq_t *find_ctx(mpcrt_match_t *m, uint32_t context, bool create)
{
    size_t b = hash64(context, m->ctx_buckets);
    for (ctxq_t *q = m->ctxs[b]; q; q = q->hash_next)
        if (q->context == context)
            return q;
    if (!create)
        return NULL;
    if (m->nctxs >= 2 * m->ctx_buckets) { /* grow: rehash every context */
        size_t buckets = m->ctx_buckets * 4;
        ctxq_t **table = calloc(buckets, sizeof *table);
        if (table) {
            for (size_t i = 0; i < m->ctx_buckets; i++)
                for (ctxq_t *q = m->ctxs[i], *next; q; q = next) {
                    next = q->hash_next;
                    size_t nb = hash64(q->context, buckets);
                    q->hash_next = table[nb];
                    table[nb] = q;
                }
            free(m->ctxs);
            m->ctxs = table;
            m->ctx_buckets = buckets;
            b = hash64(context, buckets);
        }
    }
    ctxq_t *q = calloc(1, sizeof *q);
    if (!q)
        return NULL;
    q->context = context;
    q->hash_next = m->ctxs[b];
    m->ctxs[b] = q;
    m->nctxs++;
    return q;
}

static bool bin_empty(const bin_t *bin)
{
    return !bin->posted_head && !bin->unexp_head;
}

static void unhash_bin(mpcrt_match_t *m, bin_t *bin)
{
    for (bin_t **at = &m->bins[hash64(bin->key, m->bin_buckets)]; *at; at = &(*at)->hash_next)
        if (*at == bin) {
            *at = bin->hash_next;
            break;
        }
    m->nbins--;
}

/* Gives the (empty) hot bin to a new pair: out of its old hash chain, into the new one. */
static bin_t *rekey_hot(mpcrt_match_t *m, ctxq_t *q, uint64_t key)
{
    bin_t *hot = &m->hot;
    if (hot->ctx)
        unhash_bin(m, hot);
    size_t b = hash64(key, m->bin_buckets);
    *hot = (bin_t){.key = key, .ctx = q, .hash_next = m->bins[b]};
    m->bins[b] = hot;
    m->nbins++;
    return hot;
}

static __attribute__((noinline)) bin_t *find_bin_slow(mpcrt_match_t *m, uint32_t context, int source,
                                                      bool create)
{
    uint64_t key = (uint64_t)context << 32 | (uint32_t)source;
    size_t b = hash64(key, m->bin_buckets);
    for (bin_t *bin = m->bins[b]; bin; bin = bin->hash_next)
        if (bin->key == key)
            return m->last_bin = bin;
    if (!create)
        return NULL;
    ctxq_t *q = find_ctx(m, context, true);
    if (!q)
        return NULL;
    if (bin_empty(&m->hot)) /* nothing refers to an empty bin: re-key it */
        return m->last_bin = rekey_hot(m, q, key);
    if (m->nbins >= 2 * m->bin_buckets) {
        size_t buckets = m->bin_buckets * 4;
        bin_t **table = calloc(buckets, sizeof *table);
        if (table) {
            for (size_t i = 0; i < m->bin_buckets; i++)
                for (bin_t *x = m->bins[i], *next; x; x = next) {
                    next = x->hash_next;
                    size_t nb = hash64(x->key, buckets);
                    x->hash_next = table[nb];
                    table[nb] = x;
                }
            free(m->bins);
            m->bins = table;
            m->bin_buckets = buckets;
            b = hash64(key, buckets);
        }
    }
    /* One cache line per bin: a sender on another core pulls just that line to find the posted receive. */
    heap_bin_t *hb = aligned_alloc(64, (sizeof *hb + 63) / 64 * 64);
    if (!hb)
        return NULL;
    memset(hb, 0, sizeof *hb);
    hb->ctx_next = q->bins;
    q->bins = hb;
    bin_t *bin = &hb->bin;
    bin->key = key;
    bin->ctx = q;
    bin->hash_next = m->bins[b];
    m->bins[b] = bin;
    m->nbins++;
    return m->last_bin = bin;
}

static inline bin_t *find_bin(mpcrt_match_t *m, uint32_t context, int source, bool create)
{
    uint64_t key = (uint64_t)context << 32 | (uint32_t)source;
    if (m->hot.key == key && m->hot.ctx)
        return &m->hot; /* in the lock's line */
    if (m->last_bin && m->last_bin->key == key)
        return m->last_bin; /* a bin that goes (mpcrt_match_forget_contexts) takes this pointer along */
    return find_bin_slow(m, context, source, create);
}

static bool tag_matches(int wanted, int tag)
{
    return wanted == MPI_ANY_TAG || wanted == tag;
}

static void unlink_message(message_t *msg)
{
    MPCRT_LIST_REMOVE(msg->bin->unexp_head, msg->bin->unexp_tail, msg, src_next, src_prev);
    MPCRT_LIST_REMOVE(msg->bin->ctx->all_head, msg->bin->ctx->all_tail, msg, all_next, all_prev);
}

static inline __attribute__((always_inline)) void unlink_posted(mpcrt_match_t *m, mpcrt_request_t *req)
{
    m->nposted--;
    if (req->peer == MPI_ANY_SOURCE) {
        ctxq_t *q = req->match_queue;
        MPCRT_LIST_REMOVE(q->any_head, q->any_tail, req, next, prev);
    } else {
        bin_t *bin = req->match_queue;
        MPCRT_LIST_REMOVE(bin->posted_head, bin->posted_tail, req, next, prev);
    }
}

/* The earliest-posted receive matching (context, source, tag), removed from its queue. */
static inline __attribute__((always_inline)) mpcrt_request_t *take_posted(mpcrt_match_t *m, uint32_t context,
                                                                          int source, int tag)
{
    mpcrt_request_t *specific = NULL, *any = NULL;
    bin_t *bin = find_bin(m, context, source, false);
    if (bin)
        for (mpcrt_request_t *r = bin->posted_head; r && !specific; r = r->next)
            if (tag_matches(r->tag, tag))
                specific = r;
    ctxq_t *q = bin ? bin->ctx : find_ctx(m, context, false);
    if (q)
        for (mpcrt_request_t *r = q->any_head; r && !any; r = r->next)
            if (tag_matches(r->tag, tag))
                any = r;
    if (!any && specific) { /* the usual case: unlinked from the bin at hand, no test of its queue */
        m->nposted--;
        MPCRT_LIST_REMOVE(bin->posted_head, bin->posted_tail, specific, next, prev);
        specific->matched = true; /* as below */
        return specific;
    }
    mpcrt_request_t *chosen = !any ? specific : !specific ? any : specific->seq < any->seq ? specific : any;
    if (chosen) {
        unlink_posted(m, chosen);
        chosen->matched = true; /* under the receiver's lock: MPI_Cancel can no longer take it back */
    }
    return chosen;
}

/* The earliest-arrived unexpected message a receive (source may be ANY) matches; removed when `take`. */
static message_t *find_unexpected(mpcrt_match_t *m, uint32_t context, int source, int tag, bool take)
{
    message_t *found = NULL;
    if (source == MPI_ANY_SOURCE) {
        ctxq_t *q = find_ctx(m, context, false);
        for (message_t *msg = q ? q->all_head : NULL; msg && !found; msg = msg->all_next)
            if (tag_matches(tag, msg->tag))
                found = msg;
    } else {
        bin_t *bin = find_bin(m, context, source, false);
        for (message_t *msg = bin ? bin->unexp_head : NULL; msg && !found; msg = msg->src_next)
            if (tag_matches(tag, msg->tag))
                found = msg;
    }
    if (found && take)
        unlink_message(found);
    return found;
}

/* ------------------------------------------------------------------ data movement */

/* Copies min(sent, capacity) bytes of the packed stream from the sender's buffer to the receiver's, once:
 * memcpy when both sides are contiguous, else the datatype engine walks both layouts together (no bounce
 * buffer, whatever the sizes). Returns the bytes copied. */
static __attribute__((noinline)) void transfer_slow(const void *sbuf, MPI_Count scount,
                                                    const mpcrt_datatype_t *sdt, void *rbuf, MPI_Count rcount,
                                                    const mpcrt_datatype_t *rdt, MPI_Count n,
                                                    mpcrt_request_t *peer);

static inline MPI_Count transfer(const void *sbuf, MPI_Count scount, const mpcrt_datatype_t *sdt, void *rbuf,
                                 MPI_Count rcount, const mpcrt_datatype_t *rdt, MPI_Count bytes,
                                 mpcrt_request_t *peer)
{
    MPI_Count capacity = rcount * rdt->size;
    MPI_Count n = bytes < capacity ? bytes : capacity;
    if (n <= 0)
        return 0;
    if (n <= 64 && mpcrt_datatype_is_contiguous(sdt) && mpcrt_datatype_is_contiguous(rdt))
        mpcrt_copy_upto64((char *)rbuf + rdt->true_lb, (const char *)sbuf + sdt->true_lb,
                          (size_t)n); /* the latency path */
    else
        transfer_slow(sbuf, scount, sdt, rbuf, rcount, rdt, n, peer);
    return n;
}

static void transfer_slow(const void *sbuf, MPI_Count scount, const mpcrt_datatype_t *sdt, void *rbuf,
                          MPI_Count rcount, const mpcrt_datatype_t *rdt, MPI_Count n, mpcrt_request_t *peer)
{
    bool scontig = mpcrt_datatype_is_contiguous(sdt), rcontig = mpcrt_datatype_is_contiguous(rdt);
    if (scontig && rcontig) {
        mpcrt_pt2pt_copy((char *)rbuf + rdt->true_lb, (const char *)sbuf + sdt->true_lb, n, peer);
    } else if (scontig) {
        mpcrt_datatype_unpack(rdt, rbuf, rcount, 0, n, (const char *)sbuf + sdt->true_lb);
    } else if (rcontig) {
        mpcrt_datatype_pack(sdt, sbuf, scount, 0, n, (char *)rbuf + rdt->true_lb);
    } else {
        mpcrt_datatype_copy(sdt, sbuf, scount, rdt, rbuf, rcount, 0, n);
    }
}

/* Up to 8 contiguous bytes for a blocking receive go into its request (pt2pt.h, inline_ok): the receiver's
 * waiter then finds data, status and completion in one line. False: use transfer(). */
static inline bool transfer_inline(const void *sbuf, const mpcrt_datatype_t *sdt, mpcrt_request_t *recv,
                                   MPI_Count bytes, MPI_Count *copied)
{
    if (!recv->inline_ok)
        return false;
    const mpcrt_datatype_t *rdt = recv->datatype;
    MPI_Count capacity = recv->count * rdt->size;
    MPI_Count n = bytes < capacity ? bytes : capacity;
    if (n > (MPI_Count)sizeof recv->inline_data || !mpcrt_datatype_is_contiguous(sdt) ||
        !mpcrt_datatype_is_contiguous(rdt))
        return false;
    *copied = n > 0 ? n : 0;
    if (n > 0) {
        mpcrt_copy_upto8(recv->inline_data, (const char *)sbuf + sdt->true_lb, (size_t)n);
        recv->inline_len = (uint8_t)n;
    }
    return true;
}

/* Writes a matched receive's status (the sender's rank, tag, truncation, count): finish_recv without the
 * completion. */
static inline void set_recv_status(mpcrt_request_t *recv, int source, int tag, MPI_Count sent, MPI_Count copied)
{
    recv->status.MPI_SOURCE = source;
    recv->status.MPI_TAG = tag;
    recv->status.MPI_ERROR = sent > copied ? MPI_ERR_TRUNCATE : MPI_SUCCESS;
    /* mpcrt_status_set_bytes with the cancelled bit 0, written rather than kept: a receive that completes
     * here was matched, and MPI_Cancel takes back only receives that were not. */
    recv->status.count_lo = (int)(unsigned)(copied & 0xffffffff);
    recv->status.count_hi_and_cancelled = (int)((unsigned)(copied >> 32) << 1);
}

static inline void finish_recv(mpcrt_request_t *recv, int source, int tag, MPI_Count sent, MPI_Count copied)
{
    set_recv_status(recv, source, tag, sent, copied);
    mpcrt_request_complete(recv);
}

void mpcrt_pt2pt_finish_recv(mpcrt_request_t *recv, int source, int tag, MPI_Count sent, MPI_Count copied)
{
    finish_recv(recv, source, tag, sent, copied);
}

static message_t *alloc_message(size_t data_bytes)
{
    bool cell = data_bytes <= CELL_DATA_BYTES;
    message_t *msg = cell ? mpcrt_vpcache_alloc(MPCRT_VPCACHE_CELL) : malloc(sizeof *msg + data_bytes);
    if (msg)
        msg->cell = cell;
    return msg;
}

static void free_message(message_t *msg)
{
    if (msg->cell)
        mpcrt_vpcache_free(MPCRT_VPCACHE_CELL, msg);
    else
        free(msg);
}

/* A matched unexpected message meets its receive: the receiver's single copy. */
static void deliver(message_t *msg, mpcrt_request_t *recv)
{
    MPI_Count copied;
    if (msg->remote) {
        mpcrt_remote_pull(msg->remote, recv);
        free(msg->remote);
        free_message(msg);
        return;
    }
    if (msg->send) {
        mpcrt_request_t *send = msg->send;
        copied = transfer(send->buf, send->count, send->datatype, recv->buf, recv->count, recv->datatype,
                          msg->bytes, send);
        mpcrt_request_complete(send); /* after the copy: the sender may reuse its buffer now */
    } else {
        MPI_Count capacity = recv->count * recv->datatype->size;
        copied = msg->bytes < capacity ? msg->bytes : capacity;
        if (copied > 0)
            mpcrt_datatype_unpack(recv->datatype, recv->buf, recv->count, 0, copied, msg->data);
    }
    mpcrt_pt2pt_finish_recv(recv, msg->source, msg->tag, msg->bytes, copied);
    free_message(msg);
}

static inline mpcrt_match_t *receiver_match(mpcrt_comm_t *comm, int dest)
{
    /* On an intercommunicator dest is a rank of the remote group; the source recorded for the receiver
     * (`me` in the senders below) is then our rank in our local group, which is what it expects. */
    int world = mpcrt_comm_peer_group(comm)->world[dest];
    mpcrt_mpi_rank_t *r = mpcrt_mpi_rank_state(world);
    return r ? r->match : NULL;
}
/* The same for a caller that passed the quick check: the ranks are set up, ranks[] needs no test. */
static inline mpcrt_match_t *receiver_match_ready(mpcrt_comm_t *comm, int dest)
{
    unsigned local = (unsigned)(mpcrt_comm_peer_group(comm)->world[dest] - mpcrt_mpi_process.first_rank);
    return local < (unsigned)mpcrt_mpi_process.nranks ? mpcrt_mpi_process.ranks[local].match : NULL;
}

/* ------------------------------------------------------------------ operations */

/* What a local send needs from its caller: the message and, for a large or synchronous send, the request
 * the receiver completes (a small standard send needs none: MPI_Send's fast path passes NULL). */
typedef struct {
    const void *buf;
    MPI_Count count;
    const mpcrt_datatype_t *dt;
    uint32_t context;
    int me, tag;
    mpcrt_request_t *send;
    const mpcrt_comm_t *comm; /* me is a rank of its (local) group */
} local_send_t;

static inline void describe_message(message_t *msg, bin_t *bin, const local_send_t *s, MPI_Count bytes,
                                    bool eager)
{
    msg->bin = bin;
    msg->source = s->me;
    msg->tag = s->tag;
    msg->bytes = bytes;
    msg->send = eager ? NULL : s->send;
    msg->remote = NULL;
}

static void enqueue_unexpected(bin_t *bin, message_t *msg)
{
    MPCRT_LIST_APPEND(bin->unexp_head, bin->unexp_tail, msg, src_next, src_prev);
    MPCRT_LIST_APPEND(bin->ctx->all_head, bin->ctx->all_tail, msg, all_next, all_prev);
}

/* An eager message's bytes (packed) into the receive it matched, at most the receive's capacity; returns
 * the bytes copied. */
static MPI_Count copy_eager(mpcrt_request_t *recv, const void *data, MPI_Count bytes)
{
    MPI_Count capacity = recv->count * recv->datatype->size;
    MPI_Count copied = bytes < capacity ? bytes : capacity;
    if (copied > 0 && mpcrt_datatype_is_contiguous(recv->datatype))
        memcpy((char *)recv->buf + recv->datatype->true_lb, data, (size_t)copied);
    else if (copied > 0)
        mpcrt_datatype_unpack(recv->datatype, recv->buf, recv->count, 0, copied, data);
    return copied;
}

/* An eager message whose bytes are not the caller's to keep (a ring record, a rail's cell) and that matched
 * no receive, with m's lock held: copied into a cell and queued, under the lock so that a receive posted
 * meanwhile cannot overtake it. */
static void queue_eager_copy(mpcrt_match_t *m, uint32_t context, int source, int tag, const void *data,
                             size_t bytes)
{
    bin_t *bin = find_bin(m, context, source, true);
    message_t *msg = bin ? alloc_message(bytes) : NULL;
    if (!msg) {
        mpcrt_biased_unlock(&m->lock);
        fprintf(stderr, "mpcrt: out of memory queueing a message from rank %d\n", source);
        abort();
    }
    msg->bin = bin;
    msg->source = source;
    msg->tag = tag;
    msg->bytes = (MPI_Count)bytes;
    msg->send = NULL;
    msg->remote = NULL;
    if (bytes)
        memcpy(msg->data, data, bytes);
    enqueue_unexpected(bin, msg);
}

/* One ring record, with m's lock held: into the posted receive it matches (copied now; the receive joins
 * m->ring_done), or queued as an unexpected message. */
static void drain_record(mpcrt_match_t *m, mpcrt_ring_rec_t *rec)
{
    MPI_Count bytes = rec->bytes;
    mpcrt_request_t *recv = take_posted(m, rec->context, rec->source, rec->tag);
    if (!recv) {
        queue_eager_copy(m, rec->context, rec->source, rec->tag, mpcrt_ring_payload(rec), (size_t)bytes);
        return;
    }
    set_recv_status(recv, rec->source, rec->tag, bytes, copy_eager(recv, mpcrt_ring_payload(rec), bytes));
    recv->next = m->ring_done;
    m->ring_done = recv;
}

/* Moves what the rings hold into the queues, each ring oldest first (with m's lock held): each message
 * meets a posted receive it matches (completed by unlock_complete) or waits as an unexpected message. */
static void drain_inbox_locked(mpcrt_match_t *m)
{
    /* seq_cst: an RMW, ordered after a posting's clear of `streaming` (see struct mpcrt_match), and
     * before the rings' stamps are read (see `bell`). A fence when the bell is not in use. */
    if (atomic_load_explicit(&m->nrings, memory_order_relaxed) > RINGS_UNBELLED)
        atomic_exchange_explicit(&m->bell, false, memory_order_seq_cst);
    else
        atomic_thread_fence(memory_order_seq_cst);
    for (mpcrt_ring_t *r = atomic_load_explicit(&m->ring_list, memory_order_acquire); r; r = r->next)
        for (mpcrt_ring_rec_t *rec; (rec = mpcrt_ring_peek(r));) {
            drain_record(m, rec);
            mpcrt_ring_pop(r, rec);
        }
}

/* Whether the rings may hold records, with m's lock held (the rings' heads are exact only then). */
static inline bool inbox_busy(mpcrt_match_t *m)
{
    unsigned n = atomic_load_explicit(&m->nrings, memory_order_relaxed);
    if (n > RINGS_UNBELLED)
        return atomic_load_explicit(&m->bell, memory_order_relaxed);
    for (mpcrt_ring_t *r = n ? atomic_load_explicit(&m->ring_list, memory_order_acquire) : NULL; r; r = r->next)
        if (mpcrt_ring_ready(r))
            return true;
    return false;
}

static inline void drain_inbox_if_any(mpcrt_match_t *m)
{
    if (inbox_busy(m))
        drain_inbox_locked(m);
}

static __attribute__((noinline)) void complete_ring_matches(mpcrt_request_t *done)
{
    for (mpcrt_request_t *next; done; done = next) {
        next = done->next; /* read first: once complete, the request may go */
        mpcrt_request_complete(done);
    }
}

/* Releases m's lock, then completes the receives that drains under it matched. */
static inline __attribute__((always_inline)) void unlock_complete(mpcrt_match_t *m)
{
    mpcrt_request_t *done = m->ring_done;
    if (__builtin_expect(done != NULL, 0))
        m->ring_done = NULL;
    mpcrt_biased_unlock(&m->lock);
    if (__builtin_expect(done != NULL, 0))
        complete_ring_matches(done);
}

/* Matches what the inbox holds, under m's lock, and delivers outside it. */
static __attribute__((noinline)) void drain(mpcrt_match_t *m)
{
    mpcrt_biased_lock(&m->lock);
    drain_inbox_locked(m);
    unlock_complete(m);
}

/* The ring of the sending rank of world rank `world` into m, made at its first message; NULL when it is
 * no rank of this process, m gave out its RINGS_MAX rings, or out of memory. */
static __attribute__((noinline)) mpcrt_ring_t *make_ring(mpcrt_match_t *m, int world)
{
    unsigned idx = (unsigned)(world - mpcrt_mpi_process.first_rank);
    unsigned n = (unsigned)mpcrt_mpi_process.nranks;
    if (idx >= n)
        return NULL;
    mpcrt_ring_t *_Atomic *rings = atomic_load_explicit(&m->rings, memory_order_acquire);
    if (!rings) {
        mpcrt_ring_t *_Atomic *fresh = calloc(n, sizeof *fresh);
        if (!fresh)
            return NULL;
        if (atomic_compare_exchange_strong_explicit(&m->rings, &rings, fresh, memory_order_acq_rel,
                                                    memory_order_acquire))
            rings = fresh;
        else
            free(fresh); /* rings holds the winner's table */
    }
    mpcrt_ring_t *r = atomic_load_explicit(&rings[idx], memory_order_acquire);
    if (r)
        return r == NO_RING ? NULL : r;
    /* A claim of one of the RINGS_MAX, looked at before it is taken: once they are gone, every sender
     * without one would otherwise bump the count at its first message. */
    mpcrt_ring_t *fresh = atomic_load_explicit(&m->ring_claims, memory_order_relaxed) < RINGS_MAX &&
                                  atomic_fetch_add_explicit(&m->ring_claims, 1, memory_order_relaxed) < RINGS_MAX
                              ? mpcrt_ring_create()
                              : NO_RING;
    if (!fresh)
        return NULL; /* out of memory: a later message tries again */
    if (!atomic_compare_exchange_strong_explicit(&rings[idx], &r, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        if (fresh != NO_RING)
            free(fresh);
        return r == NO_RING ? NULL : r;
    }
    if (fresh == NO_RING)
        return NULL;
    /* release: a drain that finds it on the list sees it initialized. */
    fresh->next = atomic_load_explicit(&m->ring_list, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&m->ring_list, &fresh->next, fresh, memory_order_release,
                                                  memory_order_relaxed))
        ;
    /* seq_cst, then the bell: a sender that read the count before it grew past RINGS_UNBELLED rang no
     * bell, but it published before this store, so the drain the bell calls sees its record. */
    atomic_fetch_add_explicit(&m->nrings, 1, memory_order_seq_cst);
    atomic_store_explicit(&m->bell, true, memory_order_seq_cst);
    return fresh;
}

static inline mpcrt_ring_t *ring_of(mpcrt_match_t *m, int world)
{
    mpcrt_ring_t *_Atomic *rings = atomic_load_explicit(&m->rings, memory_order_acquire);
    unsigned idx = (unsigned)(world - mpcrt_mpi_process.first_rank);
    mpcrt_ring_t *r = rings && idx < (unsigned)mpcrt_mpi_process.nranks
                          ? atomic_load_explicit(&rings[idx], memory_order_acquire)
                          : NULL;
    return !r ? make_ring(m, world) : r == NO_RING ? NULL : r;
}

/* A small message while m->streaming: into the sending rank's ring, without the lock. -1 when the ring has
 * no room (or cannot be made): the caller takes the lock, whose drain empties the ring first. */
static __attribute__((noinline)) int send_to_ring(mpcrt_match_t *m, local_send_t s, MPI_Count bytes)
{
    mpcrt_ring_t *r = ring_of(m, s.comm->group->world[s.me]);
    uint64_t pos;
    mpcrt_ring_rec_t *rec = r ? mpcrt_ring_reserve(r, (size_t)bytes, &pos) : NULL;
    if (!rec)
        return -1;
    rec->bytes = (uint32_t)bytes;
    rec->context = s.context;
    rec->source = s.me;
    rec->tag = s.tag;
    if (bytes)
        mpcrt_datatype_pack(s.dt, s.buf, s.count, 0, bytes, mpcrt_ring_payload(rec));
    mpcrt_ring_publish(rec, pos); /* seq_cst: the loads below come after it */
    if (atomic_load_explicit(&m->nrings, memory_order_seq_cst) > RINGS_UNBELLED &&
        !atomic_load_explicit(&m->bell, memory_order_seq_cst))
        atomic_store_explicit(&m->bell, true, memory_order_seq_cst);
    if (!atomic_load_explicit(&m->streaming, memory_order_seq_cst)) {
        /* A receive was posted meanwhile and its drain may have missed this message: drain it ourselves. */
        drain(m);
    }
    return MPI_SUCCESS;
}

/* Sends the message of `bytes` (s.count * s.dt->size, which the caller has) to receiver m of this process.
 * *done: the user's buffer may be reused now (copied, or eager); otherwise a descriptor waits for the
 * receiver, which completes s.send after its copy. */
static inline __attribute__((always_inline)) int send_local(mpcrt_match_t *m, local_send_t s, MPI_Count bytes,
                                                            bool eager, bool *done)
{
    *done = true;
    /* Only what fits an eager cell streams: a larger message would be copied twice (in, then out of a
     * malloc'd buffer) where the lock path copies it once into the posted receive; head-to-head exchanges
     * of 2-16 KiB ran at 1.1-1.9 GB/s through the inbox. */
    if (eager && bytes <= (MPI_Count)CELL_DATA_BYTES &&
        atomic_load_explicit(&m->streaming, memory_order_relaxed) && send_to_ring(m, s, bytes) == MPI_SUCCESS)
        return MPI_SUCCESS;
    mpcrt_biased_lock(&m->lock);
    drain_inbox_if_any(m); /* what our own earlier pushes left there goes first */
    mpcrt_request_t *recv = take_posted(m, s.context, s.me, s.tag);
    if (recv) {
        /* The receive is posted: one copy, straight from the user's buffer into the receiver's. */
        unlock_complete(m);
        MPI_Count copied;
        if (!transfer_inline(s.buf, s.dt, recv, bytes, &copied))
            copied = transfer(s.buf, s.count, s.dt, recv->buf, recv->count, recv->datatype, bytes, recv);
        finish_recv(recv, s.me, s.tag, bytes, copied);
        return MPI_SUCCESS;
    }
    bin_t *bin = find_bin(m, s.context, s.me, true);
    if (!eager) {
        /* Large or synchronous: leave a descriptor; the receiver copies from our buffer when it matches. */
        message_t *msg = bin ? alloc_message(0) : NULL;
        if (msg) {
            describe_message(msg, bin, &s, bytes, false);
            enqueue_unexpected(bin, msg);
            *done = false;
        }
        unlock_complete(m);
        return msg ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    }
    unlock_complete(m);

    /* Small and not yet expected: copy into an eager cell, outside the lock, then look again (the receive
     * may have been posted meanwhile). */
    message_t *msg = bin ? alloc_message((size_t)bytes) : NULL;
    if (!msg)
        return MPI_ERR_NO_MEM;
    if (bytes)
        mpcrt_datatype_pack(s.dt, s.buf, s.count, 0, bytes, msg->data);
    describe_message(msg, bin, &s, bytes, true);
    mpcrt_biased_lock(&m->lock);
    recv = take_posted(m, s.context, s.me, s.tag);
    if (!recv) {
        /* Look the bin up again: while the lock was free, an empty hot bin may have gone to another pair. */
        bin = find_bin(m, s.context, s.me, true);
        if (!bin) {
            mpcrt_biased_unlock(&m->lock);
            free_message(msg);
            return MPI_ERR_NO_MEM;
        }
        msg->bin = bin;
        enqueue_unexpected(bin, msg);
        if (m->nposted == 0) /* nothing posted: the next small messages may go by the inbox */
            atomic_store_explicit(&m->streaming, true, memory_order_relaxed);
    }
    mpcrt_biased_unlock(&m->lock);
    if (recv)
        deliver(msg, recv); /* from the cell: the same bytes as the user's buffer */
    return MPI_SUCCESS;
}

int mpcrt_pt2pt_start_send(mpcrt_request_t *send)
{
    send->status.MPI_ERROR = MPI_SUCCESS;
    if (send->peer == MPI_PROC_NULL) {
        mpcrt_request_complete(send);
        return MPI_SUCCESS;
    }
    mpcrt_match_t *m = receiver_match(send->comm, send->peer);
    int me = send->on_behalf ? send->as_rank : mpcrt_comm_rank(send->comm);
    if (!m) {
        int world = mpcrt_comm_peer_group(send->comm)->world[send->peer];
        if (world < 0 || world >= mpcrt_mpi_world_size() || !mpcrt_remote_ready())
            return MPI_ERR_RANK;
        return mpcrt_remote_send(send, world, me);
    }
    MPI_Count bytes = send->count * send->datatype->size;
    bool eager = send->mode == MPCRT_SEND_BUFFERED || (send->mode != MPCRT_SEND_SYNC && bytes <= eager_limit);
    local_send_t s = {send->buf, send->count, send->datatype, send->context, me, send->tag, send, send->comm};
    bool done;
    int rc = send_local(m, s, bytes, eager, &done);
    if (rc == MPI_SUCCESS && done)
        mpcrt_request_complete(send);
    return rc;
}

/* quick_checked (a constant): the quick check vouched for the caller, a rank of world rank self_world, and
 * for the ranks being set up. */
static inline __attribute__((always_inline)) int send_small(const void *buf, MPI_Count count,
                                                            mpcrt_datatype_t *dt, mpcrt_comm_t *comm,
                                                            int dest, int tag, bool quick_checked,
                                                            int self_world)
{
    MPI_Count bytes = count * dt->size;
    if (dest == MPI_PROC_NULL || bytes > eager_limit)
        return -1;
    mpcrt_match_t *m = quick_checked ? receiver_match_ready(comm, dest) : receiver_match(comm, dest);
    int me = quick_checked ? mpcrt_comm_rank_of(comm, self_world) : mpcrt_comm_rank(comm);
    if (!m) {
        int world = mpcrt_comm_peer_group(comm)->world[dest];
        if (world < 0 || world >= mpcrt_mpi_world_size() || !mpcrt_remote_ready())
            return -1; /* the request path reports it */
        return mpcrt_remote_send_small(buf, count, dt, comm->context, tag, world, me);
    }
    local_send_t s = {buf, count, dt, comm->context, me, tag, NULL, comm};
    bool done;
    return send_local(m, s, bytes, true, &done);
}

int mpcrt_pt2pt_send_small(const void *buf, MPI_Count count, mpcrt_datatype_t *dt, mpcrt_comm_t *comm,
                           int dest, int tag)
{
    return send_small(buf, count, dt, comm, dest, tag, false, -1);
}

/* MPI_Send with its arguments checked (the general path's send_blocking does the same for every mode), by
 * the rank of world rank self_world. */
static inline __attribute__((always_inline)) int send_standard(const void *buf, MPI_Count count,
                                                               mpcrt_datatype_t *dt, mpcrt_comm_t *comm,
                                                               int dest, int tag, int self_world)
{
    int rc = send_small(buf, count, dt, comm, dest, tag, true, self_world);
    if (rc == MPI_SUCCESS)
        return MPI_SUCCESS;
    MPI_Comm handle = comm->obj.handle; /* MPI_COMM_SELF for a rank's self communicator too */
    if (rc > 0)
        return mpcrt_mpi_error(handle, "MPI_Send", rc, "cannot send to rank %d", dest);
    return mpcrt_pt2pt_send_request("MPI_Send", buf, count, dt, comm, dest, tag, handle, MPCRT_SEND_STANDARD);
}

/* A plain return, not the thunk (sched.h, MPCRT_RETURNS_AFTER_SWITCH): a small send does not switch, and a
 * send that waits does so in mpcrt_pt2pt_send_request, whose return (tail-called from here) takes it. */
int mpcrt_pt2pt_send_api(const void *buf, int count, MPI_Datatype type, int dest, int tag,
                         MPI_Comm comm_handle)
{
    mpcrt_mpi_rank_t *self;
    int world;
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    if (!mpcrt_pt2pt_quick_check(&self, &world, comm_handle, &comm, type, &dt, count, dest, tag, false))
        return mpcrt_pt2pt_send_general(buf, count, type, dest, tag, comm_handle);
    return send_standard(buf, count, dt, comm, dest, tag, world);
}

/* The receive's rank will drain its inbox before anyone sleeps on this receive (struct mpcrt_match):
 * a non-blocking receive posted by a ULT of the rank itself, or a blocking one (inline_ok) whose ULT will
 * spin in its wait (its spin drains; it parks only after the park hook). */
static inline bool drained_later(const mpcrt_request_t *recv)
{
    return rank_drains && !recv->on_behalf && mpcrt_ult_self() && (!recv->inline_ok || mpcrt_wait_would_spin());
}


static inline __attribute__((always_inline)) int post_recv(mpcrt_match_t *m, mpcrt_request_t *recv);

int mpcrt_pt2pt_start_recv(mpcrt_request_t *recv)
{
    recv->status.MPI_ERROR = MPI_SUCCESS;
    if (recv->peer == MPI_PROC_NULL) {
        recv->status.MPI_SOURCE = MPI_PROC_NULL;
        recv->status.MPI_TAG = MPI_ANY_TAG;
        mpcrt_status_set_bytes(&recv->status, 0);
        mpcrt_request_complete(recv);
        return MPI_SUCCESS;
    }
    return post_recv(recv->on_behalf ? recv->as_match : mpcrt_mpi_self()->match, recv);
}

/* The error a blocking receive returns for its completed status, which is not MPI_SUCCESS. Out of line: the
 * latency path tests one word. */
static __attribute__((noinline, cold)) int recv_failed(MPI_Comm comm_handle, const char *fn,
                                                       const MPI_Status *st, int source)
{
    if (st->MPI_ERROR == MPI_ERR_TRUNCATE)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_TRUNCATE,
                               "message of %lld bytes from rank %d is longer than the receive buffer",
                               (long long)mpcrt_status_bytes(st), st->MPI_SOURCE);
    if (st->MPI_ERROR == MPI_ERR_PROC_ABORTED)
        return mpcrt_mpi_error(comm_handle, fn, MPI_ERR_PROC_ABORTED,
                               "the process of rank %d ended before the message came", source);
    return MPI_SUCCESS;
}

/* A blocking receive: its request on this frame, posted, waited for, its inline bytes copied out. */
static inline __attribute__((always_inline)) int
recv_blocking(mpcrt_mpi_rank_t *self, const char *fn, MPI_Comm comm_handle, void *buf, MPI_Count count,
              mpcrt_datatype_t *dt, mpcrt_comm_t *comm, int source, int tag, MPI_Status *status)
{
    mpcrt_request_t req;
    mpcrt_request_zero(&req, MPCRT_REQUEST_STACK_BYTES); /* the rest is for heap requests only */
    req.kind = MPCRT_REQ_RECV;
    req.inline_ok = true;
    req.owner = mpcrt_ult_self();
    mpcrt_request_describe(&req, buf, count, dt, comm, comm->context, source, tag, MPCRT_SEND_STANDARD);
    int rc = source == MPI_PROC_NULL ? mpcrt_pt2pt_start_recv(&req) : post_recv(self->match, &req);
    if (rc)
        return mpcrt_mpi_error(comm_handle, fn, rc, "cannot post the receive");
    mpcrt_request_wait(&req);
    if (req.inline_len) /* a sender of this process left the data in the request (pt2pt.h) */
        mpcrt_copy_upto8((char *)buf + dt->true_lb, req.inline_data, req.inline_len);
    mpcrt_status_out(status, &req.status);
    return req.status.MPI_ERROR == MPI_SUCCESS ? MPI_SUCCESS
                                               : recv_failed(comm_handle, fn, &req.status, source);
}

int mpcrt_pt2pt_recv_checked(const char *fn, MPI_Comm comm_handle, void *buf, MPI_Count count,
                             mpcrt_datatype_t *dt, mpcrt_comm_t *comm, int source, int tag,
                             MPI_Status *status)
{
    return recv_blocking(mpcrt_mpi_self(), fn, comm_handle, buf, count, dt, comm, source, tag, status);
}

MPCRT_RETURNS_AFTER_SWITCH int mpcrt_pt2pt_recv_api(void *buf, int count, MPI_Datatype type, int source,
                                                    int tag, MPI_Comm comm_handle, MPI_Status *status)
{
    mpcrt_mpi_rank_t *self;
    int world;
    mpcrt_comm_t *comm;
    mpcrt_datatype_t *dt;
    if (!mpcrt_pt2pt_quick_check(&self, &world, comm_handle, &comm, type, &dt, count, source, tag, true))
        return mpcrt_pt2pt_recv_general(buf, count, type, source, tag, comm_handle, status);
    return recv_blocking(self, "MPI_Recv", comm_handle, buf, count, dt, comm, source, tag, status);
}

static __attribute__((noinline)) int post_recv_unstreamed(mpcrt_match_t *m, mpcrt_request_t *recv);

/* post_recv with m's lock held and the inbox drained. may_unstream (a constant): the first
 * round, which may end m's streams (the second, in post_recv_unstreamed, would find `streaming` false: only
 * a sender holding the lock sets it). Two functions rather than a loop back: the latency path then is no
 * loop, and gcc kept no values of it in the frame across one. */
static inline __attribute__((always_inline)) int post_recv_locked(mpcrt_match_t *m, mpcrt_request_t *recv,
                                                                  bool may_unstream)
{
    /* One lookup serves both the search and the posting: the queue a receive would wait in is the one
     * its unexpected message would be in. */
    bool any = recv->peer == MPI_ANY_SOURCE;
    bin_t *bin = any ? NULL : find_bin(m, recv->context, recv->peer, true);
    ctxq_t *q = any ? find_ctx(m, recv->context, true) : NULL;
    if (!bin && !q) {
        unlock_complete(m);
        return MPI_ERR_NO_MEM;
    }
    message_t *msg = NULL;
    if (any) {
        for (msg = q->all_head; msg && !tag_matches(recv->tag, msg->tag); msg = msg->all_next)
            ;
    } else {
        for (msg = bin->unexp_head; msg && !tag_matches(recv->tag, msg->tag); msg = msg->src_next)
            ;
    }
    if (msg) {
        unlink_message(msg);
        recv->matched = true;
        unlock_complete(m);
        deliver(msg, recv);
        return MPI_SUCCESS;
    }
    if (may_unstream && atomic_load_explicit(&m->streaming, memory_order_relaxed) && !drained_later(recv))
        return post_recv_unstreamed(m, recv);
    if (!any && mpcrt_rails_any_lost() && mpcrt_remote_peer_lost(recv->comm, recv->peer)) {
        /* Nothing from it is queued and nothing more will come. Checked under the lock that
         * mpcrt_match_fail_proc takes after the process was marked lost: either it fails this receive
         * or this check sees the mark. */
        recv->matched = true;
        unlock_complete(m);
        mpcrt_remote_fail_recv(recv);
        return MPI_SUCCESS;
    }
    recv->seq = m->next_seq++;
    m->nposted++;
    if (any) {
        recv->match_queue = q;
        MPCRT_LIST_APPEND(q->any_head, q->any_tail, recv, next, prev);
    } else {
        recv->match_queue = bin;
        MPCRT_LIST_APPEND(bin->posted_head, bin->posted_tail, recv, next, prev);
    }
    unlock_complete(m);
    return MPI_SUCCESS;
}

/* Ends m's streams, with its lock held: senders go back to the lock. seq_cst, then drain: a sender that
 * pushed before seeing the clear is either drained now or sees the clear and drains itself. */
static void unstream_locked(mpcrt_match_t *m)
{
    atomic_store_explicit(&m->streaming, false, memory_order_seq_cst);
    drain_inbox_locked(m);
}

/* About to post a receive nobody will drain for: senders must stop using the inbox; then search again. */
static int post_recv_unstreamed(mpcrt_match_t *m, mpcrt_request_t *recv)
{
    unstream_locked(m);
    return post_recv_locked(m, recv, false);
}

/* Posts recv (not from MPI_PROC_NULL) in receiver m's queues, or matches it with a queued message. */
static inline __attribute__((always_inline)) int post_recv(mpcrt_match_t *m, mpcrt_request_t *recv)
{
    mpcrt_biased_lock(&m->lock);
    /* An MPI_Irecv its rank will drain for later (drained_later) leaves the rings alone: the later drain
     * matches their records in order with the receives posted by then, as this one would have. Draining
     * at each posting read the line a sender was filling and took it from it, and moved every record that
     * arrived before its receive through an eager cell: a window of 32 receives of 1 B across two cores ran
     * at 15 MB/s with it, 26 without (Open MPI 25). */
    if (!(recv->user_irecv && drained_later(recv)))
        drain_inbox_if_any(m);
    return post_recv_locked(m, recv, true);
}

bool mpcrt_pt2pt_probe(mpcrt_match_t *m, int source, int tag, uint32_t context, MPI_Status *status, bool take,
                       void **message)
{
    mpcrt_biased_lock(&m->lock);
    drain_inbox_if_any(m);
    message_t *msg = find_unexpected(m, context, source, tag, take);
    if (msg && status) {
        status->MPI_SOURCE = msg->source;
        status->MPI_TAG = msg->tag;
        status->MPI_ERROR = MPI_SUCCESS;
        status->count_hi_and_cancelled = 0;
        mpcrt_status_set_bytes(status, msg->bytes);
    }
    unlock_complete(m);
    if (message)
        *message = msg;
    return msg != NULL;
}

int mpcrt_pt2pt_recv_message(void *message, mpcrt_request_t *recv)
{
    recv->matched = true;
    deliver(message, recv);
    return MPI_SUCCESS;
}

void mpcrt_pt2pt_await_recv(mpcrt_request_t *req)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    mpcrt_match_t *m = self ? self->match : NULL;
    if (!m)
        return;
    mpcrt_biased_lock(&m->lock);
    if (!req->matched)
        req->inline_ok = true; /* a sender reads it after taking this lock, once it matched the receive */
    /* A waiter that will spin drains the rings in its spin: the streams may stay, or start when it spins
     * (stream_to_spinner) if this is the only receive posted. */
    if (atomic_load_explicit(&m->streaming, memory_order_relaxed) && !(rank_drains && mpcrt_wait_would_spin()))
        unstream_locked(m);
    unlock_complete(m);
}

bool mpcrt_pt2pt_cancel_recv(mpcrt_request_t *req)
{
    mpcrt_match_t *m = req->on_behalf ? req->as_match : mpcrt_mpi_self()->match;
    bool cancelled = false;
    mpcrt_biased_lock(&m->lock);
    /* Its message may be in the inbox: then it is matched, not cancelled. */
    drain_inbox_if_any(m);
    if (!req->matched && !mpcrt_request_done(req)) {
        unlink_posted(m, req);
        cancelled = true;
    }
    unlock_complete(m);
    if (cancelled) {
        req->cancelled = true;
        req->status.count_hi_and_cancelled |= 1;
        mpcrt_request_complete(req);
    }
    return cancelled;
}

void mpcrt_match_remote_eager(mpcrt_match_t *m, uint32_t context, int source, int tag, const void *data,
                              size_t bytes)
{
    mpcrt_biased_lock(&m->lock);
    mpcrt_request_t *recv = take_posted(m, context, source, tag);
    if (recv) {
        mpcrt_biased_unlock(&m->lock);
        /* Straight from the rail's cell into the user's buffer. */
        finish_recv(recv, source, tag, (MPI_Count)bytes, copy_eager(recv, data, (MPI_Count)bytes));
        return;
    }
    queue_eager_copy(m, context, source, tag, data, bytes); /* unexpected: keep the bytes */
    mpcrt_biased_unlock(&m->lock);
}

void mpcrt_match_remote_arrival(mpcrt_match_t *m, const mpcrt_remote_rts_t *in)
{
    if (in->eager_data) {
        mpcrt_match_remote_eager(m, in->context, in->source, in->tag, in->eager_data, (size_t)in->bytes);
        return;
    }
    mpcrt_biased_lock(&m->lock);
    mpcrt_request_t *recv = take_posted(m, in->context, in->source, in->tag);
    if (recv) {
        mpcrt_biased_unlock(&m->lock);
        mpcrt_remote_pull(in, recv);
        return;
    }
    /* Unexpected: keep the description of where the bytes are. Allocated under the lock so that a receive
     * posted meanwhile cannot overtake this message. */
    bin_t *bin = find_bin(m, in->context, in->source, true);
    message_t *msg = bin ? alloc_message(0) : NULL;
    mpcrt_remote_rts_t *rts = msg ? malloc(sizeof *rts) : NULL;
    if (!rts) {
        mpcrt_biased_unlock(&m->lock);
        fprintf(stderr, "mpcrt: out of memory queueing a message from process %d\n", in->proc);
        abort();
    }
    msg->bin = bin;
    msg->source = in->source;
    msg->tag = in->tag;
    msg->bytes = (MPI_Count)in->bytes;
    msg->send = NULL;
    msg->remote = rts;
    *rts = *in;
    enqueue_unexpected(bin, msg);
    mpcrt_biased_unlock(&m->lock);
}

/* Under m's lock. */
static void forget_context(mpcrt_match_t *m, uint32_t context)
{
    ctxq_t *q = find_ctx(m, context, false);
    if (!q)
        return;
    if (m->hot.ctx == q && bin_empty(&m->hot)) {
        unhash_bin(m, &m->hot);
        m->hot.ctx = NULL;
    }
    /* A bin that still holds messages (sent on the communicator and never received) stays, with its
     * context: whoever receives them later still finds them. */
    for (heap_bin_t **at = &q->bins, *hb; (hb = *at);) {
        if (!bin_empty(&hb->bin)) {
            at = &hb->ctx_next;
            continue;
        }
        *at = hb->ctx_next;
        unhash_bin(m, &hb->bin);
        free(hb);
    }
    if (!q->bins && m->hot.ctx != q && !q->any_head && !q->all_head) {
        for (ctxq_t **at = &m->ctxs[hash64(context, m->ctx_buckets)]; *at; at = &(*at)->hash_next)
            if (*at == q) {
                *at = q->hash_next;
                break;
            }
        m->nctxs--;
        free(q);
    }
}

void mpcrt_match_forget_contexts(mpcrt_match_t *m, const uint32_t *contexts, int n)
{
    mpcrt_biased_lock(&m->lock);
    for (int i = 0; i < n; i++)
        forget_context(m, contexts[i]);
    /* The last bin looked up may be gone, or be the hot bin without its context but with its key, which
     * find_bin would hand out: a cache, simply emptied. */
    m->last_bin = NULL;
    mpcrt_biased_unlock(&m->lock);
}

void mpcrt_pt2pt_forget_comm(mpcrt_comm_t *comm)
{
    /* The receivers of comm's messages are its (local group's) members. */
    const uint32_t contexts[] = {comm->context, comm->context + 1, comm->context | MPCRT_PART_CONTEXT_BIT};
    const mpcrt_group_t *group = comm->group;
    for (int r = 0; r < group->size; r++) {
        mpcrt_mpi_rank_t *rank = mpcrt_mpi_rank_state(group->world[r]);
        if (rank && rank->match)
            mpcrt_match_forget_contexts(rank->match, contexts, 3);
    }
}

void mpcrt_match_fail_proc(mpcrt_match_t *m, int proc)
{
    mpcrt_request_t *failed = NULL;
    mpcrt_biased_lock(&m->lock);
    for (size_t b = 0; b < m->bin_buckets; b++)
        for (bin_t *bin = m->bins[b]; bin; bin = bin->hash_next)
            for (mpcrt_request_t *r = bin->posted_head, *next; r; r = next) {
                next = r->next;
                if (!r->comm || r->peer < 0)
                    continue;
                int world = mpcrt_comm_peer_group(r->comm)->world[r->peer];
                if (world < 0 || mpcrt_mpi_rank_state(world) || mpcrt_remote_proc_of(world) != proc)
                    continue;
                unlink_posted(m, r);
                r->matched = true; /* MPI_Cancel can no longer take it back */
                r->next = failed;
                failed = r;
            }
    /* MPI_ANY_SOURCE receives pending on a communicator that spans the lost process: the message they wait
     * for may have been the dead one's, so they fail rather than risk waiting for ever. Those posted later
     * wait as usual (the program has been told). */
    for (size_t b = 0; b < m->ctx_buckets; b++)
        for (ctxq_t *q = m->ctxs[b]; q; q = q->hash_next)
            for (mpcrt_request_t *r = q->any_head, *next; r; r = next) {
                next = r->next;
                if (!mpcrt_remote_comm_spans(r->comm, proc))
                    continue;
                unlink_posted(m, r);
                r->matched = true;
                r->next = failed;
                failed = r;
            }
    mpcrt_biased_unlock(&m->lock);
    /* Outside the lock, as every completion: the owner may run at once. */
    for (mpcrt_request_t *r = failed, *next; r; r = next) {
        next = r->next;
        mpcrt_remote_fail_recv(r);
    }
}

/* ------------------------------------------------------------------ the rank drains its inbox */

/* Progress hook: the calling rank matches what its senders pushed (every wait and test runs it). */
static int drain_own_inbox(void *arg)
{
    (void)arg;
    if (mpcrt_self_rank() < 0)
        return 0; /* a VP's idle loop: no rank of its own */
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    mpcrt_match_t *m = self ? self->match : NULL;
    if (!m)
        return 0;
    unsigned n = atomic_load_explicit(&m->nrings, memory_order_relaxed);
    if (!n || (n > RINGS_UNBELLED && !atomic_load_explicit(&m->bell, memory_order_relaxed)))
        return 0;
    /* A try: a holder of the lock drains anyway (a sender that found its ring full). */
    if (!mpcrt_biased_trylock(&m->lock))
        return 0;
    bool busy = inbox_busy(m);
    if (busy)
        drain_inbox_locked(m);
    unlock_complete(m);
    return busy;
}

/* Park hook: a ULT of the rank is about to sleep, maybe on a receive whose message is in the inbox.
 * Senders go back to the lock (which matches and wakes), and what they pushed before is drained now. */
static void hand_over_inbox(mpcrt_ult_t *ult)
{
    (void)ult;
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    mpcrt_match_t *m = self ? self->match : NULL;
    if (!m || !atomic_load_explicit(&m->streaming, memory_order_relaxed))
        return;
    /* seq_cst, then the exchange in the drain: pairs with the pusher's push and re-read. */
    atomic_store_explicit(&m->streaming, false, memory_order_seq_cst);
    drain(m);
}

/* Spin hook: a ULT of the rank starts spinning in a wait. When it waits for the only receive posted, the
 * senders may write to the rings from now on, since its spin drains them (the progress hook), until it
 * returns or parks (hand_over_inbox): a sender on another core then writes one ring record instead of
 * matching under our lock, taking the receive's lines and writing the buffer's line (2 ranks on 2 cores,
 * fast line state, MPI_Send/MPI_Recv ping-pong: 1 B 0.092 -> 0.066 us, 64 B 0.141 -> 0.066; Open MPI
 * 0.094, 0.107). Not with another receive posted: a thread of the rank may sleep on it, or the
 * collectives' engine may need its message while the rank computes. Two ranks of one core never spin
 * (they switch to each other), and keep the sender's copy straight into the receive. */
static void stream_to_spinner(mpcrt_ult_t *ult)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    mpcrt_match_t *m = self ? self->match : NULL;
    if (!m || atomic_load_explicit(&m->streaming, memory_order_relaxed))
        return;
    mpcrt_biased_lock(&m->lock);
    /* The only receive posted, the ULT's own, that it waits for (inline_ok: a blocking receive or an
     * MPI_Irecv in MPI_Wait), looked for where a receive the rank just posted is: the hot bin or the last
     * one looked up (an MPI_ANY_SOURCE receive, elsewhere, does not start them). */
    mpcrt_request_t *r = m->nposted != 1  ? NULL
                         : m->hot.ctx && m->hot.posted_head ? m->hot.posted_head
                         : m->last_bin                      ? m->last_bin->posted_head
                                                            : NULL;
    if (r && r->owner == ult && r->inline_ok && !r->on_behalf)
        atomic_store_explicit(&m->streaming, true, memory_order_relaxed);
    unlock_complete(m);
}

int mpcrt_match_install_hooks(void)
{
    if (mpcrt_sched_add_progress_hook(drain_own_inbox, NULL) != 0 ||
        mpcrt_sched_add_park_hook(hand_over_inbox) != 0 || mpcrt_sched_add_spin_hook(stream_to_spinner) != 0)
        return -1;
    rank_drains = true;
    return 0;
}
