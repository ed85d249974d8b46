/* Moving data between two members' buffers described by (buffer, count, datatype): the packed stream of one
 * is the packed stream of the other when their type signatures match, whatever their layouts, so a copy is a
 * pack from one side into the other's unpack. Contiguous sides are read or written in place. */
#include "coll_internal.h"

#include <string.h>

/* Stream bytes moved per pack/unpack pair when neither side is contiguous (on the caller's stack). */
enum { BOUNCE_BYTES = 4096 };

void coll_copy_range(const coll_view_t *src, MPI_Count src_first, const coll_view_t *dst, MPI_Count dst_first,
                     MPI_Count len)
{
    if (len <= 0)
        return;
    if (mpcrt_datatype_is_contiguous(src->dt) && mpcrt_datatype_is_contiguous(dst->dt)) {
        /* Both plain bytes (a fused result copied out, a block of a basic type): no unpack walk. */
        const char *from = coll_at(src->buf, mpcrt_datatype_true_lb(src->dt) + src_first);
        char *to = coll_at(dst->buf, mpcrt_datatype_true_lb(dst->dt) + dst_first);
        if (from != to)
            memmove(to, from, (size_t)len);
        return;
    }
    if (mpcrt_datatype_is_contiguous(src->dt)) {
        const void *from = coll_at(src->buf, mpcrt_datatype_true_lb(src->dt) + src_first);
        if (src->dt == dst->dt && src->buf == dst->buf && src_first == dst_first)
            return; /* a member's own block, already in place */
        mpcrt_datatype_unpack(dst->dt, dst->buf, dst->count, dst_first, len, from);
        return;
    }
    if (mpcrt_datatype_is_contiguous(dst->dt)) {
        mpcrt_datatype_pack(src->dt, src->buf, src->count, src_first, len,
                            coll_at(dst->buf, mpcrt_datatype_true_lb(dst->dt) + dst_first));
        return;
    }
    char bounce[BOUNCE_BYTES];
    for (MPI_Count done = 0; done < len;) {
        MPI_Count piece = len - done < BOUNCE_BYTES ? len - done : BOUNCE_BYTES;
        mpcrt_datatype_pack(src->dt, src->buf, src->count, src_first + done, piece, bounce);
        mpcrt_datatype_unpack(dst->dt, dst->buf, dst->count, dst_first + done, piece, bounce);
        done += piece;
    }
}

int coll_copy(const coll_view_t *src, const coll_view_t *dst)
{
    MPI_Count sent = coll_view_bytes(src), room = coll_view_bytes(dst);
    coll_copy_range(src, 0, dst, 0, sent < room ? sent : room);
    return sent == room ? MPI_SUCCESS : sent > room ? MPI_ERR_TRUNCATE : MPI_ERR_COUNT;
}

MPI_Count coll_block_count(const mpcrt_coll_blocks_t *b, int i)
{
    return b->icounts ? b->icounts[i] : b->ccounts ? b->ccounts[i] : b->count;
}

coll_view_t coll_block(const mpcrt_coll_blocks_t *b, int i)
{
    coll_view_t v;
    v.count = coll_block_count(b, i);
    if (b->types) { /* alltoallw: a type per block, displacements in bytes */
        v.dt = mpcrt_datatype_get(b->types[i]);
        if (!v.dt) /* only for an empty block: the API checks the types of the others */
            return coll_packed_view(b->buf, 0);
        MPI_Aint disp = b->idispls ? b->idispls[i] : b->adispls ? b->adispls[i] : 0;
        v.buf = coll_at(b->buf, disp);
        return v;
    }
    v.dt = b->dt;
    MPI_Aint extent = mpcrt_datatype_extent(b->dt);
    MPI_Aint disp = b->idispls   ? b->idispls[i]
                    : b->adispls ? b->adispls[i]
                                 : (MPI_Aint)i * (MPI_Aint)b->count;
    v.buf = coll_at(b->buf, disp * extent);
    return v;
}

void coll_share(MPI_Count total, int parts, int index, MPI_Count *first, MPI_Count *n)
{
    MPI_Count base = total / parts, extra = total % parts;
    *first = index * base + (index < extra ? index : extra);
    *n = base + (index < extra ? 1 : 0);
}
