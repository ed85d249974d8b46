/* Private structures of runtime/threads. Only files of this module include this header. */
#ifndef MPCRT_THREADS_SCHED_INTERNAL_H
#define MPCRT_THREADS_SCHED_INTERNAL_H

#include "sched.h"
#include "stack.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#define MPCRT_CACHE_LINE 64
#define MPCRT_NPRIO (MPCRT_PRIO_MAX + 1)
#define MPCRT_MAX_HOOKS 16

typedef enum {
    ULT_FREE,    /* in a pool, not a live ULT */
    ULT_NEW,     /* created, not yet on its home VP's run queue */
    ULT_READY,   /* on a run queue */
    ULT_RUNNING, /* the current ULT of its VP */
    ULT_BLOCKED, /* suspended until mpcrt_ult_wake */
    ULT_PARKED,  /* on the VP's poll list until its predicate holds */
    ULT_EXITED,  /* function returned; the VP finishes it after switching away */
    ULT_DONE     /* finished, waiting for join */
} ult_state_t;
_Static_assert(ULT_READY == MPCRT_ULT_STATE_QUEUED, "sched.h's inline poke names ULT_READY");

struct mpcrt_ult {
    /* First: sched.h reads the slots, the home and the state through pub (mpcrt_ult_slot, mpcrt_ult_poke);
     * this module names the last two directly. */
    union {
        mpcrt_ult_public_t pub;
        struct {
            void *pub_slots_[MPCRT_ULT_NSLOTS];
            _Atomic(mpcrt_vp_t *) home;
            _Atomic int state; /* ult_state_t */
        };
    };
    void *sp; /* saved stack pointer while not running */
    mpcrt_ult_kind_t kind;
    int base_prio, cur_prio;
    int rank;
    intptr_t priv_task_delta, priv_ult_delta;

    /* Run queue links (home VP only). */
    mpcrt_ult_t *rq_prev, *rq_next;
    /* Cross-VP wake-ups: set while the ULT sits in some VP's inbox, so it is pushed at most once. */
    _Atomic int wake_pending;
    mpcrt_ult_t *inbox_next;
    /* Poll list (home VP only): doubly linked so that a poked ULT leaves it in O(1). */
    bool (*park_pred)(void *);
    void *park_arg;
    mpcrt_ult_t *poll_next, *poll_prev;
    /* Poked list (home VP only): parked and woken since the VP last looked at its pokes. */
    mpcrt_ult_t *poke_next;
    bool poked;
    /* In mpcrt_wait_until_quiet: no hook runs in this ULT's context (mpcrt_run_hooks, park hooks). */
    bool quiet;

    void *(*fn)(void *);
    void *arg;
    void *retval;
    bool detached;
    _Atomic int join_guard;
    mpcrt_waiter_t *joiner;

    mpcrt_stack_t stack; /* empty for a VP's own context */
#if defined(__SANITIZE_ADDRESS__)
    void *asan_fake_stack;
    const void *asan_stack_bottom;
    size_t asan_stack_size;
#endif
#if defined(__SANITIZE_THREAD__)
    void *tsan_fiber;
#endif
    mpcrt_ult_t *pool_next;
};
_Static_assert(offsetof(struct mpcrt_ult, pub) == 0, "mpcrt_ult_slot reads the descriptor's start");

typedef struct {
    mpcrt_ult_t *head[MPCRT_NPRIO], *tail[MPCRT_NPRIO];
    uint32_t nonempty; /* bit p set when level p has ULTs */
    size_t count;
} mpcrt_runqueue_t;

struct mpcrt_vp {
    int id;
    int core; /* index of the bound core in the topology, -1 if unbound */
    pthread_t thread;
    mpcrt_ult_t *current;
    mpcrt_ult_t *prev;  /* the context that last switched away on this VP */
    mpcrt_ult_t native; /* the VP's kernel-thread context, which runs the scheduler loop when idle */
    mpcrt_runqueue_t rq;
    mpcrt_ult_t *polls; /* parked ULTs */
    size_t npolls;
    unsigned picks_since_sweep;
    /* Parked ULTs someone woke: their predicates are checked at the next pick, alone (no sweep, no
     * progress hooks), which is what makes a wake-up between two ranks of one core cheap. */
    mpcrt_ult_t *poked;
    bool in_progress; /* progress hooks are running on this VP: do not recurse */
    unsigned spin_budget;
    mpcrt_ult_t *exited;     /* the ULT that just switched away for the last time */
    mpcrt_ult_t *local_pool; /* recycled ULTs with default-size stacks, home VP only */
    size_t local_pool_count;
    mpcrt_vp_stats_t stats;
    bool stop_requested;
    /* Entered by mpcrt_sched_init_here: an outside kernel thread (a plain program's main thread) that
     * leaves for user code between waits, so it waits by running this VP (waiter.c, wait.c). */
    bool hosted;

    /* Written by other threads: keep on its own cache line. */
    _Alignas(MPCRT_CACHE_LINE) _Atomic(mpcrt_ult_t *) inbox;
    _Atomic uint32_t wake_seq; /* futex word */
    _Atomic int sleeping;
    _Atomic int stop;
    /* 1 while the VP has nothing of its own to run: its idle loop, or a ULT spinning in wait_until with an
     * empty run queue. Written by the VP (only on change), read by others (mpcrt_sched_free_vp). Its own
     * line: a rank entering and leaving MPI_Wait flips it every call, and `sleeping`, which others read to
     * decide whether to wake the VP, then stayed in their caches. */
    _Alignas(MPCRT_CACHE_LINE) _Atomic int free;
};

