/* Handle tables (see handle.h): a two-level array of slots per object kind that only grows, so lookups need
 * no lock, and a LIFO free list of indices under a per-kind lock for registration and release. */
#include "handle.h"
#include "../../threads/sched.h"
#include "vpcache.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

mpcrt_handle_table_t mpcrt_handle_tables[MPCRT_OBJ_NKINDS];

#define NO_INDEX UINT32_MAX

/* Allocation state of one kind; only touched under `lock`. Request indices also sit in per-VP stashes
 * (vpcache.h), outside the free list: requests come and go with every non-blocking call. */
typedef struct {
    /* A spin lock, not an mpcrt_mutex: the section is a few loads and stores (a chunk's calloc at most),
     * and it is taken from progress hooks (the NBC engine frees requests there). A mutex hands ownership
     * to a parked ULT; a hook on that ULT's own VP that then waited for the mutex blocked the VP's thread,
     * and with it the owner, for ever (coll_nbc under ASan, where every request takes this lock). */
    _Atomic int lock;
    uint32_t free_head;   /* stack of released indices, linked through the chunks' next_free */
    uint32_t next_unused; /* indices below this one have been handed out at least once */
} kind_state_t;

static kind_state_t kinds[MPCRT_OBJ_NKINDS];

__attribute__((constructor)) static void init_kinds(void)
{
    for (int k = 0; k < MPCRT_OBJ_NKINDS; k++) {
        atomic_init(&kinds[k].lock, 0);
        kinds[k].free_head = NO_INDEX;
    }
}

static bool valid_kind(unsigned kind)
{
    return kind > 0 && kind < MPCRT_OBJ_NKINDS;
}

void mpcrt_object_init(mpcrt_object_t *obj, mpcrt_obj_kind_t kind, void (*destroy)(mpcrt_object_t *obj))
{
    atomic_init(&obj->refs, 1);
    obj->handle = 0;
    obj->kind = (uint16_t)kind;
    obj->flags = 0;
    obj->destroy = destroy;
}

static mpcrt_handle_chunk_t *chunk_of(mpcrt_handle_table_t *t, uint32_t index)
{
    /* acquire: pairs with the release that published the chunk. */
    return atomic_load_explicit(&t->chunks[index >> MPCRT_HANDLE_CHUNK_BITS], memory_order_acquire);
}

static uint32_t slot_of(uint32_t index)
{
    return index & (MPCRT_HANDLE_CHUNK_SLOTS - 1);
}

static void give_index(mpcrt_obj_kind_t kind, uint32_t index)
{
    kind_state_t *s = &kinds[kind];
    mpcrt_spin_lock(&s->lock);
    chunk_of(&mpcrt_handle_tables[kind], index)->next_free[slot_of(index)] = s->free_head;
    s->free_head = index;
    mpcrt_spin_unlock(&s->lock);
}

/* Slots in a cache line: chunks are line-aligned, so indices 8k to 8k + 7 share one. */
enum { SLOTS_PER_LINE = 64 / sizeof(_Atomic(mpcrt_object_t *)) };

/* Makes sure the chunk of never-used indices [index, index + n) exists (n within one chunk). */
static int ensure_chunk(mpcrt_handle_table_t *t, uint32_t index)
{
    if (chunk_of(t, index))
        return 0;
    mpcrt_handle_chunk_t *chunk = aligned_alloc(64, sizeof *chunk);
    if (!chunk)
        return -ENOMEM;
    memset(chunk, 0, sizeof *chunk);
    /* release: the zeroed slots are visible before any lookup can find the chunk. */
    atomic_store_explicit(&t->chunks[index >> MPCRT_HANDLE_CHUNK_BITS], chunk, memory_order_release);
    return 0;
}

/* Takes a free index (the last released first, else a never-used one). Called with the kind's lock held. */
static int take_index(mpcrt_handle_table_t *t, kind_state_t *s, uint32_t *out)
{
    if (s->free_head != NO_INDEX) {
        uint32_t index = s->free_head;
        s->free_head = chunk_of(t, index)->next_free[slot_of(index)];
        *out = index;
        return 0;
    }
    if (s->next_unused >= MPCRT_HANDLE_MAX_OBJECTS)
        return -ENOMEM;
    uint32_t index = s->next_unused;
    if (ensure_chunk(t, index) != 0)
        return -ENOMEM;
    s->next_unused = index + 1;
    *out = index;
    return 0;
}

/* A request index for a VP whose stash is empty: a released one if any, else a whole line of never-used
 * slots, *out and the SLOTS_PER_LINE - 1 others in line[] (*nline of them) for the VP's stash. Two ranks on
 * two cores that make and free requests (MPI_Irecv + MPI_Wait) each write their slot on every call; with
 * indices handed out one at a time their slots shared lines, and a request cost 29 ns instead of 20.
 * Called with the kind's lock held. */
static int take_request_line(mpcrt_handle_table_t *t, kind_state_t *s, uint32_t *out, uint32_t *line,
                             int *nline)
{
    *nline = 0;
    if (s->free_head != NO_INDEX)
        return take_index(t, s, out);
    uint32_t first = (s->next_unused + SLOTS_PER_LINE - 1) / SLOTS_PER_LINE * SLOTS_PER_LINE;
    if (first > MPCRT_HANDLE_MAX_OBJECTS - SLOTS_PER_LINE || ensure_chunk(t, first) != 0)
        return take_index(t, s, out);
    /* The never-used indices skipped to reach a line boundary go to the free list. */
    for (uint32_t skipped = s->next_unused; skipped < first; skipped++) {
        chunk_of(t, skipped)->next_free[slot_of(skipped)] = s->free_head;
        s->free_head = skipped;
    }
    s->next_unused = first + SLOTS_PER_LINE;
    *out = first;
    for (uint32_t i = 1; i < SLOTS_PER_LINE; i++)
        line[(*nline)++] = first + i;
    return 0;
}

