/* Broadcasts of a meeting of few members (meet.h, coll_bring_bcast), without the meeting: each member has a
 * ring of slots it fills when it is the root. A small broadcast's root packs its data into its next slot
 * and returns; the others copy out and count the broadcast done. Nobody waits for the others, so a root may
 * run up to COLL_BRING_SLOTS broadcasts ahead, and a loop of broadcasts streams through the ring instead of
 * paying a meeting per call (2 ranks on 2 cores, 8 B: 0.14 -> 0.054 us per call; Open MPI 0.077). A large
 * one publishes the root's own buffer instead, and its root waits until everyone copied from it.
 *
 * Members that disagree on the root (an erroneous program) are told, not left waiting: every member
 * publishes the root it believes in at each call (its arrival); a member waiting for a root that never
 * fills its slot finds a member that believes otherwise, or a slot filled by another root, and returns
 * MPI_ERR_ROOT; two members that both take themselves for the root see each other's arrival (a Dekker
 * pair), so at least one of them returns MPI_ERR_ROOT. A count that differs from the root's is the
 * receiver's MPI_ERR_TRUNCATE or MPI_ERR_COUNT, as in the meeting's path. */
#include "meet.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    alignas(64) _Atomic uint32_t stamp; /* the broadcast's number + 1 once its root filled the slot */
    bool rendezvous;                    /* the data is in `big`, the root's buffer, not in `data` */
    MPI_Count bytes;
    coll_view_t big;
    unsigned char data[COLL_BRING_BYTES];
} bring_slot_t;

typedef struct {
    /* Written by the member at each broadcast; read by the others (arrivals while they wait, `done` when
     * one of them is about to reuse a slot). */
    alignas(64) _Atomic uint32_t done;    /* broadcasts it finished (no longer reads their slots) */
    _Atomic uint32_t arrived;             /* broadcasts it called: belief[] holds its roots */
    _Atomic int belief[COLL_BRING_SLOTS]; /* the root of broadcast k, at k % COLL_BRING_SLOTS */
    uint32_t all_done;                    /* as a root: every member had finished at least this many */
    /* Written when the member is about to sleep, read by every publisher: a line of its own. */
    alignas(64) _Atomic bool sleeping;
    mpcrt_ult_t *_Atomic ult; /* NULL: a kernel thread, whose wait spins */
    /* Its slots, made at its first broadcast as the root (most members never are). */
    bring_slot_t *_Atomic slots;
} bring_member_t;

struct coll_bring {
    int n;
    bring_member_t member[COLL_BRING_MEMBERS];
};

coll_bring_t *coll_bring_create(int n)
{
    if (n < 2 || n > COLL_BRING_MEMBERS)
        return NULL;
    coll_bring_t *r = aligned_alloc(64, (sizeof *r + 63) / 64 * 64);
    if (r) {
        memset(r, 0, sizeof *r);
        r->n = n;
    }
    return r;
}

void coll_bring_free(coll_bring_t *r)
{
    for (int q = 0; r && q < r->n; q++)
        free(atomic_load_explicit(&r->member[q].slots, memory_order_relaxed));
    free(r);
}

/* The slot of broadcast seq in member q's ring, if q has a ring. */
static bring_slot_t *slot_of(coll_bring_t *r, int q, uint32_t seq)
{
    /* acquire: the ring as its owner initialized it. */
    bring_slot_t *slots = atomic_load_explicit(&r->member[q].slots, memory_order_acquire);
    return slots ? &slots[seq % COLL_BRING_SLOTS] : NULL;
}

static bool filled(coll_bring_t *r, int q, uint32_t seq)
{
    bring_slot_t *slot = slot_of(r, q, seq);
    /* acquire: the root's writes of the slot. */
    return slot && atomic_load_explicit(&slot->stamp, memory_order_acquire) == seq + 1;
}

/* Wakes the members asleep on the ring (they look again), after the caller published something: the
 * seq_cst fence pairs with theirs between announcing the sleep and their last look. */
