/* Derived datatype objects: creation from an envelope (the constructor's arguments, kept for
 * MPI_Type_get_contents), and the computation of everything else from it: size, bounds with the sticky
 * MPI_LB/MPI_UB markers and struct padding (MPI 4.0 sections 5.1.6-5.1.7, MPI-1 for the markers), element
 * counts, and the compiled layouts. Every constructor reduces to a list of components "count copies,
 * `stride` bytes apart, of `blocklen` consecutive instances of an inner type, starting at `disp`". */
#include "datatype_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    MPI_Aint disp;
    MPI_Count count;
    MPI_Aint stride;
    MPI_Count blocklen;
    mpcrt_datatype_t *type;
} component_t;

static mpcrt_mutex_t typed_lock = MPCRT_MUTEX_INITIALIZER;

static void destroy(mpcrt_object_t *obj)
{
    mpcrt_datatype_t *dt = (mpcrt_datatype_t *)obj;
    for (int i = 0; i < dt->n_types; i++)
        if (dt->types[i])
            mpcrt_datatype_release(dt->types[i]);
    if (dt->impl)
        mpcrt_datatype_release(dt->impl);
    free(dt->ints);
    free(dt->aints);
    free(dt->counts);
    free(dt->types);
    mpcrt_dt_arena_free(dt->arena);
    mpcrt_dt_arena_free(dt->typed_arena);
    free(dt);
}

mpcrt_datatype_t *mpcrt_dt_new(int combiner, int n_ints, int n_aints, int n_counts, int n_types)
{
    mpcrt_datatype_t *dt = calloc(1, sizeof *dt);
    if (!dt)
        return NULL;
    mpcrt_object_init(&dt->obj, MPCRT_OBJ_DATATYPE, destroy);
    dt->combiner = combiner;
    dt->n_ints = n_ints;
    dt->n_aints = n_aints;
    dt->n_counts = n_counts;
    dt->n_types = n_types;
    /* One spare element each, so that zero-length arrays are still valid pointers. */
    dt->ints = calloc((size_t)n_ints + 1, sizeof *dt->ints);
    dt->aints = calloc((size_t)n_aints + 1, sizeof *dt->aints);
    dt->counts = calloc((size_t)n_counts + 1, sizeof *dt->counts);
    dt->types = calloc((size_t)n_types + 1, sizeof *dt->types);
    if (!dt->ints || !dt->aints || !dt->counts || !dt->types) {
        destroy(&dt->obj);
        return NULL;
    }
    return dt;
}

void mpcrt_dt_set_type(mpcrt_datatype_t *dt, int i, mpcrt_datatype_t *inner)
{
    mpcrt_datatype_retain(inner);
    dt->types[i] = inner;
}

void mpcrt_dt_discard(mpcrt_datatype_t *dt)
{
    if (dt)
        mpcrt_datatype_release(dt);
}

static MPI_Aint extent_of(const mpcrt_datatype_t *t)
{
    return t->ub - t->lb;
}

/* The components of dt, decoded from its envelope (large-count form when n_counts > 0). The caller frees
 * *out. Returns the number of components, or -1 if out of memory. */
static long decode(const mpcrt_datatype_t *dt, component_t **out)
{
    const bool large = dt->n_counts > 0;
    const int *in = dt->ints;
    const MPI_Count *c = dt->counts;
    mpcrt_datatype_t *t0 = dt->types[0];
    MPI_Count n = 1;
    switch (dt->combiner) {
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
    case MPI_COMBINER_STRUCT:
        n = large ? c[0] : in[0];
        break;
    default:
        break;
    }
    component_t *comp = malloc((size_t)(n > 0 ? n : 1) * sizeof *comp);
    if (!comp)
        return -1;
    *out = comp;
    for (MPI_Count i = 0; i < n; i++)
        comp[i] = (component_t){.count = 1, .blocklen = 1, .type = t0};
    switch (dt->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        break;
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        comp[0].type = dt->impl;
        break;
    case MPI_COMBINER_CONTIGUOUS:
        comp[0].blocklen = large ? c[0] : in[0];
        break;
    case MPI_COMBINER_VECTOR:
        comp[0].count = large ? c[0] : in[0];
        comp[0].blocklen = large ? c[1] : in[1];
        comp[0].stride = (large ? c[2] : in[2]) * extent_of(t0);
        break;
    case MPI_COMBINER_HVECTOR:
        comp[0].count = large ? c[0] : in[0];
        comp[0].blocklen = large ? c[1] : in[1];
        comp[0].stride = large ? c[2] : dt->aints[0];
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED:
    case MPI_COMBINER_STRUCT: {
        bool bytes = dt->combiner != MPI_COMBINER_INDEXED;
        for (MPI_Count i = 0; i < n; i++) {
            comp[i].blocklen = large ? c[1 + i] : in[1 + i];
            MPI_Aint d = large ? c[1 + n + i] : bytes ? dt->aints[i] : in[1 + n + i];
            comp[i].disp = bytes ? d : d * extent_of(t0);
            if (dt->combiner == MPI_COMBINER_STRUCT)
                comp[i].type = dt->types[i];
        }
        break;
    }
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK: {
        bool bytes = dt->combiner == MPI_COMBINER_HINDEXED_BLOCK;
        for (MPI_Count i = 0; i < n; i++) {
            comp[i].blocklen = large ? c[1] : in[1];
            MPI_Aint d = large ? c[2 + i] : bytes ? dt->aints[i] : in[2 + i];
            comp[i].disp = bytes ? d : d * extent_of(t0);
        }
        break;
    }
    default:
        break;
    }
    return (long)n;
}

