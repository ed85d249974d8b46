/* Interface of the datatype engine (runtime/mpi/datatype) for the rest of the MPI layer: finding a datatype
 * from its handle, its size and bounds, and moving data described by `count` instances of a datatype between
 * a user buffer and a packed (contiguous) stream, in ranges, so that messages can be fragmented, plus the
 * list of contiguous segments a range covers (for single-copy transfers: CMA, RDMA, direct copies).
 *
 * The packed stream of `count` instances of type T at `buf` is the concatenation, in type-map order, of the
 * bytes of every basic element: its length is count * size(T). Byte position p of that stream is
 * well-defined, so a sender may pack [0, 64K) now and [64K, 128K) later, and a receiver may unpack each
 * fragment as it arrives. Datatypes are shared by every rank and thread of the process and are immutable
 * once built (only their name and committed flag change), so every function here may run concurrently. */
#ifndef MPCRT_MPI_DATATYPE_H
#define MPCRT_MPI_DATATYPE_H

#include "mpi.h"
#include "../core/handle.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct mpcrt_dt_node mpcrt_dt_node_t;
typedef struct mpcrt_dt_arena mpcrt_dt_arena_t;

/* Compiled layout: a tree of loops. A node is `count` iterations, `stride` bytes apart, the first one at
 * `disp` from its parent's origin; an iteration is either one contiguous block of `iter_size` bytes
 * (nchildren == 0) or the sequence of the children, whose displacements are relative to the iteration's
 * start. Adjacent blocks are merged and single loops folded when types are built (layout.c). */
struct mpcrt_dt_node {
    MPI_Aint disp;
    MPI_Aint stride;
    MPI_Count count;
    MPI_Count iter_size;     /* packed bytes per iteration */
    uint32_t nchildren;
    uint16_t elem;           /* blocks: index of the predefined element type, MPCRT_DT_MIXED if merged */
    uint16_t node_flags;     /* MPCRT_DT_NODE_* */
    mpcrt_dt_node_t *children;
    MPI_Count *child_offset; /* packed offset of each child within an iteration (for seeking) */
};

#define MPCRT_DT_MIXED 0xffffu
/* Every child is one contiguous block (count 1): a struct of fields, the common case that walks take
 * without recursion. */
#define MPCRT_DT_NODE_FLAT 1u

enum {
    MPCRT_DT_COMMITTED = 1u << 0,
    MPCRT_DT_CONTIGUOUS = 1u << 1, /* count instances are count * size bytes at buf + true_lb */
    MPCRT_DT_LB_MARK = 1u << 2,    /* explicit lower bound (MPI_LB, resized): sticky in constructors */
    MPCRT_DT_UB_MARK = 1u << 3,
};

typedef struct mpcrt_datatype {
    mpcrt_object_t obj;
    MPI_Count size;         /* bytes of data in one instance */
    MPI_Aint lb, ub;        /* extent = ub - lb */
    MPI_Aint true_lb, true_ub;
    MPI_Count nelements;    /* basic elements in one instance (MPI_Get_elements) */
    MPI_Count ext32_size;   /* bytes of one instance in external32 */
    MPI_Datatype basic;     /* the predefined type this one repeats, if only one (reductions); else NULL */
    uint32_t elem_size;     /* size of every basic element when they all have one size, else 0 */
    uint16_t align;         /* alignment of the widest basic element (struct padding) */
    _Atomic uint16_t flags; /* MPCRT_DT_* */
    int combiner;           /* MPI_COMBINER_* */
    /* Envelope (MPI_Type_get_contents), as given to the constructor. Inner types are held by reference. */
    int n_ints, n_aints, n_counts, n_types;
    int *ints;
    MPI_Aint *aints;
    MPI_Count *counts;
    struct mpcrt_datatype **types;
    struct mpcrt_datatype *impl; /* subarray, darray: the equivalent type made of simpler constructors */
    /* Layouts. root: merged across element types (packing); typed_root: one element type per block
     * (external32, partial element counts), built on first use. Both point into the arenas of this type and
     * of the inner types it references. */
    mpcrt_dt_node_t root;
    _Atomic(mpcrt_dt_node_t *) typed_root;
    mpcrt_dt_arena_t *arena, *typed_arena;
    char name[MPI_MAX_OBJECT_NAME];
} mpcrt_datatype_t;

/* The datatype named by a handle (predefined or live user handle), NULL otherwise (the API raises
 * MPI_ERR_TYPE). Lock-free, takes no reference. */
static inline mpcrt_datatype_t *mpcrt_datatype_get(MPI_Datatype handle)
{
    return (mpcrt_datatype_t *)mpcrt_handle_lookup(MPCRT_OBJ_DATATYPE, handle);
}

