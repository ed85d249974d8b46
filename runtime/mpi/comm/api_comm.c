/* MPI API: communicator queries and management (rank, size, barrier, dup, split, create, free, compare,
 * names) in one process. Creation is collective: the members meet in the parent's rendezvous, one member
 * builds the new objects, all leave with the same handle. */
#include "comm.h"
#include "../attr/attr.h"
#include "../info/info.h"
#include "comm_internal.h"
#include "../group/group.h"
#include "../coll/coll.h"
#include "../pt2pt/pt2pt.h"
#include "../rails/rail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_comm(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_OTHER, "called before MPI_Init");
    if (!mpcrt_mpi_rank_active(self)) /* finalized, and no session open (MPI 4.0 section 11.3) */
        return mpcrt_mpi_error(handle, fn, MPI_ERR_OTHER, "called after MPI_Finalize");
    if (!(*comm = mpcrt_comm_get(handle)))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM,
                               handle == MPI_COMM_NULL ? "MPI_COMM_NULL" : "invalid communicator 0x%x",
                               handle);
    int me = mpcrt_comm_rank(*comm);
    if (me != MPI_UNDEFINED && (*comm)->members[me].freed) /* the others' handle, still valid (comm.h) */
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_COMM,
                               "communicator 0x%x was freed (MPI_Comm_free) by this rank", handle);
    return MPI_SUCCESS;
}

/* check_comm, then the pointer the call writes its result through. */
static int check_comm_out(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, const void *out)
{
    int rc = check_comm(fn, handle, comm);
    if (rc == MPI_SUCCESS && !out)
        rc = mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    return rc;
}

int PMPI_Comm_rank(MPI_Comm handle, int *rank)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_rank", handle, &comm, rank);
    if (rc == MPI_SUCCESS)
        *rank = mpcrt_comm_rank(comm);
    return rc;
}
MPCRT_PMPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm handle, int *size)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_size", handle, &comm, size);
    if (rc == MPI_SUCCESS)
        *size = mpcrt_comm_size(comm);
    return rc;
}
MPCRT_PMPI_ALIAS(Comm_size)

int mpcrt_mpi_world_barrier(void)
{
    mpcrt_comm_t *world = mpcrt_comm_get(MPI_COMM_WORLD);
    if (!world->local)
        return mpcrt_coll_procs_barrier(world);
    int me = mpcrt_comm_rank(world);
    mpcrt_comm_rendezvous(world, me, NULL);
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm handle)
{
    mpcrt_comm_t *comm;
    int rc = check_comm("MPI_Barrier", handle, &comm);
    /* An intercommunicator's barrier waits for both groups: its members meet in the pair's bridge. */
    mpcrt_comm_t *meet = rc == MPI_SUCCESS && comm->bridge ? comm->bridge : comm;
    if (rc == MPI_SUCCESS && !meet->local && mpcrt_comm_size(meet) > 1) {
        rc = mpcrt_coll_hier_barrier(meet);
        /* A process of the communicator ended: every member fails, not only the leader whose exchange did
         * (as the other collectives, coll_finish). */
        if (rc == MPI_SUCCESS && mpcrt_rails_any_lost() && mpcrt_remote_comm_spans(meet, -1))
            rc = MPI_ERR_PROC_ABORTED;
        return rc ? mpcrt_mpi_error(handle, "MPI_Barrier", rc, "cannot reach the other members") : rc;
    }
    if (rc == MPI_SUCCESS && mpcrt_comm_size(meet) > 1)
        mpcrt_coll_barrier(meet);
    return rc;
}
MPCRT_PMPI_ALIAS(Barrier)

