/* The schedule engine: runs rounds as stackless work items. A schedule is advanced by whoever passes over
 * its queue: any ULT in wait_until and any idle VP (the progress hook), and the progress ULTs, which sleep
 * while nothing is ready and are woken by the completion of a schedule's messages (they own those
 * requests); a schedule built in its call (all but deferred starts, defer.c) also starts its first round
 * there when no other core is free. Progress ULTs follow Taboada's rules (research/seed003 §6.4): a base
 * priority above the ranks', boosted to the maximum while a pass found work, back to the base and suspended
 * when none.
 *
 * Locks: one per queue (a queue per VP that starts schedules), a try-lock: a pass that finds it taken goes
 * on with its other work, so a waiting rank never spins on a lock the free core holds. The holder advances
 * the queue's schedules and takes the point-to-point receivers' locks under it (lock order: queue, then
 * receivers). A start never waits for a pass and runs no locked instruction: its VP is the only writer of
 * its queue's ring, which the next pass drains (queue_t); a schedule not yet published belongs to the rank
 * starting it. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"
#include "../../threads/config.h"
#include "../../threads/lifo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The schedules started and not finished, one queue per VP that started them (the last one for threads that
 * are no VP's): a pass takes its own VP's queue, and another VP's only while that VP is busy (its rank
 * computes), since a free VP runs its own. When every rank waits, each core then advances its own schedules
 * without touching the others' lines; one list for all made two waiting ranks bounce its lock and either
 * run both schedules on one core or spin on the other's claim (2-rank 8 KiB MPI_Iallreduce + MPI_Wait 20 %
 * slower).
 *
 * A start publishes its schedule in its VP's ring with one store: the slot is the publication (the entry's
 * lap parity in bit 0 tells a fresh entry from the one a lap before), and the producer's count lives on a
 * line nobody else reads. A computing rank whose call pushed onto a shared stack and bumped shared
 * counters (three locked instructions on lines the free core had just written, each waiting for the line
 * and for the call's earlier stores) lost about 0.1 us of an 8 KiB MPI_Ialltoall that way, against 1.6 us
 * for the whole collective; a separate published count was one more line the free core polls, so one more
 * upgrade per call. Threads that are no VP's, and a VP whose ring is full, push onto `incoming` (lock-free
 * stack). */
enum { RING = 64 }; /* a power of two */

/* A ring entry: `tag` is the publication, (address of a schedule object, or 2 for the record) | (the
 * entry's lap parity, i / RING & 1); 0 before the first lap. Two lines: the producer prefetches the second
 * one call ahead (the passes poll only the first). */
enum { ENTRY_RECORD = 2 };
typedef struct {
    _Alignas(64) _Atomic uintptr_t tag;
    _Alignas(64) nbc_record_t rec;
} entry_t;

typedef struct {
    /* The producer's line: read and written by the queue's VP only. */
    _Alignas(64) unsigned head; /* entries published so far */
    unsigned taken_seen;        /* the producer's last look at `taken` */
    entry_t ring[RING];         /* entry i in ring[i % RING] */
    /* The lock holder's line. */
    _Alignas(64) _Atomic int lock; /* try-lock: a pass that finds it taken goes back to its own work */
    _Atomic unsigned taken;        /* ring entries moved to `active` (written under the lock) */
    _Atomic unsigned live;         /* schedules in `active` (written under the lock) */
    mpcrt_nbc_t *active;           /* lock */
    /* Other producers' (rare): schedules started since the last pass by threads that are no VP's or past a
     * full ring, pushed without the lock: a starting rank that spun on the lock while a pass walked a long
     * list (or while the passing thread's kernel thread was preempted) spent a quarter of MPICH's
     * coll/nonblocking3 there. */
    _Alignas(64) mpcrt_nbc_t *_Atomic incoming;
} queue_t;

static queue_t *queues;
static int nqueues;
static queue_t lone_queue; /* when the table could not be made: one queue for all */