int mpcrt_handle_register_slow(mpcrt_object_t *obj, int *handle)
{
    unsigned kind = obj->kind;
    if (!valid_kind(kind))
        return -EINVAL;
    mpcrt_handle_table_t *t = &mpcrt_handle_tables[kind];
    kind_state_t *s = &kinds[kind];
    uint32_t index;
    /* (A request that kept its index took the inline path of mpcrt_handle_register.) */
    if (kind != MPCRT_OBJ_REQUEST || !mpcrt_vpcache_take_index(&index)) {
        uint32_t line[SLOTS_PER_LINE];
        int nline = 0;
        mpcrt_spin_lock(&s->lock);
        int rc = kind == MPCRT_OBJ_REQUEST && mpcrt_vpcache_stashes()
                     ? take_request_line(t, s, &index, line, &nline)
                     : take_index(t, s, &index);
        mpcrt_spin_unlock(&s->lock);
        if (rc != 0)
            return rc;
        for (int i = 0; i < nline; i++)
            if (!mpcrt_vpcache_give_index(line[i]))
                give_index(MPCRT_OBJ_REQUEST, line[i]);
    }
    int h = mpcrt_handle_make(MPCRT_HANDLE_INDIRECT, (mpcrt_obj_kind_t)kind, index);
    if (obj->handle == 0)
        obj->handle = h; /* first handle: the object is not visible to anyone else yet */
    /* release: whoever looks the handle up sees the object fully initialized. */
    atomic_store_explicit(&chunk_of(t, index)->slots[slot_of(index)], obj, memory_order_release);
    *handle = h;
    return 0;
}

int mpcrt_handle_register_predefined(mpcrt_object_t *obj, mpcrt_obj_kind_t kind, int handle)
{
    unsigned hk = mpcrt_handle_kind(handle);
    if (!valid_kind(kind) || mpcrt_handle_obj_kind(handle) != (unsigned)kind ||
        (hk != MPCRT_HANDLE_BUILTIN && hk != MPCRT_HANDLE_DIRECT))
        return -EINVAL;
    obj->kind = (uint16_t)kind;
    obj->flags |= MPCRT_OBJECT_PREDEFINED;
    obj->handle = handle;
    atomic_init(&obj->refs, 1);
    /* relaxed: done at library load, before any other thread exists (thread creation orders it). */
    atomic_store_explicit(&mpcrt_handle_tables[kind].predefined[hk - 1][(unsigned)handle & 0xffu], obj,
                          memory_order_relaxed);
    return 0;
}

int mpcrt_handle_free(mpcrt_obj_kind_t kind, int handle)
{
    if (!valid_kind(kind) || mpcrt_handle_obj_kind(handle) != (unsigned)kind ||
        mpcrt_handle_kind(handle) != MPCRT_HANDLE_INDIRECT)
        return -EINVAL;
    mpcrt_handle_table_t *t = &mpcrt_handle_tables[kind];
    uint32_t index = mpcrt_handle_index(handle);
    mpcrt_handle_chunk_t *chunk = chunk_of(t, index);
    if (!chunk)
        return -EINVAL;
    /* An exchange, so that of two racing frees of one handle exactly one wins. acq_rel: acquire to see the
     * object registered by another thread, release so that the slot is empty before the index is reused. */
    mpcrt_object_t *obj = atomic_exchange_explicit(&chunk->slots[slot_of(index)], NULL, memory_order_acq_rel);
    if (!obj)
        return -EINVAL;
    /* A request keeps its index (obj->handle) until it is destroyed: its block goes back to the vpcache
     * with it (mpcrt_handle_give_request_index when the cache is full). */
    if (kind != MPCRT_OBJ_REQUEST)
        give_index(kind, index);
    mpcrt_object_release(obj);
    return 0;
}

void mpcrt_handle_give_request_index(uint32_t index)
{
    if (!mpcrt_vpcache_give_index(index))
        give_index(MPCRT_OBJ_REQUEST, index);
}

void mpcrt_object_release_slow(mpcrt_object_t *obj)
{
    if (obj->destroy)
        obj->destroy(obj);
}

long mpcrt_handle_count(mpcrt_obj_kind_t kind)
{
    if (!valid_kind(kind))
        return 0;
    /* Counted, not tracked: a shared counter would bounce between cores on every registration. */
    mpcrt_handle_table_t *t = &mpcrt_handle_tables[kind];
    kind_state_t *s = &kinds[kind];
    mpcrt_spin_lock(&s->lock);
    uint32_t end = s->next_unused;
    mpcrt_spin_unlock(&s->lock);
    long live = 0;
    for (uint32_t index = 0; index < end; index++) {
        mpcrt_handle_chunk_t *chunk = chunk_of(t, index);
        live += chunk && atomic_load_explicit(&chunk->slots[slot_of(index)], memory_order_relaxed) != NULL;
    }
    return live;
}
