/* OpenMP memory allocators (OpenMP 5.1 section 2.13): the predefined allocators and user allocators with
 * traits (alignment, pool size with a fallback, ...), all over malloc. A header before each block records
 * its allocator and size, so omp_free and omp_realloc need no lookup. GOMP_alloc/GOMP_free (the
 * allocate directive and clause) come here too. */
#include "../omp_internal.h"
#include "../../../include/omp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { ATK_SYNC_HINT = 1, ATK_ALIGNMENT, ATK_ACCESS, ATK_POOL_SIZE, ATK_FALLBACK, ATK_FB_DATA, ATK_PINNED,
       ATK_PARTITION };
enum { ATV_DEFAULT = -1, ATV_FALSE = 0, ATV_TRUE = 1, ATV_CONTENDED = 3, ATV_UNCONTENDED, ATV_SERIALIZED,
       ATV_PRIVATE, ATV_ALL, ATV_THREAD, ATV_PTEAM, ATV_CGROUP, ATV_DEFAULT_MEM_FB, ATV_NULL_FB,
       ATV_ABORT_FB, ATV_ALLOCATOR_FB, ATV_ENVIRONMENT, ATV_NEAREST, ATV_BLOCKED, ATV_INTERLEAVED };
#define NULL_ALLOCATOR 0
#define DEFAULT_MEM_ALLOC 1
#define LAST_PREDEFINED 8
#define LAST_MEMSPACE 4

typedef struct {
    uintptr_t memspace;
    size_t alignment;
    size_t pool_size;
    _Atomic size_t used;
    int fallback;
    uintptr_t fb_data;
    bool pinned;
} allocator_t;

typedef struct {
    void *base;
    uintptr_t allocator;
    size_t size;
} block_header_t;

static uintptr_t resolve(uintptr_t a)
{
    if (a == 0) {
        omp_thread_t *thr = omp_self();
        a = thr->task->icv.def_allocator;
    }
    return a ? a : DEFAULT_MEM_ALLOC;
}

static void *allocate(size_t alignment, size_t size, uintptr_t handle, void *replacing)
{
    handle = resolve(handle);
    for (;;) {
        allocator_t *a = handle > LAST_PREDEFINED ? (allocator_t *)handle : NULL;
        size_t align = alignment;
        if (a && a->alignment > align)
            align = a->alignment;
        if (align < sizeof(void *) * 2)
            align = sizeof(void *) * 2;
        bool fits = true;
        /* omp_realloc within one pool: the old block's bytes count as free (it is released on success). */
        size_t credit = 0;
        if (replacing && ((block_header_t *)replacing - 1)->allocator == handle)
            credit = ((block_header_t *)replacing - 1)->size;
        if (a && a->pool_size) {
            size_t used = atomic_load_explicit(&a->used, memory_order_relaxed);
            do {
                size_t others = used - credit;
                if (size > a->pool_size || others > a->pool_size - size) {
                    fits = false;
                    break;
                }
            } while (!atomic_compare_exchange_weak_explicit(&a->used, &used, used + size, memory_order_relaxed,
                                                            memory_order_relaxed));
        }
        void *raw = NULL;
        if (fits) {
            size_t total;
            if (__builtin_add_overflow(size, align + sizeof(block_header_t), &total))
                raw = NULL;
            else
                raw = malloc(total);
            if (!raw && a && a->pool_size)
                atomic_fetch_sub_explicit(&a->used, size, memory_order_relaxed);
        }
        if (raw) {
            uintptr_t p = ((uintptr_t)raw + sizeof(block_header_t) + align - 1) & ~(uintptr_t)(align - 1);
            block_header_t *h = (block_header_t *)p - 1;
            h->base = raw;
            h->allocator = handle;
            h->size = size;
            return (void *)p;
        }
        int fallback = a ? a->fallback : ATV_DEFAULT_MEM_FB;
        switch (fallback) {
        case ATV_DEFAULT_MEM_FB:
            if (handle == DEFAULT_MEM_ALLOC)
                return NULL;
            handle = DEFAULT_MEM_ALLOC;
            continue;
        case ATV_NULL_FB:
            return NULL;
        case ATV_ABORT_FB:
            omp_fatal("out of memory allocating %zu bytes (allocator with the abort fallback)", size);
        case ATV_ALLOCATOR_FB:
            handle = a->fb_data ? a->fb_data : DEFAULT_MEM_ALLOC;
            continue;
        default:
            return NULL;
        }
    }
}

OMP_EXPORT void *omp_aligned_alloc(size_t alignment, size_t size, omp_allocator_handle_t allocator)
{
    if (size == 0 || (alignment & (alignment - 1)))
        return NULL;
    return allocate(alignment, size, allocator, NULL);
}

OMP_EXPORT void *omp_alloc(size_t size, omp_allocator_handle_t allocator)
{
    return omp_aligned_alloc(1, size, allocator);
}

OMP_EXPORT void omp_free(void *ptr, omp_allocator_handle_t allocator)
{
    (void)allocator;
    if (!ptr)
        return;
    block_header_t *h = (block_header_t *)ptr - 1;
    if (h->allocator > LAST_PREDEFINED) {
        allocator_t *a = (allocator_t *)h->allocator;
        if (a->pool_size)
            atomic_fetch_sub_explicit(&a->used, h->size, memory_order_relaxed);
    }
    free(h->base);
}

