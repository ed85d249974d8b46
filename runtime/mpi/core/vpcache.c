/* Per-VP block caches (see vpcache.h). */
#include "vpcache.h"

#include "../../threads/sched.h"
#include "../pt2pt/pt2pt.h"

#include <stdatomic.h>
#include <stdlib.h>

enum {
    CACHE_MAX_BLOCKS = 512, /* per VP and class: 160 KiB of requests at most */
    CACHE_MAX_INDICES = 64
};

typedef struct block {
    struct block *next;
    uint32_t index; /* requests: the handle index kept with the block, UINT32_MAX for none */
} block_t;

typedef struct {
    _Alignas(64) block_t *head[MPCRT_VPCACHE_NCLASSES];
    int count[MPCRT_VPCACHE_NCLASSES];
    int nindices;
    uint32_t indices[CACHE_MAX_INDICES];
} vp_cache_t;

typedef struct {
    int n; /* VPs when the caches were made (a scheduler started again with more VPs uses malloc there) */
    vp_cache_t vp[];
} cache_set_t;

static cache_set_t *_Atomic caches; /* made on first use */

static size_t class_size(mpcrt_vpcache_class_t cls)
{
    size_t bytes = cls == MPCRT_VPCACHE_REQUEST ? sizeof(mpcrt_request_t) : MPCRT_VPCACHE_CELL_BYTES;
    return (bytes + 63) / 64 * 64;
}

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
static inline __attribute__((always_inline)) vp_cache_t *my_cache(void)
{
    return NULL;
}
#else
static cache_set_t *make_caches(void)
{
    int n = mpcrt_sched_num_vps();
    cache_set_t *fresh = n > 0 ? aligned_alloc(64, sizeof *fresh + sizeof(vp_cache_t) * (size_t)n) : NULL;
    if (!fresh)
        return NULL;
    fresh->n = n;
    for (int i = 0; i < n; i++)
        fresh->vp[i] = (vp_cache_t){0};
    cache_set_t *expected = NULL;
    /* acq_rel: the zeroed caches are visible to whoever loads the pointer. */
    if (!atomic_compare_exchange_strong_explicit(&caches, &expected, fresh, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(fresh); /* another VP made them first */
        return expected;
    }
    return fresh;
}

static inline __attribute__((always_inline)) vp_cache_t *my_cache(void)
{
    int vp = mpcrt_self_vp();
    if (vp < 0)
        return NULL;
    cache_set_t *set = atomic_load_explicit(&caches, memory_order_acquire);
    if (!set && !(set = make_caches()))
        return NULL;
    return vp < set->n ? &set->vp[vp] : NULL;
}
#endif

void *mpcrt_vpcache_alloc(mpcrt_vpcache_class_t cls)
{
    vp_cache_t *c = my_cache();
    if (c && c->head[cls]) {
        block_t *b = c->head[cls];
        c->head[cls] = b->next;
        c->count[cls]--;
        return b;
    }
    return aligned_alloc(64, class_size(cls));
}

void mpcrt_vpcache_free(mpcrt_vpcache_class_t cls, void *block)
{
    if (!block)
        return;
    vp_cache_t *c = my_cache();
    if (c && c->count[cls] < CACHE_MAX_BLOCKS) {
        block_t *b = block;
        b->next = c->head[cls];
        c->head[cls] = b;
        c->count[cls]++;
        return;
    }
    free(block);
}

void *mpcrt_vpcache_alloc_request(uint32_t *index)
{
    vp_cache_t *c = my_cache();
    block_t *b = c ? c->head[MPCRT_VPCACHE_REQUEST] : NULL;
    if (b) {
        c->head[MPCRT_VPCACHE_REQUEST] = b->next;
        c->count[MPCRT_VPCACHE_REQUEST]--;
        *index = b->index;
        return b;
    }
    *index = UINT32_MAX;
    return aligned_alloc(64, class_size(MPCRT_VPCACHE_REQUEST));
}

void mpcrt_vpcache_free_request(void *block, uint32_t index)
{
    vp_cache_t *c = my_cache();
    if (c && c->count[MPCRT_VPCACHE_REQUEST] < CACHE_MAX_BLOCKS) {
        block_t *b = block;
        b->next = c->head[MPCRT_VPCACHE_REQUEST];
        b->index = index;
        c->head[MPCRT_VPCACHE_REQUEST] = b;
        c->count[MPCRT_VPCACHE_REQUEST]++;
        return;
    }
    free(block);
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

bool mpcrt_vpcache_give_index(uint32_t index)
{
    vp_cache_t *c = my_cache();
    if (!c || c->nindices == CACHE_MAX_INDICES)
        return false;
    c->indices[c->nindices++] = index;
    return true;
}
