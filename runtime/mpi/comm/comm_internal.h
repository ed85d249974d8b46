/* Private interface of runtime/mpi/comm: meetings of arbitrary groups, intercommunicator creations used by
 * the generic API (dup, split), shared helpers of the creation files. */
#ifndef MPCRT_MPI_COMM_INTERNAL_H
#define MPCRT_MPI_COMM_INTERNAL_H

#include "comm.h"

/* ------------------------------------------------------------------ meetings (meeting.c) */

/* A rendezvous of the members of a group that is not a communicator's (MPI_Comm_create_group is collective
 * over the group only). Members meet by key: (context of the parent, tag, string tag or NULL, the members'
 * world ranks in order); a member's rank is its index in that list. A meeting is open until its last member
 * arrives; a later call with the same key starts a new one. */
typedef struct mpcrt_meeting mpcrt_meeting_t;

/* Keys of the creations without a parent communicator (communicator contexts never get this high). */
#define MPCRT_MEETING_FROM_GROUP UINT32_MAX
#define MPCRT_MEETING_FROM_GROUPS (UINT32_MAX - 1)

/* Joins (or opens) the meeting and returns, to every member at once, after all `size` members have
 * arrived; contributions are then readable by everyone (mpcrt_meeting_contributions) until every member
 * called mpcrt_meeting_leave. Returns NULL when out of memory. */
mpcrt_meeting_t *mpcrt_meeting_join(uint32_t context, int tag, const char *stringtag, const int *world, int size,
                                    int my_rank, void *contribution);
void **mpcrt_meeting_contributions(mpcrt_meeting_t *m);
/* Second synchronization (the builder's results are written before it returns), then the last member out
 * frees the meeting. */
void mpcrt_meeting_leave(mpcrt_meeting_t *m);

/* ------------------------------------------------------------------ creations */

/* MPI_Comm_split of an intracommunicator whose members live in several processes (procs.c): every member
 * gets an object of its own; keep_topology for duplicates. Returns an MPI error class. */
/* A color shared by the ranks of one node (MPI_COMM_TYPE_SHARED across processes). */
int mpcrt_node_color(void);
int mpcrt_comm_procs_split(mpcrt_comm_t *comm, int color, int key, bool keep_topology, MPI_Comm *newcomm);

/* The result of a creation, written by the member that builds for all. */
typedef struct {
    int rc; /* MPI error class */
    MPI_Comm handle;
} mpcrt_creation_t;

/* Registers a communicator built by one member for all (NULL: out of memory). Returns an MPI error class. */
int mpcrt_comm_publish(mpcrt_comm_t *made, MPI_Comm *handle);

/* Intercommunicator operations behind MPI_Comm_dup and MPI_Comm_split (intercomm.c); each is collective
 * over both groups and returns an MPI error class. */
int mpcrt_intercomm_dup(mpcrt_comm_t *comm, MPI_Comm *newcomm);
int mpcrt_intercomm_split(mpcrt_comm_t *comm, int color, int key, MPI_Comm *newcomm);
/* Builds and registers a duplicate of the pair whose sides are side_a (the bridge's first group) and
 * side_b: handles[0] for side a's members, handles[1] for side b's. Returns an MPI error class. */
int mpcrt_intercomm_build_dup(mpcrt_comm_t *side_a, mpcrt_comm_t *side_b, MPI_Comm handles[2]);
/* Builds and registers a pair over groups a and b (the bridge's first group is a), with the default error
 * handler: handles[0] for a's members, handles[1] for b's. Returns an MPI error class. */
int mpcrt_intercomm_build(mpcrt_group_t *a, mpcrt_group_t *b, MPI_Comm handles[2]);
/* Pairs whose members live in several processes (intercomm_procs.c). */
typedef enum { MPCRT_PAIR_DUP, MPCRT_PAIR_SPLIT, MPCRT_PAIR_CREATE, MPCRT_PAIR_MERGE } mpcrt_pair_op_t;
/* The caller's side of a new pair over its group `mine` and the other side's `remote` (both retained),
 * `first` when mine is the bridge's first group, on the agreed contexts base (bridge) and base + 2 (the
 * pair); the caller's error handler comes from parent (NULL: the default). Returns an MPI error class. */
int mpcrt_intercomm_procs_side(mpcrt_group_t *mine, mpcrt_group_t *remote, bool first, uint32_t base,
                               mpcrt_comm_t *parent, MPI_Comm *out);
/* Dup, split (color, key), create (group: a subgroup of the caller's local group) and merge (high) of a
 * pair whose bridge is not in-process: collective over both groups. Returns an MPI error class. */
int mpcrt_intercomm_procs_op(mpcrt_comm_t *comm, mpcrt_pair_op_t op, int color, int key, int high,
                             mpcrt_group_t *group, MPI_Comm *newcomm);
/* Which side of its pair an intercommunicator object is: 0 for the bridge's first group, 1 for the other. */
static inline int mpcrt_intercomm_side(const mpcrt_comm_t *comm)
{
    return comm->group->world[0] == comm->bridge->group->world[0] ? 0 : 1;
}

#endif
