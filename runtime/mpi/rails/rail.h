/* Interface of runtime/mpi/rails: transports between processes (DESIGN.md section 4, Rails). A rail moves
 * opaque packets of at most max_packet bytes to a peer process, in order per (sender thread, peer), and may
 * offer a single-copy read of a peer's memory for rendezvous. Each rail is a table of functions; the
 * pt2pt protocols (pt2pt/remote.c) see only rails.c, which picks a rail per peer. */
#ifndef MPCRT_MPI_RAILS_RAIL_H
#define MPCRT_MPI_RAILS_RAIL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

enum { MPCRT_RAIL_WORDS = 1024 };

/* Called for each packet a poll finds; the packet is only valid during the call. */
typedef void (*mpcrt_rail_deliver_fn)(const void *packet, size_t bytes);

struct mpcrt_rail_ops {
    const char *name;
    /* Creates this process's endpoint and writes its business card (a string for the peers). */
    int (*open)(int my_proc, int num_procs, char *card, size_t card_size);
    /* Reaches peer `proc` through its card: 0, or -EHOSTUNREACH when this rail cannot reach it. */
    int (*connect)(int proc, const char *card);
    /* Every process has connected (after a fence): drop what only served the connection (names). */
    void (*connected)(void);
    /* Sends header then payload as one packet: 0, or -EAGAIN when the peer's queue is full (retry later). */
    int (*send)(int proc, const void *header, size_t header_bytes, const void *payload, size_t payload_bytes);
    /* A send may take a packet and write only part of it (a stream socket): the rest goes out first at the
     * next send to that peer, or here, which the protocol layer calls under the same per-peer exclusion as
     * send while `unflushed` says some packet is half-written. 0 when nothing is left for proc, -EAGAIN
     * while some still is. Both NULL for a rail whose sends are whole or nothing (shm). */
    int (*flush)(int proc);
    bool (*unflushed)(void);
    /* Hands every waiting packet to deliver, in arrival order; returns the packets handled. One poller at
     * a time: a concurrent call returns 0 at once. */
    int (*poll)(mpcrt_rail_deliver_fn deliver);
    /* Single-copy read of `bytes` at remote_addr in process `proc` into local iovecs: 0, or a negative
     * errno (-ENOSYS when the rail cannot, -EPERM when the kernel refuses). NULL if never possible. */
    int (*get)(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes);
    /* Word `index` (< MPCRT_RAIL_WORDS) of memory shared with peer `proc`: in proc's memory, or in this
     * process's own when proc is -1, mapped by every peer the rail reaches. NULL if the rail shares none. */
    _Atomic uint64_t *(*word)(int proc, uint32_t index);
    void (*close)(void);
    /* Largest packet (header + payload) a send takes, once open. */
    size_t (*max_packet)(void);
    /* Looks for peers that died without a word (a rail with no connection to lose: shm) and reports them
     * by mpcrt_rails_report_lost, under the same one-poller-at-a-time lock as poll, after handing what
     * they sent before dying to deliver. NULL if the rail sees a death by itself (tcp: a connection's
     * end). Called a few times a second at most. */
    void (*watch)(mpcrt_rail_deliver_fn deliver);
};

extern const struct mpcrt_rail_ops mpcrt_rail_shm;
extern const struct mpcrt_rail_ops mpcrt_rail_tcp;

/* ------------------------------------------------------------------ the rails of this process (rails.c) */

/* Opens the rails MPCRT_RAILS selects, exchanges cards through the wire-up and connects every peer.
 * Collective over the job's processes. 0 or a negative errno (a peer no rail reaches is an error). */
int mpcrt_rails_init(void);
bool mpcrt_rails_ready(void);
/* Largest packet every peer's rail takes (the eager payload is this minus the protocol header). */
size_t mpcrt_rails_max_packet(void);
int mpcrt_rails_send(int proc, const void *header, size_t header_bytes, const void *payload,
                     size_t payload_bytes);
int mpcrt_rails_poll(mpcrt_rail_deliver_fn deliver);
/* See mpcrt_rail_ops.flush: some packet to some peer is half-written; finish the one to proc. */
bool mpcrt_rails_unflushed(void);
int mpcrt_rails_flush(int proc);
int mpcrt_rails_get(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes);
/* Word `index` of the memory shared with `proc`: in proc's (mine false) or in ours, as proc maps it (mine
 * true); NULL when the rail that reaches proc shares no memory. */
_Atomic uint64_t *mpcrt_rails_word(int proc, bool mine, uint32_t index);
void mpcrt_rails_close(void);

/* ------------------------------------------------------------------ peers that disappear */

/* Called once per peer process that died (its connection ended, its pid is gone) by a rail, from inside its
 * poll (under its poll lock: every packet the peer sent before on that rail was delivered already). */
typedef void (*mpcrt_rail_lost_fn)(int proc);
/* A rail reports process `proc` lost; the first report calls the handler the protocol layer set. */
void mpcrt_rails_report_lost(int proc);
void mpcrt_rails_on_lost(mpcrt_rail_lost_fn handler);
/* Process `proc` was reported lost (false before the report: operations with it proceed normally). */
bool mpcrt_rails_lost(int proc);
/* Some process was reported lost: the cheap test before mpcrt_rails_lost on paths every message takes. */
extern _Atomic bool mpcrt_rails_lost_flag;
/* How many processes were reported lost so far: a wait that saw it change knows some peer died meanwhile. */
extern _Atomic unsigned mpcrt_rails_lost_count;
static inline bool mpcrt_rails_any_lost(void)
{
    return atomic_load_explicit(&mpcrt_rails_lost_flag, memory_order_relaxed);
}

#endif
