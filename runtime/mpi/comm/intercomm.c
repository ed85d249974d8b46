/* Intercommunicators (MPI 4.0 sections 7.6, 7.4.2): creation from two intracommunicators and a peer, merge,
 * remote queries, and the intercommunicator forms of dup, create and split.
 *
 * A pair is two communicator objects, one per side, sharing one context: each side's `group` is its local
 * group and `remote_group` the other side's, so point-to-point needs nothing more than sending to ranks of
 * the remote group (pt2pt/match.c). Both sides also share a `bridge`: an internal intracommunicator over
 * both groups (the first side's members, then the other's), never handed to users, in whose rendezvous the
 * members of both sides meet for operations over the pair; its first member builds for all. */
#include "comm_internal.h"
#include "../group/group.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* Builds a pair over groups a and b (retained): on return *side_a and *side_b each hold one reference.
 * Each side's members start with their error handlers on parent_a / parent_b (NULL: the default).
 * Returns an MPI error class. */
static int make_pair(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_comm_t *parent_a, mpcrt_comm_t *parent_b,
                     mpcrt_comm_t **side_a, mpcrt_comm_t **side_b)
{
    *side_a = *side_b = NULL;
    int *both = malloc(sizeof(int) * (size_t)(a->size + b->size));
    if (!both)
        return MPI_ERR_NO_MEM;
    memcpy(both, a->world, sizeof(int) * (size_t)a->size);
    memcpy(both + a->size, b->world, sizeof(int) * (size_t)b->size);
    mpcrt_group_t *union_group = mpcrt_group_create(both, a->size + b->size);
    free(both);
    if (!union_group)
        return MPI_ERR_NO_MEM;
    mpcrt_comm_t *bridge = mpcrt_comm_create_object(union_group);
    mpcrt_object_release(&union_group->obj); /* the bridge holds it */
    if (!bridge)
        return MPI_ERR_NO_MEM;
    uint32_t context = mpcrt_comm_new_context();
    mpcrt_comm_t *sides[2] = {mpcrt_comm_create_with_context(a, context),
                              mpcrt_comm_create_with_context(b, context)};
    mpcrt_group_t *remote[2] = {b, a};
    mpcrt_comm_t *parents[2] = {parent_a, parent_b};
    int rc = MPI_SUCCESS;
    for (int s = 0; s < 2; s++) {
        if (!sides[s]) {
            rc = MPI_ERR_NO_MEM;
            continue;
        }
        if (parents[s])
            mpcrt_comm_inherit(sides[s], parents[s]);
        mpcrt_object_retain(&remote[s]->obj);
        sides[s]->remote_group = remote[s];
        mpcrt_object_retain(&bridge->obj);
        sides[s]->bridge = bridge;
    }
    mpcrt_object_release(&bridge->obj); /* the sides hold it */
    if (rc) {
        for (int s = 0; s < 2; s++)
            if (sides[s])
                mpcrt_object_release(&sides[s]->obj);
        return rc;
    }
    *side_a = sides[0];
    *side_b = sides[1];
    return MPI_SUCCESS;
}

/* Registers both sides of a new pair (one handle each); on failure releases them. */
static int publish_pair(mpcrt_comm_t *side_a, mpcrt_comm_t *side_b, MPI_Comm handles[2])
{
    int rc = mpcrt_comm_publish(side_a, &handles[0]);
    if (rc) {
        mpcrt_object_release(&side_b->obj);
        return rc;
    }
    rc = mpcrt_comm_publish(side_b, &handles[1]);
    if (rc) {
        mpcrt_handle_free(MPCRT_OBJ_COMM, handles[0]);
        return rc;
    }
    return MPI_SUCCESS;
}

static int build_and_publish(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_comm_t *parent_a, mpcrt_comm_t *parent_b,
                             MPI_Comm handles[2])
{
    mpcrt_comm_t *side_a, *side_b;
    int rc = make_pair(a, b, parent_a, parent_b, &side_a, &side_b);
    return rc ? rc : publish_pair(side_a, side_b, handles);
}