/* Entry i of q's ring if it is published (acquire: what it holds is visible), else NULL. */
static entry_t *ring_entry(queue_t *q, unsigned i, memory_order order)
{
    entry_t *e = &q->ring[i % RING];
    uintptr_t v = atomic_load_explicit(&e->tag, order);
    return v && (v & 1) == (i / RING & 1) ? e : NULL;
}

/* Started and not retired: a pass skips an empty queue without taking its lock. A hint (relaxed): a stale
 * `taken` shows an entry already taken (a pass that finds nothing), and a start that the hint missed wakes
 * someone after it published. */
static bool queue_busy(queue_t *q)
{
    return atomic_load_explicit(&q->live, memory_order_relaxed) ||
           ring_entry(q, atomic_load_explicit(&q->taken, memory_order_relaxed), memory_order_relaxed) ||
           atomic_load_explicit(&q->incoming, memory_order_relaxed);
}

/* Whether any schedule is started and not finished: a progress ULT keeps running while there are some. */
static bool any_active(void)
{
    for (int k = 0; k < nqueues; k++)
        if (queue_busy(&queues[k]))
            return true;
    return false;
}

/* ------------------------------------------------------------------ progress ULTs */

enum { PLACE_FREE, PLACE_SAME, PLACE_DEDICATED, PLACE_NONE };

typedef struct {
    _Atomic int alive; /* made once, then parked when idle (progress_main) */
    mpcrt_ult_t *_Atomic ult;
} progress_ult_t;

static progress_ult_t *progress_ults; /* one slot per VP */
static int nvps, placement, base_priority;
static mpcrt_once_t setup_once = MPCRT_ONCE_INITIALIZER;

static int hook(void *arg)
{
    (void)arg;
    return mpcrt_nbc_progress();
}

static void setup(void)
{
    mpcrt_config_load();
    const char *place = mpcrt_config_str(MPCRT_CFG_NBC_PROGRESS);
    placement = !strcmp(place, "same")        ? PLACE_SAME
                : !strcmp(place, "dedicated") ? PLACE_DEDICATED
                : !strcmp(place, "none")      ? PLACE_NONE
                                              : PLACE_FREE;
    base_priority = (int)mpcrt_config_int(MPCRT_CFG_NBC_PRIORITY);
    nvps = mpcrt_sched_num_vps();
    progress_ults = calloc((size_t)(nvps > 0 ? nvps : 1), sizeof *progress_ults);
    if (!progress_ults)
        placement = PLACE_NONE;
    size_t n = (size_t)(nvps > 0 ? nvps : 0) + 1;
    queues = aligned_alloc(64, n * sizeof *queues);
    if (queues) {
        memset(queues, 0, n * sizeof *queues);
        nqueues = (int)n;
    } else {
        queues = &lone_queue;
        nqueues = 1;
    }
    mpcrt_sched_add_progress_hook(hook, NULL);
}

static int target_vp(const mpcrt_nbc_t *s)
{
    if (placement == PLACE_NONE || nvps <= 0)
        return -1;
    int home = s->owner_vp >= 0 ? s->owner_vp : 0;
    switch (placement) {
    case PLACE_SAME:
        return home;
    case PLACE_DEDICATED:
        return nvps - 1;
    default: /* free: another core than the rank's, which may be computing */
        return (home + 1) % nvps;
    }
}

static int pass(bool *contended);

/* Where the completions of messages started by a pass wake a progress ULT. With the `free` placement, the
 * VP running the pass: it waits, idles or is a progress ULT, so it has time, where the VP after the
 * owner's may be computing (the free core of Taboada's setting, which progresses every rank's schedule,
 * woke the computing rank's core for the free rank's schedules, and that rank then switched to a progress
 * ULT in its next MPI_Wait). */
static int pass_wake_vp(const mpcrt_nbc_t *s)
{
    int here = placement == PLACE_FREE ? mpcrt_self_vp() : -1;
    return here >= 0 ? here : target_vp(s);
}