/* The layout of dt from its components: each one a repeat of a repeat of the inner layout. */
static int build_layout(mpcrt_dt_arena_t **arena, const component_t *comp, long n, bool typed,
                        mpcrt_dt_node_t *out)
{
    mpcrt_dt_node_t *parts = malloc((size_t)(n > 0 ? n : 1) * sizeof *parts);
    if (!parts)
        return -ENOMEM;
    int rc = 0;
    for (long i = 0; i < n && rc == 0; i++) {
        const mpcrt_datatype_t *t = comp[i].type;
        const mpcrt_dt_node_t *inner = typed ? atomic_load_explicit(&t->typed_root, memory_order_acquire)
                                             : &t->root;
        mpcrt_dt_node_t block;
        rc = mpcrt_dt_node_repeat(arena, inner, comp[i].blocklen, extent_of(t), 0, &block);
        if (rc == 0)
            rc = mpcrt_dt_node_repeat(arena, &block, comp[i].count, comp[i].stride, comp[i].disp, &parts[i]);
    }
    if (rc == 0)
        rc = mpcrt_dt_node_sequence(arena, parts, (size_t)n, typed, out);
    free(parts);
    return rc;
}

static MPI_Aint min_aint(MPI_Aint a, MPI_Aint b)
{
    return a < b ? a : b;
}
static MPI_Aint max_aint(MPI_Aint a, MPI_Aint b)
{
    return a > b ? a : b;
}

/* Size, bounds and element information of a type made of components (MPI 4.0 section 5.1.6: lb is the
 * least displacement of an entry, ub the greatest end plus the padding that aligns the extent; a sticky
 * MPI_LB/MPI_UB marker anywhere overrides its side, and then no padding applies). As in MPICH, a marker
 * bounds only its own side: the struct {(MPI_LB, 10)} has lb 10, ub 0 and extent -10. */
static int compute_bounds(mpcrt_datatype_t *dt, const component_t *comp, long n)
{
    MPI_Count size = 0, nelements = 0, ext32 = 0;
    MPI_Aint true_lb = 0, true_ub = 0, lb = 0, ub = 0, lb_mark = 0, ub_mark = 0;
    bool has_data = false, has_lb_mark = false, has_ub_mark = false;
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    uint32_t elem_size = 0;
    uint16_t align = 1;
    for (long i = 0; i < n; i++) {
        const component_t *c = &comp[i];
        const mpcrt_datatype_t *t = c->type;
        unsigned tflags = mpcrt_datatype_flags(t);
        if (c->count <= 0 || c->blocklen <= 0)
            continue;
        if (t->size == 0 && !(tflags & (MPCRT_DT_LB_MARK | MPCRT_DT_UB_MARK)))
            continue; /* empty type map: no entry, no bound */
        MPI_Count copies, bytes;
        if (__builtin_mul_overflow(c->count, c->blocklen, &copies) ||
            __builtin_mul_overflow(copies, t->size, &bytes) || __builtin_add_overflow(size, bytes, &size))
            return MPI_ERR_ARG;
        nelements += copies * t->nelements;
        ext32 += copies * t->ext32_size;
        /* Least and greatest offset of a copy of t. */
        MPI_Aint span_outer = (c->count - 1) * c->stride, span_inner = (c->blocklen - 1) * extent_of(t);
        MPI_Aint lo = c->disp + min_aint(0, span_outer) + min_aint(0, span_inner);
        MPI_Aint hi = c->disp + max_aint(0, span_outer) + max_aint(0, span_inner);
        if (t->size > 0) {
            if (!has_data) {
                true_lb = lo + t->true_lb;
                true_ub = hi + t->true_ub;
                basic = t->basic;
                elem_size = t->elem_size;
            } else {
                true_lb = min_aint(true_lb, lo + t->true_lb);
                true_ub = max_aint(true_ub, hi + t->true_ub);
                if (basic != t->basic)
                    basic = MPI_DATATYPE_NULL; /* mixed: no single type to reduce on */
                if (elem_size != t->elem_size)
                    elem_size = 0;
            }
            /* Without markers, the bounds are those of the data: a marker bounds only its own side. */
            lb = has_data ? min_aint(lb, lo + t->lb) : lo + t->lb;
            ub = has_data ? max_aint(ub, hi + t->ub) : hi + t->ub;
            has_data = true;
            if (t->align > align)
                align = t->align;
        }
        if (tflags & MPCRT_DT_LB_MARK) {
            lb_mark = has_lb_mark ? min_aint(lb_mark, lo + t->lb) : lo + t->lb;
            has_lb_mark = true;
        }
        if (tflags & MPCRT_DT_UB_MARK) {
            ub_mark = has_ub_mark ? max_aint(ub_mark, hi + t->ub) : hi + t->ub;
            has_ub_mark = true;
        }
    }
    unsigned flags = 0;
    if (has_lb_mark) {
        lb = lb_mark;
        flags |= MPCRT_DT_LB_MARK;
    }
    if (has_ub_mark) {
        ub = ub_mark;
        flags |= MPCRT_DT_UB_MARK;
    }
    if (dt->combiner == MPI_COMBINER_STRUCT && !has_lb_mark && !has_ub_mark && ub - lb > 0 &&
        (ub - lb) % align)
        ub += align - (ub - lb) % align;
    dt->size = size;
    dt->lb = lb;
    dt->ub = ub;
    dt->true_lb = true_lb;
    dt->true_ub = true_ub;
    dt->nelements = nelements;
    dt->ext32_size = ext32;
    dt->basic = basic;
    dt->elem_size = elem_size;
    dt->align = align;
    atomic_store_explicit(&dt->flags, (uint16_t)flags, memory_order_relaxed);
    return MPI_SUCCESS;
}