/* ------------------------------------------------------------------ meetings over the pair */

typedef struct {
    mpcrt_comm_t *comm; /* the member's side */
    int side;           /* 0: the bridge's first group, 1: the other */
    int local_rank;
    int color, key;       /* split */
    int high;             /* merge */
    mpcrt_group_t *group; /* create */
    mpcrt_creation_t result;
} pair_entry_t;

typedef void (*pair_build_fn)(mpcrt_comm_t *bridge, pair_entry_t **entries, int n, int first_side_size);

/* Every member of both sides calls this; the bridge's first member runs build with everyone's entry (by
 * bridge rank), then all leave with their entry's result. */
static void meet_pair(mpcrt_comm_t *comm, pair_entry_t *mine, pair_build_fn build)
{
    mpcrt_comm_t *bridge = comm->bridge;
    mine->comm = comm;
    mine->side = mpcrt_intercomm_side(comm);
    mine->local_rank = mpcrt_comm_rank(comm);
    mine->result.rc = MPI_SUCCESS;
    mine->result.handle = MPI_COMM_NULL;
    int me = mpcrt_comm_rank(bridge);
    mpcrt_comm_rendezvous(bridge, me, mine);
    if (me == 0) {
        int first_side_size = mpcrt_comm_size(comm); /* member 0 is on the first side */
        build(bridge, (pair_entry_t **)bridge->contributions, mpcrt_comm_size(bridge), first_side_size);
    }
    mpcrt_comm_rendezvous_done(bridge);
}

static void give_all(pair_entry_t **entries, int n, int rc, const MPI_Comm handles[2])
{
    for (int r = 0; r < n; r++) {
        entries[r]->result.rc = rc;
        entries[r]->result.handle = rc ? MPI_COMM_NULL : handles[entries[r]->side];
    }
}

int mpcrt_intercomm_build(mpcrt_group_t *a, mpcrt_group_t *b, MPI_Comm handles[2])
{
    return build_and_publish(a, b, NULL, NULL, handles);
}

int mpcrt_intercomm_build_dup(mpcrt_comm_t *side_a, mpcrt_comm_t *side_b, MPI_Comm handles[2])
{
    return build_and_publish(side_a->group, side_b->group, side_a, side_b, handles);
}

static void build_dup(mpcrt_comm_t *bridge, pair_entry_t **entries, int n, int first_side_size)
{
    (void)bridge;
    MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    int rc = build_and_publish(entries[0]->comm->group, entries[first_side_size]->comm->group, entries[0]->comm,
                               entries[first_side_size]->comm, handles);
    give_all(entries, n, rc, handles);
}

int mpcrt_intercomm_dup(mpcrt_comm_t *comm, MPI_Comm *newcomm)
{
    if (!comm->bridge->local)
        return mpcrt_intercomm_procs_op(comm, MPCRT_PAIR_DUP, 0, 0, 0, NULL, newcomm);
    pair_entry_t mine = {0};
    meet_pair(comm, &mine, build_dup);
    *newcomm = mine.result.handle;
    return mine.result.rc;
}

static void build_create(mpcrt_comm_t *bridge, pair_entry_t **entries, int n, int first_side_size)
{
    (void)bridge;
    mpcrt_group_t *a = entries[0]->group, *b = entries[first_side_size]->group;
    MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    int rc = MPI_SUCCESS;
    for (int r = 0; r < n && rc == MPI_SUCCESS; r++)
        if (mpcrt_group_compare(entries[r]->group, entries[r]->side ? b : a) != MPI_IDENT)
            rc = MPI_ERR_GROUP; /* the members of one side must all give the same group */
    /* An empty group on either side leaves nobody to talk to: MPI_COMM_NULL everywhere. */
    if (rc == MPI_SUCCESS && a->size > 0 && b->size > 0)
        rc = build_and_publish(a, b, entries[0]->comm, entries[first_side_size]->comm, handles);
    for (int r = 0; r < n; r++) {
        mpcrt_group_t *g = entries[r]->side ? b : a;
        bool member = g->size > 0 && mpcrt_group_rank_of(g, entries[r]->comm->group->world[entries[r]->local_rank]) !=
                                         MPI_UNDEFINED;
        entries[r]->result.rc = rc;
        entries[r]->result.handle = rc == MPI_SUCCESS && member ? handles[entries[r]->side] : MPI_COMM_NULL;
    }
}

