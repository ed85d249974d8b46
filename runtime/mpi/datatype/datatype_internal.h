/* Private interface between the files of the datatype engine. */
#ifndef MPCRT_MPI_DATATYPE_INTERNAL_H
#define MPCRT_MPI_DATATYPE_INTERNAL_H

#include "datatype.h"
#include "../mpi_internal.h"
#include "../../threads/sched.h"

#include <stddef.h>

/* Errors of calls that have no communicator are raised on MPI_COMM_SELF (MPI 4.0, section 9.3). */
#define DT_ERR_COMM MPI_COMM_SELF

/* ------------------------------------------------------------------ predefined types (predefined.c) */

/* How a basic element becomes external32 (big-endian, fixed sizes: MPI 4.0 section 13.5.2). */
typedef enum {
    DT_CONV_NONE,            /* no data (MPI_LB, MPI_UB) */
    DT_CONV_COPY,            /* bytes */
    DT_CONV_SWAP,            /* one big-endian scalar of the same size */
    DT_CONV_SWAP_PAIR,       /* two scalars of half the size each (complex) */
    DT_CONV_NARROW_SIGNED,   /* native 8 bytes -> external 4 (long) */
    DT_CONV_NARROW_UNSIGNED, /* native 8 -> 4 (unsigned long), native 4 -> 2 (wchar_t) */
    DT_CONV_X87,             /* x87 80-bit long double in 16 bytes <-> IEEE binary128 */
    DT_CONV_X87_PAIR,        /* complex long double */
} dt_conv_t;

/* Groups of MPI 4.0 section 6.9.2, for the reduction operations. */
typedef enum {
    DT_GROUP_NONE,
    DT_GROUP_C_INTEGER,
    DT_GROUP_FORTRAN_INTEGER,
    DT_GROUP_FLOATING,
    DT_GROUP_LOGICAL,
    DT_GROUP_COMPLEX,
    DT_GROUP_BYTE,
    DT_GROUP_PAIR,
} dt_group_t;

typedef struct {
    MPI_Datatype handle;
    const char *name;
    uint8_t size, align, ext32_size;
    uint8_t conv;  /* dt_conv_t */
    uint8_t group; /* dt_group_t */
} dt_basic_info_t;

/* Element types, indexed by the `elem` field of layout blocks. */
extern const dt_basic_info_t mpcrt_dt_basic_info[];
extern const int mpcrt_dt_nbasic;
const dt_basic_info_t *mpcrt_dt_basic_of(MPI_Datatype handle);

/* ------------------------------------------------------------------ layouts (layout.c) */

void *mpcrt_dt_arena_alloc(mpcrt_dt_arena_t **arena, size_t bytes);
void mpcrt_dt_arena_free(mpcrt_dt_arena_t *arena);

static inline MPI_Count mpcrt_dt_node_total(const mpcrt_dt_node_t *n)
{
    return n->count * n->iter_size;
}

/* `count` copies of the whole stream of `inner`, the k-th at disp + k * stride. With arena NULL the result
 * may point at *inner itself, which must then outlive it. Returns 0 or -ENOMEM. */
int mpcrt_dt_node_repeat(mpcrt_dt_arena_t **arena, const mpcrt_dt_node_t *inner, MPI_Count count,
                         MPI_Aint stride, MPI_Aint disp, mpcrt_dt_node_t *out);
/* The sequence of `n` parts (displacements relative to one origin), adjacent blocks merged (typed: only
 * blocks of the same element type). Returns 0 or -ENOMEM. */
int mpcrt_dt_node_sequence(mpcrt_dt_arena_t **arena, const mpcrt_dt_node_t *parts, size_t n, bool typed,
                           mpcrt_dt_node_t *out);

/* The per-element layout of dt, built on first use (NULL: out of memory). */
const mpcrt_dt_node_t *mpcrt_dt_typed_root(mpcrt_datatype_t *dt);

/* ------------------------------------------------------------------ walking a layout (walk.c) */

typedef struct dt_walker dt_walker_t;
/* Called for `n` blocks of `len` bytes, the k-th at first + k * stride, all of element type `elem`.
 * Returns how many blocks it handled; fewer than n stops the walk. */
typedef MPI_Count (*dt_blocks_fn)(dt_walker_t *w, char *first, MPI_Count len, MPI_Count n, MPI_Aint stride,
                                  unsigned elem);
