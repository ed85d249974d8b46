/* The schedule engine: runs rounds as stackless work items. A schedule is advanced first by the rank that
 * starts it (its first round starts in the call), then, while it waits on messages, by whoever passes over
 * the active list: any ULT in wait_until and any idle VP (the progress hook), and the progress ULTs, which
 * sleep while nothing is ready and are woken by the completion of a schedule's messages (they own those
 * requests). Progress ULTs follow Taboada's rules (research/seed003 §6.4): a base priority above the
 * ranks', boosted to the maximum while a pass found work, back to the base and suspended when none.
 *
 * Lock order: the active list's lock, then the point-to-point receivers' locks (taken by the steps). One
 * pass at a time advances the list (try-lock: others go back to their own work); starts push onto a
 * lock-free stack that the next pass drains, so they never wait for a pass; a schedule not yet pushed
 * belongs to the rank starting it. */
#include "nbc_internal.h"
#include "../coll/coll_internal.h"
#include "../../threads/config.h"
#include "../../threads/lifo.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static _Atomic int list_lock;
static mpcrt_nbc_t *active; /* list_lock */
/* Schedules started since the last pass, pushed without the lock: a starting rank that spun on list_lock
 * while a pass walked a long list (or while the passing thread's kernel thread was preempted) spent a
 * quarter of MPICH's coll/nonblocking3 there. The next pass moves them into `active`. */
static mpcrt_nbc_t *_Atomic incoming;
static _Atomic int nactive;

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

