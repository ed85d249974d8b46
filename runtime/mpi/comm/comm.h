/* Communicators and groups: the objects behind MPI_Comm and MPI_Group handles. In thread mode a
 * communicator object is shared by all its member ranks of the process (one handle value for all), and each
 * member finds its rank in it from its MPI_COMM_WORLD rank. Members synchronize through the communicator's
 * rendezvous (shared memory, no messages): the basis of communicator creation and of the in-process phase of
 * collectives. */
#ifndef MPCRT_MPI_COMM_H
#define MPCRT_MPI_COMM_H

#include "../core/handle.h"
#include "../mpi_internal.h"
#include "../../threads/sched.h"

#include <stdint.h>

typedef struct mpcrt_group {
    mpcrt_object_t obj;
    int size;
    int *world;               /* world rank of each member, by group rank */
    int *_Atomic rank_of_world; /* inverse map (MPI_UNDEFINED for non-members), built on first use */
} mpcrt_group_t;

struct mpcrt_errhandler;
struct mpcrt_attr;
struct mpcrt_info;

/* What MPI makes local to each process's handle of a communicator: its error handler, attributes and info
 * hints. In thread mode the member ranks of a process share the object (and the handle value), so each
 * member has its own slot, by comm rank, written only by that rank's threads (and, before the handle is
 * published, by the member that creates the communicator: mpcrt_comm_inherit). */
typedef struct mpcrt_comm_member {
    /* A line per member: each rank writes its coll_seq in every non-blocking collective call, and two
     * members in one line (48 bytes each, as calloc placed them) passed it between two computing ranks'
     * cores on every call. */
    _Alignas(64) _Atomic(struct mpcrt_errhandler *) errhandler; /* errhan/: never NULL, holds a reference */
    bool errhandler_set;      /* set by MPI_Comm_set_errhandler (see core/errors.c for MPI_COMM_SELF) */
    struct mpcrt_attr *attrs; /* attr/: this member's attributes, newest first */
    struct mpcrt_info *hints; /* info/: MPI_Comm_set_info hints; NULL when none were set */
    char *name;               /* MPI_Comm_set_name's; NULL: the communicator's default name */
    /* Collective calls this member made through schedules (runtime/mpi/nbc): the k-th of every member
     * matches, so the count names the call in message tags. */
    uint32_t coll_seq;
    /* MPI_Comm_free'd by this member. The handle stays valid until every member freed it (one object per
     * process), so calls that check the caller's membership also refuse a member that freed it. */
    bool freed;
} mpcrt_comm_member_t;

typedef struct mpcrt_comm {
    mpcrt_object_t obj;
    uint32_t context; /* point-to-point matching context; context + 1 is the collectives' */
    /* One object shared by every member, all ranks of this process: members meet in its rendezvous.
     * Otherwise (members in several processes) each member has an object of its own, and collectives and
     * creations go by messages (coll/procs.c, comm/procs.c). */
    bool local;
    mpcrt_group_t *group;
    mpcrt_group_t *remote_group; /* intercommunicators only: point-to-point peers are its ranks */
    /* Intercommunicators only (comm/intercomm.c): an internal intracommunicator over both groups, shared by
     * the two sides' objects (each side has its own object: its `group` is its local group, and both share
     * `context`); creations over the pair (dup, create, split, merge) meet in its rendezvous. */
    struct mpcrt_comm *bridge;
    /* Virtual topology (runtime/mpi/topo), NULL if none; immutable, shared by duplicates, released with
     * the communicator. */
    mpcrt_object_t *topo;
    /* Nonblocking creations (MPI_Comm_idup) begun on this communicator and not matched by every member yet
     * (comm/idup.c); NULL until the first. Freed with the communicator. */
    struct mpcrt_comm_pending *_Atomic pending;
    _Atomic int handle_holders;  /* members that have not freed their handle yet */
    mpcrt_comm_member_t *members; /* by comm rank (local group) */
    char name[MPI_MAX_OBJECT_NAME]; /* the default name (predefined communicators), "" otherwise */
    /* Rendezvous of the members (see mpcrt_comm_rendezvous). */
    mpcrt_barrier_t barrier;
    void **contributions; /* by comm rank */
    void *shared_result;  /* written by one member between the two barriers of a creation */
    /* State of the in-process phase of collectives (coll/meet.c): made by the first collective that needs
     * it, freed with the communicator by coll_state_free. The comm module does not look inside. */
    void *_Atomic coll_state;
    void (*coll_state_free)(void *state);
} mpcrt_comm_t;