enum { DT_WALK_CALLBACK, DT_WALK_PACK, DT_WALK_UNPACK };
struct dt_walker {
    dt_blocks_fn blocks;
    int mode;                /* DT_WALK_PACK/UNPACK: flat sequences are copied inline, not via `blocks` */
    char *cursor;            /* packed side of pack/unpack/external32 */
    char *origin;            /* user buffer (segments are relative to it) */
    mpcrt_dt_segment_t *segments;
    int nsegments, max_segments;
    MPI_Count counter;       /* elements counted or to find */
    MPI_Count bytes;         /* bytes found */
};

/* Walks bytes [first, first + len) of the stream of `count` instances of the layout `root` (of a type of
 * extent `extent`) at buf. Returns the bytes walked (< len only if the callback stopped). */
MPI_Count mpcrt_dt_walk(const mpcrt_dt_node_t *root, MPI_Aint extent, const void *buf, MPI_Count count,
                        MPI_Count first, MPI_Count len, dt_walker_t *w);

/* buf + off computed on integers: MPI_BOTTOM (NULL) plus an absolute address is valid MPI. */
static inline char *mpcrt_dt_at(const void *buf, MPI_Aint off)
{
    return (char *)((uintptr_t)buf + (uintptr_t)off);
}

/* ------------------------------------------------------------------ building types (type.c) */

/* A new derived datatype with room for its envelope; not yet built nor registered. NULL if out of memory. */
mpcrt_datatype_t *mpcrt_dt_new(int combiner, int n_ints, int n_aints, int n_counts, int n_types);
/* Computes sizes, bounds and the layout from the envelope (and impl), then gives the type its handle.
 * Consumes dt on failure. Returns MPI_SUCCESS or an error class. */
int mpcrt_dt_finish(mpcrt_datatype_t *dt, MPI_Datatype *handle);
/* Sets the inner type i of dt's envelope (takes a reference). */
void mpcrt_dt_set_type(mpcrt_datatype_t *dt, int i, mpcrt_datatype_t *inner);
/* Builds a type not exposed to the user (subarray/darray internals): like finish without a handle. */
int mpcrt_dt_build(mpcrt_datatype_t *dt);
/* Releases a type reference that has no handle (internal types, error paths). */
void mpcrt_dt_discard(mpcrt_datatype_t *dt);

/* Internal constructors used by subarray and darray: each returns a built, unnamed type or NULL. */
mpcrt_datatype_t *mpcrt_dt_make_contiguous(MPI_Count count, mpcrt_datatype_t *old);
mpcrt_datatype_t *mpcrt_dt_make_hvector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride,
                                        mpcrt_datatype_t *old);
mpcrt_datatype_t *mpcrt_dt_make_struct2(MPI_Count bl0, MPI_Aint d0, mpcrt_datatype_t *t0, MPI_Count bl1,
                                        MPI_Aint d1, mpcrt_datatype_t *t1);
mpcrt_datatype_t *mpcrt_dt_make_resized(mpcrt_datatype_t *old, MPI_Aint lb, MPI_Aint extent);

/* subarray.c, darray.c: the equivalent type (consumes nothing; returns NULL if out of memory). */
mpcrt_datatype_t *mpcrt_dt_subarray_impl(int ndims, const MPI_Count *sizes, const MPI_Count *subsizes,
                                         const MPI_Count *starts, int order, mpcrt_datatype_t *old);
mpcrt_datatype_t *mpcrt_dt_darray_impl(int size, int rank, int ndims, const MPI_Count *gsizes,
                                       const int *distribs, const int *dargs, const int *psizes, int order,
                                       mpcrt_datatype_t *old);

/* ------------------------------------------------------------------ API helpers */

/* Looks up a datatype argument; raises MPI_ERR_TYPE (through mpcrt_mpi_error) when it is not valid. */
int mpcrt_dt_arg(MPI_Datatype handle, const char *function, const char *what, mpcrt_datatype_t **out);
/* A handle for an existing type object (a new reference): predefined types answer with their handle. */
int mpcrt_dt_handle_for(mpcrt_datatype_t *dt, MPI_Datatype *handle);

/* external32 conversion of one block of elements (external32.c). */
void mpcrt_dt_ext32_encode(unsigned elem, const char *native, char *ext, MPI_Count n);
void mpcrt_dt_ext32_decode(unsigned elem, const char *ext, char *native, MPI_Count n);

#endif
