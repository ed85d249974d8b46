/* The OpenMP core: the internal interface between the GOMP ABI layer (gomp/), the omp_* API (api/) and the
 * implementation (core/). Teams are OMP_WORKER ULTs of runtime/threads; nothing here knows about MPI. */
#ifndef MPCRT_OMP_INTERNAL_H
#define MPCRT_OMP_INTERNAL_H

#include "../threads/log.h"
#include "../threads/sched.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Everything declared here is internal to libmpcrt: hidden, so calls bind directly (no PLT, no
 * interposition) and the names stay out of the dynamic symbol table. The ABI (GOMP_*, omp_*) is marked
 * OMP_EXPORT where it is defined and versioned by libgomp.map. */
#pragma GCC visibility push(hidden)

#define OMP_CACHE_LINE 64
#define OMP_EXPORT __attribute__((visibility("default")))
#define OMP_LIKELY(x) __builtin_expect(!!(x), 1)
#define OMP_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct omp_thread omp_thread_t;
typedef struct omp_team omp_team_t;
typedef struct omp_task omp_task_t;
typedef struct omp_taskgroup omp_taskgroup_t;
typedef struct omp_ws omp_ws_t;

/* ------------------------------------------------------------------ ICVs (OpenMP 5.1 section 2.4) */

/* Schedule kinds as the GOMP ABI encodes them (GOMP_loop_start's sched argument, omp_sched_t). */
enum {
    OMP_SCHED_RUNTIME = 0,
    OMP_SCHED_STATIC = 1,
    OMP_SCHED_DYNAMIC = 2,
    OMP_SCHED_GUIDED = 3,
    OMP_SCHED_AUTO = 4,
    OMP_SCHED_KIND_MASK = 0x7fffffff,
    OMP_SCHED_MONOTONIC = (int)0x80000000u,
};

/* proc_bind values (omp_proc_bind_t); OMP_BIND_UNSET: the list ran out, inherit. */
enum { OMP_BIND_FALSE = 0, OMP_BIND_TRUE = 1, OMP_BIND_PRIMARY = 2, OMP_BIND_CLOSE = 3, OMP_BIND_SPREAD = 4 };

/* The ICVs that belong to a data environment (a task): copied from the generating task. */
typedef struct {
    unsigned nthreads;      /* nthreads-var: team size for the next parallel region */
    unsigned thread_limit;  /* thread-limit-var */
    int run_sched;          /* run-sched-var kind (may carry OMP_SCHED_MONOTONIC) */
    long run_chunk;         /* run-sched-var chunk (0 = default) */
    int bind;               /* bind-var for the next parallel region */
    int max_active_levels;  /* max-active-levels-var */
    int default_device;     /* default-device-var */
    uintptr_t def_allocator; /* def-allocator-var */
    bool dyn;               /* dyn-var */
} omp_icv_t;

/* Global, read-only after start-up (core/env.c). */
typedef struct {
    omp_icv_t initial;            /* ICVs of an initial task */
    unsigned *nthreads_list;      /* OMP_NUM_THREADS=a,b,c: per nesting level (index 0 = initial) */
    int nthreads_list_len;
    int *bind_list;               /* OMP_PROC_BIND=a,b: per nesting level */
    int bind_list_len;
    bool cancellation;            /* cancel-var */
    int max_task_priority;        /* max-task-priority-var */
    size_t stacksize;             /* stacksize-var (bytes) for worker ULTs */
    int wait_policy;              /* -1 unset, 0 passive, 1 active */
    unsigned long spin_rounds;    /* rounds a waiting thread spins before it blocks */
    bool display_affinity;
    char affinity_format[256];
    int num_teams;                /* nteams-var (0 = default) */
    int teams_thread_limit;       /* teams-thread-limit-var */
    int display_env;              /* 0 no, 1 true, 2 verbose */
    unsigned fork_ways;           /* fan-out of the fork/wake tree */
    int supported_active_levels;
    int hosted_vp;                /* the VP a plain program's main thread hosts (-1: none) */
    /* Places: each place is a set of VP indices (core indices of this process). */
    int nplaces;
    int *place_first;             /* place p = place_vps[place_first[p] .. place_first[p+1]) */
    int *place_vps;
    const char *places_text;      /* OMP_PLACES as given, for OMP_DISPLAY_ENV */
} omp_global_t;

extern omp_global_t omp_global;

/* ------------------------------------------------------------------ tasks */

typedef enum {
    TASK_WAITING,   /* created, dependences not yet satisfied */
    TASK_QUEUED,    /* ready, in the team's queues */
    TASK_RUNNING,
    TASK_DETACHED,  /* body finished, completion event not yet fulfilled */
    TASK_COMPLETE
} omp_task_state_t;

/* Queued tasks in a member's deque, per team member, beyond which a new task runs at once in its creator
 * (task throttling, as libgomp and libomp do): the others are behind anyway, and running it costs the
 * creator no more than it would cost a helper, without the queueing and its memory. */
#define OMP_THROTTLE_PER_THREAD 64

