/* Per-VP block caches (see vpcache.h). */
#include "vpcache.h"

#include "../../threads/lifo.h"
#include "../../threads/sched.h"
#include "../pt2pt/pt2pt.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

enum {
    CACHE_MAX_BLOCKS = 512, /* per VP and class, of the VP's own blocks freed on it */
    CACHE_MAX_INDICES = 64,
    HEADER_BYTES = 64 /* before each block: its owner (a line of its own, written once) */
};

typedef struct block {
    struct block *next;
    uint32_t index; /* requests: the handle index kept with the block, UINT32_MAX for none */
} block_t;

typedef struct {
    int owner; /* the VP whose cache the block goes back to, -1 for none (malloc'd off a VP) */
} block_header_t;

typedef struct {
    _Alignas(64) block_t *head[MPCRT_VPCACHE_NCLASSES];
    int count[MPCRT_VPCACHE_NCLASSES];
    int nindices;
    uint32_t indices[CACHE_MAX_INDICES];
    /* The VP's blocks that other VPs freed (a one-way stream: the receiver frees what the sender
     * allocated), pushed by them and taken all at once by this VP when its own list is empty. A line of its
     * own: the other VPs write it. */
    _Alignas(64) block_t *_Atomic returned[MPCRT_VPCACHE_NCLASSES];
} vp_cache_t;

typedef struct {
    int n; /* VPs when the caches were made (a scheduler started again with more VPs uses malloc there) */
    vp_cache_t vp[];
} cache_set_t;

static void *_Atomic caches; /* a cache_set_t, made on first use (mpcrt_vp_slot) */

static size_t class_size(mpcrt_vpcache_class_t cls)
{
    size_t bytes = cls == MPCRT_VPCACHE_REQUEST ? sizeof(mpcrt_request_t) : MPCRT_VPCACHE_CELL_BYTES;
    return (bytes + 63) / 64 * 64;
}

static block_header_t *header_of(void *block)
{
    return (block_header_t *)((char *)block - HEADER_BYTES);
}

void *mpcrt_vp_table_make(void *_Atomic *table, size_t slots_offset, size_t slot_bytes)
{
    int n = mpcrt_sched_num_vps();
    size_t bytes = (slots_offset + slot_bytes * (size_t)(n > 0 ? n : 0) + 63) / 64 * 64;
    char *fresh = n > 0 ? aligned_alloc(64, bytes) : NULL;
    if (!fresh)
        return NULL;
    memset(fresh, 0, bytes);
    *(int *)fresh = n;
    void *expected = NULL;
    /* acq_rel: the zeroed slots are visible to whoever loads the pointer. */
    if (!atomic_compare_exchange_strong_explicit(table, &expected, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(fresh); /* another VP made it first */
        return expected;
    }
    return fresh;
}

static inline __attribute__((always_inline)) vp_cache_t *my_cache(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)caches;
    return NULL;
#else
    return mpcrt_vp_slot(&caches, offsetof(cache_set_t, vp), sizeof(vp_cache_t));
#endif
}

/* Another VP's cache, for giving it back its block; NULL when there is none. */
static vp_cache_t *cache_of(int vp)
{
    cache_set_t *set = atomic_load_explicit(&caches, memory_order_acquire);
    return set && vp >= 0 && vp < set->n ? &set->vp[vp] : NULL;
}

/* A block of the class from the VP's cache (with the index kept with it), else from malloc. */
static inline __attribute__((always_inline)) void *take_block(mpcrt_vpcache_class_t cls, uint32_t *index)
{
    vp_cache_t *c = my_cache();
    block_t *b = c ? c->head[cls] : NULL;
    if (!b && c && atomic_load_explicit(&c->returned[cls], memory_order_relaxed))
        /* acquire: the freeing VPs' last uses of the blocks happen before ours. */
        b = atomic_exchange_explicit(&c->returned[cls], NULL, memory_order_acquire);
    if (b) {
        c->head[cls] = b->next;
        if (c->count[cls] > 0)
            c->count[cls]--;
        *index = b->index;
        return b;
    }
    *index = UINT32_MAX;
    char *raw = aligned_alloc(64, HEADER_BYTES + class_size(cls));
    if (!raw)
        return NULL;
    ((block_header_t *)raw)->owner = c ? mpcrt_self_vp() : -1;
    return raw + HEADER_BYTES;
}

/* Into the cache of the block's VP (ours: bounded; another's: its returned list); false when it cannot
 * go to one: the caller frees it (release_block). */
static inline __attribute__((always_inline)) bool give_block(mpcrt_vpcache_class_t cls, void *block,
                                                             uint32_t index)
{
    vp_cache_t *c = my_cache();
    int owner = header_of(block)->owner;
    block_t *b = block;
    b->index = index;
    if (c && owner == mpcrt_self_vp()) {
        if (c->count[cls] >= CACHE_MAX_BLOCKS)
            return false;
        b->next = c->head[cls];
        c->head[cls] = b;
        c->count[cls]++;
        return true;
    }
    vp_cache_t *home = cache_of(owner);
    if (!home)
        return false;
    /* release: our uses of the block happen before its owner takes it. */
    MPCRT_LIFO_PUSH(&home->returned[cls], b, next, memory_order_release);
    return true;
}

static void release_block(void *block)
{
    free(header_of(block));
}

void *mpcrt_vpcache_alloc(mpcrt_vpcache_class_t cls)
{
    uint32_t unused;
    return take_block(cls, &unused);
}

void mpcrt_vpcache_free(mpcrt_vpcache_class_t cls, void *block)
{
    if (block && !give_block(cls, block, UINT32_MAX))
        release_block(block);
}

void *mpcrt_vpcache_alloc_request(uint32_t *index)
{
    return take_block(MPCRT_VPCACHE_REQUEST, index);
}

void mpcrt_vpcache_free_request(void *block, uint32_t index)
{
    if (give_block(MPCRT_VPCACHE_REQUEST, block, index))
        return;
    release_block(block);
    if (index != UINT32_MAX)
        mpcrt_handle_give_request_index(index);
}

bool mpcrt_vpcache_take_index(uint32_t *index)
{
    vp_cache_t *c = my_cache();
    if (!c || c->nindices == 0)
        return false;
    *index = c->indices[--c->nindices];
    return true;
}

bool mpcrt_vpcache_stashes(void)
{
    return my_cache() != NULL;
}

bool mpcrt_vpcache_give_index(uint32_t index)
{
    vp_cache_t *c = my_cache();
    if (!c || c->nindices == CACHE_MAX_INDICES)
        return false;
    c->indices[c->nindices++] = index;
    return true;
}
