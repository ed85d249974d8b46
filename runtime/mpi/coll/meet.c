/* Two-level meeting of a communicator's members inside one process (see meet.h): groups by home VP, gates
 * that park waiters instead of spinning (32 ranks on a core must let each other arrive), work attached to
 * the last arrivals. */
#include "meet.h"
#include "coll_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------ gates */

static bool gate_reached(coll_gate_t *g, uint32_t target)
{
    /* acquire: what the opener wrote before opening (results, buffers) is visible to the woken member. */
    return (int32_t)(atomic_load_explicit(&g->opened, memory_order_acquire) - target) >= 0;
}

typedef struct {
    coll_gate_t *gate;
    uint32_t target;
} gate_target_t;

static bool gate_target_reached(void *arg)
{
    const gate_target_t *t = arg;
    return gate_reached(t->gate, t->target);
}

static void gate_wait(coll_gate_t *g, uint32_t target)
{
    /* A member alone on its core (the last of its group, or one rank per core) spins first: the opener
     * then finds no waiter to wake on another core, and the member sees the gate one line transfer after
     * it opens, instead of after a wake-up through the other VP's inbox. */
    gate_target_t t = {g, target};
    if (mpcrt_wait_spin(gate_target_reached, &t))
        return;
    while (!gate_reached(g, target)) {
        mpcrt_waiter_t w;
        mpcrt_waiter_init(&w);
        mpcrt_spin_lock(&g->guard);
        if (gate_reached(g, target)) { /* opened between the check and the lock: the opener saw no waiter */
            mpcrt_spin_unlock(&g->guard);
            return;
        }
        w.next = g->head;
        g->head = &w;
        mpcrt_spin_unlock(&g->guard);
        mpcrt_waiter_sleep(&w);
    }
}

static void gate_open(coll_gate_t *g, uint32_t opened)
{
    /* release: publishes the generation's results before any waiter can see it over. */
    atomic_store_explicit(&g->opened, opened, memory_order_release);
    mpcrt_spin_lock(&g->guard);
    mpcrt_waiter_t *w = g->head;
    g->head = NULL;
    mpcrt_spin_unlock(&g->guard);
    while (w) {
        mpcrt_waiter_t *next = w->next; /* read before the wake: the waiter's frame goes once it runs */
        mpcrt_waiter_wake(w);
        w = next;
    }
}

/* ------------------------------------------------------------------ state */

bool coll_buf_reserve(coll_buf_t *b, size_t bytes)
{
    if (b->cap >= bytes)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < bytes)
        cap *= 2;
    void *p = malloc(cap);
    if (!p)
        return false;
    free(b->p);
    b->p = p;
    b->cap = cap;
    return true;
}

static void meet_free(void *state)
{
    coll_meet_t *m = state;
    if (!m)
        return;
    for (int g = 0; g < m->ngroups; g++)
        for (int p = 0; p < 2; p++) {
            free(m->groups[g].buf[p].p);
            if (m->mesh_groups)
                free(m->mesh_groups[g].result[p].p);
        }
    for (int r = 0; r < m->n; r++)
        for (int p = 0; p < 2; p++)
            free(m->member[r].stage[p].p);
    for (int p = 0; p < 2; p++)
        free(m->result[p].p);
    coll_bring_free(m->bring);
    free(m->group_of);
    free(m->members);
    free(m->groups);
    free(m->mesh_groups);
    free(m->member);
    free(m);
}

/* Meetings of at most this many groups are meshes (meet.h): each representative reads every other group's
 * arrival line, so the cost grows with the groups squared, and the top work is done once per group. */
#define MESH_GROUPS 4

/* The home VP of member r: ranks never migrate, so members with the same one run one at a time. */
static int home_vp(const mpcrt_comm_t *comm, int r)
{
    int local = comm->group->world[r] - mpcrt_job_first_rank();
    return local >= 0 && local < mpcrt_job_local_ranks() ? mpcrt_job_rank_vp(local) : -1;
}