static void *progress_main(void *arg)
{
    (void)arg;
    mpcrt_ult_t *self = mpcrt_ult_self();
    for (;;) {
        bool contended;
        int events = pass(&contended);
        if ((events > 0 || contended) && any_active()) {
            mpcrt_ult_set_priority(self, base_priority, MPCRT_PRIO_MAX); /* boosted while work is ready */
            mpcrt_yield();
        } else {
            /* Parked, not gone, when nothing is active: making a new ULT at the next start cost its caller
             * a stack and a context. Woken by the completion of a message of an active schedule, or by a
             * start that pokes it (after publishing its schedule; a wake that comes before the suspension
             * is kept, threads/sched.c). */
            mpcrt_ult_set_priority(self, base_priority, base_priority);
            mpcrt_ult_suspend();
        }
    }
    return NULL;
}

/* Makes sure a progress ULT runs on vp and pokes it; returns it (NULL if none). */
static mpcrt_ult_t *progress_ult(int vp, bool poke)
{
    if (vp < 0)
        return NULL;
    progress_ult_t *slot = &progress_ults[vp];
    int expected = 0;
    if (atomic_compare_exchange_strong(&slot->alive, &expected, 1)) {
        mpcrt_ult_attr_t attr;
        mpcrt_ult_attr_init(&attr);
        attr.kind = MPCRT_ULT_PROGRESS;
        attr.base_priority = base_priority;
        attr.vp = vp;
        attr.detached = true;
        mpcrt_ult_t *u;
        if (mpcrt_ult_create(&u, progress_main, NULL, &attr) != 0) {
            atomic_store(&slot->alive, 0);
            return NULL;
        }
        atomic_store_explicit(&slot->ult, u, memory_order_release);
        return u;
    }
    mpcrt_ult_t *u = atomic_load_explicit(&slot->ult, memory_order_acquire);
    if (u && poke)
        mpcrt_ult_wake(u); /* a late wake of a finished ULT is harmless (threads/ult.c) */
    return u;
}

/* ------------------------------------------------------------------ steps */

static void fail(mpcrt_nbc_t *s, int rc)
{
    if (rc != MPI_SUCCESS && s->error == MPI_SUCCESS)
        s->error = rc;
}

static int push_pending(mpcrt_nbc_t *s, mpcrt_request_t *r)
{
    if (s->npending == s->pending_cap) {
        int cap = s->pending_cap ? 2 * s->pending_cap : 8;
        mpcrt_request_t **list = realloc(s->pending, sizeof *list * (size_t)cap);
        if (!list)
            return MPI_ERR_NO_MEM;
        s->pending = list;
        s->pending_cap = cap;
    }
    s->pending[s->npending++] = r;
    return MPI_SUCCESS;
}

static void start_message(mpcrt_nbc_t *s, const step_t *st, int wake_vp)
{
    bool sending = st->kind == STEP_SEND;
    mpcrt_request_t *r = mpcrt_request_new(sending ? MPCRT_REQ_SEND : MPCRT_REQ_RECV);
    if (!r || push_pending(s, r) != MPI_SUCCESS) {
        if (r)
            mpcrt_object_release(&r->obj); /* a vpcache block: not free()'s */
        fail(s, MPI_ERR_NO_MEM);
        return;
    }
    /* Completion wakes the progress ULT that will start the next round (not the rank, which may be busy). */
    r->owner = progress_ult(wake_vp, false);
    /* The collectives' context (context + 1): never matches user messages. */
    mpcrt_request_describe(r, sending ? st->src : st->dst, sending ? st->scount : st->dcount,
                           sending ? st->sdt : st->ddt, s->net, s->net->context + 1, st->peer, st->tag,
                           MPCRT_SEND_STANDARD);
    mpcrt_datatype_retain(r->datatype);
    mpcrt_object_retain(&s->net->obj);
    r->on_behalf = true;
    r->as_rank = s->as_rank;
    r->as_match = s->as_match;
    r->active = true;
    int rc = sending ? mpcrt_pt2pt_start_send(r) : mpcrt_pt2pt_start_recv(r);
    if (rc != MPI_SUCCESS) {
        fail(s, rc);
        mpcrt_request_complete(r);
    }
}

