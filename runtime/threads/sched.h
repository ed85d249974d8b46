/* Interface of runtime/threads: the unified scheduler that runs MPI ranks, OpenMP workers and progress
 * threads as user-level threads (ULTs) on virtual processors (VPs). The MPI and OpenMP layers include only
 * this header; they plug into the scheduler through the hooks declared at the end. */
#ifndef MPCRT_THREADS_SCHED_H
#define MPCRT_THREADS_SCHED_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "biased_lock.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mpcrt_ult mpcrt_ult_t;
typedef struct mpcrt_vp mpcrt_vp_t;

typedef enum {
    MPCRT_ULT_RANK,
    MPCRT_ULT_OMP_WORKER,
    MPCRT_ULT_PROGRESS,
    MPCRT_ULT_USER,
    MPCRT_ULT_IDLE, /* a VP's own kernel-thread context; never created by users */
    MPCRT_ULT_NKINDS
} mpcrt_ult_kind_t;

enum { MPCRT_PRIO_MIN = 0, MPCRT_PRIO_MAX = 20 };

/* Errors returned by the scheduler (negated errno values keep them printable with strerror). */
enum { MPCRT_OK = 0 };

/* ------------------------------------------------------------------ runtime lifetime */

/* Start the scheduler in this process: discover cores, start one VP per core (the calling kernel thread
 * becomes VP 0). Idempotent and thread-safe; returns 0 or a negative errno. */
int mpcrt_sched_init(void);
/* Same, but the calling kernel thread becomes VP 0 (a hosted VP) and runs it in mpcrt_sched_run_until.
 * It may also leave for other code: VP 0's ULTs then run whenever it waits (a waiter, wait_until, a
 * join), so a plain program's main thread can host VP 0 instead of competing with it for a core. */
int mpcrt_sched_init_here(void);
/* Stop every VP but the caller's and release the runtime. Only called by the thread that called init,
 * outside of any ULT, once every ULT has finished. */
void mpcrt_sched_finalize(void);
bool mpcrt_sched_is_initialized(void);
int mpcrt_sched_num_vps(void);
/* A VP other than the caller's that has nothing of its own to run right now (in its idle loop, or its ULT
 * spins in wait_until), so work handed to it (a progress ULT, a progress hook's pass) runs at once; -1 when
 * none. A hint: the answer may be stale by the time the caller acts on it. */
int mpcrt_sched_free_vp(void);
/* Whether VP vp has nothing of its own to run right now and runs the progress hooks meanwhile (the test of
 * mpcrt_sched_free_vp, with collaborative polling on); a hint too. */
bool mpcrt_sched_vp_is_free(int vp);
/* Wakes VP vp if it sleeps in its idle loop, so that it runs the progress hooks soon. */
void mpcrt_sched_wake_vp(int vp);
/* Wakes one VP other than the caller's that sleeps in its idle loop, if any, for work any VP's progress
 * hooks may take, which the caller published before the call; returns it, or -1. Reads each VP's wake-up
 * line, which only changes when the VP falls asleep or is woken. A VP falling asleep meanwhile finds the
 * work itself: it looks at the hooks once more after publishing that it sleeps, and the two sides are
 * ordered (vp.c, sleep_or_spin), with no fence on the caller's side when membarrier(2) is available. */
int mpcrt_sched_wake_sleeping_vp(void);
/* Index of the hardware resource of the given hwloc type name ("core", "l3cache", "numanode", "package",
 * "machine"...) that holds VP vp's core; -1 if the name is unknown, the VP unbound or the level absent. */
int mpcrt_sched_vp_resource(int vp, const char *resource);

/* Run the calling VP's scheduler loop (the caller must be VP 0's kernel thread, outside any ULT) until
 * done(arg) is true; done is checked after every scheduling round. This is how the thread-mode entry
 * point waits for its rank ULTs without leaving VP 0 idle. */
void mpcrt_sched_run_until(bool (*done)(void *arg), void *arg);

/* ------------------------------------------------------------------ ULTs */

typedef struct {
    mpcrt_ult_kind_t kind;
    int base_priority; /* 0..20 */
    int vp;            /* home VP; -1 = the caller's VP (VP 0 from a non-VP thread) */
    size_t stack_size; /* 0 = the default for the kind */
    int rank;          /* owner rank, -1 if none */
    bool detached;     /* resources released at exit; cannot be joined */
} mpcrt_ult_attr_t;