/* Registers a new communicator built by one member for all: one handle, one hold per member. */
static int publish(mpcrt_comm_t *made, int *handle)
{
    if (!made)
        return MPI_ERR_NO_MEM;
    return mpcrt_handle_register(&made->obj, handle) == 0 ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

typedef struct {
    int rc;
    MPI_Comm handle;
} creation_t;

int PMPI_Comm_dup(MPI_Comm handle, MPI_Comm *newcomm)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_dup", handle, &comm, newcomm);
    if (rc)
        return rc;
    int me = mpcrt_comm_rank(comm);
    creation_t result = {MPI_SUCCESS, MPI_COMM_NULL};
    if (comm->remote_group) { /* both groups take part: intercomm.c */
        result.rc = mpcrt_intercomm_dup(comm, &result.handle);
    } else if (!comm->local) { /* members in several processes: procs.c */
        result.rc = mpcrt_comm_procs_split(comm, 0, me, true, &result.handle);
    } else {
        mpcrt_comm_rendezvous(comm, me, &result);
        if (me == 0) {
            mpcrt_comm_t *made = mpcrt_comm_create_object(comm->group);
            if (made)
                mpcrt_comm_inherit(made, comm);
            if (made && comm->topo) { /* a duplicate keeps the topology (MPI 4.0 section 8.4) */
                mpcrt_object_retain(comm->topo);
                made->topo = comm->topo;
            }
            result.rc = publish(made, &result.handle);
            for (int r = 1; r < mpcrt_comm_size(comm); r++)
                *(creation_t *)comm->contributions[r] = result;
        }
        mpcrt_comm_rendezvous_done(comm);
    }
    if (result.rc)
        return mpcrt_comm_not_created(handle, "MPI_Comm_dup", result.rc, newcomm);
    /* The duplicate has the same info hints (MPI 4.0 section 7.4.2) and the attributes the copy callbacks
     * keep, member by member (same group: same rank). */
    mpcrt_comm_t *made = mpcrt_comm_get(result.handle);
    rc = MPI_SUCCESS;
    if (comm->members[me].hints && !(made->members[me].hints = mpcrt_info_new(comm->members[me].hints)))
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS)
        rc = mpcrt_attr_comm_dup(handle, comm, me, made, me);
    if (rc != MPI_SUCCESS) {
        /* This member gives the new communicator up (the others may have it: MPI leaves the result of a
         * failed collective undefined). */
        mpcrt_attr_comm_free(result.handle, made, me);
        mpcrt_comm_release_member(made);
        *newcomm = MPI_COMM_NULL;
        return mpcrt_mpi_error(handle, "MPI_Comm_dup", rc,
                               "an attribute copy callback failed (or no memory)");
    }
    *newcomm = result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_dup)

typedef struct {
    int color, key, rank;
    creation_t result;
} split_entry_t;

static int by_color_key_rank(const void *a, const void *b)
{
    const split_entry_t *x = *(split_entry_t *const *)a, *y = *(split_entry_t *const *)b;
    if (x->color != y->color)
        return x->color < y->color ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Run by member 0 with everyone's entry: one new communicator per color, ranks ordered by (key, old rank). */
static void split_all(mpcrt_comm_t *comm)
{
    int n = mpcrt_comm_size(comm);
    split_entry_t **order = malloc(sizeof *order * (size_t)n);
    int *world = malloc(sizeof *world * (size_t)n);
    for (int r = 0; r < n && order; r++)
        order[r] = comm->contributions[r];
    if (order && world)
        qsort(order, (size_t)n, sizeof *order, by_color_key_rank);
    for (int first = 0; first < n;) {
        int last = first;
        while (last < n && order && order[last]->color == order[first]->color)
            last++;
        if (!order || !world) {
            for (int r = 0; r < n; r++)
                ((split_entry_t *)comm->contributions[r])->result.rc = MPI_ERR_NO_MEM;
            break;
        }
        if (order[first]->color != MPI_UNDEFINED) {
            for (int i = first; i < last; i++)
                world[i - first] = comm->group->world[order[i]->rank];
            mpcrt_group_t *group = mpcrt_group_create(world, last - first);
            mpcrt_comm_t *made = group ? mpcrt_comm_create_object(group) : NULL;
            if (made)
                mpcrt_comm_inherit(made, comm);
            if (group)
                mpcrt_object_release(&group->obj); /* the communicator holds it */
            creation_t result = {MPI_SUCCESS, MPI_COMM_NULL};
            result.rc = publish(made, &result.handle);
            for (int i = first; i < last; i++)
                order[i]->result = result;
        }
        first = last;
    }
    free(order);
    free(world);
}

int PMPI_Comm_split(MPI_Comm handle, int color, int key, MPI_Comm *newcomm)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_split", handle, &comm, newcomm);
    if (rc)
        return rc;
    if (color < 0 && color != MPI_UNDEFINED)
        return mpcrt_mpi_error(handle, "MPI_Comm_split", MPI_ERR_ARG, "negative color %d", color);
    if (comm->remote_group) { /* both groups take part: intercomm.c */
        rc = mpcrt_intercomm_split(comm, color, key, newcomm);
        return rc ? mpcrt_comm_not_created(handle, "MPI_Comm_split", rc, newcomm) : MPI_SUCCESS;
    }
    int me = mpcrt_comm_rank(comm);
    if (!comm->local) { /* members in several processes: procs.c */
        rc = mpcrt_comm_procs_split(comm, color, key, false, newcomm);
        return rc ? mpcrt_comm_not_created(handle, "MPI_Comm_split", rc, newcomm) : MPI_SUCCESS;
    }
    split_entry_t mine = {color, key, me, {MPI_SUCCESS, MPI_COMM_NULL}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    if (me == 0)
        split_all(comm);
    mpcrt_comm_rendezvous_done(comm); /* member 0 wrote every result before this */
    if (mine.result.rc)
        return mpcrt_comm_not_created(handle, "MPI_Comm_split", mine.result.rc, newcomm);
    *newcomm = mine.result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_split)

int PMPI_Comm_free(MPI_Comm *handle)
{
    mpcrt_comm_t *comm;
    if (!handle)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Comm_free", MPI_ERR_ARG, "null pointer");
    int rc = check_comm("MPI_Comm_free", *handle, &comm);
    if (rc)
        return rc;
    if (comm->obj.flags & MPCRT_OBJECT_PREDEFINED)
        return mpcrt_mpi_error(*handle, "MPI_Comm_free", MPI_ERR_COMM,
                               "a predefined communicator cannot be freed");
    /* The caller's attributes go first, newest first; a failing delete callback fails the call and keeps
     * the communicator (MPI 4.0 section 7.7.2). */
    int me = mpcrt_comm_rank(comm);
    if (me == MPI_UNDEFINED)
        return mpcrt_mpi_error(MPI_COMM_NULL, "MPI_Comm_free", MPI_ERR_COMM, "the caller is not a member");
    if ((rc = mpcrt_attr_comm_free(*handle, comm, me)) != MPI_SUCCESS)
        return mpcrt_mpi_error(*handle, "MPI_Comm_free", rc, "an attribute delete callback failed");
    comm->members[me].freed = true; /* its handle may live on for the other members: see mpcrt_comm_arg */
    mpcrt_comm_release_member(comm);
    *handle = MPI_COMM_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_free)

int PMPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
    mpcrt_comm_t *x, *y;
    int rc = check_comm("MPI_Comm_compare", a, &x);
    if (rc == MPI_SUCCESS)
        rc = check_comm_out("MPI_Comm_compare", b, &y, result);
    if (rc)
        return rc;
    if (x == y) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (!x->remote_group != !y->remote_group) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    if (x->remote_group) { /* both groups decide; the weaker of the two results (MPI 4.0 section 7.6.1) */
        int local = mpcrt_group_compare(x->group, y->group),
            remote = mpcrt_group_compare(x->remote_group, y->remote_group);
        int worst = local > remote ? local : remote;
        *result = worst == MPI_IDENT ? MPI_CONGRUENT : worst;
        return MPI_SUCCESS;
    }
    mpcrt_group_t *g = x->group, *h = y->group;
    if (g->size != h->size) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    bool same_order = true, same_members = true;
    for (int r = 0; r < g->size; r++) {
        same_order &= g->world[r] == h->world[r];
        same_members &= mpcrt_group_rank_of(h, g->world[r]) != MPI_UNDEFINED;
    }
    *result = same_order ? MPI_CONGRUENT : same_members ? MPI_SIMILAR : MPI_UNEQUAL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm handle, int *flag)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_test_inter", handle, &comm, flag);
    if (rc == MPI_SUCCESS)
        *flag = comm->remote_group != NULL;
    return rc;
}
MPCRT_PMPI_ALIAS(Comm_test_inter)

