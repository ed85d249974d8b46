/* The in-process phase of collectives (DESIGN.md section 4): the members of a communicator that live in this
 * process meet through shared memory, with no messages. Arrival is two-level, following where ranks run:
 * members whose ranks share a home VP form a group (they never run at once, so their counter stays in one
 * core's cache); the last member of a group to arrive represents it at the top; the last group to arrive
 * opens the top gate, and each representative opens its group's gate. Waiters park (32 ranks on a core
 * must let each other arrive). A round costs one atomic increment per member on its core's line, one per
 * group on the shared line and one cross-core wake-up per group. With few groups in rank order (a mesh,
 * coll_meet_t.mesh) the top level is flags instead: each representative stamps its group's line and reads
 * the others'.
 *
 * Each collective call is one round followed by a done phase:
 * - fused collectives (small messages, fused.c) attach work to the round: the last member of a group
 *   works over its members (they are all waiting, so their descriptors and buffers are valid), the last
 *   member overall finishes; results go to buffers of the meeting, read by every member after the release
 *   (one copy out each, in parallel). Their done phase does not wait.
 * - pull collectives (the others, and any round whose members disagree) read their peers' buffers in place
 *   after the release, then wait in the done phase until every member has finished reading.
 * A round whose members disagree (different collectives, roots, amounts, operations: erroneous programs)
 * or whose work failed runs no fused work: every member takes its collective's pull path, which reports
 * the error as the member sees it. Every call is one round and one done phase, so the rounds stay aligned
 * whatever the members called. */
#ifndef MPCRT_MPI_COLL_MEET_H
#define MPCRT_MPI_COLL_MEET_H

#include "coll_internal.h"

#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>

/* A gate: ULTs (or kernel threads) wait until a generation is over. */
typedef struct {
    _Atomic int guard;       /* protects head */
    _Atomic uint32_t opened; /* generations over (wraps) */
    mpcrt_waiter_t *head;
} coll_gate_t;

/* Memory grown on demand, written by one member of a generation (its owner at that point). */
typedef struct {
    void *p;
    size_t cap;
} coll_buf_t;

/* A group's arrival at a round of a mesh meeting (see coll_meet_t.mesh), one per generation parity: what
 * the other groups' representatives need to agree with it, copied from its descriptor, since its members
 * may leave before they have read it. Written by the group's representative before it stamps `gen`; the
 * parity's next write is two rounds later, once every group arrived at the round between. */
typedef struct {
    alignas(64) _Atomic uint32_t gen; /* the round's generation + 1 once the group arrived there */
    bool failed;                      /* the group's members disagree, or its work failed: everyone pulls */
    uint32_t kind;
    int root;
    MPI_Count bytes;
    const struct coll_fused *fused;
    int op_index; /* -1: no operation */
    MPI_User_function *op_fn;
    MPI_User_function_c *op_fn_c;
} coll_arrival_t;

typedef struct {
    alignas(64) _Atomic int arrived;
    _Atomic int done;
    int size;  /* members in the group */
    int first; /* index into coll_meet_t.members of the group's first member */
    coll_gate_t gate;
    /* Written by the group's last member of a generation (parity = generation % 2), read by everyone
     * after the release: a member can start generation k + 2 only once every member left generation k.
     * A line of their own: the other groups' members read them while this group's arrive on `arrived`. */
    alignas(64) coll_buf_t buf[2];
} coll_group_t;

/* What a group of a mesh meeting has besides its coll_group_t (which stays one line: its members' counter,
 * gate and buffers): its arrival lines, and the round's result as its representative computed it with its
 * verdict (true: every member pulls), read by the group's members after their gate. */
typedef struct {
    coll_arrival_t arrival[2];
    coll_buf_t result[2];
    _Atomic bool pull[2];
} coll_mesh_group_t;

typedef struct {
    alignas(64) uint32_t gen; /* rounds this member took part in */
    /* Its group has no other member: no counter, no gate. Here rather than read from the group's line,
     * whose counter the members take exclusively: a read first made that two transfers. */
    bool alone;
    _Atomic uint32_t arrived; /* gen + 1 once it published its descriptor for round gen */
    coll_buf_t stage[2];      /* written by this member before it arrives, read by the others after */
    MPI_Count staged[2];      /* bytes in stage */
} coll_member_t;

/* Broadcasts of meetings of at most COLL_BRING_MEMBERS members, each alone on its core, skip the meeting
 * (bcast_ring.c): the root fills the next of its COLL_BRING_SLOTS slots (up to COLL_BRING_BYTES packed,
 * else the slot points to its buffer) and the others copy out of it. */
enum { COLL_BRING_SLOTS = 8, COLL_BRING_BYTES = 512, COLL_BRING_MEMBERS = 4 };
typedef struct coll_bring coll_bring_t;
coll_bring_t *coll_bring_create(int n); /* NULL: too many members (or out of memory): broadcasts meet */
void coll_bring_free(coll_bring_t *r);
/* The broadcast of member me, which believes `root` is the root, into or out of *view: its result. */
int coll_bring_bcast(coll_bring_t *r, int me, int root, const coll_view_t *view);