static void wake_sleepers(coll_bring_t *r, int me)
{
    atomic_thread_fence(memory_order_seq_cst);
    for (int q = 0; q < r->n; q++)
        if (q != me && atomic_load_explicit(&r->member[q].sleeping, memory_order_relaxed)) {
            mpcrt_ult_t *u = atomic_load_explicit(&r->member[q].ult, memory_order_relaxed);
            if (u)
                mpcrt_ult_poke(u);
        }
}

/* Waits until pred(arg): spins while nothing else could run on the core, then sleeps, announced so that
 * publishers poke it (mpcrt_wait_until's protocol: a poke before the park is not lost). */
static void bring_wait(coll_bring_t *r, int me, bool (*pred)(void *), void *arg)
{
    if (mpcrt_wait_spin(pred, arg))
        return;
    bring_member_t *mine = &r->member[me];
    atomic_store_explicit(&mine->ult, mpcrt_ult_self(), memory_order_relaxed);
    atomic_store_explicit(&mine->sleeping, true, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst); /* announced before the predicate is looked at again */
    mpcrt_wait_until(pred, arg);
    atomic_store_explicit(&mine->sleeping, false, memory_order_relaxed);
}

typedef struct {
    coll_bring_t *r;
    int me, root;
    uint32_t seq;
} bring_wait_t;

/* Another member than `root` filled its slot for broadcast seq (it took itself for the root), or, with
 * `beliefs`, a member reached seq believing in another root. A root looks at the slots only: the members'
 * arrivals change at every call (a line transfer each), the slots of members that are never the root do
 * not. */
static bool disagreement(coll_bring_t *r, int me, int root, uint32_t seq, bool beliefs)
{
    for (int q = 0; q < r->n; q++) {
        if (q == me)
            continue;
        if (q != root && filled(r, q, seq))
            return true;
        /* acquire: its belief, written before the arrival. A member that believes in our root can only
         * have arrived a whole ring further (its belief for seq overwritten) after our root filled our slot,
         * which the caller looks at again; no root fills the slot after that one without our count. */
        if (beliefs &&
            (int32_t)(atomic_load_explicit(&r->member[q].arrived, memory_order_acquire) - (seq + 1)) >= 0 &&
            atomic_load_explicit(&r->member[q].belief[seq % COLL_BRING_SLOTS], memory_order_relaxed) != root)
            return true;
    }
    return false;
}

static bool data_or_disagreement(void *arg)
{
    const bring_wait_t *w = arg;
    return filled(w->r, w->root, w->seq) || disagreement(w->r, w->me, w->root, w->seq, true);
}

/* Every member finished broadcast w->seq - 1. */
static bool all_done(void *arg)
{
    const bring_wait_t *w = arg;
    for (int q = 0; q < w->r->n; q++)
        /* acquire: the member's reads of our slot (or buffer) are over. */
        if ((int32_t)(atomic_load_explicit(&w->r->member[q].done, memory_order_acquire) - w->seq) < 0)
            return false;
    return true;
}

/* The least count of finished broadcasts over the members. */
static uint32_t least_done(coll_bring_t *r)
{
    /* acquire: the counts are kept (all_done) to reuse slots later without looking again. */
    uint32_t least = atomic_load_explicit(&r->member[0].done, memory_order_acquire);
    for (int q = 1; q < r->n; q++) {
        uint32_t d = atomic_load_explicit(&r->member[q].done, memory_order_acquire);
        if ((int32_t)(d - least) < 0)
            least = d;
    }
    return least;
}

/* The root's part: fill its next slot (its previous use over for everyone), publish, and for a large one
 * wait until everyone copied from its buffer. */