static void run_local(mpcrt_nbc_t *s, const step_t *st)
{
    if (st->kind == STEP_COPY) {
        coll_view_t src = {(void *)st->src, st->sdt, st->scount}, dst = {st->dst, st->ddt, st->dcount};
        fail(s, coll_copy(&src, &dst));
        return;
    }
    /* A user operation runs in the owner's view of its privatized globals, whoever runs the step: the view
     * the owner had when it called, not its ULT's current one, which is another rank's while the owner runs
     * that rank's step on another core. */
    mpcrt_priv_view_t saved;
    mpcrt_priv_enter_view(&s->view, &saved);
    fail(s, mpcrt_op_reduce_local(s->red.op, st->src, st->dst, st->scount, s->red.type, s->red.dt));
    mpcrt_priv_leave(&saved);
}

/* Advances s as far as it goes; returns the rounds started or finished, and sets *finished. The completion
 * of the messages it starts wakes the progress ULT of wake_vp (none if negative). */
static int advance(mpcrt_nbc_t *s, bool *finished, int wake_vp)
{
    int events = 0;
    *finished = false;
    for (;;) {
        for (int i = 0; i < s->npending; i++)
            if (!mpcrt_request_done(s->pending[i]))
                return events;
        for (int i = 0; i < s->npending; i++) {
            mpcrt_request_t *r = s->pending[i];
            fail(s, r->status.MPI_ERROR);
            /* Every schedule posts receives of exactly the size its peer sends, so a shorter message means
             * the members' counts differ (as coll_copy reports for the blocking forms). MPI_PROC_NULL (a
             * neighborhood collective's missing neighbor) sends nothing. */
            if (r->kind == MPCRT_REQ_RECV && r->peer != MPI_PROC_NULL && r->status.MPI_ERROR == MPI_SUCCESS &&
                mpcrt_status_bytes(&r->status) < r->count * r->datatype->size)
                fail(s, MPI_ERR_COUNT);
            mpcrt_object_release(&r->obj);
        }
        s->npending = 0;
        if (s->pos >= s->nsteps) {
            *finished = true;
            return events + 1;
        }
        events++;
        while (s->pos < s->nsteps) {
            const step_t *st = &s->steps[s->pos++];
            if (st->kind == STEP_ROUND)
                break;
            if (st->kind == STEP_SEND || st->kind == STEP_RECV)
                start_message(s, st, wake_vp);
            else
                run_local(s, st);
        }
    }
}

/* The last touch of a finished schedule: a waiter may free it (and its request) right after. The engine
 * holds no reference to the request: until it completes, its user's (or, after MPI_Request_free, the
 * orphan list's, or a composite parent's) keeps it, and nothing here touches it after the completion.
 * Dropping a hold of ours here wrote the line the waiter reads the completion from once more, after it. */
static void complete(mpcrt_nbc_t *s)
{
    mpcrt_request_t *req = s->req;
    if (req) {
        req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, s->error};
        atomic_store_explicit(&s->done, 1, memory_order_release);
        mpcrt_request_complete(req);
    } else {
        atomic_store_explicit(&s->done, 1, memory_order_release); /* publishes the results to the waiter */
    }
}

/* Completes s, and frees it if nobody else will: a non-blocking start's schedule is freed here, where it
 * finished (often the free core), so the waiting rank only reads the completion. */
static void retire(mpcrt_nbc_t *s)
{
    bool free_here = s->freed_on_completion; /* read first: after complete(), a waiter may free s's request */
    complete(s);
    if (free_here)
        mpcrt_nbc_free(s);
}

