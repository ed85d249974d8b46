/* Typed-to-typed copies: bytes of one packed stream moved straight from a sender's layout into a
 * receiver's, with no intermediate buffer (the single copy of a matched in-process message). Contiguous
 * sides reduce to pack or unpack; otherwise both sides' segment lists are walked in lockstep, a batch of
 * segments at a time, so the stack cost is small and fixed whatever the message size. */
#include "datatype_internal.h"

#include <string.h>

enum { BATCH = 64 };

typedef struct {
    const mpcrt_datatype_t *dt;
    MPI_Count count;
    MPI_Count next;      /* stream position after the batch */
    MPI_Count end;       /* stream position where the copy stops */
    mpcrt_dt_segment_t seg[BATCH];
    int n, i;            /* segments in the batch, current one */
    MPI_Count used;      /* bytes of the current segment already copied */
} side_t;

static void refill(side_t *s)
{
    s->next += mpcrt_datatype_segments(s->dt, s->count, s->next, s->end - s->next, s->seg, BATCH, &s->n);
    s->i = 0;
    s->used = 0;
}

MPI_Count mpcrt_datatype_copy(const mpcrt_datatype_t *sdt, const void *sbuf, MPI_Count scount,
                              const mpcrt_datatype_t *rdt, void *rbuf, MPI_Count rcount, MPI_Count first,
                              MPI_Count len)
{
    if (len <= 0)
        return 0;
    bool scontig = mpcrt_datatype_is_contiguous(sdt), rcontig = mpcrt_datatype_is_contiguous(rdt);
    if (scontig && rcontig) {
        memmove(mpcrt_dt_at(rbuf, rdt->true_lb + first), mpcrt_dt_at(sbuf, sdt->true_lb + first), (size_t)len);
        return len;
    }
    if (scontig)
        return mpcrt_datatype_unpack(rdt, rbuf, rcount, first, len, mpcrt_dt_at(sbuf, sdt->true_lb + first));
    if (rcontig)
        return mpcrt_datatype_pack(sdt, sbuf, scount, first, len, mpcrt_dt_at(rbuf, rdt->true_lb + first));
    side_t s = {.dt = sdt, .count = scount, .next = first, .end = first + len};
    side_t r = {.dt = rdt, .count = rcount, .next = first, .end = first + len};
    MPI_Count done = 0;
    while (done < len) {
        if (s.i == s.n)
            refill(&s);
        if (r.i == r.n)
            refill(&r);
        if (s.n == 0 || r.n == 0)
            break; /* cannot happen for ranges inside both streams */
        const mpcrt_dt_segment_t *a = &s.seg[s.i], *b = &r.seg[r.i];
        MPI_Count n = a->len - s.used < b->len - r.used ? a->len - s.used : b->len - r.used;
        memcpy(mpcrt_dt_at(rbuf, b->offset + r.used), mpcrt_dt_at(sbuf, a->offset + s.used), (size_t)n);
        done += n;
        if ((s.used += n) == a->len) {
            s.i++;
            s.used = 0;
        }
        if ((r.used += n) == b->len) {
            r.i++;
            r.used = 0;
        }
    }
    return done;
}