typedef struct coll_meet {
    int n, ngroups;
    coll_bring_t *bring; /* NULL: broadcasts meet */
    /* Every group is a run of consecutive comm ranks and groups follow rank order: partial results of
     * groups combined in group order are in rank order (non-commutative reductions). */
    bool ordered;
    /* Few groups, ordered: instead of a shared counter and a gate opened by the last group, each group's
     * representative stamps its own arrival line and reads the others', then does the top work itself
     * for its group (the same work, in the same order, as every other representative). Two groups then
     * meet in about one line transfer each way, in parallel, instead of two increments of one line in
     * turn and the gate's. */
    bool mesh;
    coll_mesh_group_t *mesh_groups; /* by group, when mesh */
    int *group_of;                  /* by comm rank */
    int *members;                   /* comm ranks, group by group */
    coll_group_t *groups;
    coll_member_t *member;
    alignas(64) _Atomic int top_arrived;
    _Atomic int top_done;
    /* The gates on lines of their own: a member spinning on the top gate would otherwise pull the line
     * that the last arrival must take for its increment, and then again for the opening. */
    alignas(64) coll_gate_t top;
    alignas(64) coll_gate_t done;
    /* Serving members asleep until a peer arrives (coll_meet_serving): arrivals wake them. */
    alignas(64) _Atomic int watching;
    coll_gate_t arrivals;
    coll_buf_t result[2]; /* written by the last member of a generation */
    _Atomic bool pull[2]; /* the generation's fused work did not run: every member pulls */
} coll_meet_t;

/* Work of a fused collective (see above). Both return false when they could not do it (out of memory):
 * the generation then takes the pull path. */
typedef struct coll_fused {
    bool (*group)(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine);
    /* Writes coll_meet_result(m, g, parity) (g: the caller's group), reading only the groups' buffers
     * when the meeting is a mesh (other groups' members may have left); in a mesh it must not fail
     * once the result buffer holds mine->bytes (the meeting reserves it before the round). */
    bool (*top)(mpcrt_comm_t *comm, coll_meet_t *m, int g, unsigned parity, const coll_header_t *mine);
} coll_fused_t;

/* Makes the communicator's meeting state (or takes the one a racing member installed first). */
coll_meet_t *coll_meet_make(mpcrt_comm_t *comm);
/* The communicator's meeting state (made on first use). Inline: every collective call asks for it several
 * times, and with the maker inlined the compiler saved six registers on each call. */
static inline coll_meet_t *coll_meet_of(mpcrt_comm_t *comm)
{
    /* acquire: the state's fields as its maker wrote them. */
    coll_meet_t *m = atomic_load_explicit(&comm->coll_state, memory_order_acquire);
    return m ? m : coll_meet_make(comm);
}
/* Where the top work of a generation puts its result, for the members of group g. */
static inline coll_buf_t *coll_meet_result(coll_meet_t *m, int g, unsigned parity)
{
    return m->mesh ? &m->mesh_groups[g].result[parity] : &m->result[parity];
}
/* The parity of the member's next round (its staging buffer before it arrives). */
static inline unsigned coll_next_parity(const coll_meet_t *m, int me)
{
    return m->member[me].gen & 1;
}

/* The round: publishes desc as comm->contributions[me], arrives, runs the fused work that falls to this
 * member, and returns once every member arrived: true when the fused work ran (desc->fused set and every
 * member agreed), false when the caller must pull. *parity names the generation's buffers. */
bool coll_meet(mpcrt_comm_t *comm, int me, const coll_header_t *desc, unsigned *parity);
/* Arrival-pattern-aware pulls (Qian 2010, chapter 6; in one process, arrival is a published descriptor):
 * the same round, but while the member waits for the others to arrive it serves the peers that already
 * have, first come first served: serve(arg) pulls from every peer that coll_peer_arrived reports and it has
 * not served yet, and returns whether it found one. The member sleeps only when no new peer arrived. */
typedef struct {
    bool (*serve)(void *arg);
    void *arg;
    const bool *served; /* served[q]: serve() took peer q's part; the meeting waits for arrivals not served */
} coll_server_t;
bool coll_meet_serving(mpcrt_comm_t *comm, int me, const coll_header_t *desc, unsigned *parity,
                       const coll_server_t *server);
/* Whether peer q has arrived at the round member `me` is in (its descriptor is published and stays valid
 * until its done phase). */
static inline bool coll_peer_arrived(const coll_meet_t *m, int me, int q)
{
    /* acquire: the peer's descriptor, published before this stamp. */
    return atomic_load_explicit(&((coll_meet_t *)m)->member[q].arrived, memory_order_acquire) ==
           m->member[me].gen;
}

/* The done phase, after the round: wait = true (pull) returns once every member has called it, so peers no
 * longer read this member's buffers; wait = false (fused) does nothing (see coll_meet_done). */
void coll_meet_done(mpcrt_comm_t *comm, int me, bool wait);

/* Grows b to at least bytes (contents not kept); false when out of memory. */
bool coll_buf_reserve(coll_buf_t *b, size_t bytes);

#endif