static void *progress_main(void *arg)
{
    (void)arg;
    mpcrt_ult_t *self = mpcrt_ult_self();
    for (;;) {
        bool contended;
        int events = pass(&contended);
        if (atomic_load_explicit(&nactive, memory_order_acquire) > 0 && (events > 0 || contended)) {
            mpcrt_ult_set_priority(self, base_priority, MPCRT_PRIO_MAX); /* boosted while work is ready */
            mpcrt_yield();
        } else {
            /* Parked, not gone, when nothing is active: making a new ULT at the next start cost its caller
             * a stack and a context. Woken by the completion of a message of an active schedule, or by a
             * start (which counts its schedule in nactive first). */
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

static void start_message(mpcrt_nbc_t *s, const step_t *st)
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
    r->owner = placement == PLACE_NONE ? NULL : progress_ult(target_vp(s), false);
    r->buf = sending ? (void *)st->src : st->dst;
    r->count = sending ? st->scount : st->dcount;
    r->datatype = sending ? st->sdt : st->ddt;
    mpcrt_datatype_retain(r->datatype);
    r->comm = s->net;
    mpcrt_object_retain(&s->net->obj);
    r->peer = st->peer;
    r->tag = st->tag;
    r->context = s->net->context + 1; /* the collectives' context: never matches user messages */
    r->mode = MPCRT_SEND_STANDARD;
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
    /* A user operation runs in the owner's view of its privatized globals, whoever runs the step. */
    mpcrt_priv_view_t saved;
    mpcrt_priv_enter(s->owner, &saved);
    fail(s, mpcrt_op_reduce_local(s->red.op, st->src, st->dst, st->scount, s->red.type, s->red.dt));
    mpcrt_priv_leave(&saved);
}

/* Advances s as far as it goes; returns the rounds started or finished, and sets *finished. */
static int advance(mpcrt_nbc_t *s, bool *finished)
{
    int events = 0;
    *finished = false;
    for (;;) {
        for (int i = 0; i < s->npending; i++)
            if (!mpcrt_request_done(s->pending[i]))
                return events;
        for (int i = 0; i < s->npending; i++) {
            fail(s, s->pending[i]->status.MPI_ERROR);
            mpcrt_object_release(&s->pending[i]->obj);
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
                start_message(s, st);
            else
                run_local(s, st);
        }
    }
}

/* The last touch of a finished schedule: a waiter may free it (and its request) right after. */
static void complete(mpcrt_nbc_t *s)
{
    mpcrt_request_t *req = s->req;
    if (req) {
        req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, s->error};
        atomic_store_explicit(&s->done, 1, memory_order_release);
        mpcrt_request_complete(req);
        mpcrt_object_release(&req->obj); /* the engine's hold */
    } else {
        atomic_store_explicit(&s->done, 1, memory_order_release); /* publishes the results to the waiter */
    }
}

static int pass(bool *contended)
{
    *contended = false;
    if (atomic_load_explicit(&nactive, memory_order_acquire) == 0)
        return 0;
    /* acquire (in the lock): the steps and buffers of schedules pushed by other threads are visible. */
    if (__atomic_exchange_n((int *)&list_lock, 1, __ATOMIC_ACQUIRE)) {
        *contended = true;
        return 0;
    }
    /* acquire: the fields of schedules pushed by start() are visible. */
    mpcrt_nbc_t *fresh = atomic_exchange_explicit(&incoming, NULL, memory_order_acquire);
    while (fresh) {
        mpcrt_nbc_t *next = fresh->next;
        fresh->next = active;
        active = fresh;
        fresh = next;
    }
    int events = 0;
    mpcrt_nbc_t **link = &active, *done = NULL;
    while (*link) {
        mpcrt_nbc_t *s = *link;
        bool finished;
        events += advance(s, &finished);
        if (finished) {
            *link = s->next;
            s->next = done;
            done = s;
            atomic_fetch_sub_explicit(&nactive, 1, memory_order_relaxed);
        } else {
            link = &s->next;
        }
    }
    mpcrt_spin_unlock(&list_lock);
    while (done) { /* outside the lock: completing wakes ULTs */
        mpcrt_nbc_t *next = done->next;
        complete(done);
        done = next;
    }
    return events;
}

int mpcrt_nbc_progress(void)
{
    bool contended;
    return pass(&contended);
}

/* ------------------------------------------------------------------ starting */

static void start(mpcrt_nbc_t *s)
{
    mpcrt_once(&setup_once, setup);
    s->pos = 0;
    s->npending = 0;
    s->error = s->build_error;
    atomic_store_explicit(&s->done, 0, memory_order_relaxed);
    if (s->req)
        mpcrt_object_retain(&s->req->obj); /* the engine's hold until completion */
    /* Taboada's free core (research/seed003): when another VP has nothing of its own to run, the whole
     * schedule goes to it, first round included (its copies and reductions too), and the caller returns at
     * once: a rank that computes after the call then hides all of it, where running the first round here
     * left about half of a 1 MiB MPI_Iallreduce in the call (33-47 % overlap). With every core busy, or a
     * blocking run whose caller waits right away, the first round starts in the call. */
    int helper = s->req && s->error == MPI_SUCCESS ? mpcrt_sched_free_vp() : -1;
    bool finished = s->error != MPI_SUCCESS;
    if (!finished && helper < 0)
        advance(s, &finished);
    if (finished) {
        complete(s);
        return;
    }
    /* Counted before it is visible, so that a progress ULT about to leave sees it (progress_main). */
    atomic_fetch_add_explicit(&nactive, 1, memory_order_seq_cst);
    MPCRT_LIFO_PUSH(&incoming, s, next, memory_order_release);
    /* The helper runs the progress hook where it is (its idle loop, or its ULT's wait): waking its VP in case
     * it sleeps is enough, and the progress ULTs stay where the placement puts them. */
    if (helper >= 0)
        mpcrt_sched_wake_vp(helper);
    if (placement != PLACE_NONE)
        progress_ult(target_vp(s), true);
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
    req->coll = s;
    req->coll_release = release_sched;
    req->coll_start = restart;
    req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
    s->req = req;
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
    req->coll = s;
    req->coll_release = release_sched;
    req->coll_start = restart;
    req->persistent = persistent;
    req->status = (MPI_Status){0, 0, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_SUCCESS};
    s->req = req;
    *out = req;
    if (persistent) {
        atomic_store(&req->complete, 1); /* inactive until MPI_Start */
        return MPI_SUCCESS;
    }
    req->active = true;
    start(s);
    return MPI_SUCCESS;
}