/* The calling rank's MPI_COMM_SELF (one object per rank: the predefined handle names a different group in
 * every rank). */
mpcrt_comm_t *mpcrt_comm_self(void);

/* The communicator named by a handle, or NULL (MPI_ERR_COMM). */
static inline mpcrt_comm_t *mpcrt_comm_get(MPI_Comm handle)
{
    if (handle == MPI_COMM_SELF)
        return mpcrt_comm_self();
    return (mpcrt_comm_t *)mpcrt_handle_lookup(MPCRT_OBJ_COMM, handle);
}
static inline mpcrt_group_t *mpcrt_group_get(MPI_Group handle)
{
    return (mpcrt_group_t *)mpcrt_handle_lookup(MPCRT_OBJ_GROUP, handle);
}

static inline int mpcrt_comm_size(const mpcrt_comm_t *comm)
{
    return comm->group->size;
}
/* The group point-to-point ranks name: the remote group of an intercommunicator, else the group. */
static inline mpcrt_group_t *mpcrt_comm_peer_group(const mpcrt_comm_t *comm)
{
    /* Expected: gcc otherwise laid an intracommunicator's case out of line, two jumps per send. */
    return __builtin_expect(comm->remote_group != NULL, 0) ? comm->remote_group : comm->group;
}

/* The rank of world rank w in the group, MPI_UNDEFINED if it is not a member. */
int mpcrt_group_rank_of(mpcrt_group_t *group, int world_rank);
/* The caller's rank in comm (MPI_UNDEFINED if the caller is not a member). */
int mpcrt_comm_rank_slow(mpcrt_comm_t *comm);
static inline int mpcrt_comm_rank(mpcrt_comm_t *comm)
{
    /* Inline: every send asks. A rank's TLS world rank indexes the group's inverse map once it is built;
     * a kernel thread that is no rank's, or a map not built yet, takes the call. */
    int w = mpcrt_self_rank();
    /* acquire: pairs with the release that published the map (mpcrt_group_rank_of). */
    int *map = atomic_load_explicit(&comm->group->rank_of_world, memory_order_acquire);
    return map && w >= 0 ? map[w] : mpcrt_comm_rank_slow(comm);
}
/* The same for a caller that knows it is a rank, of world rank w >= 0 (the latency path read it once). */
static inline int mpcrt_comm_rank_of(mpcrt_comm_t *comm, int w)
{
    int *map = atomic_load_explicit(&comm->group->rank_of_world, memory_order_acquire); /* as above */
    return map ? map[w] : mpcrt_comm_rank_slow(comm);
}

/* New group of `size` members (world ranks copied); one reference. NULL when out of memory. */
mpcrt_group_t *mpcrt_group_create(const int *world, int size);

/* A new intracommunicator over group (retained) with a fresh context, one reference per member. NULL when
 * out of memory or of contexts. */
mpcrt_comm_t *mpcrt_comm_create_object(mpcrt_group_t *group);
/* A fresh pair of contexts (point-to-point, collectives), unique in the job (context.c), or
 * MPCRT_CONTEXT_EXHAUSTED when this process has handed out all of its share. */
uint32_t mpcrt_comm_new_context(void);
/* No context: every id handed out is below it, and a communicator is never created with it or anything
 * above (NULL). It is odd, so no id is it, and as an int it is INT_MAX: every "largest proposal" agreement
 * picks it whenever one member's process has run out, so all members fail together. */
#define MPCRT_CONTEXT_EXHAUSTED 0x7fffffffu
/* The first context of the process-local range (context.c). */
#define MPCRT_CONTEXT_LOCAL_FIRST 0x40000000u
/* A fresh pair from this process's own range: for a communicator whose members are all ranks of this
 * process and that no other process ever addresses. */
