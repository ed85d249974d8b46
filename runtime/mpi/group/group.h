/* Interface of runtime/mpi/group: the group algebra of MPI 4.0 section 7.3 on groups as lists of
 * MPI_COMM_WORLD ranks (mpcrt_group_t, declared with communicators in comm/comm.h), and the handle side
 * shared by the group and communicator APIs. */
#ifndef MPCRT_MPI_GROUP_H
#define MPCRT_MPI_GROUP_H

#include "../comm/comm.h"

/* Set operations (section 7.3.2). Each returns 0 and a new group (one reference) in *out, or -ENOMEM. The
 * order of the result is the standard's: union is group a, then the members of b not in a, in b's order;
 * intersection and difference keep a's order. */
int mpcrt_group_union(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out);
int mpcrt_group_intersection(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out);
int mpcrt_group_difference(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out);

/* The subgroup of g made of the members at `ranks` (distinct, valid: the caller checks), in that order. */
int mpcrt_group_select(mpcrt_group_t *g, const int *ranks, int n, mpcrt_group_t **out);

/* MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL (section 7.3.1). */
int mpcrt_group_compare(mpcrt_group_t *a, mpcrt_group_t *b);

/* True when every member of sub is a member of g. */
bool mpcrt_group_is_subset(mpcrt_group_t *sub, mpcrt_group_t *g);

/* The group named by handle (MPI_GROUP_EMPTY included), or NULL. */
mpcrt_group_t *mpcrt_group_lookup(MPI_Group handle);

/* Hands out a handle for g to the caller; consumes the caller's reference to g. An empty group becomes
 * MPI_GROUP_EMPTY (MPICH's tests expect the predefined handle, and freeing it is then allowed). Returns an
 * MPI error class. */
int mpcrt_group_publish(mpcrt_group_t *g, MPI_Group *handle);

/* The predefined empty group. */
mpcrt_group_t *mpcrt_group_empty(void);

#endif