/* Ready tasks waiting for a thread (core/taskq.c). Each team member has a deque of the tasks it created
 * (and of its children that dependences released later), in push order: the owner takes the newest, other
 * members steal the oldest, each under the deque's own lock, which in the common case only its owner
 * takes. Tasks with a priority go to one team-wide queue in priority order instead. */
typedef struct {
    _Alignas(OMP_CACHE_LINE) _Atomic int lock;
    _Atomic long count;           /* readable without the lock, for wait predicates */
    _Atomic unsigned long pushes; /* push sequence number (also bumped by the owner's priority tasks) */
    omp_task_t **ring;            /* ring[i & mask], i in [head, tail): head oldest (stolen first) */
    unsigned long mask, head, tail;
} omp_taskdeque_t;

typedef struct {
    omp_task_t *head, *tail;
    _Atomic long count; /* readable without the lock, for wait predicates */
} omp_taskq_t;

typedef struct omp_dep_table omp_dep_table_t;

/* Task reductions registered by a taskgroup, a parallel or a worksharing construct: the GOMP array
 * (gomp/README: [0] count, [1] per-thread bytes, [2] data after registration, [7+3i] variable, [8+3i]
 * offset). */
typedef struct omp_taskred {
    uintptr_t *array;
    struct omp_taskred *next; /* enclosing registration */
} omp_taskred_t;

struct omp_taskgroup {
    omp_taskgroup_t *prev;     /* enclosing taskgroup of the same task */
    _Atomic long pending;      /* tasks of the group (any depth) not yet complete; reaches 0 under the
                                * team task lock only (core/task.c) */
    _Atomic(omp_thread_t *) waiter;
    _Atomic bool cancelled;
    omp_taskred_t *reductions; /* registered by task_reduction / taskloop reduction */
    bool reduction_only;       /* a pseudo group standing for a worksharing construct's reductions */
};

/* A task's reference count and its pending children share one word, so that a child's completion is one
 * atomic operation on its parent: children in the high half, references (each child holds one) low. */
#define OMP_TASK_REF 1ull
#define OMP_TASK_CHILD ((1ull << 32) | 1ull)

struct omp_task {
    /* Written by the creator, read by the thread that runs it. Whole cache lines: the implicit tasks of a
     * team are an array, each written by its own thread. */
    _Alignas(OMP_CACHE_LINE) omp_task_t *parent;
    omp_task_t *root;           /* the implicit task whose `pending` counts it (itself if implicit) */
    omp_taskgroup_t *taskgroup; /* innermost taskgroup while it runs (starts as member_of) */
    omp_taskgroup_t *member_of; /* the taskgroup this task belongs to (counted in its pending) */
    omp_team_t *team;
    void (*fn)(void *);
    void *data;
    omp_task_t *q_next, *q_prev; /* the priority queue, under the team task lock */
    unsigned long seq;           /* push number in its deque */
    /* While it runs: its thread's deque push count when it started. Tasks pushed there since are the
     * only ones of that deque that can descend from it (core/taskq.c). */
    unsigned long mark;
    unsigned depth;              /* 0 for an implicit task */
    unsigned creator_num;        /* its parent's thread in the team: whose deque it goes to */
    _Atomic int state;
    int priority;
    bool implicit, final, undeferred, detach;
    /* An undeferred task run inline on its creator's stack (core/task.c run_inline); it moves to the heap
     * (promoted) when it creates its first child, which may outlive it. */
    bool on_stack;
    bool in_prio;               /* in the team's priority queue (else in deques[creator_num] if queued) */
    omp_task_t *promoted;
    _Atomic int votes;          /* completion needs the body's end and, for detach, the event's fulfilment */
    _Atomic bool deps_met;      /* undeferred tasks: predecessors done */
    omp_thread_t *creator;      /* undeferred tasks: the thread waiting to run it */
    /* Dependences: the table of this task's children, and this task's own edges. */
    omp_dep_table_t *deps;
    _Atomic int npredecessors;
    _Atomic int dep_lock;  /* protects successors and the complete flag below */
    bool dep_complete;
    omp_task_t **successors;
    int nsuccessors, successors_cap;
    size_t alloc_size;
    omp_icv_t icv;
    /* Written by its children's completers and by whoever drops a reference: a line of its own. */
    _Alignas(OMP_CACHE_LINE) _Atomic uint64_t cnt; /* pending children << 32 | references (see above) */
    /* Implicit tasks: the explicit tasks rooted here not yet complete (the barrier's condition). Like
     * the children count, it reaches 0 under the team task lock only (core/task.c). */
    _Atomic long pending;
    _Atomic(omp_thread_t *) waiter; /* thread waiting in taskwait for this task's children */
    /* The task's data block follows (deferred tasks). */
};

/* ------------------------------------------------------------------ worksharing */

#define OMP_WS_RING 8

/* One thread's share of a nonmonotonic dynamic loop, chunk numbers [lo, hi) packed in one word (lo in
 * the low half): the owner takes chunks from the front, a thread whose share ran out steals the back half
 * of another's, each with one CAS (core/loop.c). Lock-free, so a VP the kernel preempts holds nobody up;
 * alone on its cache line, so the owner's updates stay in its core's cache. */
