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

typedef struct mpcrt_comm {
    mpcrt_object_t obj;
    uint32_t context; /* point-to-point matching context; context + 1 is the collectives' */
    mpcrt_group_t *group;
    mpcrt_group_t *remote_group; /* intercommunicators only */
    _Atomic int handle_holders;  /* members that have not freed their handle yet */
    MPI_Errhandler errhandler;
    char name[MPI_MAX_OBJECT_NAME];
    /* Rendezvous of the members (see mpcrt_comm_rendezvous). */
    mpcrt_barrier_t barrier;
    void **contributions; /* by comm rank */
    void *shared_result;  /* written by one member between the two barriers of a creation */
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

/* The rank of world rank w in the group, MPI_UNDEFINED if it is not a member. */
int mpcrt_group_rank_of(mpcrt_group_t *group, int world_rank);
/* The caller's rank in comm (MPI_UNDEFINED if the caller is not a member). */
int mpcrt_comm_rank(mpcrt_comm_t *comm);

/* New group of `size` members (world ranks copied); one reference. NULL when out of memory. */
mpcrt_group_t *mpcrt_group_create(const int *world, int size);

/* A new intracommunicator over group (retained) with a fresh context, one reference per member. */
mpcrt_comm_t *mpcrt_comm_create_object(mpcrt_group_t *group);

/* Every member of comm calls this with its own contribution; the call returns, to all of them at once,
 * after all have arrived: comm->contributions[r] then holds member r's contribution, which stays valid until
 * every member calls mpcrt_comm_rendezvous_done. Members may read each other's data in between. */
void mpcrt_comm_rendezvous(mpcrt_comm_t *comm, int my_rank, void *contribution);
void mpcrt_comm_rendezvous_done(mpcrt_comm_t *comm);

/* Initializes MPI_COMM_WORLD, MPI_COMM_SELF and MPI_GROUP_EMPTY for this process. */
int mpcrt_comm_init_predefined(void);

/* Drops one member's hold on comm (MPI_Comm_free, or a member's MPI_Finalize for the predefined ones). */
void mpcrt_comm_release_member(mpcrt_comm_t *comm);

#endif