static coll_meet_t *meet_create(const mpcrt_comm_t *comm)
{
    int n = mpcrt_comm_size(comm);
    coll_meet_t *m = aligned_alloc(64, (sizeof *m + 63) / 64 * 64);
    if (!m)
        return NULL;
    *m = (coll_meet_t){.n = n};
    m->group_of = malloc(sizeof(int) * (size_t)n);
    m->members = malloc(sizeof(int) * (size_t)n);
    int *vp_of_group = malloc(sizeof(int) * (size_t)n);
    int *count = calloc((size_t)n, sizeof(int));
    m->member = aligned_alloc(64, (sizeof(coll_member_t) * (size_t)n + 63) / 64 * 64);
    if (!m->group_of || !m->members || !vp_of_group || !count || !m->member)
        goto fail;
    for (int r = 0; r < n; r++) {
        m->member[r] = (coll_member_t){0};
        int vp = home_vp(comm, r), g = 0;
        while (g < m->ngroups && vp_of_group[g] != vp)
            g++;
        if (g == m->ngroups)
            vp_of_group[m->ngroups++] = vp;
        m->group_of[r] = g;
        count[g]++;
    }
    m->groups = aligned_alloc(64, (sizeof(coll_group_t) * (size_t)m->ngroups + 63) / 64 * 64);
    if (!m->groups)
        goto fail;
    m->ordered = true;
    for (int g = 0, at = 0; g < m->ngroups; g++) {
        m->groups[g] = (coll_group_t){.size = count[g], .first = at};
        at += count[g];
        count[g] = 0;
    }
    for (int r = 0; r < n; r++) {
        coll_group_t *grp = &m->groups[m->group_of[r]];
        m->member[r].alone = grp->size == 1;
        int slot = grp->first + count[m->group_of[r]]++;
        m->members[slot] = r;
        m->ordered &= slot == r; /* groups in rank order, each a run of consecutive ranks */
    }
    m->mesh = m->ordered && m->ngroups >= 2 && m->ngroups <= MESH_GROUPS;
    if (m->mesh) {
        size_t bytes = (sizeof(coll_mesh_group_t) * (size_t)m->ngroups + 63) / 64 * 64;
        if (!(m->mesh_groups = aligned_alloc(64, bytes)))
            goto fail;
        memset(m->mesh_groups, 0, bytes);
    }
    /* Members alone on their cores only: a member that shares its core sleeps on a slot and needs a
     * wake-up through its VP's inbox at every broadcast, where a meeting wakes one representative per
     * core (4 ranks on 2 cores, slow line state: 0.67 us per broadcast with the meeting, 1.0 with the
     * ring). Optional: without it, broadcasts meet. */
    m->bring = m->ngroups == n ? coll_bring_create(n) : NULL;
    free(vp_of_group);
    free(count);
    return m;
fail:
    free(vp_of_group);
    free(count);
    meet_free(m);
    return NULL;
}

coll_meet_t *coll_meet_make(mpcrt_comm_t *comm)
{
    coll_meet_t *made = meet_create(comm);
    if (!made) {
        /* The members must all meet the same way: no fallback that some would take and others not. */
        fprintf(stderr, "mpcrt: rank %d: out of memory for a collective's meeting state; ending the job\n",
                mpcrt_mpi_world_rank());
        fflush(stderr);
        _exit(1);
    }
    void *expected = NULL;
    if (atomic_compare_exchange_strong_explicit(&comm->coll_state, &expected, made, memory_order_acq_rel,
                                                memory_order_acquire)) {
        /* Only the winner writes it (racing stores of even the same value are a data race); it is read when
         * the communicator is destroyed, after every member's last reference (acq_rel) is gone. */
        comm->coll_state_free = meet_free;
        return made;
    }
    meet_free(made); /* another member installed its own first */
    return expected;
}

/* ------------------------------------------------------------------ rounds */

/* Whether two members called the same fused collective with the same root, amount and operation. */
static bool same_call(const coll_header_t *a, const coll_header_t *b)
{
    return a && b && a->kind == b->kind && a->root == b->root && a->bytes == b->bytes && a->fused &&
           a->fused == b->fused && (a->op == b->op || (a->op && b->op && coll_same_op(a->op, b->op)));
}

/* The last member of group g: the group agrees with it, then its work. */
static bool group_work(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine)
{
    if (!mine->fused)
        return false;
    const coll_group_t *grp = &m->groups[g];
    for (int i = 0; i < grp->size; i++)
        if (!same_call(comm->contributions[m->members[grp->first + i]], mine))
            return false;
    return !mine->fused->group || mine->fused->group(comm, m, g, parity, mine);
}

/* The last member overall: the groups agree with each other (each agrees within), then the work. */
static bool top_work(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine)
{
    if (atomic_load_explicit(&m->pull[parity], memory_order_relaxed) || !mine->fused)
        return false;
    for (int h = 0; h < m->ngroups; h++)
        if (!same_call(comm->contributions[m->members[m->groups[h].first]], mine))
            return false;
    return !mine->fused->top || mine->fused->top(comm, m, g, parity, mine);
}