/* Advances every schedule of q if its lock is free; returns the events. */
static int pass_queue(queue_t *q, bool *contended)
{
    if (!queue_busy(q))
        return 0;
    /* acquire (in the lock): the state the previous holder left in q's schedules is visible. */
    if (__atomic_exchange_n((int *)&q->lock, 1, __ATOMIC_ACQUIRE)) {
        *contended = true;
        return 0;
    }
    unsigned taken = atomic_load_explicit(&q->taken, memory_order_relaxed), first = taken;
    entry_t *e = ring_entry(q, taken, memory_order_acquire);
    bool stacked = atomic_load_explicit(&q->incoming, memory_order_relaxed);
    int added = 0;
    if (e || stacked) {
        mpcrt_nbc_t **tail = &q->active;
        while (*tail)
            tail = &(*tail)->next;
        /* Started first, advanced first. At most RING: the producer waits for `taken` to reuse a slot. */
        for (; e; e = ring_entry(q, ++taken, memory_order_acquire)) {
            uintptr_t v = atomic_load_explicit(&e->tag, memory_order_relaxed) & ~(uintptr_t)1;
            mpcrt_nbc_t *s = v == ENTRY_RECORD ? nbc_from_record(&e->rec) : (mpcrt_nbc_t *)v;
            if (!s)
                break; /* no memory for its schedule: the record waits in its slot for a later pass */
            *tail = s;
            tail = &s->next;
        }
        *tail = NULL;
        added = (int)(taken - first);
        if (added) /* release: the producer reuses the slots only after these reads */
            atomic_store_explicit(&q->taken, taken, memory_order_release);
        if (stacked) {
            /* acquire: the fields of schedules pushed by start() are visible. */
            mpcrt_nbc_t *fresh = atomic_exchange_explicit(&q->incoming, NULL, memory_order_acquire);
            MPCRT_LIFO_REVERSE(fresh, next);
            *tail = fresh;
            for (; fresh; fresh = fresh->next)
                added++;
        }
    }
    int events = 0, finished_count = 0;
    mpcrt_nbc_t **link = &q->active, *done = NULL, **done_tail = &done;
    while (*link) {
        mpcrt_nbc_t *s = *link;
        if (s->deferred != NBC_BUILT) { /* a deferred start: its call only recorded the arguments */
            nbc_build_deferred(s);
            s->error = s->build_error;
            if (s->error != MPI_SUCCESS)
                s->pos = s->nsteps; /* a part-built schedule runs nothing: finished, with the error */
            events++;
        }
        bool finished;
        events += advance(s, &finished, pass_wake_vp(s));
        if (finished) {
            *link = s->next;
            s->next = NULL;
            *done_tail = s;
            done_tail = &s->next;
            finished_count++;
        } else {
            link = &s->next;
        }
    }
    if (added != finished_count) /* only the lock holder writes it: no locked instruction */
        atomic_store_explicit(&q->live,
                              atomic_load_explicit(&q->live, memory_order_relaxed) + (unsigned)added -
                                  (unsigned)finished_count,
                              memory_order_relaxed);
    mpcrt_spin_unlock(&q->lock);
    while (done) { /* outside the lock: completing wakes ULTs */
        mpcrt_nbc_t *next = done->next;
        retire(done);
        done = next;
    }
    return events;
}

/* One pass: this VP's queue first, then those of the VPs that are busy (a free VP runs its own), all of
 * them for a thread that is no VP's. */
static int pass(bool *contended)
{
    *contended = false;
    if (!queues)
        return 0;
    int here = mpcrt_self_vp();
    int own = nqueues == 1 ? 0 : here >= 0 && here < nqueues - 1 ? here : nqueues - 1;
    int events = pass_queue(&queues[own], contended);
    for (int k = 0; k < nqueues; k++) {
        if (k == own || !queue_busy(&queues[k]) ||
            (here >= 0 && k < nqueues - 1 && mpcrt_sched_vp_is_free(k)))
            continue;
        events += pass_queue(&queues[k], contended);
    }
    return events;
}

int mpcrt_nbc_progress(void)
{
    bool contended;
    return pass(&contended);
}

/* ------------------------------------------------------------------ starting */