/* MPI_Comm_create on an intercommunicator: group is a subgroup of the caller's local group. */
int mpcrt_intercomm_create_from(mpcrt_comm_t *comm, mpcrt_group_t *group, MPI_Comm *newcomm)
{
    if (!comm->bridge->local)
        return mpcrt_intercomm_procs_op(comm, MPCRT_PAIR_CREATE, 0, 0, 0, group, newcomm);
    pair_entry_t mine = {0};
    mine.group = group;
    meet_pair(comm, &mine, build_create);
    *newcomm = mine.result.handle;
    return mine.result.rc;
}

static int by_color_side_key(const void *x, const void *y)
{
    const pair_entry_t *a = *(pair_entry_t *const *)x, *b = *(pair_entry_t *const *)y;
    if (a->color != b->color)
        return a->color < b->color ? -1 : 1;
    if (a->side != b->side)
        return a->side - b->side;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->local_rank > b->local_rank) - (a->local_rank < b->local_rank);
}

/* One pair per color present on both sides, each side ordered by (key, old local rank); members of a color
 * present on one side only get MPI_COMM_NULL (MPI 4.0 section 7.4.2, MPI_COMM_SPLIT). */
static void build_split(mpcrt_comm_t *bridge, pair_entry_t **entries, int n, int first_side_size)
{
    (void)bridge;
    pair_entry_t **order = malloc(sizeof *order * (size_t)n);
    int *world = malloc(sizeof *world * (size_t)n);
    if (!order || !world) {
        free(order);
        free(world);
        for (int r = 0; r < n; r++)
            entries[r]->result.rc = MPI_ERR_NO_MEM;
        return;
    }
    memcpy(order, entries, sizeof *order * (size_t)n);
    qsort(order, (size_t)n, sizeof *order, by_color_side_key);
    for (int first = 0; first < n;) {
        int last = first, mid;
        while (last < n && order[last]->color == order[first]->color)
            last++;
        for (mid = first; mid < last && order[mid]->side == 0; mid++)
            ;
        if (order[first]->color != MPI_UNDEFINED && mid > first && mid < last) {
            mpcrt_group_t *groups[2] = {NULL, NULL};
            int bounds[3] = {first, mid, last};
            for (int s = 0; s < 2; s++) {
                for (int i = bounds[s]; i < bounds[s + 1]; i++)
                    world[i - bounds[s]] = order[i]->comm->group->world[order[i]->local_rank];
                groups[s] = mpcrt_group_create(world, bounds[s + 1] - bounds[s]);
            }
            MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
            int rc = groups[0] && groups[1] ? build_and_publish(groups[0], groups[1], entries[0]->comm,
                                                                entries[first_side_size]->comm, handles)
                                            : MPI_ERR_NO_MEM;
            for (int s = 0; s < 2; s++)
                if (groups[s])
                    mpcrt_object_release(&groups[s]->obj); /* the pair holds them */
            for (int i = first; i < last; i++) {
                order[i]->result.rc = rc;
                order[i]->result.handle = rc ? MPI_COMM_NULL : handles[order[i]->side];
            }
        }
        first = last;
    }
    free(order);
    free(world);
}

