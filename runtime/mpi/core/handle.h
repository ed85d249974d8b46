/* Handle tables: the integer handles of the MPICH ABI mapped to the runtime's objects, one table per object
 * kind and per process (communicators, datatypes... are shared by the ranks of a process in thread mode).
 *
 * Handle layout (MPICH ABI, see include/mpi.h):
 *   bits 31-30  handle kind: 00 invalid (the *_NULL handles), 01 builtin, 10 direct, 11 indirect
 *   bits 29-26  object kind (mpcrt_obj_kind_t)
 *   bits 25-0   builtin/direct: kind-specific (datatypes: bits 15-8 size, bits 7-0 index)
 *               indirect: index into the kind's table
 * Predefined objects are builtin or direct handles (the MPICH pair types such as MPI_FLOAT_INT are direct
 * with indices 0-4); every object created at run time gets an indirect handle, so it can never collide with a
 * predefined or null handle.
 *
 * Concurrency: lookups are lock-free (two acquire loads: a chunk pointer, then the slot); a chunk, once
 * published, is never moved or freed, so a lookup never races with a resize. Registration and release take
 * the kind's lock to use the free list of indices. The last freed index is reused first (warm slots; and
 * MPICH's test suite has programs that reuse a freed handle variable and pass only with this order, as they
 * do on MPICH), so a stale handle may name a newer object: MPI makes using it erroneous anyway.
 *
 * Object lifetime: an object starts with one reference, owned by its first handle. Pending operations take
 * their own references (mpcrt_object_retain); freeing a handle (e.g. MPI_Type_free) removes it from the table
 * and drops the handle's reference, and the object is destroyed when the last reference goes. Several handles
 * may name one object (MPI_Type_get_contents hands out new handles to existing inner types): each holds one
 * reference. Predefined objects are never counted nor destroyed. */
#ifndef MPCRT_MPI_CORE_HANDLE_H
#define MPCRT_MPI_CORE_HANDLE_H

#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Object kinds: the values are the MPICH ABI's (MPI_COMM_NULL is 0x04000000 = kind 1 << 26, ...). */
typedef enum {
    MPCRT_OBJ_COMM = 1,
    MPCRT_OBJ_GROUP = 2,
    MPCRT_OBJ_DATATYPE = 3,
    MPCRT_OBJ_FILE = 4,
    MPCRT_OBJ_ERRHANDLER = 5,
    MPCRT_OBJ_OP = 6,
    MPCRT_OBJ_INFO = 7,
    MPCRT_OBJ_WIN = 8,
    MPCRT_OBJ_KEYVAL = 9,
    MPCRT_OBJ_ATTR = 10,
    MPCRT_OBJ_REQUEST = 11,  /* also MPI_Message */
    MPCRT_OBJ_INTERNAL = 12, /* free for the runtime's own objects (and tests) */
    MPCRT_OBJ_SESSION = 14,
    MPCRT_OBJ_NKINDS = 16
} mpcrt_obj_kind_t;

enum {
    MPCRT_HANDLE_INVALID = 0,
    MPCRT_HANDLE_BUILTIN = 1,
    MPCRT_HANDLE_DIRECT = 2,
    MPCRT_HANDLE_INDIRECT = 3,
};

#define MPCRT_HANDLE_KIND_SHIFT 30
#define MPCRT_HANDLE_OBJ_SHIFT 26
#define MPCRT_HANDLE_INDEX_BITS 26
#define MPCRT_HANDLE_CHUNK_BITS 12
#define MPCRT_HANDLE_CHUNK_SLOTS (1u << MPCRT_HANDLE_CHUNK_BITS)
#define MPCRT_HANDLE_NCHUNKS (1u << (MPCRT_HANDLE_INDEX_BITS - MPCRT_HANDLE_CHUNK_BITS))
#define MPCRT_HANDLE_MAX_OBJECTS (1u << MPCRT_HANDLE_INDEX_BITS)

static inline unsigned mpcrt_handle_kind(int handle)
{
    return (unsigned)handle >> MPCRT_HANDLE_KIND_SHIFT;
}
static inline unsigned mpcrt_handle_obj_kind(int handle)
{
    return ((unsigned)handle >> MPCRT_HANDLE_OBJ_SHIFT) & 0xfu;
}
static inline unsigned mpcrt_handle_index(int handle)
{
    return (unsigned)handle & (MPCRT_HANDLE_MAX_OBJECTS - 1);
}
static inline int mpcrt_handle_make(unsigned handle_kind, mpcrt_obj_kind_t kind, unsigned index)
{
    return (int)((handle_kind << MPCRT_HANDLE_KIND_SHIFT) | ((unsigned)kind << MPCRT_HANDLE_OBJ_SHIFT) |
                 index);
}

