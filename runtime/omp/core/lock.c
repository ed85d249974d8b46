/* Locks for OpenMP: a 32-bit word (GCC's omp_lock_t is 4 bytes) with the classic three states, free /
 * held / held with sleepers (Drepper, "Futexes are tricky"), sleeping through the address-keyed parking
 * of wait.c so that a blocked ULT frees its core. Also critical (unnamed and named: the name's pointer-
 * sized slot holds the lock word) and atomic (one global lock, as GCC expects). */
#include "../omp_internal.h"

enum { FREE = 0, HELD = 1, CONTENDED = 2 };

#define LOCK_SPIN 100

bool omp_lock_try(_Atomic int *word)
{
    int expected = FREE;
    /* acquire: the critical section sees the previous holder's writes. */
    return atomic_compare_exchange_strong_explicit(word, &expected, HELD, memory_order_acquire,
                                                   memory_order_relaxed);
}

static bool still_contended(void *addr, void *arg)
{
    (void)arg;
    return atomic_load_explicit((_Atomic int *)addr, memory_order_relaxed) == CONTENDED;
}

void omp_lock_acquire(_Atomic int *word)
{
    if (omp_lock_try(word))
        return;
    mpcrt_ult_t *self = mpcrt_ult_self();
    for (int i = 0; i < LOCK_SPIN; i++) {
        if (i % 16 == 15) {
            if (self)
                mpcrt_yield(); /* the holder may be a ULT of this VP */
            mpcrt_sched_progress(); /* a waiting thread progresses MPI like any other wait */
        } else {
            omp_cpu_relax();
        }
        if (atomic_load_explicit(word, memory_order_relaxed) == FREE && omp_lock_try(word))
            return;
    }
    /* Mark contended and sleep until an unlock of a contended lock unparks us. */
    while (atomic_exchange_explicit(word, CONTENDED, memory_order_acquire) != FREE)
        omp_park((void *)word, still_contended, NULL);
}

void omp_lock_release(_Atomic int *word)
{
    /* release: publishes the critical section to the next holder. */
    if (atomic_exchange_explicit(word, FREE, memory_order_release) == CONTENDED)
        omp_unpark_one((void *)word);
}

static _Atomic int critical_default;
static _Atomic int atomic_lock;

void omp_critical_start(void)
{
    omp_lock_acquire(&critical_default);
}

void omp_critical_end(void)
{
    omp_lock_release(&critical_default);
}

/* GCC gives each named critical a zero-initialized pointer-sized common symbol: its first 4 bytes are the
 * lock word. */
void omp_critical_name_start(void **name)
{
    omp_lock_acquire((_Atomic int *)name);
}

void omp_critical_name_end(void **name)
{
    omp_lock_release((_Atomic int *)name);
}

void omp_atomic_start(void)
{
    omp_lock_acquire(&atomic_lock);
}

void omp_atomic_end(void)
{
    omp_lock_release(&atomic_lock);
}