void mpcrt_ult_attr_init(mpcrt_ult_attr_t *attr);

/* Create a ULT running fn(arg) on its home VP. Callable from ULTs and from any kernel thread. */
int mpcrt_ult_create(mpcrt_ult_t **out, void *(*fn)(void *), void *arg, const mpcrt_ult_attr_t *attr);
/* Wait for a joinable ULT to finish, store its return value, release it. */
int mpcrt_ult_join(mpcrt_ult_t *ult, void **retval);

/* NULL on a kernel thread that is not running a ULT. Inline: every blocking MPI call asks (the switch keeps
 * the TLS). */
extern __thread mpcrt_ult_t *mpcrt_tls_ult __attribute__((tls_model("initial-exec")));
static inline mpcrt_ult_t *mpcrt_ult_self(void)
{
    return mpcrt_tls_ult;
}
mpcrt_ult_kind_t mpcrt_ult_kind(const mpcrt_ult_t *ult);
int mpcrt_ult_rank(const mpcrt_ult_t *ult); /* -1 if none */
void mpcrt_ult_set_rank(mpcrt_ult_t *ult, int rank);
int mpcrt_ult_vp(const mpcrt_ult_t *ult);
/* Index of the calling VP, -1 on a non-VP kernel thread. Inline (a TLS): per-VP caches ask on every call. */
extern __thread int mpcrt_tls_vp_index __attribute__((tls_model("initial-exec")));
static inline int mpcrt_self_vp(void)
{
    return mpcrt_tls_vp_index;
}
/* Rank of the running ULT, or of the rank whose pthread this is; else -1. Inline (a TLS the switch keeps):
 * the MPI layer asks on every call. */
extern __thread int mpcrt_tls_rank __attribute__((tls_model("initial-exec")));
static inline int mpcrt_self_rank(void)
{
    return mpcrt_tls_rank;
}

/* Per-layer pointer slots on every ULT (the MPI layer keeps its rank state in one, OpenMP its thread
 * state in another) so that finding "my state" costs one TLS load and one indirection. */
enum { MPCRT_ULT_SLOT_MPI, MPCRT_ULT_SLOT_OMP, MPCRT_ULT_SLOT_USER, MPCRT_ULT_SLOT_PRIV, MPCRT_ULT_NSLOTS };
/* The public prefix of every ULT descriptor (the rest is private to this module): the slots, so that
 * reading one is an inline load instead of a call (every GOMP entry point finds its thread this way).
 * Each slot is an opaque pointer that only the layer owning its index interprets. Then two fields the
 * scheduler owns and the inline mpcrt_ult_poke reads (nobody else may write them). */
typedef struct {
    void *slots[MPCRT_ULT_NSLOTS];
    _Atomic(mpcrt_vp_t *) home; /* the VP it runs on, for life */
    _Atomic int state;          /* sched_internal.h's ult_state_t */
} mpcrt_ult_public_t;
static inline void *mpcrt_ult_slot(const mpcrt_ult_t *ult, int slot)
{
    return ((const mpcrt_ult_public_t *)(const void *)ult)->slots[slot];
}
static inline void mpcrt_ult_set_slot(mpcrt_ult_t *ult, int slot, void *value)
{
    ((mpcrt_ult_public_t *)(void *)ult)->slots[slot] = value;
}

/* Priorities (Taboada, research/seed003 §6.4): each pick lowers the current priority by one; a pick at 0
 * resets it to the base. Only the home VP's ULTs (or code on a non-running ULT's home VP) may call these. */
void mpcrt_ult_set_priority(mpcrt_ult_t *ult, int base, int current);
void mpcrt_ult_get_priority(const mpcrt_ult_t *ult, int *base, int *current);

/* Let other ready ULTs of this VP run. No-op on a non-VP kernel thread (sched_yield there). */
void mpcrt_yield(void);
/* Whether another ULT of the calling ULT's VP is ready to run or being woken (its run queue or inbox is
 * not empty); parked pollers do not count. Cheap: a spin-wait calls it every round and yields when true,
 * leaving the sweep of parked ULTs (which runs the progress hooks) to its periodic mpcrt_yield. */
bool mpcrt_yield_would_switch(void);