typedef struct {
    _Alignas(OMP_CACHE_LINE) _Atomic uint64_t range;
} omp_ws_share_t;

/* A worksharing construct's shared state; a ring of these per team, indexed by construct sequence.
 * The first line holds the slot's state, the loop counter and everything a chunk reads: the initializer
 * claims, fills in, takes its own first chunk and publishes with one line in its cache; a thread entering
 * gets the loop and the counter with one miss, and taking a chunk moves that one line (core/loop.c). */
#define OMP_WS_CLAIMED(seq) (2 * (seq))   /* state: construct seq's initializer is filling the slot in */
#define OMP_WS_READY(seq) (2 * (seq) + 1) /* state: construct seq is published */
struct omp_ws {
    /* Ring protocol (core/work.c): OMP_WS_CLAIMED/OMP_WS_READY of the construct held (free_for, on the
     * next line, says which construct may claim the slot next). */
    _Alignas(OMP_CACHE_LINE) _Atomic long state;
    _Atomic uint64_t next; /* dynamic/guided: next unassigned iteration */
    /* Loop in iteration space: iterations 0..count-1 map to start + i * incr, in uint64_t arithmetic for
     * both long and unsigned long long loops (a long loop's bounds are converted back at the end). */
    uint8_t sched;       /* resolved kind: static, dynamic or guided */
    uint8_t next_kind;   /* how *_next takes a chunk: omp_next_kind_t */
    bool is_ull;
    bool ordered;
    bool steal;          /* nonmonotonic dynamic: per-thread shares with stealing (shares[]) */
    uint8_t nthreads_log2; /* log2(nthreads) when a power of two, else 0xff: guided divides by a shift */
    uint8_t pad_;
    unsigned nthreads;     /* the team's, when the construct started */
    uint64_t count;
    uint64_t chunk;
    uint64_t start, incr;
    /* Read by stealing loops only, written by the initializer: the next line. */
    omp_ws_share_t *shares;    /* nshares entries, kept across constructs (freed with the team) */
    unsigned nshares;
    /* The count of threads that left a nowait construct (a construct that ends with a barrier leaves
     * through the barrier instead, omp_ws_leave_barrier) and the slot's next claimant: written once a
     * construct ends. */
    _Alignas(OMP_CACHE_LINE) _Atomic unsigned left;
    _Atomic long free_for; /* construct number allowed to claim the slot (read when the slot is not ready) */
    _Alignas(OMP_CACHE_LINE) _Atomic uint64_t ordered_done; /* iterations before this have left ordered */
    /* doacross */
    unsigned ncounts;
    uint64_t *dims;             /* counts per dimension */
    _Atomic uint64_t *posted;   /* per outer iteration: 1 + flattened inner index of the last post */
    uint64_t inner_total;
    /* single copyprivate */
    _Atomic(void *) copy_data;
    /* task reductions of the construct and its team-shared memory (GOMP_loop_start's mem) */
    uintptr_t *reductions;
    void *mem;
    size_t mem_size;
    _Atomic bool cancelled;
};

/* ------------------------------------------------------------------ threads and teams */

/* The part of a thread's state that belongs to the team it currently works in; saved when the thread
 * becomes the master of a nested team and restored when that team ends. */
typedef struct {
    omp_team_t *team;
    unsigned num;
    unsigned long ws_seq;     /* worksharing constructs entered in this region */
    unsigned long single_seq; /* single constructs entered (without a work share) */
    omp_ws_t *ws;             /* current worksharing construct */
    long ws_cur;              /* its sequence number */
    uint64_t static_next;     /* static schedules: next chunk index of this thread */
    uint64_t chunk_lo, chunk_hi; /* current chunk (iteration space), for ordered */
    bool has_chunk;
    bool ran_last;            /* stealing loops: this thread ran the last chunk, so it takes no more */
    uint64_t bar_gen;         /* barriers passed in this region */
    /* Per work-share slot: 1 + the last construct there that this thread left through its closing barrier.
     * Every thread passed that barrier, so the slot is free for the construct OMP_WS_RING later without
     * anyone writing or reading free_for (core/work.c). */
    long barrier_left[OMP_WS_RING];
    int place;                /* place index (-1 none) */
    int part_first, part_len; /* place partition */
} omp_team_state_t;

