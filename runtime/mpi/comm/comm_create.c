/* MPI API: communicator creation beyond dup and split (MPI 4.0 section 7.4.2): MPI_Comm_create (intra; the
 * inter case is in intercomm.c), MPI_Comm_create_group (collective over the group only: its members meet by
 * key, meeting.c), MPI_Comm_split_type, MPI_Comm_dup_with_info and MPI_Comm_get_parent (the nonblocking
 * duplicates are in idup.c). */
#include "comm_internal.h"
#include "../group/group.h"
#include "../info/info.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm);
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm);
int PMPI_Comm_free(MPI_Comm *comm);
int mpcrt_intercomm_create_from(mpcrt_comm_t *comm, mpcrt_group_t *group, MPI_Comm *newcomm);

int mpcrt_comm_publish(mpcrt_comm_t *made, MPI_Comm *handle)
{
    if (!made)
        return MPI_ERR_NO_MEM;
    if (mpcrt_handle_register(&made->obj, handle) != 0) {
        mpcrt_object_release(&made->obj);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}

static int check_env(const char *fn, MPI_Comm handle)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_OTHER, "called before MPI_Init");
    if (!mpcrt_mpi_rank_active(self)) /* finalized, and no session open (MPI 4.0 section 11.3) */
        return mpcrt_mpi_error(handle, fn, MPI_ERR_OTHER, "called after MPI_Finalize");
    return MPI_SUCCESS;
}

static int check_comm(const char *fn, MPI_Comm handle, mpcrt_comm_t **comm, bool intra_only)
{
    int me;
    int rc = mpcrt_comm_arg(fn, handle, comm, &me);
    if (rc)
        return rc;
    if (intra_only && (*comm)->remote_group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_COMM, "an intercommunicator is not allowed here");
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------------ MPI_Comm_create */

typedef struct {
    mpcrt_group_t *group;
    mpcrt_creation_t result;
} create_entry_t;

static bool same_members(const mpcrt_group_t *a, const mpcrt_group_t *b)
{
    if (a->size != b->size)
        return false;
    for (int r = 0; r < a->size; r++)
        if (a->world[r] != b->world[r])
            return false;
    return true;
}

/* Run by member 0 with everyone's entry. Members may give different, disjoint groups (MPI 2.2 and later);
 * all members of a non-empty group give that same group; members outside their own group get
 * MPI_COMM_NULL. */
static void create_all(mpcrt_comm_t *comm)
{
    int n = mpcrt_comm_size(comm);
    bool *done = calloc((size_t)n, sizeof *done);
    for (int r = 0; r < n; r++) {
        create_entry_t *e = comm->contributions[r];
        if (!done) {
            e->result.rc = MPI_ERR_NO_MEM;
            continue;
        }
        if (done[r])
            continue;
        mpcrt_group_t *g = e->group;
        if (g->size == 0 || mpcrt_group_rank_of(g, comm->group->world[r]) == MPI_UNDEFINED) {
            done[r] = true; /* result stays MPI_COMM_NULL */
            continue;
        }
        mpcrt_creation_t result = {MPI_SUCCESS, MPI_COMM_NULL};
        for (int i = 0; i < g->size && result.rc == MPI_SUCCESS; i++) {
            int member = mpcrt_group_rank_of(comm->group, g->world[i]);
            create_entry_t *other = comm->contributions[member];
            if (!same_members(other->group, g))
                result.rc = MPI_ERR_GROUP;
        }
        if (result.rc == MPI_SUCCESS) {
            mpcrt_comm_t *made = mpcrt_comm_create_object(g);
            if (made)
                mpcrt_comm_inherit(made, comm);
            result.rc = mpcrt_comm_publish(made, &result.handle);
        }
        for (int i = 0; i < g->size; i++) {
            int member = mpcrt_group_rank_of(comm->group, g->world[i]);
            if (!done[member]) {
                ((create_entry_t *)comm->contributions[member])->result = result;
                done[member] = true;
            }
        }
    }
    free(done);
}

int PMPI_Comm_create(MPI_Comm handle, MPI_Group group_handle, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create";
    mpcrt_comm_t *comm;
    int rc = check_comm(fn, handle, &comm, false);
    if (rc)
        return rc;
    mpcrt_group_t *group = mpcrt_group_lookup(group_handle);
    if (!group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_GROUP, "invalid group 0x%x", group_handle);
    if (!newcomm)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    if (!mpcrt_group_is_subset(group, comm->group))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_GROUP,
                               "the group is not a subgroup of the communicator's");
    if (comm->remote_group) {
        rc = mpcrt_intercomm_create_from(comm, group, newcomm);
        return rc ? mpcrt_comm_not_created(handle, fn, rc, newcomm) : MPI_SUCCESS;
    }
    int me = mpcrt_comm_rank(comm);
    if (!comm->local) { /* members in several processes: a split by membership, in the group's order */
        /* Members may give different, disjoint groups (MPI 4.0 section 7.4.2): a group is named by its first
         * member's world rank. */
        int in = group->size ? mpcrt_group_rank_of(group, mpcrt_mpi_world_rank()) : MPI_UNDEFINED;
        rc = mpcrt_comm_procs_split(comm, in == MPI_UNDEFINED ? MPI_UNDEFINED : group->world[0], in, false,
                                    newcomm);
        return rc ? mpcrt_comm_not_created(handle, fn, rc, newcomm) : MPI_SUCCESS;
    }
    create_entry_t mine = {group, {MPI_SUCCESS, MPI_COMM_NULL}};
    mpcrt_comm_rendezvous(comm, me, &mine);
    if (me == 0)
        create_all(comm);
    mpcrt_comm_rendezvous_done(comm); /* member 0 wrote every result before this */
    if (mine.result.rc == MPI_ERR_GROUP)
        return mpcrt_mpi_error(
            handle, fn, MPI_ERR_GROUP,
            "the members of a group must all give that same group (same ranks, same order)");
    if (mine.result.rc)
        return mpcrt_comm_not_created(handle, fn, mine.result.rc, newcomm);
    *newcomm = mine.result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_create)