/* Low-level blocking: suspend the running ULT until some thread calls mpcrt_ult_wake on it. Wake-ups may be
 * spurious, so callers loop on their own condition. Most code uses mpcrt_waiter_t or wait_until instead. */
void mpcrt_ult_suspend(void);
void mpcrt_ult_wake(mpcrt_ult_t *ult);

/* ------------------------------------------------------------------ waiting */

/* Wait until pred(arg) is true: spin a bounded, adaptive number of rounds running the progress hooks, then
 * park the ULT on its VP's poll list; the VP re-checks parked predicates. On a non-VP kernel thread: spin
 * with progress, then back off; on the thread hosting a VP: run that VP's loop. pred must be cheap, must not
 * block, and may be called again after it returned true (by the sweep, then by the woken ULT): once true it
 * must stay true without side effects. */
void mpcrt_wait_until(bool (*pred)(void *arg), void *arg);
/* The first round of mpcrt_wait_until for a caller that tests its condition inline (a blocking receive):
 * when exactly one other ULT of the caller's VP could run (most likely the peer it just answered), run it
 * now; true if it did, and the caller tests again. False, at once, when the general wait would not start
 * with that yield (a kernel thread, other work queued, parked ULTs to sweep). Two ranks of one core then
 * switch per message without the general wait's indirect predicate calls and bookkeeping. */
bool mpcrt_wait_yield_once(void);
/* The spinning first part of mpcrt_wait_until alone, for a caller with a blocking protocol of its own
 * (a waiter list its waker walks): while no other ULT of the caller's VP could run, test pred and run the
 * progress hooks, for at most the VP's spin budget. True once pred(arg) holds; false when the caller
 * should block its own way (others could use the core, the spin ran out, or a kernel thread calls). */
bool mpcrt_wait_spin(bool (*pred)(void *arg), void *arg);
/* A wait by the calling ULT would start by spinning: no other ULT of its VP could run now (a hint). Its
 * spin runs the progress hooks, so a layer may leave work for them that a parked waiter would have needed
 * done for it (the park hooks run before it parks). False on a kernel thread that is no VP's ULT. */
bool mpcrt_wait_would_spin(void);
/* The same wait without running any hook (progress, idle or park) in the caller's context: for a wait
 * that is none of the layers' business and may run where their work must not (a ULT joining a kernel
 * thread, which under ThreadSanitizer waits inside its pthread_join interceptor, where it records no
 * synchronization). The VP's idle loop still runs the hooks while the caller is parked. */
void mpcrt_wait_until_quiet(bool (*pred)(void *arg), void *arg);
/* For a function that may wait by switching ULTs and is called from a program, whose ULTs call it from
 * different places (rank 0 sends then receives, rank 1 receives then sends: MPI_Recv, MPI_Wait): its
 * returns go through context_x86_64.S's return thunk. A ULT resumed by a switch finds the processor's
 * return-stack predictor filled by the ULT that ran before it, so its return into the program, to another
 * place than the other ULT's, was mispredicted (about 3 ns of a 33 ns same-core hop); after a switch the
 * thunk returns by an indirect jump, which the predictor learns per path, and otherwise by a plain return.
 * Empty where GCC cannot do it (another processor, or -fcf-protection, which forbids return thunks). */
#if defined(__x86_64__) && !defined(__CET__) && defined(__GNUC__) && !defined(__clang__)
#define MPCRT_RETURNS_AFTER_SWITCH __attribute__((function_return("thunk-extern")))
#else
#define MPCRT_RETURNS_AFTER_SWITCH
#endif
/* Tell ult, which waits (or will wait) in mpcrt_wait_until, that the caller has just made its predicate true.
 * Cheaper than mpcrt_ult_wake: nothing is sent to a waiter that is still running (spinning, or about to park:
 * it checks its predicate again after it is marked parked). Only for wait_until waiters.
 * Inline, the case of a waiter queued on the caller's own VP: it waits by yielding and checks its predicate
 * when it runs next, after the caller (nothing to do, and no fence: one kernel thread runs both). Two ranks
 * of one core ping-ponging poke each other at every message, and the call was 0.7 ns of a 27 ns hop. */