int PMPI_Comm_set_name(MPI_Comm handle, const char *name)
{
    mpcrt_comm_t *comm;
    int rc = check_comm("MPI_Comm_set_name", handle, &comm);
    if (rc)
        return rc;
    if (!name)
        return mpcrt_mpi_error(handle, "MPI_Comm_set_name", MPI_ERR_ARG, "null name");
    /* The name is local to each process's handle (MPI 4.0 section 7.8): in thread mode the ranks of a process
     * share the object, so each member keeps its own (they may be at different calls on it). */
    int me = mpcrt_comm_rank(comm);
    if (me == MPI_UNDEFINED)
        return mpcrt_mpi_error(handle, "MPI_Comm_set_name", MPI_ERR_COMM, "the caller is not a member");
    char *copy = malloc(MPI_MAX_OBJECT_NAME);
    if (!copy)
        return mpcrt_mpi_error(handle, "MPI_Comm_set_name", MPI_ERR_NO_MEM, "no memory for the name");
    snprintf(copy, MPI_MAX_OBJECT_NAME, "%s", name);
    free(comm->members[me].name);
    comm->members[me].name = copy;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_set_name)

int PMPI_Comm_get_name(MPI_Comm handle, char *name, int *resultlen)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_get_name", handle, &comm, name);
    if (rc == MPI_SUCCESS && !resultlen)
        rc = mpcrt_mpi_error(handle, "MPI_Comm_get_name", MPI_ERR_ARG, "null output argument");
    if (rc)
        return rc;
    int me = mpcrt_comm_rank(comm);
    const char *mine = me != MPI_UNDEFINED && comm->members[me].name ? comm->members[me].name : comm->name;
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", mine);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_get_name)

int PMPI_Comm_group(MPI_Comm handle, MPI_Group *group)
{
    mpcrt_comm_t *comm;
    int rc = check_comm_out("MPI_Comm_group", handle, &comm, group);
    if (rc)
        return rc;
    mpcrt_object_retain(&comm->group->obj);
    if (mpcrt_handle_register(&comm->group->obj, group) != 0) {
        mpcrt_object_release(&comm->group->obj);
        return mpcrt_mpi_error(handle, "MPI_Comm_group", MPI_ERR_NO_MEM, "no memory for a group handle");
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_group)