/* ------------------------------------------------------------------ MPI_Comm_create_group */

/* The group's members live in several processes: they agree on a context by messages on the parent's
 * collective context, with a tag made from the user's (negative: apart from the library's other messages;
 * concurrent creations over overlapping groups must use different tags, MPI 4.0 section 7.4.2). */
static int create_group_procs(mpcrt_comm_t *comm, mpcrt_group_t *group, int tag, int me, MPI_Comm *newcomm)
{
    int *ranks = malloc(sizeof(int) * (size_t)group->size);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < group->size; i++)
        ranks[i] = mpcrt_group_rank_of(comm->group, group->world[i]);
    uint32_t context;
    int rc = mpcrt_comm_procs_agree_among(comm, ranks, group->size, me, -(1 << 20) - (tag & 0xfffff), NULL, 0,
                                          NULL, 1, &context);
    free(ranks);
    if (rc)
        return rc;
    mpcrt_comm_t *made = mpcrt_comm_create_private(group, context);
    if (made)
        mpcrt_comm_inherit(made, comm);
    return mpcrt_comm_publish(made, newcomm);
}

int PMPI_Comm_create_group(MPI_Comm handle, MPI_Group group_handle, int tag, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_group";
    mpcrt_comm_t *comm;
    int rc = check_comm(fn, handle, &comm, true);
    if (rc)
        return rc;
    mpcrt_group_t *group = mpcrt_group_lookup(group_handle);
    if (!group)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_GROUP, "invalid group 0x%x", group_handle);
    if (!newcomm)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    if (tag < 0 || tag > MPCRT_TAG_UB)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_TAG, "invalid tag %d", tag);
    if (!mpcrt_group_is_subset(group, comm->group))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_GROUP,
                               "the group is not a subgroup of the communicator's");
    int me = group->size ? mpcrt_group_rank_of(group, mpcrt_mpi_world_rank()) : MPI_UNDEFINED;
    if (me == MPI_UNDEFINED) {
        /* Only the group's members take part; a caller outside it gets no communicator. */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!mpcrt_group_is_local(group)) {
        rc = create_group_procs(comm, group, tag, me, newcomm);
        return rc ? mpcrt_comm_not_created(handle, fn, rc, newcomm) : MPI_SUCCESS;
    }
    mpcrt_creation_t mine = {MPI_SUCCESS, MPI_COMM_NULL};
    mpcrt_meeting_t *m = mpcrt_meeting_join(comm->context, tag, NULL, group->world, group->size, me, &mine);
    if (!m)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "cannot meet the group's members");
    if (me == 0) {
        void **all = mpcrt_meeting_contributions(m);
        mpcrt_creation_t result = {MPI_SUCCESS, MPI_COMM_NULL};
        mpcrt_comm_t *made = mpcrt_comm_create_object(group);
        if (made)
            mpcrt_comm_inherit(made, comm);
        result.rc = mpcrt_comm_publish(made, &result.handle);
        for (int r = 0; r < group->size; r++)
            *(mpcrt_creation_t *)all[r] = result;
    }
    mpcrt_meeting_leave(m);
    if (mine.rc)
        return mpcrt_comm_not_created(handle, fn, mine.rc, newcomm);
    *newcomm = mine.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_create_group)