/* The flag that says whether group g's members pull after the round of this parity. */
static _Atomic bool *pull_flag(coll_meet_t *m, int g, unsigned parity)
{
    return m->mesh ? &m->mesh_groups[g].pull[parity] : &m->pull[parity];
}

/* What a watching member waits for: the round is over (over(over_arg)), or, serving, a peer it has not
 * served arrived. */
typedef struct {
    const coll_server_t *server; /* NULL: only the end of the round */
    coll_meet_t *m;
    int me;
    bool (*over)(void *arg);
    void *over_arg;
} serving_t;

static bool serving_ready(void *arg)
{
    serving_t *s = arg;
    if (s->over(s->over_arg))
        return true;
    if (!s->server)
        return false;
    for (int q = 0; q < s->m->n; q++)
        if (!s->server->served[q] && coll_peer_arrived(s->m, s->me, q))
            return true;
    return false;
}

/* Sleeps until serving_ready(s) (a peer arrived, or the round is over). Arriving members wake the
 * watchers (wake_watchers): a watcher publishes itself, then looks again, so either it sees the arrival
 * or the arriving member sees it (seq_cst fences on both sides). */
static void watch(coll_meet_t *m, serving_t *s)
{
    coll_gate_t *g = &m->arrivals;
    mpcrt_waiter_t w;
    mpcrt_waiter_init(&w);
    mpcrt_spin_lock(&g->guard);
    w.next = g->head;
    g->head = &w;
    atomic_fetch_add_explicit(&m->watching, 1, memory_order_relaxed);
    mpcrt_spin_unlock(&g->guard);
    atomic_thread_fence(memory_order_seq_cst);
    if (serving_ready(s)) {
        /* Leave the list, unless a waker took it already: then its wake-up is on the way. */
        bool removed = false;
        mpcrt_spin_lock(&g->guard);
        for (mpcrt_waiter_t **at = &g->head; *at; at = &(*at)->next)
            if (*at == &w) {
                *at = w.next;
                removed = true;
                atomic_fetch_sub_explicit(&m->watching, 1, memory_order_relaxed);
                break;
            }
        mpcrt_spin_unlock(&g->guard);
        if (removed)
            return;
    }
    mpcrt_waiter_sleep(&w);
}

static void wake_watchers(coll_meet_t *m)
{
    atomic_thread_fence(memory_order_seq_cst); /* the caller's arrival stamp before the look below */
    if (!atomic_load_explicit(&m->watching, memory_order_relaxed))
        return;
    coll_gate_t *g = &m->arrivals;
    mpcrt_spin_lock(&g->guard);
    mpcrt_waiter_t *w = g->head;
    g->head = NULL;
    atomic_store_explicit(&m->watching, 0, memory_order_relaxed);
    mpcrt_spin_unlock(&g->guard);
    while (w) {
        mpcrt_waiter_t *next = w->next;
        mpcrt_waiter_wake(w);
        w = next;
    }
}

/* Waits for the gate; a serving member serves the peers that arrive meanwhile and sleeps when none is
 * new. Gates wake their waiters, not the watchers: the gate opener also wakes the watchers (the last
 * arrival does, in round_of). */
static void wait_gate(coll_meet_t *m, int me, coll_gate_t *gate, uint32_t target, const coll_server_t *server)
{
    if (!server) {
        gate_wait(gate, target);
        return;
    }
    gate_target_t t = {gate, target};
    serving_t s = {server, m, me, gate_target_reached, &t};
    while (!gate_reached(gate, target))
        if (!server->serve(server->arg) && !serving_ready(&s))
            watch(m, &s);
}

/* ------------------------------------------------------------------ mesh meetings (meet.h) */

typedef struct {
    coll_meet_t *m;
    unsigned parity;
    uint32_t target;
} mesh_target_t;

/* Every group stamped its arrival at the round (a group cannot be further: it would need ours at the next
 * round first). */
static bool mesh_arrived(void *arg)
{
    const mesh_target_t *t = arg;
    for (int h = 0; h < t->m->ngroups; h++) {
        /* acquire: the group's arrival line and the buffers its work filled. */
        uint32_t gen =
            atomic_load_explicit(&t->m->mesh_groups[h].arrival[t->parity].gen, memory_order_acquire);
        if ((int32_t)(gen - t->target) < 0)
            return false;
    }
    return true;
}