enum {
    MPCRT_OBJECT_PREDEFINED = 1u << 0,
    /* A request whose block came from the vpcache with a handle index still reserved for it (`handle`
     * holds it): its registration takes that index, with no table lock and no stash. */
    MPCRT_OBJECT_KEPT_INDEX = 1u << 1,
};

/* The header every handle-named object starts with. */
typedef struct mpcrt_object {
    _Atomic int refs;
    int handle;     /* the first handle registered for the object (0 before) */
    uint16_t kind;  /* mpcrt_obj_kind_t */
    uint16_t flags; /* MPCRT_OBJECT_* */
    /* Called once, when the last reference goes; frees the object. NULL: nothing to do. */
    void (*destroy)(struct mpcrt_object *obj);
} mpcrt_object_t;

typedef struct {
    _Atomic(mpcrt_object_t *) slots[MPCRT_HANDLE_CHUNK_SLOTS];
    uint32_t next_free[MPCRT_HANDLE_CHUNK_SLOTS]; /* free-list links; under the table's lock */
} mpcrt_handle_chunk_t;

/* Per-kind table. Exposed only so that lookups can be inlined; use the functions below. */
typedef struct {
    _Atomic(mpcrt_handle_chunk_t *) chunks[MPCRT_HANDLE_NCHUNKS];
    /* Predefined objects by low byte of their handle, [0] builtin, [1] direct; set at library load. */
    _Atomic(mpcrt_object_t *) predefined[2][256];
} mpcrt_handle_table_t;

extern mpcrt_handle_table_t mpcrt_handle_tables[MPCRT_OBJ_NKINDS];

/* Prepares a new object's header: one reference (for its first handle), not yet registered. */
void mpcrt_object_init(mpcrt_object_t *obj, mpcrt_obj_kind_t kind, void (*destroy)(mpcrt_object_t *obj));

/* Gives obj a new indirect handle. The handle owns one reference: for a new object, the one made by
 * mpcrt_object_init; for an object that already has a handle, the caller retains first. Returns 0, or
 * -ENOMEM when the table or the memory is exhausted. */
int mpcrt_handle_register_slow(mpcrt_object_t *obj, int *handle);
static inline int mpcrt_handle_register(mpcrt_object_t *obj, int *handle)
{
    if (!(obj->flags & MPCRT_OBJECT_KEPT_INDEX))
        return mpcrt_handle_register_slow(obj, handle);
    /* A request whose block kept its index (and its handle, in obj->handle): the slot is free and ours. */
    obj->flags &= (uint16_t)~MPCRT_OBJECT_KEPT_INDEX;
    uint32_t index = mpcrt_handle_index(obj->handle);
    /* acquire: pairs with the release that published the chunk. */
    mpcrt_handle_chunk_t *chunk = atomic_load_explicit(
        &mpcrt_handle_tables[obj->kind].chunks[index >> MPCRT_HANDLE_CHUNK_BITS], memory_order_acquire);
    /* release: whoever looks the handle up sees the object fully initialized. */
    atomic_store_explicit(&chunk->slots[index & (MPCRT_HANDLE_CHUNK_SLOTS - 1)], obj, memory_order_release);
    *handle = obj->handle;
    return 0;
}

/* Makes a predefined object (flag MPCRT_OBJECT_PREDEFINED is set here) answer to a builtin or direct handle.
 * Called at library load, before any lookup. Returns 0 or -EINVAL (wrong kind or handle kind). */
int mpcrt_handle_register_predefined(mpcrt_object_t *obj, mpcrt_obj_kind_t kind, int handle);

/* The object named by handle if it is a live handle of that kind; NULL for a null handle, a handle of
 * another kind, a freed or never-issued handle. Lock-free; takes no reference: the caller's handle keeps
 * the object alive for the duration of the call (MPI makes freeing a handle in use by a concurrent call
 * erroneous). A pending operation that outlives the call takes a reference with mpcrt_object_retain. */
