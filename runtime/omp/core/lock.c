/* Locks for OpenMP: a 32-bit word (GCC's omp_lock_t is 4 bytes) with the classic three states, free /
 * held / held with sleepers (Drepper, "Futexes are tricky"), sleeping through the address-keyed parking
 * of wait.c so that a blocked ULT frees its core. Waiters poll with exponential backoff, yielding to the
 * other ULTs of their VP, and spin again after a wake-up before they park again. Also critical (unnamed
 * and named: the name's pointer-sized slot holds the lock word) and atomic (one global lock, as GCC
 * expects). */
#include "../omp_internal.h"

enum { FREE = 0, HELD = 1, CONTENDED = 2 };

/* A waiter polls the word with exponential backoff: 1, 2, 4 ... LOCK_POLL_MAX pauses between polls. Every
 * poll of a held lock makes the holder's next locked instruction fetch the line back from the poller's
 * core (about 40 ns here, a PAUSE is about 32 ns on these AMD EPYC cores), and a holder that re-acquires
 * in a loop writes the word twice per section: a poll every pause (the previous policy) cost it a
 * transfer every few sections. Capped at 32 pauses (about 1 us here), a poll steals the line at most once
 * a microsecond, and a waiter notices a release at most that late, which is the price of one or two
 * handoffs of the lock between cores. EPCC critical and lock, 2 and 4 threads on 2 cores: 0.030 us per
 * section to 0.012 (libgomp 0.031), see the commit. */
#define LOCK_POLL_MAX 32
/* Rounds of polling before a waiter parks, about 60 us here: a ULT hands its core to any other ready ULT of
 * its VP in every round, and a kernel thread that hosts a VP runs that VP's loop between its polls. */
#define LOCK_SPIN_ROUNDS 64
#define LOCK_PROGRESS_PERIOD 4 /* ULT rounds between progress calls (a yield too: the parked ULTs' sweep) */

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

typedef struct {
    _Atomic int *word;
    int take; /* what an acquisition writes: HELD, or CONTENDED once this waiter has parked */
    int round, pauses;
    enum { POLLING, ACQUIRED, SPENT } state;
} lock_wait_t;

/* One round of the spin phase: the backoff's pauses, then a poll (and a try if the word is free). */
static bool poll_round(lock_wait_t *w)
{
    for (int k = 0; k < w->pauses; k++)
        omp_cpu_relax();
    if (w->pauses < LOCK_POLL_MAX)
        w->pauses *= 2;
    w->round++;
    int expected = FREE;
    /* acquire: the critical section sees the previous holder's writes. */
    return atomic_load_explicit(w->word, memory_order_relaxed) == FREE &&
           atomic_compare_exchange_strong_explicit(w->word, &expected, w->take, memory_order_acquire,
                                                   memory_order_relaxed);
}

/* wait_until's predicate for a kernel thread: true once it holds the lock or its rounds are spent, and true
 * again without side effects if called after that. */
static bool kthread_poll_over(void *arg)
{
    lock_wait_t *w = arg;
    if (w->state == POLLING) {
        if (poll_round(w))
            w->state = ACQUIRED;
        else if (w->round >= LOCK_SPIN_ROUNDS)
            w->state = SPENT;
    }
    return w->state != POLLING;
}

/* The spin phase: true if it took the lock. */
static bool spin(lock_wait_t *w)
{
    if (!mpcrt_ult_self()) {
        /* A plain program's main thread hosts VP 0 and must run its ULTs while it waits (one of them may
         * hold the lock); another kernel thread spins with progress. */
        mpcrt_wait_until(kthread_poll_over, w);
        return w->state == ACQUIRED;
    }
    while (w->round < LOCK_SPIN_ROUNDS) {
        if (w->round % LOCK_PROGRESS_PERIOD == LOCK_PROGRESS_PERIOD - 1) {
            mpcrt_yield();          /* the holder may be a ULT of this VP */
            mpcrt_sched_progress(); /* a waiting thread progresses MPI like any other wait */
        } else if (mpcrt_yield_would_switch()) {
            mpcrt_yield(); /* another ULT of this VP can use the core, maybe the holder */
        }
        if (poll_round(w))
            return true;
    }
    return false;
}

/* Spin, then mark the word contended and park until a release of a contended word unparks us; then spin
 * again. Waking up, the waiter used to exchange CONTENDED in at once, as Drepper's lock does: the holder
 * had re-acquired the lock meanwhile nearly every time, so the waiter parked again and the holder's next
 * release had to unpark it again, a park and an unpark every second section for as long as the holder
 * kept the lock (EPCC critical with 0.75 us sections: 55k parks in 112k sections). A woken waiter spins
 * first instead and takes the lock as CONTENDED: others may still be parked, and until this waiter has
 * written CONTENDED again (taking the lock or parking) nobody wakes them, so they can sleep no longer than
 * one spin phase of this waiter past the release that woke it. */
void omp_lock_acquire(_Atomic int *word)
{
    if (omp_lock_try(word))
        return;
    for (int take = HELD;; take = CONTENDED) {
        lock_wait_t w = {word, take, 0, 1, POLLING};
        if (spin(&w))
            return;
        if (atomic_exchange_explicit(word, CONTENDED, memory_order_acquire) == FREE)
            return;
        omp_park((void *)word, still_contended, NULL);
    }
}

void omp_lock_release(_Atomic int *word)
{
    /* release: publishes the critical section to the next holder. */
    if (atomic_exchange_explicit(word, FREE, memory_order_release) == CONTENDED)
        omp_unpark_one((void *)word);
}

/* A line each: the critical of one thread and the atomic of another do not slow each other down. */
static _Alignas(OMP_CACHE_LINE) _Atomic int critical_default;
static _Alignas(OMP_CACHE_LINE) _Atomic int atomic_lock;

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