struct omp_thread {
    omp_team_state_t ts;
    omp_task_t *task;         /* the task being executed */
    mpcrt_ult_t *ult;         /* NULL: a kernel thread (the process's main thread, a user pthread) */
    int vp;                   /* home VP; for a kernel thread -1, or the VP it hosts */
    bool is_worker;
    /* The VPs of the contention group's cores, [cores_first, cores_first + cores_count) modulo the VP
     * count: a rank's (its mpcrun -c) or every VP; unbound teams spread over these, workers inherit. */
    int cores_first, cores_count;
    /* Sleeping: a waiter published here is woken by omp_wake. */
    _Alignas(OMP_CACHE_LINE) _Atomic(mpcrt_waiter_t *) sleeper;
    /* Fork: the master bumps go; the worker runs a region when it changes. */
    _Alignas(OMP_CACHE_LINE) _Atomic uint64_t go;
    unsigned long go_region; /* the team's region number, written with go */
    uint64_t go_seen;
    unsigned long last_region; /* workers: the region they last worked in */
    omp_team_t *home_team;    /* workers: the team that owns them */
    /* Masters: the team last created at each nesting depth below this thread (reused). */
    omp_team_t *cached_team;
    /* Initial threads (and workers while idle): their implicit task and contention group. */
    omp_task_t initial_task;
    omp_team_t *initial_team; /* the team of one that an initial thread belongs to */
    _Atomic int *cg_busy;     /* threads busy in the contention group (thread_limit-var) */
    int team_num, num_teams;  /* teams construct on the host */
    uintptr_t *next_par_reductions; /* GOMP_parallel_reductions: handed to the next fork */
    bool in_target;
    int compat_id;            /* owner id in OMP_1.0 nested locks (api/lock_compat.c), 0 until needed */
    omp_thread_t *registry_prev, *registry_next; /* initial threads: the process's list */
    /* Task-free list (recycled explicit task blocks of the default size). */
    omp_task_t *free_tasks, *free_tail;
    int nfree_tasks;
    unsigned steal_from;      /* the member whose deque this thread tries first when it steals */
    /* Stealing back-off (core/taskq.c): the last stolen batch, and no stealing before steal_ok_at. */
    uint64_t batch_t0, steal_ok_at;
    unsigned batch_n, batch_left;
    /* Counted at every fork and join of the group: on a line of its own, away from the fields above
     * that the workers read at each region start. */
    _Alignas(OMP_CACHE_LINE) _Atomic int cg_own;
};

struct omp_team {
    unsigned nthreads;
    unsigned capacity;
    unsigned level, active_level;
    omp_team_t *parent_team;   /* the encountering thread's team, NULL for an initial thread's team */
    unsigned parent_num;       /* the encountering thread's number in parent_team */
    omp_team_state_t saved;    /* the master's state before it entered this team */
    omp_thread_t *master;
    omp_thread_t **threads;    /* [0] = master of the current region, [i > 0] = workers owned by the team */
    omp_thread_t *worker_states; /* capacity entries; [0] unused */
    mpcrt_ult_t **worker_ults;
    int *worker_vp;            /* VP each worker ULT lives on (-1: not started) */
    /* Not on the task lock's line, which the fork writes (region): workers read these when it starts. */
    omp_task_t *implicit;      /* capacity implicit tasks */
    omp_taskdeque_t *deques;   /* capacity deques, one per member */
    omp_team_t *next_cached;   /* the master's list of reusable teams */
    omp_thread_t *owner;       /* the thread whose cache holds this team */
    omp_task_t *saved_task;    /* the encountering task */
    void (*fn)(void *);
    void *data;
    omp_icv_t child_icv;       /* ICVs of the implicit tasks */
    intptr_t priv_delta;       /* the encountering ULT's task-level privatization delta */
    int priv_key_base;         /* worker i's privatized copy: mpcrt_priv_thread_delta key base + i - 1 */
    bool initial;              /* an initial thread's team of one: never forks */
    _Atomic bool shutdown;
    /* Barrier (core/barrier.c): cumulative arrivals and released generation. */
    /* One line, as the last arrival's read-modify-write then takes it, and its release finds it there:
     * with the two on separate lines, each barrier moved both between the cores. */
    _Alignas(OMP_CACHE_LINE) _Atomic uint64_t bar_arrived;
    _Atomic uint64_t bar_gen;
    /* single (core/work.c): singles end with a barrier, so the CAS that decides a single and the arrival
     * after it take the same line, once. */
    _Atomic unsigned long single_count;
    _Alignas(OMP_CACHE_LINE) _Atomic unsigned join_arrived;
    bool in_use;               /* here, not above: it changes at every fork and join */
    _Atomic int nsleeping;
    _Atomic bool cancelled;    /* the parallel region was cancelled */
    /* Worksharing */
    omp_ws_t ws_ring[OMP_WS_RING];
    /* Tasks (core/task.c, core/taskq.c). The lock guards the priority queue and the zero crossings of
     * the task counters (core/task.c); each member's ready tasks are in its deque. */
    _Alignas(OMP_CACHE_LINE) _Atomic int task_lock;
    _Atomic unsigned long region; /* forks so far; a worker helps with tasks of its own region only */
    omp_taskq_t prio;             /* ready tasks with a priority */
    _Atomic bool tasks_seen;   /* a task was created in this region: the join syncs with completers */
    /* Task blocks that members with a full free list gave back, for members whose list ran out (a
     * producer's blocks end up with the threads that ran its tasks): batches of FREE_LIST_MAX, pushed
     * with a CAS and taken all at once with an exchange (core/task.c). */
    _Alignas(OMP_CACHE_LINE) _Atomic(omp_task_t *) free_batches;
    /* task reductions of the parallel construct (GOMP_parallel_reductions) */
    _Alignas(OMP_CACHE_LINE) omp_taskred_t par_reductions;
    /* places of the team's threads */
    int *thread_place;
};