static int bcast_root(coll_bring_t *r, int me, uint32_t seq, const coll_view_t *view)
{
    bring_member_t *mine = &r->member[me];
    bring_slot_t *slots = atomic_load_explicit(&mine->slots, memory_order_relaxed); /* made by the caller */
    bring_slot_t *slot = &slots[seq % COLL_BRING_SLOTS];
    uint32_t reusable = seq - COLL_BRING_SLOTS + 1; /* every member finished the slot's last broadcast */
    if (seq >= COLL_BRING_SLOTS && (int32_t)(mine->all_done - reusable) < 0) {
        bring_wait_t w = {r, me, me, reusable};
        if (!all_done(&w))
            bring_wait(r, me, all_done, &w);
        mine->all_done = least_done(r); /* once more for the next slots: they may be free already */
    }
    MPI_Count bytes = coll_view_bytes(view);
    slot->bytes = bytes;
    slot->rendezvous = bytes > COLL_BRING_BYTES;
    if (slot->rendezvous) {
        slot->big = *view;
    } else {
        coll_view_t to = coll_packed_view(slot->data, bytes);
        coll_copy_range(view, 0, &to, 0, bytes);
        /* Nothing of ours is read after this: done now, so the one wake-up below serves both. release: our
         * reads of other roots' slots, in earlier calls, are over (for a root about to reuse one). */
        atomic_store_explicit(&mine->done, seq + 1, memory_order_release);
    }
    atomic_store_explicit(&slot->stamp, seq + 1, memory_order_release);
    wake_sleepers(r, me);
    /* After the fence of the wake-up: another member that took itself for the root either sees our
     * arrival or we see its own. */
    int rc = disagreement(r, me, me, seq, false) ? MPI_ERR_ROOT : MPI_SUCCESS;
    if (slot->rendezvous) {
        bring_wait_t w = {r, me, me, seq + 1};
        atomic_store_explicit(&mine->done, seq + 1, memory_order_release); /* counts us among the done */
        if (!all_done(&w))
            bring_wait(r, me, all_done, &w);
    }
    return rc;
}

int coll_bring_bcast(coll_bring_t *r, int me, int root, const coll_view_t *view)
{
    bring_member_t *mine = &r->member[me];
    uint32_t seq = atomic_load_explicit(&mine->arrived, memory_order_relaxed);
    bool ring = me != root || atomic_load_explicit(&mine->slots, memory_order_relaxed);
    if (!ring) { /* our first broadcast as the root: our ring */
        size_t bytes = sizeof(bring_slot_t) * COLL_BRING_SLOTS;
        bring_slot_t *slots = aligned_alloc(64, bytes);
        if ((ring = slots != NULL)) {
            memset(slots, 0, bytes);
            atomic_store_explicit(&mine->slots, slots, memory_order_release);
        }
    }
    /* Without a ring we cannot be the root: the others then see a member believing in no root. */
    atomic_store_explicit(&mine->belief[seq % COLL_BRING_SLOTS], ring ? root : -1, memory_order_relaxed);
    /* release: the belief, for members that look for a disagreement. */
    atomic_store_explicit(&mine->arrived, seq + 1, memory_order_release);
    if (!ring) {
        atomic_store_explicit(&mine->done, seq + 1, memory_order_release);
        wake_sleepers(r, me);
        return MPI_ERR_NO_MEM;
    }
    if (me == root)
        return bcast_root(r, me, seq, view);
    int rc = MPI_ERR_ROOT;
    bool got = filled(r, root, seq);
    if (!got) {
        bring_wait_t w = {r, me, root, seq};
        wake_sleepers(r, me); /* members waiting for a root may learn from our arrival that there is none */
        bring_wait(r, me, data_or_disagreement, &w);
        /* Looked at again even after a disagreement: a member may have passed this broadcast and published
         * its belief for one a whole ring later in the same entry (a false disagreement), but only after
         * our root filled its slot, which then holds our data. */
        got = filled(r, root, seq);
    }
    if (got) {
        const bring_slot_t *slot = slot_of(r, root, seq);
        coll_view_t packed = coll_packed_view((void *)slot->data, slot->bytes);
        rc =
            coll_copy(slot->rendezvous ? &slot->big : &packed, view); /* counts that differ: TRUNCATE/COUNT */
    }
    /* release: our reads of the root's slot (or buffer) are over. */
    atomic_store_explicit(&mine->done, seq + 1, memory_order_release);
    wake_sleepers(r, me); /* a root sleeps when it is a whole ring ahead, or until a large one is copied */
    return rc;
}
