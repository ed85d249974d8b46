/* Interface of runtime/mpi/rails: transports between processes (DESIGN.md section 4, Rails). A rail moves
 * opaque packets of at most max_packet bytes to a peer process, in order per (sender thread, peer), and may
 * offer a single-copy read of a peer's memory for rendezvous. Each rail is a table of functions; the
 * pt2pt protocols (pt2pt/remote.c) see only rails.c, which picks a rail per peer. */
#ifndef MPCRT_MPI_RAILS_RAIL_H
#define MPCRT_MPI_RAILS_RAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

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
    /* Hands every waiting packet to deliver, in arrival order; returns the packets handled. One poller at
     * a time: a concurrent call returns 0 at once. */
    int (*poll)(mpcrt_rail_deliver_fn deliver);
    /* Single-copy read of `bytes` at remote_addr in process `proc` into local iovecs: 0, or a negative
     * errno (-ENOSYS when the rail cannot, -EPERM when the kernel refuses). NULL if never possible. */
    int (*get)(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes);
    void (*close)(void);
    /* Largest packet (header + payload) a send takes, once open. */
    size_t (*max_packet)(void);
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
int mpcrt_rails_get(int proc, const struct iovec *local, int niov, uint64_t remote_addr, size_t bytes);
void mpcrt_rails_close(void);

#endif