void mpcrt_ult_poke_slow(mpcrt_ult_t *ult);
#define MPCRT_ULT_STATE_QUEUED 2 /* ult_state_t's ULT_READY (sched_internal.h checks) */
extern __thread mpcrt_vp_t *mpcrt_tls_vp __attribute__((tls_model("initial-exec")));
static inline void mpcrt_ult_poke(mpcrt_ult_t *ult)
{
    const mpcrt_ult_public_t *pub = (const mpcrt_ult_public_t *)(const void *)ult;
    if (atomic_load_explicit(&pub->state, memory_order_relaxed) == MPCRT_ULT_STATE_QUEUED &&
        atomic_load_explicit(&pub->home, memory_order_relaxed) == mpcrt_tls_vp)
        return;
    mpcrt_ult_poke_slow(ult);
}

/* A waiter: one blocked ULT or kernel thread, woken exactly by mpcrt_waiter_wake. The structure lives on
 * the waiting thread's stack; the waker must not touch it after waking it. */
typedef struct mpcrt_waiter {
    struct mpcrt_waiter *next;
    mpcrt_ult_t *ult; /* NULL: a kernel thread waits on the futex word below */
    mpcrt_vp_t *vp;   /* a hosted VP's own thread (mpcrt_sched_init_here): it waits by running the VP */
    _Atomic uint32_t woken;
} mpcrt_waiter_t;

void mpcrt_waiter_init(mpcrt_waiter_t *w);
void mpcrt_waiter_sleep(mpcrt_waiter_t *w);
void mpcrt_waiter_wake(mpcrt_waiter_t *w);
/* The same, with a non-zero value of the waiter's choosing in `woken` (mutex.c: owner, or compete). */
void mpcrt_waiter_wake_with(mpcrt_waiter_t *w, uint32_t value);

/* ------------------------------------------------------------------ synchronization (ULTs and kernel
 * threads) */

/* Fetch the line at p in a writable state ahead of a write (prefetchw; __builtin_prefetch(p, 1) emits a
 * read prefetch for the baseline x86-64 target, and the write then still needs the line's ownership). A
 * no-op on x86-64 processors without it. */