/* VP `here`'s queue if it has a ring (else NULL), with a free entry in *n. */
static queue_t *ring_of(int here, unsigned *n)
{
    if (nqueues <= 1 || here < 0 || here >= nqueues - 1)
        return NULL;
    queue_t *q = &queues[here];
    *n = q->head;
    if (*n - q->taken_seen >= RING) /* acquire: the pass read the entries it took before we reuse them */
        q->taken_seen = atomic_load_explicit(&q->taken, memory_order_acquire);
    return *n - q->taken_seen < RING ? q : NULL;
}

/* Entry n of q's ring, filled, goes to the passes (release: what it holds is visible with the tag). The
 * second line of the next entry is claimed now, while the caller computes: the passes read it once, a lap
 * ago, and only the first line (the tag) is polled. */
static void ring_publish(queue_t *q, unsigned n, uintptr_t what)
{
    q->head = n + 1;
    atomic_store_explicit(&q->ring[n % RING].tag, what | (n / RING & 1), memory_order_release);
    mpcrt_prefetch_write((char *)&q->ring[(n + 1) % RING].rec);
    mpcrt_prefetch_write((char *)&q->ring[(n + 1) % RING].rec + 64);
}

/* Hands s to the passes: into the calling VP's ring (see queue_t), or onto a queue's stack. */
static void publish(mpcrt_nbc_t *s)
{
    unsigned n;
    queue_t *q = ring_of(mpcrt_self_vp(), &n);
    if (q) {
        ring_publish(q, n, (uintptr_t)s);
        return;
    }
    q = &queues[nqueues - 1];
    int here = mpcrt_self_vp();
    if (nqueues > 1 && here >= 0 && here < nqueues - 1)
        q = &queues[here];
    MPCRT_LIFO_PUSH(&q->incoming, s, next, memory_order_release);
}

nbc_record_t *nbc_record_begin(mpcrt_comm_t *comm, nbc_deferred_t kind, mpcrt_request_t **out, int *rc)
{
    mpcrt_once(&setup_once, setup);
    /* As start() decides for a deferred start: on a communicator of this process it stays deferred; across
     * processes only when another core is free (else its first round leaves in the call). */
    int helper = comm->local ? -1 : mpcrt_sched_free_vp();
    if (!comm->local && helper < 0)
        return NULL;
    int here = mpcrt_self_vp();
    unsigned n;
    queue_t *q = ring_of(here, &n);
    if (!q)
        return NULL;
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_COLL);
    if (!req) {
        *rc = MPI_ERR_NO_MEM;
        return NULL;
    }
    req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
    req->active = true;
    *out = req;
    nbc_record_t *r = &q->ring[n % RING].rec;
    nbc_record_init(r, comm);
    r->req = req;
    r->deferred = kind;
    r->helper = helper;
    return r;
}

void nbc_record_publish(nbc_record_t *r)
{
    /* The slot of nbc_record_begin in the same call (no yield in between: the VP's ring has one writer). */
    queue_t *q = &queues[r->owner_vp];
    int helper = r->helper;
    ring_publish(q, q->head, ENTRY_RECORD);
    /* As start() wakes for a deferred start (no progress ULT poked). */
    if (helper >= 0)
        mpcrt_sched_wake_vp(helper);
    else
        mpcrt_sched_wake_sleeping_vp();
}