/* A pending operation (an MPI_Isend, a schedule step) keeps its datatype alive past MPI_Type_free. */
static inline void mpcrt_datatype_retain(mpcrt_datatype_t *dt)
{
    mpcrt_object_retain(&dt->obj);
}
static inline void mpcrt_datatype_release(mpcrt_datatype_t *dt)
{
    mpcrt_object_release(&dt->obj);
}

static inline MPI_Count mpcrt_datatype_size(const mpcrt_datatype_t *dt)
{
    return dt->size;
}
static inline MPI_Aint mpcrt_datatype_extent(const mpcrt_datatype_t *dt)
{
    return dt->ub - dt->lb;
}
static inline MPI_Aint mpcrt_datatype_lb(const mpcrt_datatype_t *dt)
{
    return dt->lb;
}
static inline MPI_Aint mpcrt_datatype_true_lb(const mpcrt_datatype_t *dt)
{
    return dt->true_lb;
}
static inline MPI_Aint mpcrt_datatype_true_extent(const mpcrt_datatype_t *dt)
{
    return dt->true_ub - dt->true_lb;
}
static inline unsigned mpcrt_datatype_flags(const mpcrt_datatype_t *dt)
{
    /* relaxed: flags only ever gain bits (commit); a racing reader sees either value, both valid. */
    return atomic_load_explicit(&((mpcrt_datatype_t *)dt)->flags, memory_order_relaxed);
}
static inline bool mpcrt_datatype_is_committed(const mpcrt_datatype_t *dt)
{
    return mpcrt_datatype_flags(dt) & MPCRT_DT_COMMITTED;
}
/* True when `count` instances at buf are the count * size bytes starting at buf + true_lb (any count). */
static inline bool mpcrt_datatype_is_contiguous(const mpcrt_datatype_t *dt)
{
    return mpcrt_datatype_flags(dt) & MPCRT_DT_CONTIGUOUS;
}
static inline bool mpcrt_datatype_is_predefined(const mpcrt_datatype_t *dt)
{
    return dt->obj.flags & MPCRT_OBJECT_PREDEFINED;
}

/* For reductions: the predefined type (pair types included) of which an instance of dt is a repetition,
 * and how many of it one instance holds; MPI_DATATYPE_NULL when dt mixes several predefined types. */
MPI_Datatype mpcrt_datatype_basic_type(const mpcrt_datatype_t *dt, MPI_Count *per_instance);

/* Copies bytes [first, first + len) of the packed stream of `count` instances of dt at buf to `packed`
 * (pack) or from `packed` into buf (unpack). The range must lie within count * size. Returns len. */
MPI_Count mpcrt_datatype_pack(const mpcrt_datatype_t *dt, const void *buf, MPI_Count count, MPI_Count first,
                              MPI_Count len, void *packed);
MPI_Count mpcrt_datatype_unpack(const mpcrt_datatype_t *dt, void *buf, MPI_Count count, MPI_Count first,
                                MPI_Count len, const void *packed);

/* Copies bytes [first, first + len) of the packed stream of `scount` instances of sdt at sbuf into the same
 * bytes of the stream of `rcount` instances of rdt at rbuf (same type signature, or MPI_BYTE-compatible):
 * one copy, no intermediate buffer, a small fixed stack footprint. The range must lie within both streams.
 * Returns len. */
MPI_Count mpcrt_datatype_copy(const mpcrt_datatype_t *sdt, const void *sbuf, MPI_Count scount,
                              const mpcrt_datatype_t *rdt, void *rbuf, MPI_Count rcount, MPI_Count first,
                              MPI_Count len);

/* A contiguous piece of user memory, as an offset from the user buffer (so it also describes a peer's
 * buffer: CMA and RDMA add the peer's address). */
typedef struct {
    MPI_Aint offset;
    MPI_Count len;
} mpcrt_dt_segment_t;

/* The segments holding bytes [first, first + len) of the packed stream, in stream order, merged when
 * adjacent; stops early when max_segments are used. Returns the number of stream bytes they cover (len when
 * everything fitted; continue from first + covered). *nsegments receives the count used. */
MPI_Count mpcrt_datatype_segments(const mpcrt_datatype_t *dt, MPI_Count count, MPI_Count first, MPI_Count len,
                                  mpcrt_dt_segment_t *segments, int max_segments, int *nsegments);

/* Number of basic elements in the first `bytes` bytes of the packed stream of dt (MPI_Get_elements), or
 * MPI_UNDEFINED when the bytes end inside an element (the data did not match the type's signature: MPI 4.0
 * makes MPI_Get_elements agree with MPI_Get_count on basic types, as MPICH does since 4.1); -1 if out of
 * memory. And the inverse: the stream length of the first `elements` basic elements. */
MPI_Count mpcrt_datatype_elements_in(const mpcrt_datatype_t *dt, MPI_Count bytes);
MPI_Count mpcrt_datatype_bytes_of_elements(const mpcrt_datatype_t *dt, MPI_Count elements);

#endif