/* The same type under another name: dup, resized, and subarray/darray over their equivalent type. */
static void copy_bounds(mpcrt_datatype_t *dt, const mpcrt_datatype_t *t)
{
    dt->size = t->size;
    dt->lb = t->lb;
    dt->ub = t->ub;
    dt->true_lb = t->true_lb;
    dt->true_ub = t->true_ub;
    dt->nelements = t->nelements;
    dt->ext32_size = t->ext32_size;
    dt->basic = t->basic;
    dt->elem_size = t->elem_size;
    dt->align = t->align;
    unsigned flags = mpcrt_datatype_flags(t) & (MPCRT_DT_LB_MARK | MPCRT_DT_UB_MARK);
    atomic_store_explicit(&dt->flags, (uint16_t)flags, memory_order_relaxed);
}

int mpcrt_dt_build(mpcrt_datatype_t *dt)
{
    component_t *comp;
    long n = decode(dt, &comp);
    if (n < 0)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    switch (dt->combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_SUBARRAY:
    case MPI_COMBINER_DARRAY:
        copy_bounds(dt, comp[0].type);
        break;
    case MPI_COMBINER_RESIZED: {
        MPI_Aint lb = dt->n_counts ? dt->counts[0] : dt->aints[0];
        MPI_Aint extent = dt->n_counts ? dt->counts[1] : dt->aints[1];
        copy_bounds(dt, comp[0].type);
        dt->lb = lb;
        dt->ub = lb + extent;
        atomic_store_explicit(&dt->flags, (uint16_t)(MPCRT_DT_LB_MARK | MPCRT_DT_UB_MARK), memory_order_relaxed);
        break;
    }
    default:
        rc = compute_bounds(dt, comp, n);
        break;
    }
    if (rc == MPI_SUCCESS && build_layout(&dt->arena, comp, n, false, &dt->root) != 0)
        rc = MPI_ERR_NO_MEM;
    free(comp);
    if (rc != MPI_SUCCESS)
        return rc;
    const mpcrt_dt_node_t *r = &dt->root;
    if (dt->size > 0 && dt->size == dt->ub - dt->lb && dt->lb == dt->true_lb && r->nchildren == 0 &&
        r->count == 1 && r->disp == dt->true_lb && r->iter_size == dt->size)
        atomic_fetch_or_explicit(&dt->flags, MPCRT_DT_CONTIGUOUS, memory_order_relaxed);
    return MPI_SUCCESS;
}

int mpcrt_dt_finish(mpcrt_datatype_t *dt, MPI_Datatype *handle)
{
    int rc = mpcrt_dt_build(dt);
    if (rc == MPI_SUCCESS && mpcrt_handle_register(&dt->obj, handle) != 0)
        rc = MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS)
        mpcrt_dt_discard(dt);
    return rc;
}

