/* Stack slabs. A slab is one mapping holding many stacks, each below a guard page. Guard pages come from
 * MADV_GUARD_INSTALL where the kernel has it (Linux 6.13+: no extra VMA per guard); otherwise from
 * mprotect, which splits the mapping into two VMAs per stack, so mprotect guards are only used while they
 * stay within a quarter of vm.max_map_count (10^5 stacks must fit); past that, stacks get a canary word
 * checked when the ULT finishes. A guarded stack's bottom page is never written by the allocator, so a
 * ULT costs only the pages its frames touch (one or two). Freed stacks are kept per size and reused, never unmapped, so that a stale
 * wake-up of a recycled ULT never touches unmapped memory. */
#include "stack.h"
#include "config.h"
#include "log.h"
#include "sched_internal.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#endif

#ifndef MADV_GUARD_INSTALL
#define MADV_GUARD_INSTALL 102
#endif

#define STACK_CANARY 0x6d7063727473746bULL /* "mpcrtstk" */
#define MAX_SIZE_CLASSES 16

/* Free stacks are kept in an array, not threaded through the stacks, so that a stack's pages are only
 * touched by the ULT that uses it. */
typedef struct {
    void *base;
    bool guarded;
} free_slot_t;

typedef struct {
    size_t size;
    free_slot_t *free;
    size_t nfree, capacity;
} size_class_t;

static _Atomic int lock;
static size_class_t classes[MAX_SIZE_CLASSES];
static int nclasses;
static size_t page_size;
static long mprotect_guard_budget = -1;
static mpcrt_stack_stats_t stats;
static int guard_madvise_works = -1; /* unknown until the first slab */

static size_class_t *find_class(size_t size)
{
    for (int i = 0; i < nclasses; i++)
        if (classes[i].size == size)
            return &classes[i];
    if (nclasses == MAX_SIZE_CLASSES)
        return NULL;
    classes[nclasses].size = size;
    return &classes[nclasses++];
}

static long read_guard_budget(void)
{
    long max_maps = 65530;
    FILE *f = fopen("/proc/sys/vm/max_map_count", "r");
    if (f) {
        if (fscanf(f, "%ld", &max_maps) != 1)
            max_maps = 65530;
        fclose(f);
    }
    return max_maps / 4 / 2; /* each mprotect guard costs two VMAs */
}

static bool install_guard(char *guard)
{
    if (!mpcrt_config_int(MPCRT_CFG_STACK_GUARD)) {
        stats.guard_none++;
        return false;
    }
    if (guard_madvise_works != 0 && madvise(guard, page_size, MADV_GUARD_INSTALL) == 0) {
        guard_madvise_works = 1;
        stats.guard_madvise++;
        return true;
    }
    guard_madvise_works = 0;
    if (mprotect_guard_budget > 0 && mprotect(guard, page_size, PROT_NONE) == 0) {
        mprotect_guard_budget--;
        stats.guard_mprotect++;
        return true;
    }
    stats.guard_none++;
    return false;
}

static bool push_free(size_class_t *cls, void *base, bool guarded)
{
    if (cls->nfree == cls->capacity) {
        size_t capacity = cls->capacity ? cls->capacity * 2 : 256;
        free_slot_t *grown = realloc(cls->free, capacity * sizeof *grown);
        if (!grown)
            return false;
        cls->free = grown;
        cls->capacity = capacity;
    }
    cls->free[cls->nfree++] = (free_slot_t){base, guarded};
    return true;
}

/* Maps a slab of stacks of one size and threads them onto the class's free list. Called with lock held. */
static int grow(size_class_t *cls)
{
    size_t slot = cls->size + page_size;
    size_t nslots = ((size_t)256 << 20) / slot;
    if (nslots < 4)
        nslots = 4;
    if (nslots > 256)
        nslots = 256;
    char *slab = mmap(NULL, slot * nslots, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
    if (slab == MAP_FAILED)
        return -ENOMEM;
    stats.slabs++;
    for (size_t i = nslots; i-- > 0;) {
        char *guard = slab + i * slot;
        bool guarded = install_guard(guard);
        if (!push_free(cls, guard + page_size, guarded))
            return -ENOMEM; /* the slab stays mapped; its pushed stacks are usable */
    }
    mpcrt_log(MPCRT_LOG_STACK, "slab of %zu stacks of %zu KiB", nslots, cls->size >> 10);
    return 0;
}

int mpcrt_stack_alloc(mpcrt_stack_t *stack, size_t size)
{
    mpcrt_spin_lock(&lock);
    if (!page_size) {
        page_size = (size_t)sysconf(_SC_PAGESIZE);
        mprotect_guard_budget = read_guard_budget();
    }
    size = (size + page_size - 1) & ~(page_size - 1);
    if (size < 4 * page_size)
        size = 4 * page_size;
    size_class_t *cls = find_class(size);
    int rc = cls ? 0 : -ENOMEM;
    if (cls && !cls->nfree)
        rc = grow(cls);
    if (rc == 0 && !cls->nfree)
        rc = -ENOMEM;
    if (rc == 0) {
        free_slot_t slot = cls->free[--cls->nfree];
        stats.slots_in_use++;
        stack->base = slot.base;
        stack->size = size;
        stack->guarded = slot.guarded;
#if defined(__SANITIZE_ADDRESS__)
        /* A ULT that finished inside nested frames leaves their redzones poisoned. */
        __asan_unpoison_memory_region(slot.base, size);
#endif
        if (!slot.guarded)
            *(uint64_t *)slot.base = STACK_CANARY;
    }
    mpcrt_spin_unlock(&lock);
    return rc;
}

void mpcrt_stack_free(mpcrt_stack_t *stack)
{
    if (!stack->base)
        return;
    mpcrt_spin_lock(&lock);
    size_class_t *cls = find_class(stack->size);
    MPCRT_ASSERT(cls, "a freed stack has the size of an existing class");
    if (push_free(cls, stack->base, stack->guarded)) /* on failure the stack is leaked, not reused */
        stats.slots_in_use--;
    mpcrt_spin_unlock(&lock);
    stack->base = NULL;
}

bool mpcrt_stack_intact(const mpcrt_stack_t *stack)
{
    return stack->guarded || *(const uint64_t *)stack->base == STACK_CANARY;
}

void mpcrt_stack_stats(mpcrt_stack_stats_t *out)
{
    mpcrt_spin_lock(&lock);
    *out = stats;
    mpcrt_spin_unlock(&lock);
}
