/* Scratch memory of schedules. Large buffers are kept for the next schedule instead of going back to malloc:
 * glibc serves a request of 128 KiB and more with a fresh mmap (or trims its heap when it is freed), so a
 * 1 MiB MPI_Iallreduce that took two scratch buffers per call page-faulted ~500 times per call, and ran in
 * 1.5 ms instead of 0.18 ms on 2 ranks (whether it did depended on which kernel thread freed the buffers).
 * A few buffers are cached, best fit first; the cache is reachable from a global, so leak checkers do not
 * count it. */
#include "nbc_internal.h"

#include <stdlib.h>

enum {
    CACHE_MIN_BYTES = 64 << 10, /* smaller requests come from malloc's bins without faults */
    CACHE_SLOTS = 8,
    HEADER_BYTES = 64, /* holds the size; keeps the data 64-byte aligned (vector loops, no split lines) */
};
#define CACHE_MAX_TOTAL ((size_t)256 << 20)

static _Atomic int cache_lock;
static struct {
    char *raw;
    size_t bytes;
} cache[CACHE_SLOTS];       /* cache_lock */
static size_t cached_total; /* cache_lock */

void *mpcrt_nbc_scratch_alloc(size_t bytes)
{
    if (bytes < CACHE_MIN_BYTES) {
        char *raw = malloc(bytes + HEADER_BYTES);
        if (!raw)
            return NULL;
        *(size_t *)raw = bytes;
        return raw + HEADER_BYTES;
    }
    mpcrt_spin_lock(&cache_lock);
    int best = -1;
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cache[i].raw && cache[i].bytes >= bytes && (best < 0 || cache[i].bytes < cache[best].bytes))
            best = i;
    char *raw = NULL;
    if (best >= 0 && cache[best].bytes <= 4 * bytes) { /* not a much larger buffer for a small request */
        raw = cache[best].raw;
        cached_total -= cache[best].bytes;
        cache[best].raw = NULL;
    }
    mpcrt_spin_unlock(&cache_lock);
    if (raw)
        return raw + HEADER_BYTES;
    raw =
        aligned_alloc(HEADER_BYTES, (bytes + HEADER_BYTES + HEADER_BYTES - 1) / HEADER_BYTES * HEADER_BYTES);
    if (!raw)
        return NULL;
    *(size_t *)raw = bytes;
    return raw + HEADER_BYTES;
}

size_t mpcrt_nbc_scratch_size(const void *buf)
{
    return *(const size_t *)((const char *)buf - HEADER_BYTES);
}

bool mpcrt_nbc_scratch_small(const void *buf)
{
    return mpcrt_nbc_scratch_size(buf) < CACHE_MIN_BYTES;
}

void mpcrt_nbc_scratch_release(void *buf)
{
    if (!buf)
        return;
    char *raw = (char *)buf - HEADER_BYTES;
    size_t bytes = *(size_t *)raw;
    if (bytes >= CACHE_MIN_BYTES) {
        mpcrt_spin_lock(&cache_lock);
        int slot = -1;
        for (int i = 0; i < CACHE_SLOTS && slot < 0; i++)
            if (!cache[i].raw)
                slot = i;
        if (slot < 0) { /* full: replace the smallest if this one is larger (large calls repeat) */
            slot = 0;
            for (int i = 1; i < CACHE_SLOTS; i++)
                if (cache[i].bytes < cache[slot].bytes)
                    slot = i;
            if (cache[slot].bytes >= bytes)
                slot = -1;
        }
        char *evicted = NULL;
        if (slot >= 0 &&
            cached_total - (cache[slot].raw ? cache[slot].bytes : 0) + bytes <= CACHE_MAX_TOTAL) {
            evicted = cache[slot].raw;
            cached_total += bytes - (evicted ? cache[slot].bytes : 0);
            cache[slot].raw = raw;
            cache[slot].bytes = bytes;
            raw = evicted;
        }
        mpcrt_spin_unlock(&cache_lock);
    }
    free(raw);
}