static inline mpcrt_object_t *mpcrt_handle_lookup(mpcrt_obj_kind_t kind, int handle)
{
    const mpcrt_handle_table_t *t = &mpcrt_handle_tables[kind];
    /* Builtin handles first (MPI_COMM_WORLD, MPI_INT...: the latency path names them on every call). A slot
     * of this kind's table holds an object of this kind whose handle is builtin, so an equal handle proves
     * the object kind and the handle kind at once; anything else takes the checks below. relaxed: as below.
     */
    mpcrt_object_t *obj =
        atomic_load_explicit(&t->predefined[0][(unsigned)handle & 0xffu], memory_order_relaxed);
    /* Expected: gcc otherwise laid this return out of line, a jump there and one back per lookup. */
    if (__builtin_expect(obj && obj->handle == handle, 1))
        return obj;
    if (mpcrt_handle_obj_kind(handle) != (unsigned)kind)
        return NULL;
    unsigned hk = mpcrt_handle_kind(handle);
    if (hk == MPCRT_HANDLE_INDIRECT) {
        unsigned index = mpcrt_handle_index(handle);
        /* acquire: pairs with the release that published the chunk (its slots are initialized). */
        mpcrt_handle_chunk_t *chunk =
            atomic_load_explicit(&t->chunks[index >> MPCRT_HANDLE_CHUNK_BITS], memory_order_acquire);
        if (!chunk)
            return NULL;
        /* acquire: pairs with the release in mpcrt_handle_register, so the object's fields are visible. */
        obj =
            atomic_load_explicit(&chunk->slots[index & (MPCRT_HANDLE_CHUNK_SLOTS - 1)], memory_order_acquire);
        return obj;
    }
    if (hk == MPCRT_HANDLE_INVALID)
        return NULL;
    /* relaxed: predefined slots are written at library load, before any thread that could look them up.
     * Comparing the whole handle checks the bits the low byte does not index (e.g. a datatype's size). */
    obj = atomic_load_explicit(&t->predefined[hk - 1][(unsigned)handle & 0xffu], memory_order_relaxed);
    return obj && obj->handle == handle ? obj : NULL;
}

/* Removes handle from its table and drops the reference it owned (the object may be destroyed now or when
 * its pending operations finish). Returns 0, -EINVAL for a handle that is not a live indirect handle of that
 * kind (predefined objects cannot be freed). */
int mpcrt_handle_free(mpcrt_obj_kind_t kind, int handle);

static inline void mpcrt_object_retain(mpcrt_object_t *obj)
{
    if (obj->flags & MPCRT_OBJECT_PREDEFINED)
        return; /* no shared counter to bounce between cores for MPI_INT and friends */
    /* relaxed: the caller already holds a reference, so the object cannot go away meanwhile. */
    atomic_fetch_add_explicit(&obj->refs, 1, memory_order_relaxed);
}

void mpcrt_object_release_slow(mpcrt_object_t *obj);

static inline void mpcrt_object_release(mpcrt_object_t *obj)
{
    if (obj->flags & MPCRT_OBJECT_PREDEFINED)
        return;
    /* The last reference, and ours: nobody else can take or drop one, so no locked instruction (a request
     * per message ends here). acquire: the other holders' uses (their acq_rel drops) happen before the
     * destruction. Else acq_rel: our uses of the object happen before its destruction, which may run on
     * another thread. */
    if (atomic_load_explicit(&obj->refs, memory_order_acquire) == 1 ||
        atomic_fetch_sub_explicit(&obj->refs, 1, memory_order_acq_rel) == 1)
        mpcrt_object_release_slow(obj);
}

/* mpcrt_handle_free for a request handle that only the caller may free now: a completed request in its
 * completion call (MPI makes freeing it elsewhere meanwhile erroneous). Inline, with a plain load and store
 * instead of the exchange that settles racing frees: it runs once per message. */
static inline int mpcrt_handle_free_request(int handle)
{
    if (mpcrt_handle_kind(handle) != MPCRT_HANDLE_INDIRECT ||
        mpcrt_handle_obj_kind(handle) != MPCRT_OBJ_REQUEST)
        return -EINVAL;
    uint32_t index = mpcrt_handle_index(handle);
    /* acquire: as in mpcrt_handle_lookup. */
    mpcrt_handle_chunk_t *chunk =
        atomic_load_explicit(&mpcrt_handle_tables[MPCRT_OBJ_REQUEST].chunks[index >> MPCRT_HANDLE_CHUNK_BITS],
                             memory_order_acquire);
    if (!chunk)
        return -EINVAL;
    _Atomic(mpcrt_object_t *) *slot = &chunk->slots[index & (MPCRT_HANDLE_CHUNK_SLOTS - 1)];
    mpcrt_object_t *obj = atomic_load_explicit(slot, memory_order_acquire);
    if (!obj)
        return -EINVAL;
    /* release: the slot is empty before the index is reused. The index stays the request's (handle.c). */
    atomic_store_explicit(slot, NULL, memory_order_release);
    mpcrt_object_release(obj);
    return 0;
}

/* A destroyed request's handle index that no cached block keeps: free for any registration again. */
void mpcrt_handle_give_request_index(uint32_t index);

/* Number of live indirect handles of a kind (for leak checks at finalize and for tests). */
long mpcrt_handle_count(mpcrt_obj_kind_t kind);

#endif