/* ------------------------------------------------------------------ core/init.c, core/thread.c */

void omp_runtime_init(void); /* idempotent: environment, scheduler, hooks */
omp_thread_t *omp_self_slow(void);
extern __thread omp_thread_t *omp_kthread_self __attribute__((tls_model("initial-exec")));

static inline omp_thread_t *omp_self(void)
{
    mpcrt_ult_t *u = mpcrt_ult_self();
    omp_thread_t *thr = u ? (omp_thread_t *)mpcrt_ult_slot(u, MPCRT_ULT_SLOT_OMP) : omp_kthread_self;
    return OMP_LIKELY(thr != NULL) ? thr : omp_self_slow();
}

static inline omp_icv_t *omp_icv(omp_thread_t *thr)
{
    return &thr->task->icv;
}

/* ------------------------------------------------------------------ core/env.c */

void omp_env_init(void);
void omp_display_env_print(bool verbose);
int omp_parse_schedule(const char *text, int *kind, long *chunk);

/* ------------------------------------------------------------------ core/wait.c */

/* Spin-then-block waiting (BOLT's lesson): spin while the VP has nothing else to run (yielding to ULTs
 * that have), running the scheduler's progress hooks, then publish a waiter and sleep until omp_wake. */
typedef struct {
    unsigned long rounds;
} omp_spin_t;
void omp_spin_init(omp_spin_t *s);
/* One spin round; returns false once the spin budget is spent (the caller should block). */
bool omp_spin(omp_thread_t *thr, omp_spin_t *s);
/* Spin rounds until pred(arg) or the budget is spent; false once spent (the caller should block). The
 * thread that hosts a VP spins in that VP's loop instead (see wait.c). */
bool omp_spin_until(omp_thread_t *thr, omp_spin_t *s, bool (*pred)(void *), void *arg);
/* Sleep until pred(arg) or a wake-up (spurious ones possible: callers loop). */
void omp_block(omp_thread_t *thr, bool (*pred)(void *), void *arg);
void omp_wake(omp_thread_t *thr);
/* Spin then block until pred(arg); wakers call omp_wake on the waiting thread. */
void omp_wait(omp_thread_t *thr, bool (*pred)(void *), void *arg);

/* Address-keyed sleeping for words that cannot hold a waiter (4-byte omp_lock_t, critical names). */
void omp_park(void *addr, bool (*still_blocked)(void *addr, void *arg), void *arg);
void omp_unpark_one(void *addr);
void omp_unpark_all(void *addr);

/* ------------------------------------------------------------------ core/team.c */

unsigned omp_resolve_nthreads(omp_thread_t *thr, unsigned requested, bool if_clause);
/* Create (or reuse) a team of nthreads and start its workers on fn(data); the caller becomes thread 0
 * and runs fn(data) itself, then calls omp_team_join. ws_init (may be NULL) prepares the first
 * worksharing construct before any worker starts. */
typedef void (*omp_ws_init_fn)(omp_ws_t *ws, void *arg);
void omp_team_fork(omp_thread_t *thr, void (*fn)(void *), void *data, unsigned nthreads, unsigned flags,
                   omp_ws_init_fn ws_init, void *ws_arg);
void omp_team_join(omp_thread_t *thr);
void omp_parallel(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags, omp_ws_init_fn ws_init,
                  void *ws_arg);
void omp_thread_release(omp_thread_t *thr); /* an initial thread goes away */
void omp_registry_remove(omp_thread_t *thr);
int omp_pause(omp_thread_t *thr); /* omp_pause_resource: shut down the caller's idle workers */
typedef struct omp_loop_desc omp_loop_desc_t;
void omp_parallel_loop(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags,
                       const omp_loop_desc_t *desc, bool fork_only);
void omp_parallel_sections(void (*fn)(void *), void *data, unsigned nthreads, unsigned count, unsigned flags,
                           bool fork_only);
void omp_parallel_start(void (*fn)(void *), void *data, unsigned nthreads);
void omp_parallel_end(void);
void omp_team_init_initial(omp_thread_t *thr);
omp_team_t *omp_team_new_initial(omp_thread_t *thr); /* a team of one for a new contention group */
void omp_team_free(omp_team_t *team);

/* ------------------------------------------------------------------ core/barrier.c */

void omp_barrier(omp_thread_t *thr);
/* Wait inside a team: spin, then block counted in team->nsleeping so that omp_team_notify finds it. */
void omp_team_wait(omp_thread_t *thr, omp_team_t *team, bool (*pred)(void *), void *arg);
void omp_team_notify(omp_team_t *team);     /* wake every sleeping member */
void omp_team_notify_after_rmw(omp_team_t *team); /* the update was a seq_cst RMW the predicate reads seq_cst */
void omp_team_notify_one(omp_team_t *team); /* wake one sleeping member (new task) */
bool omp_barrier_cancel(omp_thread_t *thr); /* true if the parallel region was cancelled */
/* Called when the team's pending task count or arrivals may have completed a barrier or join. */
void omp_barrier_check(omp_team_t *team);

