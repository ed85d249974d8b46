/* MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups (MPI 4.0 sections 7.4.2, 7.6.2):
 * creations from groups alone, without a parent communicator. The members meet by (string tag, members)
 * (meeting.c); each new communicator member starts with the error handler it passed, and with its info
 * hints. */
#include "comm_internal.h"
#include "../errhan/errhan.h"
#include "../group/group.h"
#include "../info/info.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    mpcrt_errhandler_t *errhandler;
    mpcrt_creation_t result;
} from_entry_t;

static void set_errhandler(mpcrt_comm_t *c, int r, mpcrt_errhandler_t *eh)
{
    mpcrt_errhandler_retain(eh);
    mpcrt_errhandler_t *old = atomic_exchange_explicit(&c->members[r].errhandler, eh, memory_order_relaxed);
    mpcrt_errhandler_release(old);
}

/* Common checks: MPI is active, the string tag, the handler (attachable to communicators), the info. */
static int check_common(const char *fn, const char *stringtag, MPI_Info info_handle, MPI_Errhandler eh_handle,
                        mpcrt_errhandler_t **eh, mpcrt_info_t **info, void *out)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_active(self))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_OTHER, "called outside MPI_Init/MPI_Finalize");
    if (!stringtag || !out)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "null string tag or output argument");
    *eh = eh_handle == MPI_ERRHANDLER_NULL ? mpcrt_errhandler_fatal() : mpcrt_errhandler_get(eh_handle);
    if (!*eh || ((*eh)->kind != MPCRT_ERRH_ANY && (*eh)->kind != MPCRT_ERRH_COMM))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_ARG, "invalid error handler 0x%x",
                               (unsigned)eh_handle);
    *info = NULL;
    if (info_handle != MPI_INFO_NULL && !(*info = mpcrt_info_get(info_handle)))
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_INFO, "invalid info object 0x%x",
                               (unsigned)info_handle);
    return MPI_SUCCESS;
}