uint32_t mpcrt_comm_new_local_context(void);
/* mpcrt_comm_create_object with such a context; NULL only when out of memory. */
mpcrt_comm_t *mpcrt_comm_create_process_local(mpcrt_group_t *group);
/* A creation that failed without a more precise reason (out of memory or of context ids; class rc, most
 * often MPI_ERR_NO_MEM): *newcomm = MPI_COMM_NULL, and the error goes to handle's handler. */
int mpcrt_comm_not_created(MPI_Comm handle, const char *fn, int rc, MPI_Comm *newcomm);
/* Same as mpcrt_comm_create_object with a given context (the two sides of an intercommunicator share one).
 * NULL when out of memory or when context is MPCRT_CONTEXT_EXHAUSTED or above (an agreed base + 2). */
mpcrt_comm_t *mpcrt_comm_create_with_context(mpcrt_group_t *group, uint32_t context);

/* A communicator over group with the given context, owned by the calling member alone (members in several
 * processes: each has its own object; the handle is this member's). */
mpcrt_comm_t *mpcrt_comm_create_private(mpcrt_group_t *group, uint32_t context);
/* Members of a communicator spanning processes agree on a context (the first member's fresh one, unique in
 * the job: concurrent creations never agree on the same), exchanging `nints` ints
 * per member on the way (all[r * nints + i] = member r's mine[i]). Collective over comm; MPI error class. */
int mpcrt_comm_procs_agree(mpcrt_comm_t *comm, const int *mine, int nints, int *all, uint32_t *context);
/* The same among the members `ranks` (comm ranks; NULL: all n members of comm) of comm, the caller being
 * ranks[me], by messages with the given (negative) tag on comm's collective context; it reserves `npairs`
 * consecutive context pairs starting at *context. */
int mpcrt_comm_procs_agree_among(mpcrt_comm_t *comm, const int *ranks, int n, int me, int tag, const int *mine,
                                 int nints, int *all, int npairs, uint32_t *context);
/* npairs fresh consecutive context pairs, handed out nowhere else in the job (context.c): a proposal, or
 * MPCRT_CONTEXT_EXHAUSTED. Where
 * several members propose, any rule that picks one of the proposals (the largest) gives a context that no
 * other creation uses. */
uint32_t mpcrt_comm_context_propose(int npairs);
/* Whether every member of group is a rank of this process. */
bool mpcrt_group_is_local(const mpcrt_group_t *group);

/* Every member of comm calls this with its own contribution; the call returns, to all of them at once,
 * after all have arrived: comm->contributions[r] then holds member r's contribution, which stays valid until
 * every member calls mpcrt_comm_rendezvous_done. Members may read each other's data in between. */
void mpcrt_comm_rendezvous(mpcrt_comm_t *comm, int my_rank, void *contribution);
void mpcrt_comm_rendezvous_done(mpcrt_comm_t *comm);

/* Initializes MPI_COMM_WORLD, MPI_COMM_SELF and MPI_GROUP_EMPTY for this process. */
int mpcrt_comm_init_predefined(void);

/* Frees the nonblocking-creation state of a communicator being destroyed (comm/idup.c). */
void mpcrt_comm_pending_free(struct mpcrt_comm_pending *pending);

/* Drops one member's hold on comm (MPI_Comm_free, or a member's MPI_Finalize for the predefined ones). */
void mpcrt_comm_release_member(mpcrt_comm_t *comm);

/* Called by the member that creates `child` from `parent`, before publishing its handle: each member of
 * child starts with its error handler on parent (MPI 4.0 section 9.3; members that are not in parent's
 * local group get MPI_ERRORS_ARE_FATAL). Every communicator constructor calls it. */
void mpcrt_comm_inherit(mpcrt_comm_t *child, mpcrt_comm_t *parent);

/* Checks a communicator argument of an API call: MPI is active on the caller, the handle is valid and the
 * caller a member; sets *comm and the caller's rank *me. Raises the error (mpcrt_mpi_error) otherwise. */
int mpcrt_comm_arg(const char *function, MPI_Comm handle, mpcrt_comm_t **comm, int *me);

#endif
