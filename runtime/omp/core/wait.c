/* How OpenMP threads wait: spin while nothing else wants the core, then block through the scheduler
 * (BOLT's spin-then-park, Iwasaki et al. PACT'19). A blocked ULT is suspended, so its VP runs other ULTs;
 * a blocked kernel thread sleeps on its futex. Every wait loops on its own predicate, so spurious
 * wake-ups are harmless, which lets wakers wake generously. */
#include "../omp_internal.h"

#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define YIELD_PERIOD 64 /* spin rounds between a yield to other ready ULTs and a progress call */
/* How long the thread that hosts a VP spins in that VP's loop before it publishes a waiter: below the
 * loop's own spin phase (runtime/threads/vp.c, 50 us), after which the loop yields the core and then
 * sleeps with timeouts, re-checking a predicate only every 20 us or more. */
#define HOSTED_SPIN_NS 40000L

void omp_spin_init(omp_spin_t *s)
{
    s->rounds = 0;
}

bool omp_spin(omp_thread_t *thr, omp_spin_t *s)
{
    if (s->rounds >= omp_global.spin_rounds)
        return false;
    /* On the VP a plain program's main thread hosts, nothing runs unless that thread waits, and it then
     * waits in the VP's loop (omp_spin_until spins there): a ULT there blocks at once, since its spinning
     * would keep the loop, and the main thread's own wait, from ever seeing a condition come true. */
    if (thr->vp == omp_global.hosted_vp && thr->vp >= 0)
        return false;
    s->rounds++;
    /* A ULT hands its core at once to any other ready ULT of its VP: with more team members than cores,
     * the member this one waits for is often such a ULT, and every round spent spinning delays it. That
     * is the point of OpenMP threads as ULTs: a wait among members of one VP is a user-level switch, not
     * a spin until the kernel preempts. */
    if (thr->ult && mpcrt_yield_would_switch())
        mpcrt_yield();
    if (s->rounds % YIELD_PERIOD == 0) {
        /* Now and then also let the VP sweep its parked ULTs (that runs the progress hooks too); a kernel
         * thread outside the VPs shares a core with one and lets the kernel run it. */
        if (thr->ult)
            mpcrt_yield();
        else if (s->rounds % (16 * YIELD_PERIOD) == 0)
            sched_yield();
        mpcrt_sched_progress();
    } else {
        omp_cpu_relax();
    }
    return true;
}

typedef struct {
    bool (*pred)(void *);
    void *arg;
    unsigned long rounds, budget;
    struct timespec start;
} hosted_spin_t;

static bool hosted_spin_over(void *p)
{
    hosted_spin_t *h = p;
    if (h->pred(h->arg))
        return true;
    if (++h->rounds >= h->budget)
        return true;
    if (h->rounds % YIELD_PERIOD == 0) {
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long ns = (now.tv_sec - h->start.tv_sec) * 1000000000L + (now.tv_nsec - h->start.tv_nsec);
        return ns >= HOSTED_SPIN_NS;
    }
    return false;
}

bool omp_spin_until(omp_thread_t *thr, omp_spin_t *s, bool (*pred)(void *), void *arg)
{
    if (thr->ult || thr->vp != omp_global.hosted_vp || thr->vp < 0)
        return omp_spin(thr, s);
    /* The kernel thread that hosts a VP (a plain program's main thread, a master) waits in its VP's loop,
     * which runs that VP's ULTs and the progress hooks and checks pred every round. Blocking at once, as
     * before, cost every join a published waiter: the last worker to arrive then exchanged it and
     * notified the VP, three cross-core read-modify-writes on the critical path (parallel at 2 threads:
     * the worker's wake-up of the master was the largest item of a fork/join). */
    if (s->rounds >= omp_global.spin_rounds)
        return false;
    hosted_spin_t h = {pred, arg, s->rounds, omp_global.spin_rounds, {0, 0}};
    clock_gettime(CLOCK_MONOTONIC, &h.start);
    mpcrt_wait_until(hosted_spin_over, &h);
    /* Spent unless pred came true: the caller re-checks pred, then blocks. */
    s->rounds = pred(arg) ? h.rounds : omp_global.spin_rounds;
    return true;
}

