/* The stream rings (stream_ring.h): a multi-producer, single-consumer queue of variable-size records in
 * cache lines. Senders reserve lines by a CAS on `tail`, records never wrap (a padding record fills the
 * end of the ring when the next one would not fit), and the consumer finds each record at its head by the
 * stamp in its first word. */
#include "stream_ring.h"

#include <stdlib.h>
#include <string.h>

mpcrt_ring_t *mpcrt_ring_create(void)
{
    mpcrt_ring_t *r = aligned_alloc(64, sizeof *r);
    if (r)
        memset(r, 0, sizeof *r);
    return r;
}

static mpcrt_ring_rec_t *rec_at(mpcrt_ring_t *r, uint64_t pos)
{
    return (mpcrt_ring_rec_t *)(void *)r->lines[pos & (MPCRT_RING_LINES - 1)];
}

mpcrt_ring_rec_t *mpcrt_ring_reserve(mpcrt_ring_t *r, size_t bytes, uint64_t *pos)
{
    uint32_t need = (uint32_t)((sizeof(mpcrt_ring_rec_t) + bytes + 63) / 64);
    uint64_t t = atomic_load_explicit(&r->tail, memory_order_relaxed);
    for (;;) {
        uint32_t at = (uint32_t)(t & (MPCRT_RING_LINES - 1));
        uint32_t pad = at + need > MPCRT_RING_LINES ? MPCRT_RING_LINES - at : 0;
        uint64_t end = t + pad + need;
        /* Room when the consumer is past end - RING. head_seen spares each sender a load of the
         * consumer's line (written at every record) until the ring looks full; acquire, as head's own: the
         * consumer cleared the lines' first words before it released them. */
        uint64_t head = atomic_load_explicit(&r->head_seen, memory_order_acquire);
        if (end - head > MPCRT_RING_LINES) {
            head = atomic_load_explicit(&r->head, memory_order_acquire);
            atomic_store_explicit(&r->head_seen, head, memory_order_release); /* a hint: any recent value */
            if (end - head > MPCRT_RING_LINES)
                return NULL;
        }
        if (atomic_compare_exchange_weak_explicit(&r->tail, &t, end, memory_order_relaxed,
                                                  memory_order_relaxed))
            break;
    }
    uint32_t at = (uint32_t)(t & (MPCRT_RING_LINES - 1));
    if (at + need > MPCRT_RING_LINES) {
        mpcrt_ring_rec_t *pad = rec_at(r, t);
        pad->lines = MPCRT_RING_LINES - at;
        pad->bytes = MPCRT_RING_PADDING;
        atomic_store_explicit(&pad->stamp, t + 1, memory_order_release);
        t += MPCRT_RING_LINES - at;
    }
    mpcrt_ring_rec_t *rec = rec_at(r, t);
    rec->lines = need;
    *pos = t;
    return rec;
}

mpcrt_ring_rec_t *mpcrt_ring_peek(mpcrt_ring_t *r)
{
    for (;;) {
        uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed); /* only the consumer writes it */
        mpcrt_ring_rec_t *rec = rec_at(r, h);
        /* seq_cst: after the bell's exchange (match.c), it sees every record published before it. */
        if (atomic_load_explicit(&rec->stamp, memory_order_seq_cst) != h + 1)
            return NULL;
        if (rec->bytes != MPCRT_RING_PADDING)
            return rec;
        mpcrt_ring_pop(r, rec); /* its other lines were never written this lap: their first words are 0 */
    }
}

void mpcrt_ring_pop(mpcrt_ring_t *r, mpcrt_ring_rec_t *rec)
{
    uint64_t h = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint32_t lines = rec->lines;
    if (rec->bytes == MPCRT_RING_PADDING) {
        atomic_store_explicit(&rec->stamp, 0, memory_order_relaxed);
    } else {
        for (uint32_t i = 0; i < lines; i++) /* no payload word may pass for a later lap's stamp */
            __atomic_store_n((uint64_t *)(void *)r->lines[(h + i) & (MPCRT_RING_LINES - 1)], 0,
                             __ATOMIC_RELAXED);
    }
    /* release: the senders reuse the lines after these clears (and after the consumer's reads). */
    atomic_store_explicit(&r->head, h + lines, memory_order_release);
}
