/* Per-VP caches of fixed-size blocks for the objects the message path creates and frees by the million
 * (requests, eager cells): malloc's locks and consolidation were 40 % of a small-message stream. A block
 * freed on one VP goes to that VP's cache (bounded), so a stream between two cores moves blocks from the
 * sender's cache to the receiver's and back through malloc only past the bound. Only code running on a VP
 * uses its cache (ULTs of a VP never run at once, and nothing here yields); kernel threads that are no
 * VP's, and sanitizer builds (so that ASan still sees every use after free), go to malloc directly. */
#ifndef MPCRT_MPI_CORE_VPCACHE_H
#define MPCRT_MPI_CORE_VPCACHE_H

#include "../../threads/sched.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A per-VP table: an int (the VPs it was made for) at offset 0, then one slot_bytes slot per VP from
 * slots_offset, zeroed, made by the first caller and published in *table (a racing maker frees its own).
 * mpcrt_vp_slot is the calling VP's slot; NULL off a VP, without memory, or for a VP the table was not
 * made for (a scheduler started again with more VPs). */
void *mpcrt_vp_table_make(void *_Atomic *table, size_t slots_offset, size_t slot_bytes);
static inline __attribute__((always_inline)) void *mpcrt_vp_slot(void *_Atomic *table, size_t slots_offset,
                                                                 size_t slot_bytes)
{
    int vp = mpcrt_self_vp();
    if (vp < 0)
        return NULL;
    char *set = atomic_load_explicit(table, memory_order_acquire);
    if (!set && !(set = mpcrt_vp_table_make(table, slots_offset, slot_bytes)))
        return NULL;
    return vp < *(int *)set ? set + slots_offset + (size_t)vp * slot_bytes : NULL;
}

typedef enum {
    MPCRT_VPCACHE_REQUEST, /* mpcrt_request_t */
    MPCRT_VPCACHE_CELL, /* an eager cell: a message header and its bytes, MPCRT_VPCACHE_CELL_BYTES in all */
    MPCRT_VPCACHE_NCLASSES
} mpcrt_vpcache_class_t;

/* Room for a 1 KiB payload: larger eager messages between ranks of a process come from malloc and are
 * freed on the receiver's thread, and at 256 B (the size before) a thread-mode stream of 256 B-1 KiB
 * messages ran 2.3-2.8x slower than one of 128 B. Only the lines a message touches are ever fetched. */
enum { MPCRT_VPCACHE_CELL_BYTES = 1280 };

/* An uninitialized block of the class's size, aligned to a cache line; NULL when out of memory. */
void *mpcrt_vpcache_alloc(mpcrt_vpcache_class_t cls);
/* Gives back a block from mpcrt_vpcache_alloc of the same class (any VP, any thread). */
void mpcrt_vpcache_free(mpcrt_vpcache_class_t cls, void *block);

/* Requests keep their handle index through the cache: alloc_request gives a block and the index kept with
 * it (UINT32_MAX for none), free_request takes both (an index it cannot keep goes back to handle.c). */
void *mpcrt_vpcache_alloc_request(uint32_t *index);
void mpcrt_vpcache_free_request(void *block, uint32_t index);

/* A per-VP stash of free request-handle indices (handle.c), so that MPI_Isend/MPI_Wait do not take the
 * handle table's lock: false when the stash is empty (take) or full (give). */
bool mpcrt_vpcache_take_index(uint32_t *index);
bool mpcrt_vpcache_give_index(uint32_t index);
/* The calling thread has a stash (it is a VP's, and caches are on: not in sanitizer builds). */
bool mpcrt_vpcache_stashes(void);

#endif