/* Marks the calling VP free or busy (see mpcrt_vp_t.free). */
static inline void mpcrt_vp_set_free(mpcrt_vp_t *vp, int free)
{
    /* relaxed: a hint for other VPs' choices, never a condition anyone waits on. */
    if (atomic_load_explicit(&vp->free, memory_order_relaxed) != free)
        atomic_store_explicit(&vp->free, free, memory_order_relaxed);
}

typedef struct {
    mpcrt_progress_fn fn;
    void *arg;
} hook_t;

typedef struct {
    int nvps;
    mpcrt_vp_t *vps;
    bool passive;
    bool collab_poll; /* MPCRT_COLLAB_POLL: idle VPs run the progress hooks, waiters may park */
    _Atomic(_Atomic uint32_t *) bell, sleepers; /* mpcrt_sched_set_doorbell */
    _Atomic int doorbell_watchers; /* mpcrt_sched_await_sleepers callers: wake them when VPs fall asleep */
    unsigned spin_max;
    /* membarrier(2) private expedited is registered: the heavy side of the asymmetric Dekker between a VP
     * falling asleep and mpcrt_sched_wake_sleeping_vp (vp.c) is the VP's, and the waker needs no fence. */
    bool heavy_fence;
    /* The job's VPs on this machine outnumber its cores (mpcrun --oversubscribe with more processes than
     * cores): another process's VP may need this core, so waits give it up (sched_yield) instead of
     * pausing. */
    bool oversubscribed;
    size_t rank_stack_size, ult_stack_size;
    _Atomic int nprogress, nidle;
    hook_t progress[MPCRT_MAX_HOOKS], idle[MPCRT_MAX_HOOKS];
    _Atomic int nstart, nexit, nswitch, npark, nspin;
    mpcrt_ult_event_fn start_hooks[MPCRT_MAX_HOOKS], exit_hooks[MPCRT_MAX_HOOKS], park_hooks[MPCRT_MAX_HOOKS];
    mpcrt_ult_event_fn spin_hooks[MPCRT_MAX_HOOKS];
    mpcrt_switch_fn switch_hooks[MPCRT_MAX_HOOKS];
    pthread_t init_thread;
} mpcrt_sched_t;

extern mpcrt_sched_t mpcrt_sched;

/* inbox.c */
void mpcrt_inbox_push(mpcrt_vp_t *vp, mpcrt_ult_t *u);
mpcrt_ult_t *mpcrt_inbox_take_all(mpcrt_vp_t *vp); /* FIFO order */
void mpcrt_vp_notify(mpcrt_vp_t *vp);              /* wake the VP if it sleeps */

/* sched.c */
void mpcrt_sched_make_ready(mpcrt_vp_t *vp, mpcrt_ult_t *u); /* caller runs on vp */
void mpcrt_sched_drain_inbox(mpcrt_vp_t *vp);
bool mpcrt_sched_sweep(mpcrt_vp_t *vp);                   /* true if a parked ULT became ready */
void mpcrt_sched_park(mpcrt_vp_t *vp, mpcrt_ult_t *self); /* onto the poll list (wait.c) */
void mpcrt_sched_poke(mpcrt_vp_t *vp, mpcrt_ult_t *u);    /* u is parked on vp, the caller runs on vp */
void mpcrt_sched_unpark_self(mpcrt_vp_t *vp, mpcrt_ult_t *self); /* parked, not switched away yet */
/* Switch away from the running ULT, whose state the caller already set (READY ones are re-queued). */
void mpcrt_sched_switch_away(mpcrt_vp_t *vp);
void mpcrt_sched_after_switch(mpcrt_vp_t *vp);
/* First thing a context does when it resumes or starts: sanitizer bookkeeping, then after_switch. */
void mpcrt_sched_arrived(mpcrt_vp_t *vp, mpcrt_ult_t *self);
void mpcrt_sched_switch(mpcrt_vp_t *vp, mpcrt_ult_t *from, mpcrt_ult_t *to);

/* ult.c */
void mpcrt_ult_finish_exited(mpcrt_vp_t *vp, mpcrt_ult_t *u);

/* vp.c */
void mpcrt_vp_idle_loop(mpcrt_vp_t *vp, bool (*done)(void *), void *arg);
int mpcrt_vp_start(mpcrt_vp_t *vp);       /* on a new kernel thread */
void mpcrt_vp_enter_here(mpcrt_vp_t *vp); /* the calling kernel thread becomes the VP */
mpcrt_vp_t *mpcrt_hosted_vp_self(void);   /* the hosted VP the caller must run while it waits, or NULL */
void mpcrt_vp_stop(mpcrt_vp_t *vp);

/* wait.c */
int mpcrt_run_hooks(hook_t *hooks, _Atomic int *count);

/* futex.c */
void mpcrt_futex_wait(_Atomic uint32_t *word, uint32_t expected, long timeout_ns);
void mpcrt_futex_wake(_Atomic uint32_t *word, int count);
/* The same on a word that other processes may wait on or wake (shared memory). */
void mpcrt_futex_wait_shared(_Atomic uint32_t *word, uint32_t expected, long timeout_ns);
void mpcrt_futex_wake_shared(_Atomic uint32_t *word, int count);

static inline void mpcrt_cpu_relax(void)
{
    __builtin_ia32_pause();
}

/* One round of a wait's or an idle VP's spin: a pause, or, when the job oversubscribes the cores, the core
 * itself to whichever process can use it. Spinning there kept the process that had the work to do off
 * the core for a whole spin (tens of microseconds per wait: a barrier of 4 processes on 2 cores took
 * 111 us). */
static inline void mpcrt_spin_relax(void)
{
    if (mpcrt_sched.oversubscribed)
        sched_yield();
    else
        mpcrt_cpu_relax();
}

#include "runqueue.h"

#endif