/* A representative waits for the other groups: spinning first, then watching (each group's arrival wakes
 * the watchers); a serving one serves the peers that arrive meanwhile. */
static void mesh_wait(coll_meet_t *m, int me, unsigned parity, uint32_t target, const coll_server_t *server)
{
    mesh_target_t t = {m, parity, target};
    if (!server && mpcrt_wait_spin(mesh_arrived, &t))
        return;
    serving_t s = {server, m, me, mesh_arrived, &t};
    while (!mesh_arrived(&t))
        if (!(server && server->serve(server->arg)) && !serving_ready(&s))
            watch(m, &s);
}

static void arrival_of(coll_arrival_t *a, const coll_header_t *desc, bool failed)
{
    a->failed = failed;
    a->kind = desc->kind;
    a->root = desc->root;
    a->bytes = desc->bytes;
    a->fused = desc->fused;
    a->op_index = desc->op ? desc->op->index : -1;
    a->op_fn = desc->op ? desc->op->fn : NULL;
    a->op_fn_c = desc->op ? desc->op->fn_c : NULL;
}

/* same_call on two groups' arrivals. */
static bool same_arrival(const coll_arrival_t *a, const coll_arrival_t *b)
{
    return !a->failed && !b->failed && a->kind == b->kind && a->root == b->root && a->bytes == b->bytes &&
           a->fused == b->fused && a->op_index == b->op_index &&
           (a->op_index != MPCRT_OP_USER || (a->op_fn == b->op_fn && a->op_fn_c == b->op_fn_c));
}

/* The top level of a mesh round, by group g's representative (its last member): stamps the group's
 * arrival, waits for every other group's, and sets the group's verdict, doing the top work for the
 * group when every group agrees. Every representative reads the same arrivals, so all reach the same
 * verdict; the top work cannot fail then (its result buffer is reserved before the arrival, and a
 * failure to reserve it is part of the arrival). */
static void mesh_top(mpcrt_comm_t *comm, coll_meet_t *m, int me, int g, uint32_t gen,
                     const coll_header_t *desc, bool group_ok, const coll_server_t *server)
{
    unsigned p = gen & 1;
    coll_mesh_group_t *grp = &m->mesh_groups[g];
    const coll_fused_t *fused = desc->fused;
    if (group_ok && fused->top && !coll_buf_reserve(&grp->result[p], (size_t)desc->bytes))
        group_ok = false;
    coll_arrival_t *mine = &grp->arrival[p];
    arrival_of(mine, desc, !group_ok);
    /* release: the arrival line and the group's buffers, for the other representatives. */
    atomic_store_explicit(&mine->gen, gen + 1, memory_order_release);
    wake_watchers(m);
    mesh_wait(m, me, p, gen + 1, server);
    bool agree = true;
    for (int h = 0; h < m->ngroups && agree; h++)
        agree = same_arrival(mine, &m->mesh_groups[h].arrival[p]);
    if (agree && fused->top && !fused->top(comm, m, g, p, desc)) {
        /* The other groups went on with their results: this one cannot take the pull path alone. */
        fprintf(stderr,
                "mpcrt: rank %d: a collective's in-process work failed after its members agreed; "
                "ending the job\n",
                mpcrt_mpi_world_rank());
        fflush(stderr);
        _exit(1);
    }
    atomic_store_explicit(&grp->pull[p], !agree, memory_order_relaxed); /* read after the group's gate */
}