int mpcrt_intercomm_split(mpcrt_comm_t *comm, int color, int key, MPI_Comm *newcomm)
{
    if (!comm->bridge->local)
        return mpcrt_intercomm_procs_op(comm, MPCRT_PAIR_SPLIT, color, key, 0, NULL, newcomm);
    pair_entry_t mine = {0};
    mine.color = color;
    mine.key = key;
    meet_pair(comm, &mine, build_split);
    *newcomm = mine.result.handle;
    return mine.result.rc;
}

/* The low group first (MPI 4.0 section 7.6.2); equal choices keep the bridge's order, so that every
 * member sees the same order. */
static void build_merge(mpcrt_comm_t *bridge, pair_entry_t **entries, int n, int first_side_size)
{
    mpcrt_group_t *a = entries[0]->comm->group, *b = entries[first_side_size]->comm->group;
    int high_a = entries[0]->high, high_b = entries[first_side_size]->high;
    MPI_Comm handle = MPI_COMM_NULL;
    int rc = MPI_SUCCESS;
    mpcrt_group_t *group = bridge->group; /* already a then b */
    mpcrt_object_retain(&group->obj);
    if (high_a && !high_b) {
        mpcrt_object_release(&group->obj);
        rc = mpcrt_group_union(b, a, &group) ? MPI_ERR_NO_MEM : MPI_SUCCESS;
    }
    if (rc == MPI_SUCCESS) {
        mpcrt_comm_t *made = mpcrt_comm_create_object(group);
        if (made) { /* each member keeps its handler: the two sides together cover the merged group */
            mpcrt_comm_inherit(made, entries[0]->comm);
            mpcrt_comm_inherit(made, entries[first_side_size]->comm);
        }
        rc = mpcrt_comm_publish(made, &handle);
        mpcrt_object_release(&group->obj);
    }
    for (int r = 0; r < n; r++) {
        entries[r]->result.rc = rc;
        entries[r]->result.handle = handle;
    }
}

/* ------------------------------------------------------------------ API */

/* kind: 1 intercommunicators only, -1 intracommunicators only, 0 either. */
static int check_comm(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, int kind)
{
    int me;
    int rc = mpcrt_comm_arg(fn, handle, comm, &me);
    if (rc)
        return rc;
    if (kind > 0 && !(*comm)->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COMM, "not an intercommunicator");
    if (kind < 0 && (*comm)->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COMM, "an intercommunicator is not allowed here");
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm handle, int *size)
{
    mpcrt_comm_t *comm;
    int rc = check_comm("MPI_Comm_remote_size", handle, &comm, 1);
    if (rc)
        return rc;
    if (!size)
        return mpcrt_mpi_error(handle, "MPI_Comm_remote_size", MPI_ERR_ARG, "null output argument");
    *size = comm->remote_group->size;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_remote_size)