/* The caller's hints on its new communicator (its own slot). */
static int set_hints(mpcrt_comm_t *made, const mpcrt_info_t *info)
{
    if (!info || info->nkeys == 0)
        return MPI_SUCCESS;
    int me = mpcrt_comm_rank(made);
    return (made->members[me].hints = mpcrt_info_new(info)) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

/* Members in several processes: they agree on contexts by messages between their MPI_COMM_WORLD ranks (on
 * its collective context; the tag is made from the string tag, negative: apart from the library's other
 * messages), over `first` then `second` (NULL for one group), the caller being number my_index. */
static int agree_procs(mpcrt_group_t *first, mpcrt_group_t *second, int my_index, const char *stringtag,
                       uint32_t *context)
{
    int n = first->size + (second ? second->size : 0);
    int *ranks = malloc(sizeof(int) * (size_t)n);
    if (!ranks)
        return MPI_ERR_NO_MEM;
    memcpy(ranks, first->world, sizeof(int) * (size_t)first->size);
    if (second)
        memcpy(ranks + first->size, second->world, sizeof(int) * (size_t)second->size);
    uint32_t h = 2166136261u; /* FNV-1a of the string tag */
    for (const char *c = stringtag; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    int tag = -(1 << 22) - (int)(h & 0xfffff) - (second ? 1 << 20 : 0);
    int rc = mpcrt_comm_procs_agree_among(mpcrt_comm_get(MPI_COMM_WORLD), ranks, n, my_index, tag, NULL, 0, NULL,
                                          second ? 2 : 1, context);
    free(ranks);
    return rc;
}

int PMPI_Comm_create_from_group(MPI_Group group_handle, const char *stringtag, MPI_Info info_handle,
                                MPI_Errhandler eh_handle, MPI_Comm *newcomm)
{
    static const char fn[] = "MPI_Comm_create_from_group";
    mpcrt_errhandler_t *eh;
    mpcrt_info_t *info;
    int rc = check_common(fn, stringtag, info_handle, eh_handle, &eh, &info, newcomm);
    if (rc)
        return rc;
    mpcrt_group_t *group = mpcrt_group_lookup(group_handle);
    if (!group)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP, "invalid group 0x%x",
                               (unsigned)group_handle);
    int me = group->size ? mpcrt_group_rank_of(group, mpcrt_mpi_world_rank()) : MPI_UNDEFINED;
    if (me == MPI_UNDEFINED) {
        /* MPI_GROUP_EMPTY gives MPI_COMM_NULL; any other group must hold the caller. */
        if (group->size)
            return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP,
                                   "the caller is not a member of the group");
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!mpcrt_group_is_local(group)) {
        uint32_t context;
        MPI_Comm made_handle = MPI_COMM_NULL;
        rc = agree_procs(group, NULL, me, stringtag, &context);
        mpcrt_comm_t *made = rc ? NULL : mpcrt_comm_create_private(group, context);
        if (made)
            set_errhandler(made, me, eh);
        if (rc == MPI_SUCCESS && (rc = mpcrt_comm_publish(made, &made_handle)) == MPI_SUCCESS)
            rc = set_hints(made, info);
        if (rc)
            return mpcrt_comm_not_created(MPI_COMM_NULL, fn, rc, newcomm);
        *newcomm = made_handle;
        return MPI_SUCCESS;
    }
    from_entry_t mine = {eh, {MPI_SUCCESS, MPI_COMM_NULL}};
    mpcrt_meeting_t *m =
        mpcrt_meeting_join(MPCRT_MEETING_FROM_GROUP, 0, stringtag, group->world, group->size, me, &mine);
    if (!m)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "cannot meet the group's members");
    if (me == 0) {
        from_entry_t **all = (from_entry_t **)mpcrt_meeting_contributions(m);
        mpcrt_comm_t *made = mpcrt_comm_create_object(group);
        for (int r = 0; made && r < group->size; r++)
            set_errhandler(made, r, all[r]->errhandler);
        mpcrt_creation_t result = {MPI_SUCCESS, MPI_COMM_NULL};
        result.rc = mpcrt_comm_publish(made, &result.handle);
        for (int r = 0; r < group->size; r++)
            all[r]->result = result;
    }
    mpcrt_meeting_leave(m);
    if (mine.result.rc == MPI_SUCCESS)
        mine.result.rc = set_hints(mpcrt_comm_get(mine.result.handle), info);
    if (mine.result.rc)
        return mpcrt_comm_not_created(MPI_COMM_NULL, fn, mine.result.rc, newcomm);
    *newcomm = mine.result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Comm_create_from_group)

typedef struct {
    mpcrt_errhandler_t *errhandler;
    int local_rank;
    mpcrt_group_t *local, *remote; /* as the member gave them */
    mpcrt_creation_t result;
} groups_entry_t;

