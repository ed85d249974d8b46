/* Compiled layouts (see mpcrt_dt_node_t in datatype.h): building blocks that keep trees small as types are
 * composed: repeating a layout folds into the node's own loop when the strides allow it, sequences are
 * flattened one level and adjacent blocks merged, so a vector of a contiguous type is one strided block and
 * a struct of adjacent fields is one block. Nodes are immutable once built, so a type's tree may point into
 * the trees of the inner types it holds references to. */
#include "datatype_internal.h"

#include <errno.h>
#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

struct mpcrt_dt_arena {
    mpcrt_dt_arena_t *next;
    size_t used, capacity;
    alignas(16) unsigned char data[];
};

void *mpcrt_dt_arena_alloc(mpcrt_dt_arena_t **arena, size_t bytes)
{
    bytes = (bytes + 15) & ~(size_t)15;
    mpcrt_dt_arena_t *a = *arena;
    if (!a || a->capacity - a->used < bytes) {
        size_t capacity = bytes > 4000 ? bytes : 4000;
        a = malloc(sizeof *a + capacity);
        if (!a)
            return NULL;
        a->used = 0;
        a->capacity = capacity;
        a->next = *arena;
        *arena = a;
    }
    void *p = a->data + a->used;
    a->used += bytes;
    return p;
}

void mpcrt_dt_arena_free(mpcrt_dt_arena_t *arena)
{
    while (arena) {
        mpcrt_dt_arena_t *next = arena->next;
        free(arena);
        arena = next;
    }
}

static bool is_block(const mpcrt_dt_node_t *n)
{
    return n->nchildren == 0;
}

int mpcrt_dt_node_repeat(mpcrt_dt_arena_t **arena, const mpcrt_dt_node_t *inner, MPI_Count count,
                         MPI_Aint stride, MPI_Aint disp, mpcrt_dt_node_t *out)
{
    if (count <= 0 || mpcrt_dt_node_total(inner) == 0) {
        *out = (mpcrt_dt_node_t){0};
        return 0;
    }
    if (count == 1) {
        *out = *inner;
        out->disp += disp;
        return 0;
    }
    if (inner->count == 1) {
        /* One iteration of inner becomes one iteration of the new loop. */
        *out = *inner;
        out->disp += disp;
        out->count = count;
        out->stride = stride;
        if (is_block(out) && stride == out->iter_size) {
            out->iter_size *= count; /* back-to-back blocks: one longer block */
            out->count = 1;
            out->stride = 0;
        }
        return 0;
    }
    if (inner->stride * inner->count == stride) {
        /* The copies continue inner's own loop (a vector of vectors with matching strides). */
        *out = *inner;
        out->disp += disp;
        out->count *= count;
        return 0;
    }
    mpcrt_dt_node_t *child;
    MPI_Count *offset;
    if (arena) {
        child = mpcrt_dt_arena_alloc(arena, sizeof *child);
        offset = mpcrt_dt_arena_alloc(arena, sizeof *offset);
        if (!child || !offset)
            return -ENOMEM;
        *child = *inner;
        *offset = 0;
    } else {
        static MPI_Count zero_offset = 0;
        child = (mpcrt_dt_node_t *)inner;
        offset = &zero_offset;
    }
    *out = (mpcrt_dt_node_t){.disp = disp, .stride = stride, .count = count,
                             .iter_size = mpcrt_dt_node_total(inner), .nchildren = 1,
                             .elem = MPCRT_DT_MIXED, .children = child, .child_offset = offset};
    return 0;
}

/* Appends `n` to the sequence being built, merging it into the previous block when they touch. */
static void append(mpcrt_dt_node_t *seq, size_t *len, const mpcrt_dt_node_t *n, MPI_Aint shift, bool typed)
{
    if (mpcrt_dt_node_total(n) == 0)
        return;
    if (*len > 0) {
        mpcrt_dt_node_t *last = &seq[*len - 1];
        if (is_block(last) && is_block(n) && last->count == 1 && n->count == 1 &&
            n->disp + shift == last->disp + last->iter_size && (!typed || last->elem == n->elem)) {
            last->iter_size += n->iter_size;
            if (last->elem != n->elem)
                last->elem = MPCRT_DT_MIXED;
            return;
        }
    }
    seq[*len] = *n;
    seq[*len].disp += shift;
    (*len)++;
}

int mpcrt_dt_node_sequence(mpcrt_dt_arena_t **arena, const mpcrt_dt_node_t *parts, size_t n, bool typed,
                           mpcrt_dt_node_t *out)
{
    /* Parts that are themselves single-iteration sequences are spliced in, one level deep: their children
     * were already flattened when they were built. */
    size_t capacity = 0;
    for (size_t i = 0; i < n; i++)
        capacity += !is_block(&parts[i]) && parts[i].count == 1 ? parts[i].nchildren : 1;
    if (capacity == 0) {
        *out = (mpcrt_dt_node_t){0};
        return 0;
    }
    mpcrt_dt_node_t *seq = mpcrt_dt_arena_alloc(arena, capacity * sizeof *seq);
    if (!seq)
        return -ENOMEM;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        const mpcrt_dt_node_t *p = &parts[i];
        if (mpcrt_dt_node_total(p) == 0)
            continue;
        if (!is_block(p) && p->count == 1) {
            for (uint32_t c = 0; c < p->nchildren; c++)
                append(seq, &len, &p->children[c], p->disp, typed);
        } else {
            append(seq, &len, p, 0, typed);
        }
    }
    if (len == 0) {
        *out = (mpcrt_dt_node_t){0};
        return 0;
    }
    if (len == 1) {
        *out = seq[0]; /* the arena keeps the unused array until the type goes: a few bytes */
        return 0;
    }
    if (len > UINT32_MAX)
        return -ENOMEM;
    MPI_Count *offset = mpcrt_dt_arena_alloc(arena, len * sizeof *offset);
    if (!offset)
        return -ENOMEM;
    MPI_Count total = 0;
    bool flat = true;
    for (size_t i = 0; i < len; i++) {
        offset[i] = total;
        total += mpcrt_dt_node_total(&seq[i]);
        flat = flat && is_block(&seq[i]) && seq[i].count == 1;
    }
    *out = (mpcrt_dt_node_t){.count = 1, .iter_size = total, .nchildren = (uint32_t)len, .elem = MPCRT_DT_MIXED,
                             .node_flags = flat ? MPCRT_DT_NODE_FLAT : 0, .children = seq, .child_offset = offset};
    return 0;
}