int PMPI_Comm_remote_group(MPI_Comm handle, MPI_Group *group)
{
    mpcrt_comm_t *comm;
    int rc = check_comm("MPI_Comm_remote_group", handle, &comm, 1);
    if (rc)
        return rc;
    if (!group)
        return mpcrt_mpi_error(handle, "MPI_Comm_remote_group", MPI_ERR_ARG, "null output argument");
    mpcrt_object_retain(&comm->remote_group->obj);
    if (mpcrt_handle_register(&comm->remote_group->obj, group) != 0) {
        mpcrt_object_release(&comm->remote_group->obj);
        return mpcrt_mpi_error(handle, "MPI_Comm_remote_group", MPI_ERR_NO_MEM, "no memory for a group handle");
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_remote_group)

int PMPI_Intercomm_merge(MPI_Comm handle, int high, MPI_Comm *newintracomm)
{
    mpcrt_comm_t *comm;
    int rc = check_comm("MPI_Intercomm_merge", handle, &comm, 1);
    if (rc)
        return rc;
    if (!newintracomm)
        return mpcrt_mpi_error(handle, "MPI_Intercomm_merge", MPI_ERR_ARG, "null output argument");
    pair_entry_t mine = {0};
    mine.high = high != 0;
    if (!comm->bridge->local)
        mine.result.rc = mpcrt_intercomm_procs_op(comm, MPCRT_PAIR_MERGE, 0, 0, high, NULL, &mine.result.handle);
    else
        meet_pair(comm, &mine, build_merge);
    if (mine.result.rc)
        return mpcrt_comm_not_created(handle, "MPI_Intercomm_merge", mine.result.rc, newintracomm);
    *newintracomm = mine.result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Intercomm_merge)

/* ------------------------------------------------------------------ MPI_Intercomm_create */

/* A blocking exchange of ints with rank `peer_rank` of `peer` (point-to-point context, the user's tag, as
 * MPI 4.0 section 7.6.2 says the leaders communicate). Returns an MPI error class. */
static int exchange(mpcrt_comm_t *peer, int peer_rank, int tag, const int *out, int nout, int *in, int nin)
{
    mpcrt_datatype_t *ints = mpcrt_datatype_get(MPI_INT);
    mpcrt_request_t send, recv;
    memset(&send, 0, sizeof send);
    memset(&recv, 0, sizeof recv);
    mpcrt_request_t *reqs[2] = {&recv, &send};
    for (int i = 0; i < 2; i++) {
        mpcrt_request_t *req = reqs[i];
        req->kind = i ? MPCRT_REQ_SEND : MPCRT_REQ_RECV;
        req->owner = mpcrt_ult_self();
        mpcrt_request_describe(req, i ? (const void *)out : in, i ? nout : nin, ints, peer, peer->context,
                               peer_rank, tag, MPCRT_SEND_STANDARD);
    }
    int rc = mpcrt_pt2pt_start_recv(&recv);
    if (rc)
        return rc;
    rc = mpcrt_pt2pt_start_send(&send);
    mpcrt_request_wait(&recv);
    if (rc)
        return rc;
    mpcrt_request_wait(&send);
    return recv.status.MPI_ERROR;
}

typedef struct {
    int rc;
    MPI_Comm handle; /* the pair was built in this process (every member of both groups is here) */
    /* Otherwise (members in several processes) each member builds its side: the agreed contexts, whether
     * its group is the bridge's first, and the remote group (one reference per member's result). */
    bool procs;
    uint32_t base;
    bool first;
    mpcrt_group_t *remote;
} leader_result_t;

/* The local leader's part: swap group lists with the remote leader. When both groups live in this process,
 * the leader with the lower MPI_COMM_WORLD rank builds the pair and sends the other side's handle (handles
 * are process-wide). Otherwise the leaders swap their groups' context proposals (`proposal`: the largest of
 * the local group's, 0 to take one from this process) and each member builds its own side. */
static int leaders_build(mpcrt_comm_t *local, mpcrt_comm_t *peer, int remote_leader, int tag, uint32_t proposal,
                         leader_result_t *res)
{
    int my_size = mpcrt_comm_size(local), their_size = -1;
    int rc = exchange(peer, remote_leader, tag, &my_size, 1, &their_size, 1);
    if (rc)
        return rc;
    int *their_world = malloc(sizeof(int) * (size_t)(their_size > 0 ? their_size : 1));
    if (!their_world)
        return MPI_ERR_NO_MEM;
    rc = exchange(peer, remote_leader, tag, local->group->world, my_size, their_world, their_size);
    int my_world = mpcrt_mpi_world_rank();
    int their_leader_world = mpcrt_comm_peer_group(peer)->world[remote_leader];
    bool builder = my_world < their_leader_world;
    mpcrt_group_t *remote = rc == MPI_SUCCESS ? mpcrt_group_create(their_world, their_size) : NULL;
    free(their_world);
    if (rc)
        return rc;
    int verdict = MPI_SUCCESS; /* the groups must be disjoint */
    if (!remote) {
        verdict = MPI_ERR_NO_MEM;
    } else {
        mpcrt_group_t *overlap = NULL;
        if (mpcrt_group_intersection(local->group, remote, &overlap))
            verdict = MPI_ERR_NO_MEM;
        else if (overlap->size > 0)
            verdict = MPI_ERR_ARG;
        if (overlap)
            mpcrt_object_release(&overlap->obj);
    }
    /* Both leaders see the same answer: they are in one process when every member is. */
    bool here = remote && mpcrt_group_is_local(local->group) && mpcrt_group_is_local(remote);
    if (!here) {
        if (!proposal)
            proposal = mpcrt_comm_context_propose(2);
        int out[2] = {verdict, (int)proposal}, in[2] = {MPI_SUCCESS, 0};
        rc = exchange(peer, remote_leader, tag, out, 2, in, 2);
        res->procs = true;
        res->base = (uint32_t)in[1] > proposal ? (uint32_t)in[1] : proposal;
        res->first = builder;
        res->remote = remote;
        return rc ? rc : verdict ? verdict : in[0];
    }
    int message[2] = {verdict, MPI_COMM_NULL}; /* the builder's verdict and the other side's handle */
    if (builder) {
        MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
        if (message[0] == MPI_SUCCESS) /* the other leader makes its side inherit (below) */
            message[0] = build_and_publish(local->group, remote, local, NULL, handles);
        res->handle = handles[0];
        message[1] = handles[1];
        int ignored[2];
        rc = exchange(peer, remote_leader, tag, message, 2, ignored, 2);
    } else {
        int none[2] = {MPI_SUCCESS, MPI_COMM_NULL};
        rc = exchange(peer, remote_leader, tag, none, 2, message, 2);
        res->handle = message[1];
        /* Our side's members do not use it before we hand it out: set their error handlers first. */
        mpcrt_comm_t *side = rc == MPI_SUCCESS && message[0] == MPI_SUCCESS ? mpcrt_comm_get(res->handle) : NULL;
        if (side)
            mpcrt_comm_inherit(side, local);
    }
    mpcrt_object_release(&remote->obj);
    return rc ? rc : message[0];
}

enum { TAG_IC_UP = -67, TAG_IC_DOWN = -68, TAG_IC_GROUP = -69 }; /* on the local group's collective context */

/* MPI_Intercomm_create when the local group lives in several processes: the members send their context
 * proposals to the leader, which answers each with the result (rc, contexts, side, remote group). */
static int create_spanning(mpcrt_comm_t *local, int me, int local_leader, mpcrt_comm_t *peer, int remote_leader,
                           int tag, leader_result_t *res)
{
    mpcrt_datatype_t *ints = mpcrt_datatype_get(MPI_INT);
    int n = mpcrt_comm_size(local), rc;
    int proposal = (int)mpcrt_comm_context_propose(2);
    int head[4] = {MPI_SUCCESS, 0, 0, 0}; /* rc, base, first, remote size */
    if (me != local_leader) {
        rc = mpcrt_p2p_sendrecv(local, TAG_IC_UP, &proposal, 1, ints, local_leader, head, 4, ints, local_leader);
        int *world = malloc(sizeof(int) * (size_t)(head[3] > 0 ? head[3] : 1));
        if (!world)
            return MPI_ERR_NO_MEM; /* the leader's message stays unmatched: the job is broken anyway */
        if (rc == MPI_SUCCESS)
            rc = mpcrt_p2p_sendrecv(local, TAG_IC_GROUP, NULL, 0, ints, MPI_PROC_NULL, world, head[3], ints,
                                    local_leader);
        if (rc == MPI_SUCCESS && head[0] == MPI_SUCCESS && !(res->remote = mpcrt_group_create(world, head[3])))
            rc = MPI_ERR_NO_MEM;
        free(world);
        res->procs = true;
        res->base = (uint32_t)head[1];
        res->first = head[2];
        return rc ? rc : head[0];
    }
    uint32_t largest = (uint32_t)proposal;
    for (int r = 0; r < n; r++) {
        int theirs = 0;
        if (r == me)
            continue;
        if ((rc = mpcrt_p2p_sendrecv(local, TAG_IC_UP, NULL, 0, ints, MPI_PROC_NULL, &theirs, 1, ints, r)))
            return rc;
        if ((uint32_t)theirs > largest)
            largest = (uint32_t)theirs;
    }
    int result = leaders_build(local, peer, remote_leader, tag, largest, res);
    head[0] = result;
    head[1] = (int)res->base;
    head[2] = res->first;
    head[3] = result == MPI_SUCCESS ? res->remote->size : 0;
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        rc = mpcrt_p2p_sendrecv(local, TAG_IC_UP, head, 4, ints, r, NULL, 0, ints, MPI_PROC_NULL);
        if (rc == MPI_SUCCESS)
            rc = mpcrt_p2p_sendrecv(local, TAG_IC_GROUP, result == MPI_SUCCESS ? res->remote->world : NULL,
                                    head[3], ints, r, NULL, 0, ints, MPI_PROC_NULL);
        if (rc)
            return rc;
    }
    return result;
}