static inline void mpcrt_prefetch_write(const void *p)
{
#if defined(__x86_64__)
    __asm__ volatile("prefetchw %0" ::"m"(*(const char *)p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
}

/* Test-and-test-and-set spinlock for short, non-blocking critical sections (never held across a switch or
 * a call that may block: a ULT holding it is never descheduled, so spinning on it is bounded). */
static inline void mpcrt_spin_lock(_Atomic int *lock)
{
    for (;;) {
        /* acquire: the critical section must see the previous holder's writes. */
        if (!__atomic_exchange_n((int *)lock, 1, __ATOMIC_ACQUIRE))
            return;
        while (__atomic_load_n((int *)lock, __ATOMIC_RELAXED))
            __builtin_ia32_pause();
    }
}

static inline void mpcrt_spin_unlock(_Atomic int *lock)
{
    __atomic_store_n((int *)lock, 0, __ATOMIC_RELEASE); /* publishes the critical section */
}

typedef struct {
    _Atomic int locked; /* 0 free, 1 held, 2 held with waiters */
    _Atomic int guard;  /* spinlock protecting the queue */
    mpcrt_waiter_t *head, *tail;
} mpcrt_mutex_t;
#define MPCRT_MUTEX_INITIALIZER                                                                              \
    {                                                                                                        \
        0, 0, NULL, NULL                                                                                     \
    }
void mpcrt_mutex_init(mpcrt_mutex_t *m);
void mpcrt_mutex_lock(mpcrt_mutex_t *m);
bool mpcrt_mutex_trylock(mpcrt_mutex_t *m);
void mpcrt_mutex_unlock(mpcrt_mutex_t *m);

typedef struct {
    _Atomic int guard;
    mpcrt_waiter_t *head, *tail;
} mpcrt_cond_t;
#define MPCRT_COND_INITIALIZER                                                                               \
    {                                                                                                        \
        0, NULL, NULL                                                                                        \
    }
void mpcrt_cond_init(mpcrt_cond_t *c);
void mpcrt_cond_wait(mpcrt_cond_t *c, mpcrt_mutex_t *m);
void mpcrt_cond_signal(mpcrt_cond_t *c);
void mpcrt_cond_broadcast(mpcrt_cond_t *c);

typedef struct {
    _Atomic int guard;
    unsigned count, arrived;
    uint64_t generation;
    mpcrt_waiter_t *head;
} mpcrt_barrier_t;
int mpcrt_barrier_init(mpcrt_barrier_t *b, unsigned count);
/* Returns true in exactly one thread per round (the last to arrive), like PTHREAD_BARRIER_SERIAL_THREAD. */
bool mpcrt_barrier_wait(mpcrt_barrier_t *b);

typedef struct {
    _Atomic int state; /* 0 not run, 1 running, 2 done */
    mpcrt_mutex_t lock;
    mpcrt_cond_t done;
} mpcrt_once_t;
#define MPCRT_ONCE_INITIALIZER                                                                               \
    {                                                                                                        \
        0, MPCRT_MUTEX_INITIALIZER, MPCRT_COND_INITIALIZER                                                   \
    }
void mpcrt_once(mpcrt_once_t *once, void (*fn)(void));

/* ------------------------------------------------------------------ hooks for the layers above */

/* A progress hook returns the number of events it handled (0: nothing to do). Hooks run on whichever VP
 * waits or idles, possibly concurrently on several VPs: they must be thread-safe and must not block. */
typedef int (*mpcrt_progress_fn)(void *arg);
int mpcrt_sched_add_progress_hook(mpcrt_progress_fn fn, void *arg);
int mpcrt_sched_add_idle_hook(mpcrt_progress_fn fn, void *arg);

/* A doorbell for the work progress hooks find (a rail's incoming queue): a futex word, which may live in
 * memory shared with other processes, and a count of the VPs asleep on it. An idle VP about to sleep in the
 * kernel counts itself in *sleepers, runs the progress hooks once more and sleeps on *bell (not only on
 * its own word) with its usual timeout; whoever brings work for this process (another process, after
 * publishing a packet) rings it when *sleepers is not 0, so the VP wakes at once instead of at the end of
 * its back-off. Local wake-ups ring it too. NULL, NULL: none (VPs still asleep on it wake by timeout). */
void mpcrt_sched_set_doorbell(_Atomic uint32_t *bell, _Atomic uint32_t *sleepers);
bool mpcrt_sched_has_doorbell(void);
/* Rings a doorbell (of this process or, in shared memory, of another): wakes every VP asleep on it. */
void mpcrt_doorbell_ring(_Atomic uint32_t *bell);
/* For a kernel thread that watches what the hooks cannot wait for (sockets): blocks until some VP of
 * this process is asleep on the current doorbell, or timeout_ns, or mpcrt_sched_release_watchers; true
 * when some VP sleeps. Once a thread called it, the VP whose sleep makes the count leave 0 wakes it. */
bool mpcrt_sched_await_sleepers(long timeout_ns);
void mpcrt_sched_release_watchers(void);
/* Rings this process's current doorbell (none: nothing to do, the VPs wake by their timeout). */
void mpcrt_sched_ring(void);
/* Run the progress hooks once from the calling context; returns the events handled. */
int mpcrt_sched_progress(void);

typedef void (*mpcrt_ult_event_fn)(mpcrt_ult_t *ult);
typedef void (*mpcrt_switch_fn)(mpcrt_ult_t *from, mpcrt_ult_t *to);
int mpcrt_sched_add_ult_start_hook(mpcrt_ult_event_fn fn); /* on the new ULT, before its function */
int mpcrt_sched_add_ult_exit_hook(mpcrt_ult_event_fn fn);  /* on the ULT, after its function returns */
int mpcrt_sched_add_switch_hook(mpcrt_switch_fn fn);       /* on every switch, in the outgoing context */
/* On a ULT that is about to park in mpcrt_wait_until (its spin is over), in its own context, before it
 * marks itself parked and checks its predicate a last time: a layer that keeps work for the ULT to do
 * while it runs (a queue it drains when it polls) hands that work over here, or does it. */
int mpcrt_sched_add_park_hook(mpcrt_ult_event_fn fn);
/* On a ULT whose wait starts spinning (nothing else could run on its VP, so it runs the progress hooks
 * until its predicate holds or it parks), in its own context, once per wait: a layer may leave work for
 * the progress hooks that it would otherwise have done for the ULT at once (the park hooks take it back
 * before the ULT parks). Two ULTs of one core that switch to each other never spin. */
int mpcrt_sched_add_spin_hook(mpcrt_ult_event_fn fn);

/* ------------------------------------------------------------------ privatization slots (DESIGN.md §5) */

/* Task-level (per rank) and ULT-level privatization deltas of a ULT; the scheduler stores them into the
 * VP's initial-exec TLS slots __mpc_priv_delta and __mpc_ult_delta on every switch. */
void mpcrt_ult_set_priv_deltas(mpcrt_ult_t *ult, intptr_t task_delta, intptr_t ult_delta);
void mpcrt_ult_get_priv_deltas(const mpcrt_ult_t *ult, intptr_t *task_delta, intptr_t *ult_delta);

/* Privatization (priv.c): copies of the data of modules built with mpcc -fmpc-privatize. Without such
 * modules every function succeeds and every delta is 0 (the master copy). */
int mpcrt_priv_init(void); /* after constructors, before any rank runs: check externs, snapshot */
bool mpcrt_priv_enabled(void);
int mpcrt_priv_task_create(intptr_t *task_delta); /* a rank's copy */
/* The ULT-level copy (ex-__thread, threadprivate) of OpenMP thread `thread_num` of the rank whose task
 * delta is given, created on first use and kept for the rank's life (threadprivate persistence); thread
 * 0 is the rank's own. */
int mpcrt_priv_thread_delta(intptr_t task_delta, int thread_num, intptr_t *ult_delta);
/* C++ dynamic initialization of privatized objects, run by the rank itself; the destructors registered
 * meanwhile run in mpcrt_priv_run_finalizers when the rank ends. */
int mpcrt_priv_run_initializers(intptr_t task_delta);
void mpcrt_priv_run_finalizers(intptr_t task_delta);

/* Calling user code on someone's behalf (a user reduction op, an error handler, a generalized-request or
 * attribute callback run by a progress ULT or another rank): enter the owner's view of the privatized
 * data, call, leave. Works on ULTs and kernel threads; nests. */
typedef struct {
    intptr_t task_delta, ult_delta;
} mpcrt_priv_view_t;
void mpcrt_priv_enter(const mpcrt_ult_t *owner, mpcrt_priv_view_t *saved);
void mpcrt_priv_leave(const mpcrt_priv_view_t *saved);
/* The same with a view taken earlier by the owner itself (mpcrt_priv_view_self): the owner's ULT may be
 * running elsewhere meanwhile, in another's view that mpcrt_priv_enter would read (work passed between
 * cores, like a collective schedule progressed by any VP). */
void mpcrt_priv_view_self(mpcrt_priv_view_t *view);
void mpcrt_priv_enter_view(const mpcrt_priv_view_t *view, mpcrt_priv_view_t *saved);

/* ------------------------------------------------------------------ the thread-mode job */

/* Ranks of this process (MPCRT_RANKS_PER_PROC), ranks in the job, and this process's first rank. */
int mpcrt_job_local_ranks(void);
int mpcrt_job_size(void);
int mpcrt_job_first_rank(void);
/* Processes in the job and this process's index among them (0..procs-1). */
int mpcrt_job_num_procs(void);
int mpcrt_job_proc_index(void);
/* The wire-up of a multi-process job (the MPI layer's PMIx client) registers itself at load time; it is
 * run once, before the ranks are created (or by the first MPI_Init of a program without mpcc's entry
 * point), and returns 0 with this process's index and the number of processes, or non-zero for a
 * single-process job (then MPCRT_NUM_PROCS and index 0 hold). */
typedef int (*mpcrt_job_wireup_fn)(int *proc_index, int *num_procs);
void mpcrt_job_set_wireup(mpcrt_job_wireup_fn fn);
int mpcrt_job_wireup(void);
/* Home VP of local rank i: its first core with -c, else blocks of consecutive ranks per VP. */
int mpcrt_job_rank_vp(int local_rank);
/* The VPs local rank i may spread its own threads over (its OpenMP teams): with -c, its cores
 * [*first_vp, *first_vp + n) (indices modulo the VP count); without -c ranks share every VP (first 0).
 * Returns n (>= 1). */
int mpcrt_job_rank_cores(int local_rank, int *first_vp);

/* ------------------------------------------------------------------ statistics */

typedef struct {
    uint64_t switches;     /* ULT-to-ULT and ULT-to-idle switches */
    uint64_t sweeps;       /* poll-list sweeps */
    uint64_t futex_sleeps; /* times the VP slept in the kernel */
} mpcrt_vp_stats_t;
void mpcrt_sched_vp_stats(int vp, mpcrt_vp_stats_t *out);

#ifdef __cplusplus
}
#endif
#endif
