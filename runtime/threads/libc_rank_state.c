/* Per-rank state for the libc functions that keep hidden state across calls: the generators of
 * pseudo-random numbers (rand/srand, random/srandom, the drand48 family) and strtok. In thread mode they
 * would be one stream shared by every rank of the process, so a program that seeds with srand(rank) or
 * expects the same sequence on every rank (MPICH's comm_group_rand draws the same groups on every rank)
 * would see its ranks steal each other's numbers, and ranks parsing their arguments with strtok at once
 * (MPICH's test utility, MTestArgListCreate) each other's positions. These definitions interpose
 * libc's (libmpcrt comes first in the link); each rank gets glibc's own algorithm on a private state (a
 * 128-byte random_r state seeded with 1 is exactly rand()'s default stream; a zeroed drand48_data is
 * drand48's). Outside a rank, or with one rank per process, the calls go to libc itself.
 * initstate/setstate and the generators taking their state as an argument are left to libc. */
#define _GNU_SOURCE
#include "sched_internal.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    _Atomic int lock; /* a rank's own pthreads (MPI_THREAD_MULTIPLE) may draw concurrently */
    struct random_data random;
    char random_state[128];
    struct drand48_data drand;
    char *strtok_next; /* where the rank's strtok goes on; not locked: strtok is not thread-safe in libc */
} rank_libc_state_t;

static _Atomic(rank_libc_state_t *) *per_rank; /* one slot per local rank */
static int nslots;                             /* 0: the calls go to libc */
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void make_table(void)
{
    int local = mpcrt_job_local_ranks();
    if (local > 1 && (per_rank = calloc((size_t)local, sizeof *per_rank)))
        nslots = local;
}

/* This rank's state, created on first use; NULL when the call should go to libc (outside a rank, one
 * rank per process, no memory). */
static rank_libc_state_t *rank_state(void)
{
    pthread_once(&table_once, make_table);
    int n = nslots;
    int local = mpcrt_self_rank() - mpcrt_job_first_rank();
    if (n <= 0 || local < 0 || local >= n)
        return NULL;
    rank_libc_state_t *g = atomic_load_explicit(&per_rank[local], memory_order_acquire);
    if (g)
        return g;
    g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    initstate_r(1, g->random_state, sizeof g->random_state, &g->random);
    rank_libc_state_t *none = NULL;
    if (!atomic_compare_exchange_strong_explicit(&per_rank[local], &none, g, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(g); /* another thread of the rank made it first */
        g = none;
    }
    return g;
}

static void *libc_fn(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

#define LIBC(type, name) ((type)libc_fn(#name))

int rand(void)
{
    rank_libc_state_t *g = rank_state();
    if (!g)
        return LIBC(int (*)(void), rand)();
    int32_t value;
    mpcrt_spin_lock(&g->lock);
    random_r(&g->random, &value);
    mpcrt_spin_unlock(&g->lock);
    return value;
}

long random(void)
{
    return rand(); /* glibc's rand() is random(); one stream per rank, as in libc */
}

void srandom(unsigned seed)
{
    rank_libc_state_t *g = rank_state();
    if (!g) {
        LIBC(void (*)(unsigned), srandom)(seed);
        return;
    }
    mpcrt_spin_lock(&g->lock);
    srandom_r(seed, &g->random);
    mpcrt_spin_unlock(&g->lock);
}

void srand(unsigned seed)
{
    srandom(seed);
}

/* The drand48 family: one locked call of the _r form on the rank's data, or libc's. */
#define DRAND48_CALL(result, call_r, libc_call)                                                              \
    do {                                                                                                     \
        rank_libc_state_t *g = rank_state();                                                                 \
        if (!g)                                                                                              \
            return libc_call;                                                                                \
        mpcrt_spin_lock(&g->lock);                                                                           \
        call_r;                                                                                              \
        mpcrt_spin_unlock(&g->lock);                                                                         \
        return result;                                                                                       \
    } while (0)

double drand48(void)
{
    double value;
    DRAND48_CALL(value, drand48_r(&g->drand, &value), LIBC(double (*)(void), drand48)());
}

long lrand48(void)
{
    long value;
    DRAND48_CALL(value, lrand48_r(&g->drand, &value), LIBC(long (*)(void), lrand48)());
}

long mrand48(void)
{
    long value;
    DRAND48_CALL(value, mrand48_r(&g->drand, &value), LIBC(long (*)(void), mrand48)());
}

void srand48(long seed)
{
    rank_libc_state_t *g = rank_state();
    if (!g) {
        LIBC(void (*)(long), srand48)(seed);
        return;
    }
    mpcrt_spin_lock(&g->lock);
    srand48_r(seed, &g->drand);
    mpcrt_spin_unlock(&g->lock);
}

unsigned short *seed48(unsigned short seed[3])
{
    rank_libc_state_t *g = rank_state();
    if (!g)
        return LIBC(unsigned short *(*)(unsigned short *), seed48)(seed);
    mpcrt_spin_lock(&g->lock);
    seed48_r(seed, &g->drand);
    mpcrt_spin_unlock(&g->lock);
    return g->drand.__old_x; /* the previous state, as seed48 returns it */
}

char *strtok(char *str, const char *delim)
{
    rank_libc_state_t *g = rank_state();
    if (!g)
        return LIBC(char *(*)(char *, const char *), strtok)(str, delim);
    return strtok_r(str, delim, &g->strtok_next);
}
