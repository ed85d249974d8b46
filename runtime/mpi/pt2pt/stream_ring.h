/* Private to runtime/mpi/pt2pt: the rings of thread mode's small-message streams (match.c). One ring per
 * (receiving rank, sending rank) of this process: any thread sending as that rank reserves a record (header
 * and payload in whole cache lines) with one CAS on a line only the sending side writes, fills it and
 * publishes it with its stamp; the receiver's lock holder reads records in reservation order. A message
 * then crosses the cores in the lines of its record, once, where the shared inbox it replaces also moved
 * the inbox's head and the eager cell's line back to the sender (the receiver freed the cell onto the
 * sender's cache). */
#ifndef MPCRT_MPI_PT2PT_STREAM_RING_H
#define MPCRT_MPI_PT2PT_STREAM_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { MPCRT_RING_LINES = 128 }; /* 8 KiB of records; a power of two */

/* A record's header, at the start of its first line; the payload follows it, contiguous (32 bytes in that
 * line). */
typedef struct {
    /* Position + 1 once published (positions count lines and never wrap): a line holding anything else
     * (0, or an older lap's stamp) is no record yet. The consumer clears the first word of every line it
     * consumed, so a payload word can never pass for a stamp. */
    _Atomic uint64_t stamp;
    uint32_t lines; /* lines the record takes, header included */
    uint32_t bytes; /* payload bytes; MPCRT_RING_PADDING: skip to the ring's start */
    uint32_t context;
    int32_t source, tag;
    uint32_t unused;
} mpcrt_ring_rec_t;
#define MPCRT_RING_PADDING UINT32_MAX

typedef struct mpcrt_ring {
    /* The senders' line. */
    _Alignas(64) _Atomic uint64_t tail; /* the next line to reserve */
    _Atomic uint64_t head_seen;         /* a recent value of head (release/acquire: see stream_ring.c) */
    /* The consumer's line. */
    _Alignas(64) _Atomic uint64_t head;  /* lines consumed: the senders may reuse them */
    struct mpcrt_ring *next;             /* in the receiver's list of rings (match.c) */
    _Alignas(64) unsigned char lines[MPCRT_RING_LINES][64];
} mpcrt_ring_t;

/* The largest payload a record takes. */
#define MPCRT_RING_MAX_PAYLOAD ((size_t)32 * 64 - sizeof(mpcrt_ring_rec_t))

mpcrt_ring_t *mpcrt_ring_create(void);

/* Senders. The record for `bytes` (<= MPCRT_RING_MAX_PAYLOAD) of payload, reserved at *pos: fill the header
 * fields and the payload, then publish. NULL when the ring has no room for it now. */
mpcrt_ring_rec_t *mpcrt_ring_reserve(mpcrt_ring_t *r, size_t bytes, uint64_t *pos);
/* seq_cst (a locked exchange): the caller's next loads are ordered after it (match.c's Dekker pairs). */
static inline void mpcrt_ring_publish(mpcrt_ring_rec_t *rec, uint64_t pos)
{
    atomic_exchange_explicit(&rec->stamp, pos + 1, memory_order_seq_cst);
}
static inline void *mpcrt_ring_payload(mpcrt_ring_rec_t *rec)
{
    return rec + 1;
}

/* The consumer (one at a time: match.c holds the receiver's lock). The record at the head, published, or
 * NULL; padding is skipped. */
mpcrt_ring_rec_t *mpcrt_ring_peek(mpcrt_ring_t *r);
/* A record (or padding) waits at the head: for the consumer only (a stale head would read a line that
 * senders may be filling). */
static inline bool mpcrt_ring_ready(mpcrt_ring_t *r)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    const mpcrt_ring_rec_t *rec = (const mpcrt_ring_rec_t *)(const void *)r->lines[h & (MPCRT_RING_LINES - 1)];
    return atomic_load_explicit(&rec->stamp, memory_order_relaxed) == h + 1;
}
/* Done with the record peek returned: its lines go back to the senders. */
void mpcrt_ring_pop(mpcrt_ring_t *r, mpcrt_ring_rec_t *rec);

#endif