const mpcrt_dt_node_t *mpcrt_dt_typed_root(mpcrt_datatype_t *dt)
{
    /* acquire: pairs with the release below, so the tree it points to is visible. */
    mpcrt_dt_node_t *root = atomic_load_explicit(&dt->typed_root, memory_order_acquire);
    if (root)
        return root;
    /* Inner types first, each under its own short critical section (the lock is not recursive). */
    for (int i = 0; i < dt->n_types; i++)
        if (!mpcrt_dt_typed_root(dt->types[i]))
            return NULL;
    if (dt->impl && !mpcrt_dt_typed_root(dt->impl))
        return NULL;
    mpcrt_mutex_lock(&typed_lock);
    root = atomic_load_explicit(&dt->typed_root, memory_order_relaxed);
    if (!root) {
        component_t *comp;
        long n = decode(dt, &comp);
        if (n >= 0) {
            mpcrt_dt_node_t *node = mpcrt_dt_arena_alloc(&dt->typed_arena, sizeof *node);
            if (node && build_layout(&dt->typed_arena, comp, n, true, node) == 0) {
                root = node;
                atomic_store_explicit(&dt->typed_root, root, memory_order_release);
            }
            free(comp);
        }
    }
    mpcrt_mutex_unlock(&typed_lock);
    return root;
}

/* ------------------------------------------------------------------ internal constructors */

static mpcrt_datatype_t *built(mpcrt_datatype_t *dt)
{
    if (dt && mpcrt_dt_build(dt) != MPI_SUCCESS) {
        mpcrt_dt_discard(dt);
        return NULL;
    }
    return dt;
}

mpcrt_datatype_t *mpcrt_dt_make_contiguous(MPI_Count count, mpcrt_datatype_t *old)
{
    mpcrt_datatype_t *dt = mpcrt_dt_new(MPI_COMBINER_CONTIGUOUS, 0, 0, 1, 1);
    if (!dt)
        return NULL;
    dt->counts[0] = count;
    mpcrt_dt_set_type(dt, 0, old);
    return built(dt);
}

mpcrt_datatype_t *mpcrt_dt_make_hvector(MPI_Count count, MPI_Count blocklen, MPI_Aint stride,
                                        mpcrt_datatype_t *old)
{
    mpcrt_datatype_t *dt = mpcrt_dt_new(MPI_COMBINER_HVECTOR, 0, 0, 3, 1);
    if (!dt)
        return NULL;
    dt->counts[0] = count;
    dt->counts[1] = blocklen;
    dt->counts[2] = stride;
    mpcrt_dt_set_type(dt, 0, old);
    return built(dt);
}

mpcrt_datatype_t *mpcrt_dt_make_struct2(MPI_Count bl0, MPI_Aint d0, mpcrt_datatype_t *t0, MPI_Count bl1,
                                        MPI_Aint d1, mpcrt_datatype_t *t1)
{
    mpcrt_datatype_t *dt = mpcrt_dt_new(MPI_COMBINER_STRUCT, 0, 0, 5, 2);
    if (!dt)
        return NULL;
    dt->counts[0] = 2;
    dt->counts[1] = bl0;
    dt->counts[2] = bl1;
    dt->counts[3] = d0;
    dt->counts[4] = d1;
    mpcrt_dt_set_type(dt, 0, t0);
    mpcrt_dt_set_type(dt, 1, t1);
    return built(dt);
}

mpcrt_datatype_t *mpcrt_dt_make_resized(mpcrt_datatype_t *old, MPI_Aint lb, MPI_Aint extent)
{
    mpcrt_datatype_t *dt = mpcrt_dt_new(MPI_COMBINER_RESIZED, 0, 0, 2, 1);
    if (!dt)
        return NULL;
    dt->counts[0] = lb;
    dt->counts[1] = extent;
    mpcrt_dt_set_type(dt, 0, old);
    return built(dt);
}

/* ------------------------------------------------------------------ API helpers */

int mpcrt_dt_arg(MPI_Datatype handle, const char *function, const char *what, mpcrt_datatype_t **out)
{
    mpcrt_datatype_t *dt = mpcrt_datatype_get(handle);
    if (!dt) {
        if (handle == MPI_DATATYPE_NULL)
            return mpcrt_mpi_error(DT_ERR_COMM, function, MPI_ERR_TYPE, "%s is MPI_DATATYPE_NULL", what);
        return mpcrt_mpi_error(DT_ERR_COMM, function, MPI_ERR_TYPE,
                               "%s (handle 0x%x) is not a valid datatype (freed, or not a datatype)", what,
                               (unsigned)handle);
    }
    *out = dt;
    return MPI_SUCCESS;
}

int mpcrt_dt_handle_for(mpcrt_datatype_t *dt, MPI_Datatype *handle)
{
    if (mpcrt_datatype_is_predefined(dt)) {
        *handle = dt->obj.handle;
        return MPI_SUCCESS;
    }
    mpcrt_datatype_retain(dt);
    if (mpcrt_handle_register(&dt->obj, handle) != 0) {
        mpcrt_datatype_release(dt);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}