void omp_block(omp_thread_t *thr, bool (*pred)(void *), void *arg)
{
    mpcrt_waiter_t w;
    mpcrt_waiter_init(&w);
    /* seq_cst store then predicate load; the waker stores the condition then loads `sleeper` (seq_cst
     * fence in omp_wake): one of the two sees the other (Dekker). */
    atomic_store(&thr->sleeper, &w);
    if (pred(arg)) {
        if (atomic_exchange(&thr->sleeper, NULL) == &w)
            return;
        /* A waker took the waiter: it will wake it, and w must stay valid until it has. */
    }
    mpcrt_waiter_sleep(&w);
}

void omp_wake(omp_thread_t *thr)
{
    atomic_thread_fence(memory_order_seq_cst);
    if (!atomic_load_explicit(&thr->sleeper, memory_order_relaxed))
        return;
    mpcrt_waiter_t *w = atomic_exchange(&thr->sleeper, NULL);
    if (w)
        mpcrt_waiter_wake(w);
}

void omp_wait(omp_thread_t *thr, bool (*pred)(void *), void *arg)
{
    omp_spin_t spin;
    omp_spin_init(&spin);
    while (!pred(arg)) {
        if (!omp_spin_until(thr, &spin, pred, arg))
            omp_block(thr, pred, arg);
    }
}

/* ---- Address-keyed parking (a user-space futex): for lock words too small to hold a waiter list. */

#define PARK_BUCKETS 256

typedef struct park_node {
    struct park_node *next;
    void *addr;
    mpcrt_waiter_t waiter;
} park_node_t;

typedef struct {
    _Alignas(OMP_CACHE_LINE) _Atomic int lock;
    park_node_t *head, *tail;
} park_bucket_t;

static park_bucket_t buckets[PARK_BUCKETS];

static park_bucket_t *bucket_of(void *addr)
{
    uintptr_t a = (uintptr_t)addr;
    a ^= a >> 17;
    a *= 0x9e3779b97f4a7c15ULL;
    return &buckets[(a >> 56) % PARK_BUCKETS];
}

void omp_park(void *addr, bool (*still_blocked)(void *, void *), void *arg)
{
    park_bucket_t *b = bucket_of(addr);
    park_node_t node = {.next = NULL, .addr = addr};
    mpcrt_waiter_init(&node.waiter);
    omp_spin_lock(&b->lock);
    /* Checked under the bucket lock, which the waker also takes: a release between the check and the
     * enqueue cannot be missed. */
    if (!still_blocked(addr, arg)) {
        omp_spin_unlock(&b->lock);
        return;
    }
    if (b->tail)
        b->tail->next = &node;
    else
        b->head = &node;
    b->tail = &node;
    omp_spin_unlock(&b->lock);
    mpcrt_waiter_sleep(&node.waiter);
}

static void unpark(void *addr, bool all)
{
    park_bucket_t *b = bucket_of(addr);
    park_node_t *woken = NULL, **tail = &woken;
    omp_spin_lock(&b->lock);
    park_node_t *prev = NULL, *n = b->head;
    while (n) {
        park_node_t *next = n->next;
        if (n->addr == addr) {
            if (prev)
                prev->next = next;
            else
                b->head = next;
            if (b->tail == n)
                b->tail = prev;
            n->next = NULL;
            *tail = n;
            tail = &n->next;
            if (!all)
                break;
        } else {
            prev = n;
        }
        n = next;
    }
    omp_spin_unlock(&b->lock);
    while (woken) {
        park_node_t *next = woken->next; /* read before waking: the node lives on the sleeper's stack */
        mpcrt_waiter_wake(&woken->waiter);
        woken = next;
    }
}

void omp_unpark_one(void *addr)
{
    unpark(addr, false);
}

void omp_unpark_all(void *addr)
{
    unpark(addr, true);
}