/* In one process: the meeting's member 0 (a member of `first`, its local group) builds the pair for all. */
static void meet_groups(mpcrt_meeting_t *m, mpcrt_group_t *first, mpcrt_group_t *second, int n, int my_index)
{
    if (my_index != 0)
        return;
    int rc;
    groups_entry_t **all = (groups_entry_t **)mpcrt_meeting_contributions(m);
    MPI_Comm handles[2] = {MPI_COMM_NULL, MPI_COMM_NULL};
    rc = MPI_SUCCESS;
    mpcrt_group_t *overlap = NULL;
    if (mpcrt_group_intersection(first, second, &overlap))
        rc = MPI_ERR_NO_MEM;
    else if (overlap->size > 0)
        rc = MPI_ERR_GROUP; /* the two groups must be disjoint */
    if (overlap)
        mpcrt_object_release(&overlap->obj);
    if (rc == MPI_SUCCESS)
        rc = mpcrt_intercomm_build(first, second, handles);
    for (int i = 0; i < n; i++) {
        int side = i < first->size ? 0 : 1;
        if (rc == MPI_SUCCESS)
            set_errhandler(mpcrt_comm_get(handles[side]), all[i]->local_rank, all[i]->errhandler);
        all[i]->result.rc = rc;
        all[i]->result.handle = rc ? MPI_COMM_NULL : handles[side];
    }
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_handle, int local_leader, MPI_Group remote_handle,
                                      int remote_leader, const char *stringtag, MPI_Info info_handle,
                                      MPI_Errhandler eh_handle, MPI_Comm *newintercomm)
{
    static const char fn[] = "MPI_Intercomm_create_from_groups";
    mpcrt_errhandler_t *eh;
    mpcrt_info_t *info;
    int rc = check_common(fn, stringtag, info_handle, eh_handle, &eh, &info, newintercomm);
    if (rc)
        return rc;
    mpcrt_group_t *local = mpcrt_group_lookup(local_handle), *remote = mpcrt_group_lookup(remote_handle);
    if (!local || !remote || local->size == 0 || remote->size == 0)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP, "invalid or empty group");
    if (local_leader < 0 || local_leader >= local->size || remote_leader < 0 || remote_leader >= remote->size)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_RANK, "leader %d or %d outside its group",
                               local_leader, remote_leader);
    int me = mpcrt_group_rank_of(local, mpcrt_mpi_world_rank());
    if (me == MPI_UNDEFINED)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP, "the caller is not a member of local_group");
    /* Both sides name the same pair of groups in opposite roles: order them by their first members' world
     * ranks (distinct: the groups are disjoint) so that everyone builds the same key and member numbering,
     * whatever leaders each side names (in one process the leaders have nothing to relay). */
    bool local_first = local->world[0] < remote->world[0];
    mpcrt_group_t *first = local_first ? local : remote, *second = local_first ? remote : local;
    int n = first->size + second->size;
    int *both = malloc(sizeof(int) * (size_t)n);
    if (!both)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "no memory");
    memcpy(both, first->world, sizeof(int) * (size_t)first->size);
    memcpy(both + first->size, second->world, sizeof(int) * (size_t)second->size);
    groups_entry_t mine = {eh, me, local, remote, {MPI_SUCCESS, MPI_COMM_NULL}};
    int my_index = local_first ? me : first->size + me;
    if (!mpcrt_group_is_local(first) || !mpcrt_group_is_local(second)) {
        free(both);
        mpcrt_group_t *overlap = NULL;
        if (mpcrt_group_intersection(first, second, &overlap))
            rc = MPI_ERR_NO_MEM;
        else if (overlap->size > 0)
            rc = MPI_ERR_GROUP; /* every member sees it: the groups are the same everywhere */
        if (overlap)
            mpcrt_object_release(&overlap->obj);
        uint32_t context;
        if (rc == MPI_SUCCESS)
            rc = agree_procs(first, second, my_index, stringtag, &context);
        if (rc == MPI_SUCCESS)
            rc = mpcrt_intercomm_procs_side(local, remote, local_first, context, NULL, &mine.result.handle);
        if (rc == MPI_SUCCESS) {
            mpcrt_comm_t *made = mpcrt_comm_get(mine.result.handle);
            set_errhandler(made, me, eh);
            rc = set_hints(made, info);
        }
        mine.result.rc = rc;
    } else {
    mpcrt_meeting_t *m =
        mpcrt_meeting_join(MPCRT_MEETING_FROM_GROUPS, 0, stringtag, both, n, my_index, &mine);
    free(both);
    if (!m)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_NO_MEM, "cannot meet the groups' members");
    meet_groups(m, first, second, n, my_index);
    mpcrt_meeting_leave(m);
    if (mine.result.rc == MPI_SUCCESS)
        mine.result.rc = set_hints(mpcrt_comm_get(mine.result.handle), info);
    }
    if (mine.result.rc == MPI_ERR_GROUP)
        return mpcrt_mpi_error(MPI_COMM_NULL, fn, MPI_ERR_GROUP, "the local and remote groups overlap");
    if (mine.result.rc)
        return mpcrt_comm_not_created(MPI_COMM_NULL, fn, mine.result.rc, newintercomm);
    *newintercomm = mine.result.handle;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Intercomm_create_from_groups)