static void start(mpcrt_nbc_t *s)
{
    mpcrt_once(&setup_once, setup);
    /* Taboada's free core (research/seed003): when another VP has nothing of its own to run, the whole
     * schedule goes to it, first round included (its copies and reductions too), and the caller returns at
     * once: a rank that computes after the call then hides all of it, where running the first round here
     * left about half of a 1 MiB MPI_Iallreduce in the call (33-47 % overlap). A deferred start is even
     * built there (defer.c). With every core busy, or a blocking run whose caller waits right away, the
     * schedule is built and its first round started in the call, so its messages leave before the caller
     * computes. */
    /* A deferred start on a communicator of this process stays deferred even when no core is free now: its
     * steps are all copies some core must make, so running them here gains nothing, and the peers' waits
     * (or ours) build and run it; a core that frees up (a rank entering MPI_Wait) takes it at once, where
     * the first round in the call kept the free rank busy in its own call when the computing rank's next
     * call came (then that call found no free core, and ran its first round itself). Across processes the
     * first round leaves in the call, so the messages travel while the caller computes. */
    bool local_deferred = s->deferred != NBC_BUILT && s->comm->local;
    int helper = !local_deferred && s->req && s->build_error == MPI_SUCCESS ? mpcrt_sched_free_vp() : -1;
    bool deferred = local_deferred || (s->deferred != NBC_BUILT && helper >= 0);
    if (!deferred)
        nbc_build_deferred(s);
    s->pos = 0;
    s->npending = 0;
    s->error = s->build_error;
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    bool finished = s->error != MPI_SUCCESS;
    if (!finished && helper < 0 && !deferred)
        advance(s, &finished, target_vp(s));
    if (finished) {
        retire(s);
        return;
    }
    /* Once pushed, s may finish and be freed on another VP at any time: nothing below reads it. */
    int poke_vp = !deferred && placement != PLACE_NONE ? target_vp(s) : -1;
    publish(s);
    /* The helper runs the progress hook where it is (its idle loop, or its ULT's wait): waking its VP in case
     * it sleeps is enough, and the progress ULTs stay where the placement puts them. */
    if (helper >= 0)
        mpcrt_sched_wake_vp(helper);
    else if (local_deferred)
        mpcrt_sched_wake_sleeping_vp(); /* a free core that spins or idles without sleeping passes anyway */
    /* A deferred start pokes no progress ULT: the free core's waiter or idle loop passes anyway, and
     * without one, whoever waits next does (a poke of the ULT of a computing rank's core only made that
     * rank switch to it in its next wait). */
    if (poke_vp >= 0)
        progress_ult(poke_vp, true);
}

static bool finished_pred(void *arg)
{
    return atomic_load_explicit(&((mpcrt_nbc_t *)arg)->done, memory_order_acquire);
}

int mpcrt_nbc_run(mpcrt_nbc_t *s)
{
    s->req = NULL;
    start(s);
    mpcrt_wait_until(finished_pred, s);
    int rc = s->error;
    mpcrt_nbc_free(s);
    return rc;
}

static void release_sched(void *coll)
{
    mpcrt_nbc_free(coll);
}

static int restart(mpcrt_request_t *req)
{
    start(req->coll);
    return MPI_SUCCESS;
}

int mpcrt_nbc_start_child(mpcrt_nbc_t *s, mpcrt_request_t *parent)
{
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_COLL);
    if (!req) {
        mpcrt_nbc_free(s);
        return MPI_ERR_NO_MEM;
    }
    req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
    s->req = req;
    s->freed_on_completion = true;    /* the request does not own it (retire) */
    mpcrt_request_adopt(parent, req); /* before it starts: its completion completes the parent */
    req->active = true;
    start(s);
    return MPI_SUCCESS;
}

int mpcrt_nbc_request(mpcrt_nbc_t *s, bool persistent, mpcrt_request_t **out)
{
    mpcrt_request_t *req = mpcrt_request_new(MPCRT_REQ_COLL);
    if (!req) {
        mpcrt_nbc_free(s);
        return MPI_ERR_NO_MEM;
    }
    req->persistent = persistent;
    req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
    s->req = req;
    *out = req;
    if (persistent) {
        /* Kept for every MPI_Start, freed with the request. */
        req->coll = s;
        req->coll_release = release_sched;
        req->coll_start = restart;
        atomic_store(&req->complete, 1); /* inactive until MPI_Start */
        return MPI_SUCCESS;
    }
    s->freed_on_completion = true; /* the request does not own it (retire) */
    req->active = true;
    start(s);
    return MPI_SUCCESS;
}