/* ------------------------------------------------------------------ MPI_Comm_split_type */

/* Levels of the hardware, coarsest first: HW_UNGUIDED takes the first that splits comm. */
static const char *const hw_levels[] = {"package", "numanode", "l3cache", "l2cache", "core", "pu"};

/* The color of the caller for a hardware resource type (MPI 4.0 section 7.4.2): the index of the object of
 * that type holding the rank's core; MPI_UNDEFINED when the type is unknown or the rank not bound. */
static int hw_color(const char *resource)
{
    if (strcmp(resource, "mpi_shared_memory") == 0)
        return mpcrt_job_first_rank(); /* ranks of one process share memory (the node once there are several)
                                        */
    if (strcmp(resource, "hwthread") == 0)
        resource = "pu"; /* MPI's name for hwloc's processing unit */
    int vp = mpcrt_job_rank_vp(mpcrt_mpi_world_rank() - mpcrt_job_first_rank());
    int index = mpcrt_sched_vp_resource(vp, resource);
    return index < 0 ? MPI_UNDEFINED : index;
}

/* HW_UNGUIDED: the coarsest level whose split gives every member a strict subset of comm; each member then
 * finds the chosen type in its info object (key mpi_hw_resource_type). MPI_COMM_NULL when none does. */
static int split_unguided(const char *fn, MPI_Comm handle, mpcrt_comm_t *comm, int key, MPI_Info info,
                          MPI_Comm *newcomm)
{
    int size = mpcrt_comm_size(comm);
    for (size_t level = 0; level < sizeof hw_levels / sizeof *hw_levels; level++) {
        int color = hw_color(hw_levels[level]);
        int rc = PMPI_Comm_split(handle, color, key, newcomm);
        if (rc)
            return rc;
        int mine = *newcomm == MPI_COMM_NULL ? size : mpcrt_comm_size(mpcrt_comm_get(*newcomm)), largest;
        if ((rc = PMPI_Allreduce(&mine, &largest, 1, MPI_INT, MPI_MAX, handle)) != MPI_SUCCESS)
            return rc;
        if (largest < size) {
            mpcrt_info_t *hints = info == MPI_INFO_NULL ? NULL : mpcrt_info_get(info);
            if (hints && !hints->read_only && mpcrt_info_set(hints, "mpi_hw_resource_type", hw_levels[level]))
                return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "no memory for the info key");
            return MPI_SUCCESS;
        }
        if (*newcomm != MPI_COMM_NULL && (rc = PMPI_Comm_free(newcomm)) != MPI_SUCCESS)
            return rc;
    }
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_split_type(MPI_Comm handle, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_split_type";
    mpcrt_comm_t *comm;
    int rc = check_comm(fn, handle, &comm, true);
    if (rc)
        return rc;
    if (!newcomm)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    if (info != MPI_INFO_NULL && !mpcrt_info_get(info))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    int color;
    switch (split_type) {
    case MPI_UNDEFINED:
        color = MPI_UNDEFINED;
        break;
    case MPI_COMM_TYPE_HW_GUIDED: {
        /* The resource is named by the info key mpi_hw_resource_type; without it, or with a type this
         * machine does not have, the result is MPI_COMM_NULL (MPI 4.0 section 7.4.2). */
        const char *resource =
            info == MPI_INFO_NULL ? NULL : mpcrt_info_value(mpcrt_info_get(info), "mpi_hw_resource_type");
        color = resource ? hw_color(resource) : MPI_UNDEFINED;
        break;
    }
    case MPI_COMM_TYPE_SHARED:
        /* Ranks that can share memory: those of this node (mpcrun's processes all run on one node; under
         * another launcher the processes of one node are told apart by host name). */
        color = comm->local ? mpcrt_job_first_rank() : mpcrt_node_color();
        break;
    case MPI_COMM_TYPE_HW_UNGUIDED:
        return split_unguided(fn, handle, comm, key, info, newcomm);
    default:
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "unknown split type %d", split_type);
    }
    return PMPI_Comm_split(handle, color, key, newcomm);
}
MPCRT_PMPI_ALIAS(Comm_split_type)

