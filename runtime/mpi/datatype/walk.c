/* Walking a layout over a byte range of the packed stream, and what is built on it: pack and unpack of any
 * range (fragments), the segment lists for single-copy transfers, and element counting. The walk seeks to
 * the range's first byte by division at each loop and binary search among children, so starting in the
 * middle of a large message costs O(depth * log(width)), not a replay of what came before. */
#include "datatype_internal.h"

#include <string.h>

static MPI_Count min_count(MPI_Count a, MPI_Count b)
{
    return a < b ? a : b;
}

/* The child of a sequence that holds offset `off` of one iteration. */
static uint32_t find_child(const mpcrt_dt_node_t *n, MPI_Count off)
{
    uint32_t lo = 0, hi = n->nchildren - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (n->child_offset[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* One small copy, with fixed sizes for the usual field widths (a call to memcpy costs more than a field). */
static inline void copy_small(char *to, const char *from, MPI_Count len)
{
    switch (len) {
    case 1:
        *to = *from;
        break;
    case 2:
        memcpy(to, from, 2);
        break;
    case 4:
        memcpy(to, from, 4);
        break;
    case 8:
        memcpy(to, from, 8);
        break;
    case 12:
        memcpy(to, from, 12);
        break;
    case 16:
        memcpy(to, from, 16);
        break;
    default:
        memcpy(to, from, (size_t)len);
        break;
    }
}

/* `whole` complete iterations of a flat sequence (every child one block), from iteration i. Returns the
 * bytes walked (less than asked only if a callback stopped). */
static MPI_Count walk_flat(const mpcrt_dt_node_t *n, char *base, MPI_Count i, MPI_Count whole, dt_walker_t *w)
{
    const mpcrt_dt_node_t *child = n->children;
    const uint32_t nc = n->nchildren;
    if (w->mode == DT_WALK_PACK) {
        char *out = w->cursor;
        for (MPI_Count k = i; k < i + whole; k++) {
            const char *it = mpcrt_dt_at(base, k * n->stride);
            for (uint32_t c = 0; c < nc; c++) {
                copy_small(out, mpcrt_dt_at(it, child[c].disp), child[c].iter_size);
                out += child[c].iter_size;
            }
        }
        w->cursor = out;
        return whole * n->iter_size;
    }
    if (w->mode == DT_WALK_UNPACK) {
        const char *in = w->cursor;
        for (MPI_Count k = i; k < i + whole; k++) {
            char *it = mpcrt_dt_at(base, k * n->stride);
            for (uint32_t c = 0; c < nc; c++) {
                copy_small(mpcrt_dt_at(it, child[c].disp), in, child[c].iter_size);
                in += child[c].iter_size;
            }
        }
        w->cursor = (char *)in;
        return whole * n->iter_size;
    }
    MPI_Count done = 0;
    for (MPI_Count k = i; k < i + whole; k++) {
        char *it = mpcrt_dt_at(base, k * n->stride);
        for (uint32_t c = 0; c < nc; c++) {
            if (w->blocks(w, mpcrt_dt_at(it, child[c].disp), child[c].iter_size, 1, 0, child[c].elem) < 1)
                return done;
            done += child[c].iter_size;
        }
    }
    return done;
}

/* Bytes [skip, skip + len) of the stream of node n, whose parent iteration starts at origin. */
static MPI_Count walk_node(const mpcrt_dt_node_t *n, char *origin, MPI_Count skip, MPI_Count len,
                           dt_walker_t *w)
{
    char *base = mpcrt_dt_at(origin, n->disp);
    MPI_Count i = 0, off = 0;
    if (skip) { /* a division costs tens of cycles: only seeking pays it */
        i = skip / n->iter_size;
        off = skip - i * n->iter_size;
    }
    MPI_Count done = 0;
    if (n->nchildren == 0) {
        if (off) { /* the range starts inside a block */
            MPI_Count part = min_count(n->iter_size - off, len);
            if (w->blocks(w, mpcrt_dt_at(base, i * n->stride + off), part, 1, 0, n->elem) < 1)
                return 0;
            done = part;
            i++;
        }
        MPI_Count whole = min_count(n->count - i, (len - done) / n->iter_size);
        if (whole > 0) {
            MPI_Count handled = w->blocks(w, mpcrt_dt_at(base, i * n->stride), n->iter_size, whole, n->stride,
                                          n->elem);
            done += handled * n->iter_size;
            i += handled;
            if (handled < whole)
                return done;
        }
        if (done < len && i < n->count) { /* the range ends inside a block */
            if (w->blocks(w, mpcrt_dt_at(base, i * n->stride), len - done, 1, 0, n->elem) < 1)
                return done;
            done = len;
        }
        return done;
    }
    for (; i < n->count && done < len; i++, off = 0) {
        if (off == 0 && (n->node_flags & MPCRT_DT_NODE_FLAT) && len - done >= n->iter_size) {
            MPI_Count whole = min_count(n->count - i, (len - done) / n->iter_size);
            MPI_Count got = walk_flat(n, base, i, whole, w);
            done += got;
            if (got < whole * n->iter_size)
                return done;
            i += whole - 1; /* the loop's i++ moves past the last whole iteration */
            continue;
        }
        char *iteration = mpcrt_dt_at(base, i * n->stride);
        uint32_t c = off ? find_child(n, off) : 0;
        MPI_Count child_skip = off - n->child_offset[c];
        for (; c < n->nchildren && done < len; c++, child_skip = 0) {
            const mpcrt_dt_node_t *child = &n->children[c];
            MPI_Count want = min_count(mpcrt_dt_node_total(child) - child_skip, len - done);
            MPI_Count got = walk_node(child, iteration, child_skip, want, w);
            done += got;
            if (got < want)
                return done;
        }
    }
    return done;
}

MPI_Count mpcrt_dt_walk(const mpcrt_dt_node_t *root, MPI_Aint extent, const void *buf, MPI_Count count,
                        MPI_Count first, MPI_Count len, dt_walker_t *w)
{
    if (len <= 0 || count <= 0 || mpcrt_dt_node_total(root) == 0)
        return 0;
    mpcrt_dt_node_t all;
    mpcrt_dt_node_repeat(NULL, root, count, extent, 0, &all); /* no arena: cannot fail */
    return walk_node(&all, (char *)buf, first, len, w);
}

/* ------------------------------------------------------------------ pack and unpack */

/* Fixed-size copies let the compiler emit one load and one store per element. */
#define COPY_LOOP(size)                                                                                     \
    for (MPI_Count k = 0; k < n; k++)                                                                       \
        memcpy(to + k * to_step, from + k * from_step, size)

static void copy_blocks(char *to, MPI_Aint to_step, const char *from, MPI_Aint from_step, MPI_Count len,
                        MPI_Count n)
{
    switch (len) {
    case 1:
        COPY_LOOP(1);
        break;
    case 2:
        COPY_LOOP(2);
        break;
    case 4:
        COPY_LOOP(4);
        break;
    case 8:
        COPY_LOOP(8);
        break;
    case 12:
        COPY_LOOP(12);
        break;
    case 16:
        COPY_LOOP(16);
        break;
    case 24:
        COPY_LOOP(24);
        break;
    case 32:
        COPY_LOOP(32);
        break;
    default:
        COPY_LOOP((size_t)len);
        break;
    }
}

static MPI_Count pack_blocks(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                             unsigned elem)
{
    (void)elem;
    copy_blocks(w->cursor, len, first, stride, len, n);
    w->cursor += n * len;
    return n;
}

static MPI_Count unpack_blocks(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                               unsigned elem)
{
    (void)elem;
    copy_blocks(first, stride, w->cursor, len, len, n);
    w->cursor += n * len;
    return n;
}

MPI_Count mpcrt_datatype_pack(const mpcrt_datatype_t *dt, const void *buf, MPI_Count count, MPI_Count first,
                              MPI_Count len, void *packed)
{
    if (len <= 0)
        return 0;
    if (mpcrt_datatype_is_contiguous(dt)) {
        memcpy(packed, mpcrt_dt_at(buf, dt->true_lb + first), (size_t)len);
        return len;
    }
    dt_walker_t w = {.blocks = pack_blocks, .mode = DT_WALK_PACK, .cursor = packed};
    return mpcrt_dt_walk(&dt->root, mpcrt_datatype_extent(dt), buf, count, first, len, &w);
}

MPI_Count mpcrt_datatype_unpack(const mpcrt_datatype_t *dt, void *buf, MPI_Count count, MPI_Count first,
                                MPI_Count len, const void *packed)
{
    if (len <= 0)
        return 0;
    if (mpcrt_datatype_is_contiguous(dt)) {
        memcpy(mpcrt_dt_at(buf, dt->true_lb + first), packed, (size_t)len);
        return len;
    }
    dt_walker_t w = {.blocks = unpack_blocks, .mode = DT_WALK_UNPACK, .cursor = (char *)packed};
    return mpcrt_dt_walk(&dt->root, mpcrt_datatype_extent(dt), buf, count, first, len, &w);
}

/* ------------------------------------------------------------------ segments */

static MPI_Count segment_blocks(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                                unsigned elem)
{
    (void)elem;
    MPI_Aint offset = (MPI_Aint)((uintptr_t)first - (uintptr_t)w->origin);
    if (n > 1 && stride == len) { /* cannot happen in a built layout, but costs nothing to handle */
        len *= n;
        n = 1;
    }
    for (MPI_Count k = 0; k < n; k++, offset += stride) {
        if (w->nsegments > 0) {
            mpcrt_dt_segment_t *last = &w->segments[w->nsegments - 1];
            if (last->offset + last->len == offset) {
                last->len += len;
                continue;
            }
        }
        if (w->nsegments == w->max_segments)
            return k;
        w->segments[w->nsegments++] = (mpcrt_dt_segment_t){offset, len};
    }
    return n;
}

MPI_Count mpcrt_datatype_segments(const mpcrt_datatype_t *dt, MPI_Count count, MPI_Count first, MPI_Count len,
                                  mpcrt_dt_segment_t *segments, int max_segments, int *nsegments)
{
    *nsegments = 0;
    if (len <= 0 || max_segments <= 0)
        return 0;
    if (mpcrt_datatype_is_contiguous(dt)) {
        segments[0] = (mpcrt_dt_segment_t){dt->true_lb + first, len};
        *nsegments = 1;
        return len;
    }
    /* Offsets are computed against a fake origin, so that they never depend on a real buffer. */
    static char origin_mark;
    dt_walker_t w = {.blocks = segment_blocks, .origin = &origin_mark, .segments = segments,
                     .max_segments = max_segments};
    MPI_Count covered = mpcrt_dt_walk(&dt->root, mpcrt_datatype_extent(dt), &origin_mark, count, first, len, &w);
    *nsegments = w.nsegments;
    return covered;
}

/* ------------------------------------------------------------------ elements */

/* Counts the elements in the walked prefix (typed layout: one element type per block); a prefix that ends
 * inside an element is marked in `bytes`. */
static MPI_Count count_elements(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                                unsigned elem)
{
    (void)first;
    (void)stride;
    unsigned size = elem < (unsigned)mpcrt_dt_nbasic ? mpcrt_dt_basic_info[elem].size : 0;
    if (size) {
        w->counter += n * (len / size);
        if (len % size)
            w->bytes = -1;
    }
    return n;
}

MPI_Count mpcrt_datatype_elements_in(const mpcrt_datatype_t *dt, MPI_Count bytes)
{
    if (dt->size == 0 || bytes <= 0)
        return 0;
    if (dt->elem_size)
        return bytes % dt->elem_size ? MPI_UNDEFINED : bytes / dt->elem_size;
    MPI_Count whole = bytes / dt->size, rest = bytes % dt->size;
    MPI_Count elements = whole * dt->nelements;
    if (rest) {
        const mpcrt_dt_node_t *typed = mpcrt_dt_typed_root((mpcrt_datatype_t *)dt);
        if (!typed)
            return -1;
        dt_walker_t w = {.blocks = count_elements};
        mpcrt_dt_walk(typed, mpcrt_datatype_extent(dt), NULL, 1, 0, rest, &w);
        if (w.bytes < 0)
            return MPI_UNDEFINED;
        elements += w.counter;
    }
    return elements;
}

/* Advances through whole elements until `counter` of them are consumed; `bytes` receives their length. */
static MPI_Count find_elements(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                               unsigned elem)
{
    (void)first;
    (void)stride;
    unsigned size = elem < (unsigned)mpcrt_dt_nbasic ? mpcrt_dt_basic_info[elem].size : 0;
    MPI_Count per_block = size ? len / size : 0;
    for (MPI_Count k = 0; k < n; k++) {
        if (w->counter < per_block) {
            w->bytes += w->counter * size;
            w->counter = 0;
            return k; /* stop: found */
        }
        w->counter -= per_block;
        w->bytes += len;
    }
    return n;
}

MPI_Count mpcrt_datatype_bytes_of_elements(const mpcrt_datatype_t *dt, MPI_Count elements)
{
    if (dt->size == 0 || elements <= 0 || dt->nelements == 0)
        return 0;
    if (dt->elem_size)
        return elements * dt->elem_size;
    MPI_Count whole = elements / dt->nelements, rest = elements % dt->nelements;
    MPI_Count bytes = whole * dt->size;
    if (rest) {
        const mpcrt_dt_node_t *typed = mpcrt_dt_typed_root((mpcrt_datatype_t *)dt);
        if (!typed)
            return -1;
        dt_walker_t w = {.blocks = find_elements, .counter = rest};
        mpcrt_dt_walk(typed, mpcrt_datatype_extent(dt), NULL, 1, 0, dt->size, &w);
        bytes += w.bytes;
    }
    return bytes;
}