OMP_EXPORT void *omp_aligned_calloc(size_t alignment, size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
    size_t total;
    if (__builtin_mul_overflow(nmemb, size, &total))
        return NULL;
    void *p = omp_aligned_alloc(alignment, total, allocator);
    if (p)
        memset(p, 0, total);
    return p;
}

OMP_EXPORT void *omp_calloc(size_t nmemb, size_t size, omp_allocator_handle_t allocator)
{
    return omp_aligned_calloc(1, nmemb, size, allocator);
}

OMP_EXPORT void *omp_realloc(void *ptr, size_t size, omp_allocator_handle_t allocator,
                             omp_allocator_handle_t free_allocator)
{
    if (!ptr)
        return omp_alloc(size, allocator);
    if (size == 0) {
        omp_free(ptr, free_allocator);
        return NULL;
    }
    block_header_t *h = (block_header_t *)ptr - 1;
    if (allocator == omp_null_allocator)
        allocator = free_allocator != omp_null_allocator ? free_allocator : (omp_allocator_handle_t)h->allocator;
    void *p = allocate(1, size, (uintptr_t)allocator, ptr);
    if (!p)
        return NULL;
    memcpy(p, ptr, h->size < size ? h->size : size);
    omp_free(ptr, free_allocator);
    return p;
}

OMP_EXPORT omp_allocator_handle_t omp_init_allocator(omp_memspace_handle_t memspace, int ntraits,
                                                     const omp_alloctrait_t traits[])
{
    if (memspace > LAST_MEMSPACE)
        return omp_null_allocator;
    allocator_t a = {.memspace = (uintptr_t)memspace, .alignment = 1, .fallback = ATV_DEFAULT_MEM_FB};
    for (int i = 0; i < ntraits; i++) {
        uintptr_t v = traits[i].value;
        switch (traits[i].key) {
        case ATK_SYNC_HINT:
            if (v != (uintptr_t)ATV_DEFAULT && (v < ATV_CONTENDED || v > ATV_PRIVATE))
                return omp_null_allocator;
            break;
        case ATK_ALIGNMENT:
            if (v == (uintptr_t)ATV_DEFAULT)
                break;
            if (v == 0 || (v & (v - 1)))
                return omp_null_allocator;
            a.alignment = v;
            break;
        case ATK_ACCESS:
            if (v != (uintptr_t)ATV_DEFAULT && v != ATV_ALL && v != ATV_THREAD && v != ATV_PTEAM &&
                v != ATV_CGROUP)
                return omp_null_allocator;
            break;
        case ATK_POOL_SIZE:
            a.pool_size = v == (uintptr_t)ATV_DEFAULT ? 0 : v;
            break;
        case ATK_FALLBACK:
            if (v == (uintptr_t)ATV_DEFAULT)
                break;
            if (v < ATV_DEFAULT_MEM_FB || v > ATV_ALLOCATOR_FB)
                return omp_null_allocator;
            a.fallback = (int)v;
            break;
        case ATK_FB_DATA:
            a.fb_data = v;
            break;
        case ATK_PINNED:
            if (v == ATV_TRUE)
                return omp_null_allocator; /* no pinned memory on this host */
            if (v != (uintptr_t)ATV_DEFAULT && v != ATV_FALSE)
                return omp_null_allocator;
            break;
        case ATK_PARTITION:
            if (v != (uintptr_t)ATV_DEFAULT && v != ATV_ENVIRONMENT && v != ATV_NEAREST && v != ATV_BLOCKED &&
                v != ATV_INTERLEAVED)
                return omp_null_allocator;
            break;
        default:
            return omp_null_allocator;
        }
    }
    if (a.fallback == ATV_ALLOCATOR_FB && a.fb_data == 0)
        return omp_null_allocator;
    allocator_t *handle = malloc(sizeof *handle);
    if (!handle)
        return omp_null_allocator;
    *handle = a;
    atomic_init(&handle->used, 0);
    return (omp_allocator_handle_t)handle;
}

OMP_EXPORT void omp_destroy_allocator(omp_allocator_handle_t allocator)
{
    if (allocator > LAST_PREDEFINED)
        free((allocator_t *)allocator);
}

OMP_EXPORT void omp_set_default_allocator(omp_allocator_handle_t allocator)
{
    omp_self()->task->icv.def_allocator = allocator == omp_null_allocator ? DEFAULT_MEM_ALLOC : (uintptr_t)allocator;
}

OMP_EXPORT omp_allocator_handle_t omp_get_default_allocator(void)
{
    return (omp_allocator_handle_t)omp_self()->task->icv.def_allocator;
}

OMP_EXPORT void *GOMP_alloc(size_t alignment, size_t size, uintptr_t allocator)
{
    void *p = omp_aligned_alloc(alignment, size, (omp_allocator_handle_t)allocator);
    if (!p && size)
        omp_fatal("out of memory allocating %zu bytes (allocate directive)", size);
    return p;
}

OMP_EXPORT void GOMP_free(void *ptr, uintptr_t allocator)
{
    omp_free(ptr, (omp_allocator_handle_t)allocator);
}