/* ------------------------------------------------------------------ core/work.c, core/loop.c */

/* Enter the next worksharing construct; returns true if the caller must initialize it (then it calls
 * omp_ws_publish). */
bool omp_ws_enter(omp_thread_t *thr);
void omp_ws_publish(omp_thread_t *thr);
void omp_ws_leave(omp_thread_t *thr);
void omp_ws_leave_barrier(omp_thread_t *thr); /* leave, then the team barrier */
bool omp_single_start(omp_thread_t *thr);
void *omp_single_copy_start(omp_thread_t *thr);
void omp_single_copy_end(omp_thread_t *thr, void *data);

struct omp_loop_desc {
    bool is_ull, up;
    long start, end, incr;
    unsigned long long ustart, uend, uincr;
    int sched; /* may be OMP_SCHED_RUNTIME/AUTO: resolved here */
    long chunk;
    bool ordered;
};

void omp_loop_init_ws(omp_ws_t *ws, const omp_loop_desc_t *desc, unsigned nthreads, const omp_icv_t *icv);
typedef struct {
    omp_loop_desc_t desc;
    const omp_icv_t *icv;
    unsigned nthreads;
} omp_loop_init_arg_t;
void omp_loop_init_ws_cb(omp_ws_t *ws, void *arg); /* omp_ws_init_fn adaptor, arg: omp_loop_init_arg_t */
void omp_sections_init_ws(omp_ws_t *ws, void *count);
/* Start a loop construct; returns whether the caller got a first chunk. */
bool omp_loop_start(omp_thread_t *thr, const omp_loop_desc_t *desc, long *istart, long *iend,
                    unsigned long long *ustart, unsigned long long *uend);
bool omp_loop_next(omp_thread_t *thr, long *istart, long *iend, unsigned long long *ustart,
                   unsigned long long *uend);
/* How a loop's next chunk is taken: by omp_loop_next (static, ordered, stealing), or from the shared counter
 * by omp_loop_counter_next, inline in the GOMP *_next entry points (no chunk is recorded: only ordered
 * loops need it). */
typedef enum { OMP_NEXT_GENERAL, OMP_NEXT_DYNAMIC, OMP_NEXT_GUIDED, OMP_NEXT_STEAL } omp_next_kind_t;

/* Stealing loops (core/loop.c): the owner takes a quarter of what its share [lo, hi) (packed lo | hi << 32)
 * still holds at once, at least one chunk, as guided self-scheduling does over a whole loop: running
 * several consecutive chunks without asking in between is one of the schedules nonmonotonic allows, it
 * cuts the calls of dynamic,1 from 128 per thread to about 20, and the share's last chunks still go one by
 * one, so thieves balance the end. Chunks [*first, *first + *taken). */
#define OMP_OWN_BATCH_DIV 4
static inline bool omp_share_take_own(_Atomic uint64_t *own, uint64_t *first, uint64_t *taken)
{
    uint64_t w = atomic_load_explicit(own, memory_order_relaxed);
    while ((uint32_t)w < (w >> 32)) {
        uint64_t k = ((w >> 32) - (uint32_t)w) / OMP_OWN_BATCH_DIV;
        if (k == 0)
            k = 1;
        if (atomic_compare_exchange_weak_explicit(own, &w, w + k, memory_order_relaxed, memory_order_relaxed)) {
            *first = (uint32_t)w;
            *taken = k;
            return true;
        }
    }
    return false;
}

/* Chunk [*first, *last) of a loop of kind OMP_NEXT_DYNAMIC or OMP_NEXT_GUIDED, in the loop's own values
 * (uint64_t arithmetic for long and unsigned long long loops); false when the loop is done. Reads the
 * slot's first line (written before the construct was published) and the counter, nothing else. */
