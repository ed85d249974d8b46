/* ULT stacks carved from mmap slabs with guard pages and MAP_NORESERVE (only touched pages use memory). */
#ifndef MPCRT_THREADS_STACK_H
#define MPCRT_THREADS_STACK_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    void *base;  /* lowest usable byte */
    size_t size; /* usable bytes; the stack grows down from base + size */
    bool guarded; /* a guard page lies below base; otherwise a canary word sits at base */
} mpcrt_stack_t;

/* size is rounded up to whole pages. Returns 0 or -ENOMEM. */
int mpcrt_stack_alloc(mpcrt_stack_t *stack, size_t size);
void mpcrt_stack_free(mpcrt_stack_t *stack);
/* False if the canary of an unguarded stack was overwritten (an overflow). Guarded stacks fault instead,
 * and their bottom page is never touched, so it costs no memory. */
bool mpcrt_stack_intact(const mpcrt_stack_t *stack);

typedef struct {
    size_t slabs, slots_in_use, guard_madvise, guard_mprotect, guard_none;
} mpcrt_stack_stats_t;
void mpcrt_stack_stats(mpcrt_stack_stats_t *out);

#endif