/* ------------------------------------------------------------------ dup variants, parent */

/* The caller's hints on the duplicate become those of info instead of comm's (MPI 4.0 section 7.4.2). */
static int replace_hints(const char *fn, MPI_Comm handle, MPI_Info info, MPI_Comm made_handle)
{
    mpcrt_info_t *given = NULL;
    if (info != MPI_INFO_NULL && !(given = mpcrt_info_get(info)))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    mpcrt_comm_t *made = mpcrt_comm_get(made_handle);
    int me = mpcrt_comm_rank(made);
    mpcrt_info_t *copy = NULL;
    if (given && given->nkeys > 0 && !(copy = mpcrt_info_new(given)))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_NO_MEM, "no memory for the info hints");
    mpcrt_info_release(made->members[me].hints); /* only this member writes its slot */
    made->members[me].hints = copy;
    return MPI_SUCCESS;
}

static int dup_with_info(const char *fn, MPI_Comm handle, MPI_Info info, MPI_Comm *newcomm)
{
    int rc = check_env(fn, handle);
    if (rc)
        return rc;
    if (info != MPI_INFO_NULL && !mpcrt_info_get(info)) /* before the collective part */
        return mpcrt_mpi_error(handle, fn, MPI_ERR_INFO, "invalid info object 0x%x", (unsigned)info);
    if ((rc = PMPI_Comm_dup(handle, newcomm)))
        return rc;
    return replace_hints(fn, handle, info, *newcomm);
}

int PMPI_Comm_dup_with_info(MPI_Comm handle, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_with_info("MPI_Comm_dup_with_info", handle, info, newcomm);
}
MPCRT_PMPI_ALIAS(Comm_dup_with_info)

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    int rc = check_env("MPI_Comm_get_parent", MPI_COMM_SELF);
    if (rc)
        return rc;
    if (!parent)
        return mpcrt_mpi_error(MPI_COMM_SELF, "MPI_Comm_get_parent", MPI_ERR_ARG, "null output argument");
    *parent = MPI_COMM_NULL; /* no process was started by MPI_Comm_spawn */
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_get_parent)