static inline bool omp_loop_counter_next(omp_ws_t *ws, uint64_t *first, uint64_t *last)
{
    /* The counter shares its line with what is read here: fetch it for writing at once, or the reads
     * below would bring it shared and the update would need a second transfer. */
    mpcrt_prefetch_write(&ws->next);
    uint64_t count = ws->count, chunk = ws->chunk, lo, hi;
    uint64_t cur = atomic_load_explicit(&ws->next, memory_order_relaxed);
    if (ws->next_kind == OMP_NEXT_DYNAMIC) {
        /* A thread that saw the end does not write the line again (the others may still take chunks). */
        if (cur >= count || (lo = atomic_fetch_add_explicit(&ws->next, chunk, memory_order_relaxed)) >= count)
            return false;
        hi = count - lo > chunk ? lo + chunk : count;
    } else {
        /* guided: a CAS, as the size depends on what remains */
        unsigned n = ws->nthreads;
        for (;;) {
            if (cur >= count)
                return false;
            uint64_t remaining = count - cur, size;
            if (ws->nthreads_log2 != 0xff) /* a 64-bit division costs 20-40 cycles, on every chunk */
                size = (remaining >> ws->nthreads_log2) + ((remaining & (n - 1)) != 0);
            else
                size = remaining / n + (remaining % n != 0);
            size = size < chunk ? chunk : size;
            size = size > remaining ? remaining : size;
            if (atomic_compare_exchange_weak_explicit(&ws->next, &cur, cur + size, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                lo = cur, hi = cur + size;
                break;
            }
        }
    }
    *first = ws->start + lo * ws->incr;
    *last = ws->start + hi * ws->incr;
    return true;
}

/* A stealing loop's next chunks from the thread's own share, in the loop's values: 1 taken, 0 the loop is
 * over for this thread, -1 its share is empty (omp_loop_next steals). */
static inline int omp_loop_own_next(omp_thread_t *thr, omp_ws_t *ws, uint64_t *first, uint64_t *last)
{
    /* GCC's lastprivate (and linear) copy-out is done by the thread whose last chunk ends the loop: that
     * thread takes no chunk after it (stealing could hand it a lower one still in another's share). */
    uint64_t c, k;
    if (thr->ts.ran_last)
        return 0;
    if (!omp_share_take_own(&ws->shares[thr->ts.num].range, &c, &k))
        return -1;
    /* k > 1 only from a share of 8 or more chunks, so k * chunk stays below count: no overflow. */
    uint64_t count = ws->count, lo = c * ws->chunk;
    uint64_t hi = count - lo > k * ws->chunk ? lo + k * ws->chunk : count;
    thr->ts.ran_last = hi == count;
    *first = ws->start + lo * ws->incr;
    *last = ws->start + hi * ws->incr;
    return 1;
}
void omp_loop_end(omp_thread_t *thr, bool nowait);
bool omp_loop_end_cancel(omp_thread_t *thr);
/* GOMP_loop_start and friends: the loop plus optional task reductions and team-shared memory. */
bool omp_loop_start_full(omp_thread_t *thr, const omp_loop_desc_t *desc, long *istart, long *iend,
                         unsigned long long *ustart, unsigned long long *uend, uintptr_t *reductions, void **mem);
unsigned omp_sections_start_full(omp_thread_t *thr, unsigned count, uintptr_t *reductions, void **mem);
void omp_scope_start(omp_thread_t *thr, uintptr_t *reductions);
/* A worksharing loop carrying task reductions and/or team-shared memory (GOMP_loop_start). */
void omp_ws_attach_extras(omp_thread_t *thr, bool initializer, uintptr_t *reductions, void **mem);

unsigned omp_sections_start(omp_thread_t *thr, unsigned count);
unsigned omp_sections_next(omp_thread_t *thr);

/* ------------------------------------------------------------------ core/ordered.c */

void omp_ordered_start(omp_thread_t *thr);
void omp_ordered_end(omp_thread_t *thr);
void omp_ordered_chunk_done(omp_thread_t *thr); /* the thread is done with its current chunk */
bool omp_doacross_start(omp_thread_t *thr, unsigned ncounts, const uint64_t *counts, int sched, long chunk,
                        long *istart, long *iend, unsigned long long *ustart, unsigned long long *uend,
                        bool is_ull);
void omp_doacross_post(omp_thread_t *thr, const uint64_t *iters);
void omp_doacross_wait(omp_thread_t *thr, const uint64_t *iters);
void omp_doacross_wait_va(omp_thread_t *thr, uint64_t first, va_list ap); /* the rest of the sink vector */
bool omp_doacross_start_full(omp_thread_t *thr, unsigned ncounts, const uint64_t *counts, int sched, long chunk,
                             long *istart, long *iend, unsigned long long *ustart, unsigned long long *uend,
                             bool is_ull, uintptr_t *reductions, void **mem);

/* ------------------------------------------------------------------ core/lock.c */

void omp_lock_acquire(_Atomic int *word);
bool omp_lock_try(_Atomic int *word);
void omp_lock_release(_Atomic int *word);
void omp_critical_start(void);
void omp_critical_end(void);
void omp_critical_name_start(void **name);
void omp_critical_name_end(void **name);
void omp_atomic_start(void);
void omp_atomic_end(void);

/* ------------------------------------------------------------------ core/task.c, core/depend.c */

void omp_task_create(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                     long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                     int priority, void *detach);
/* Same, with adjust(copy, arg) applied to the task's copy of data before it is queued (taskloop bounds). */
void omp_task_create_ex(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                        long arg_size, long arg_align, bool if_clause, unsigned flags, void **depend,
                        int priority, void *detach, void (*adjust)(void *task_data, void *arg),
                        void *adjust_arg);
void omp_taskwait(omp_thread_t *thr);
void omp_taskwait_depend(omp_thread_t *thr, void **depend);
void omp_taskyield(omp_thread_t *thr);
void omp_taskgroup_start(omp_thread_t *thr);
void omp_taskgroup_end(omp_thread_t *thr);
/* Run one ready task of the team if there is one; returns whether it ran one. within: only a descendant of
 * that task (the tied-task scheduling constraint of a task waiting in taskwait/taskgroup), NULL: any;
 * region (nonzero): only while the team is still in that region (an idle worker). */
bool omp_task_run_one(omp_thread_t *thr, omp_task_t *within, unsigned long region);
/* Some member's deque or the priority queue holds a task (a wait predicate's "work to do"). */
bool omp_team_has_tasks(omp_team_t *team);
/* Explicit tasks of the team not yet complete (seq_cst loads: the barrier's Dekker pairs). */
bool omp_team_tasks_pending(omp_team_t *team);
void omp_task_ref(omp_task_t *task);
void omp_task_fulfill(void *event);
void omp_task_init_implicit(omp_task_t *task, omp_team_t *team, const omp_icv_t *icv);
void omp_task_end_implicit(omp_task_t *task);
bool omp_task_in_final(omp_thread_t *thr);
/* Internal: allocate/queue/complete. */
void omp_task_free(omp_task_t *task);
void omp_task_free_batches(omp_team_t *team); /* the team goes away: free the blocks given back */
void omp_task_unref(omp_task_t *task);
void omp_task_make_ready(omp_task_t *task);
/* core/taskq.c: queue a ready task (deque of its creator, or the priority queue); take one. */
void omp_taskq_push(omp_task_t *task);
omp_task_t *omp_taskq_take(omp_thread_t *thr, omp_task_t *within, unsigned long region);
void omp_taskq_free(omp_taskdeque_t *deque); /* its ring (the team goes away) */
void omp_taskq_ran(omp_thread_t *thr);       /* a task taken by omp_taskq_take has run */

int omp_deps_register(omp_task_t *parent, omp_task_t *task, void **depend);
void omp_deps_release(omp_task_t *task); /* task completed: wake its successors */
void omp_deps_clear(omp_task_t *parent);  /* every child is complete: drop the table */

/* core/taskloop.c */
void omp_taskloop(omp_thread_t *thr, void (*fn)(void *), void *data, void (*cpyfn)(void *, void *),
                  long arg_size, long arg_align, unsigned flags, unsigned long num_tasks, int priority,
                  bool is_ull, long start, long end, long step, unsigned long long ustart,
                  unsigned long long uend, unsigned long long ustep);

/* core/taskred.c */
void omp_taskred_register(omp_thread_t *thr, uintptr_t *array, unsigned nthreads);
void omp_taskred_unregister(uintptr_t *array);
void omp_taskred_remap(omp_thread_t *thr, size_t cnt, size_t cntorig, void **ptrs);
void omp_taskgroup_reduction_register(omp_thread_t *thr, uintptr_t *array);
void omp_taskgroup_reduction_unregister(uintptr_t *array);
void omp_ws_reduction_unregister(omp_thread_t *thr, bool cancelled);
unsigned omp_parallel_reductions(void (*fn)(void *), void *data, unsigned nthreads, unsigned flags);

/* ------------------------------------------------------------------ core/cancel.c */

enum { OMP_CANCEL_PARALLEL = 1, OMP_CANCEL_LOOP = 2, OMP_CANCEL_SECTIONS = 4, OMP_CANCEL_TASKGROUP = 8 };
bool omp_cancel(omp_thread_t *thr, int which, bool do_cancel);
bool omp_cancellation_point(omp_thread_t *thr, int which);
bool omp_task_cancelled(omp_task_t *task);

/* ------------------------------------------------------------------ core/target.c */

void omp_target_run(omp_thread_t *thr, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                    unsigned short *kinds, unsigned flags, void **depend, void **args);
bool omp_teams4(omp_thread_t *thr, unsigned lower, unsigned upper, unsigned thread_limit, bool first);
void omp_teams_reg(omp_thread_t *thr, void (*fn)(void *), void *data, unsigned num_teams,
                   unsigned thread_limit, unsigned flags);

/* ------------------------------------------------------------------ core/affinity.c */

int omp_place_of_vp(int vp);
/* The place partition of a rank's cores (VPs [first_vp, first_vp + count) modulo the VP count). */
void omp_places_of_cores(int first_vp, int count, int *part_first, int *part_len);
void omp_assign_places(omp_thread_t *master, omp_team_t *team, int bind);
int omp_thread_vp_for(omp_team_t *team, unsigned i, int master_vp);
int omp_thread_part_first(omp_team_t *team, unsigned i);
int omp_thread_part_len(omp_team_t *team, unsigned i);
size_t omp_format_affinity(char *buf, size_t size, const char *format, omp_thread_t *thr);

/* ------------------------------------------------------------------ helpers */

void *omp_malloc_aligned(size_t align, size_t size);
_Noreturn void omp_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void omp_cpu_relax(void)
{
    __builtin_ia32_pause();
}

static inline void omp_spin_lock(_Atomic int *lock)
{
    for (;;) {
        /* acquire: the critical section sees the previous holder's writes. */
        if (!atomic_exchange_explicit(lock, 1, memory_order_acquire))
            return;
        while (atomic_load_explicit(lock, memory_order_relaxed))
            omp_cpu_relax();
    }
}

static inline void omp_spin_unlock(_Atomic int *lock)
{
    atomic_store_explicit(lock, 0, memory_order_release); /* publishes the critical section */
}

#pragma GCC visibility pop

#endif