int PMPI_Intercomm_create(MPI_Comm local_handle, int local_leader, MPI_Comm peer_handle, int remote_leader,
                          int tag, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create";
    mpcrt_comm_t *local, *peer = NULL;
    int rc = check_comm(fn, local_handle, &local, -1);
    if (rc)
        return rc;
    if (!newintercomm)
        return mpcrt_mpi_error(local_handle, fn, MPI_ERR_ARG, "null output argument");
    int size = mpcrt_comm_size(local);
    if (local_leader < 0 || local_leader >= size)
        return mpcrt_mpi_error(local_handle, fn, MPI_ERR_RANK, "local leader %d is not in [0, %d)", local_leader,
                               size);
    if (tag < 0 || tag > MPCRT_TAG_UB)
        return mpcrt_mpi_error(local_handle, fn, MPI_ERR_TAG, "invalid tag %d", tag);
    int me = mpcrt_comm_rank(local);
    if (me == local_leader) {
        /* peer_comm and remote_leader are significant only at the local leader. */
        if ((rc = check_comm(fn, peer_handle, &peer, 0)))
            return rc;
        int peer_size = mpcrt_comm_peer_group(peer)->size;
        if (remote_leader < 0 || remote_leader >= peer_size)
            return mpcrt_mpi_error(peer_handle, fn, MPI_ERR_RANK, "remote leader %d is not in [0, %d)",
                                   remote_leader, peer_size);
    }
    leader_result_t mine = {MPI_SUCCESS, MPI_COMM_NULL, false, 0, false, NULL};
    if (!local->local) {
        mine.rc = create_spanning(local, me, local_leader, peer, remote_leader, tag, &mine);
    } else {
        mpcrt_comm_rendezvous(local, me, &mine);
        if (me == local_leader) {
            leader_result_t result = {MPI_SUCCESS, MPI_COMM_NULL, false, 0, false, NULL};
            result.rc = leaders_build(local, peer, remote_leader, tag, 0, &result);
            for (int r = 0; r < size; r++) {
                leader_result_t *to = local->contributions[r];
                *to = result;
                if (to->remote && r != me)
                    mpcrt_object_retain(&to->remote->obj);
            }
        }
        mpcrt_comm_rendezvous_done(local);
    }
    if (mine.procs && mine.rc == MPI_SUCCESS) { /* this member's own side of the pair */
        mine.rc = mpcrt_intercomm_procs_side(local->group, mine.remote, mine.first, mine.base, local, &mine.handle);
    }
    if (mine.remote)
        mpcrt_object_release(&mine.remote->obj);
    if (mine.rc == MPI_ERR_ARG)
        return mpcrt_mpi_error(local_handle, fn, MPI_ERR_ARG, "the local and remote groups overlap");
    if (mine.rc)
        return mpcrt_comm_not_created(local_handle, fn, mine.rc, newintercomm);
    *newintercomm = mine.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Intercomm_create)