static bool round_of(mpcrt_comm_t *comm, int me, const coll_header_t *desc, unsigned *parity,
                     const coll_server_t *server)
{
    coll_meet_t *m = coll_meet_of(comm);
    /* Written only when it changed: calls from one frame (a loop) then leave the line, which holds the
     * other members' slots too, in every core's cache. */
    if (comm->contributions[me] != desc)
        comm->contributions[me] = (void *)desc;
    uint32_t gen = m->member[me].gen++;
    /* release: the descriptor above, for the members that serve as peers arrive. */
    atomic_store_explicit(&m->member[me].arrived, gen + 1, memory_order_release);
    /* Only serving members watch for arrivals; a member that waits for the end of the round through the
     * watchers is woken by whoever ends it (below, and in mesh_top). */
    if (server)
        wake_watchers(m);
    unsigned p = gen & 1;
    *parity = p;
    int g = m->group_of[me];
    coll_group_t *grp = &m->groups[g];
    bool alone = m->member[me].alone;
    if (!alone) {
        /* acq_rel: the last member acquires every member's descriptor and staged data (released by their
         * own increments: a release sequence on the counter), and passes them on by its own increment. */
        if (atomic_fetch_add_explicit(&grp->arrived, 1, memory_order_acq_rel) + 1 < grp->size) {
            wait_gate(m, me, &grp->gate, gen + 1, server);
            return !atomic_load_explicit(pull_flag(m, g, p), memory_order_relaxed); /* ordered by the gate */
        }
        /* Last of the group: nobody in it can arrive again before its gate opens below. */
        atomic_store_explicit(&grp->arrived, 0, memory_order_relaxed);
    }
    bool group_ok = group_work(comm, m, g, p, desc);
    if (m->mesh) {
        mesh_top(comm, m, me, g, gen, desc, group_ok, server);
    } else {
        if (!group_ok)
            atomic_store_explicit(&m->pull[p], true, memory_order_relaxed); /* ordered by the increment */
        if (atomic_fetch_add_explicit(&m->top_arrived, 1, memory_order_acq_rel) + 1 < m->ngroups) {
            wait_gate(m, me, &m->top, gen + 1, server);
        } else {
            atomic_store_explicit(&m->top_arrived, 0, memory_order_relaxed);
            if (!top_work(comm, m, g, p, desc))
                atomic_store_explicit(&m->pull[p], true, memory_order_relaxed);
            /* Everybody has left generation gen - 1's round: nobody reads the other parity's flag any
             * more. Stored only when set: the members read the flag after every round, and a store
             * would take the line from all of them each time. */
            if (atomic_load_explicit(&m->pull[p ^ 1], memory_order_relaxed))
                atomic_store_explicit(&m->pull[p ^ 1], false, memory_order_relaxed);
            gate_open(&m->top, gen + 1);
        }
    }
    if (!alone)
        gate_open(&grp->gate, gen + 1); /* a group of one has nobody at its gate */
    /* Serving members wait on the gates through the watchers: this group's, and in a counted meeting the
     * top gate, which only the last group opens. */
    if (!alone || !m->mesh)
        wake_watchers(m);
    return !atomic_load_explicit(pull_flag(m, g, p), memory_order_relaxed);
}

bool coll_meet(mpcrt_comm_t *comm, int me, const coll_header_t *desc, unsigned *parity)
{
    return round_of(comm, me, desc, parity, NULL);
}

bool coll_meet_serving(mpcrt_comm_t *comm, int me, const coll_header_t *desc, unsigned *parity,
                       const coll_server_t *server)
{
    return round_of(comm, me, desc, parity, server);
}

void coll_meet_done(mpcrt_comm_t *comm, int me, bool wait)
{
    /* A fused round needs no count: its results stay in the meeting's buffers of its parity, which the
     * last member of the round two later overwrites only once everyone arrived there, so left this one.
     * Every member of a round takes the same path (the round's verdict is shared), so the counts of the
     * pull rounds never mix with them. */
    if (!wait)
        return;
    coll_meet_t *m = coll_meet_of(comm);
    uint32_t gen = m->member[me].gen - 1; /* the round this member just took part in */
    coll_group_t *grp = &m->groups[m->group_of[me]];
    /* acq_rel as in the round: the member that completes the count has every member's reads before it.
     * A member counts out of generation k before it arrives at k + 1, so the counts never mix. */
    if (atomic_fetch_add_explicit(&grp->done, 1, memory_order_acq_rel) + 1 == grp->size) {
        atomic_store_explicit(&grp->done, 0, memory_order_relaxed);
        if (atomic_fetch_add_explicit(&m->top_done, 1, memory_order_acq_rel) + 1 == m->ngroups) {
            atomic_store_explicit(&m->top_done, 0, memory_order_relaxed);
            gate_open(&m->done, gen + 1);
        }
    }
    if (wait)
        gate_wait(&m->done, gen + 1);
}

/* ------------------------------------------------------------------ barrier */

static const coll_fused_t fused_barrier = {NULL, NULL};

int mpcrt_coll_barrier(mpcrt_comm_t *comm)
{
    int me = mpcrt_comm_rank(comm);
    coll_header_t mine = {COLL_BARRIER, 0, 0, NULL, &fused_barrier};
    unsigned parity;
    bool fused = coll_meet(comm, me, &mine, &parity);
    /* A round whose members called other collectives: they may read nothing of ours, but count out. */
    coll_meet_done(comm, me, !fused);
    return MPI_SUCCESS;
}
