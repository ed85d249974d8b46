/* Communicator and group objects, the predefined communicators, and the members' rendezvous. */
#include "comm.h"
#include "../errhan/errhan.h"
#include "../info/info.h"
#include "../pt2pt/pt2pt.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

enum { WORLD_CONTEXT = 0, SELF_CONTEXT = 2 }; /* the others come from context.c */

static mpcrt_comm_t world;
static mpcrt_group_t world_group, empty_group;
static mpcrt_comm_t *self_comms; /* by local rank */

static void destroy_group(mpcrt_object_t *obj)
{
    mpcrt_group_t *g = (mpcrt_group_t *)obj;
    free(g->world);
    free(atomic_load(&g->rank_of_world));
    free(g);
}

mpcrt_group_t *mpcrt_group_create(const int *world_ranks, int size)
{
    mpcrt_group_t *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->world = malloc(sizeof(int) * (size_t)(size > 0 ? size : 1));
    if (!g->world) {
        free(g);
        return NULL;
    }
    if (size)
        memcpy(g->world, world_ranks, sizeof(int) * (size_t)size);
    g->size = size;
    mpcrt_object_init(&g->obj, MPCRT_OBJ_GROUP, destroy_group);
    return g;
}

int mpcrt_group_rank_of(mpcrt_group_t *group, int world_rank)
{
    int world_size = mpcrt_mpi_world_size();
    if (world_rank < 0 || world_rank >= world_size)
        return MPI_UNDEFINED;
    int *map = atomic_load_explicit(&group->rank_of_world, memory_order_acquire);
    if (!map) {
        /* Built by whoever needs it first; a racing builder's copy is freed (same content). */
        int *fresh = malloc(sizeof(int) * (size_t)world_size);
        if (!fresh)
            return MPI_UNDEFINED;
        for (int w = 0; w < world_size; w++)
            fresh[w] = MPI_UNDEFINED;
        for (int r = 0; r < group->size; r++)
            fresh[group->world[r]] = r;
        int *expected = NULL;
        /* release: the map's contents are visible to whoever loads the pointer (acquire above). */
        if (atomic_compare_exchange_strong_explicit(&group->rank_of_world, &expected, fresh,
                                                    memory_order_acq_rel, memory_order_acquire)) {
            map = fresh;
        } else {
            free(fresh);
            map = expected;
        }
    }
    return map[world_rank];
}

int mpcrt_comm_rank_slow(mpcrt_comm_t *comm)
{
    return mpcrt_group_rank_of(comm->group, mpcrt_mpi_world_rank());
}

static void destroy_comm(mpcrt_object_t *obj)
{
    mpcrt_comm_t *c = (mpcrt_comm_t *)obj;
    if (c->group)
        mpcrt_pt2pt_forget_comm(c); /* its members' matching queues of its contexts */
    /* Attributes were deleted by each member's MPI_Comm_free; handlers and hints are only referenced (the
     * member slots are indexed by the group: before the group goes). */
    for (int r = 0; c->members && r < c->group->size; r++) {
        mpcrt_errhandler_release(atomic_load_explicit(&c->members[r].errhandler, memory_order_relaxed));
        mpcrt_info_release(c->members[r].hints);
        free(c->members[r].name);
    }
    free(c->members);
    mpcrt_object_release(&c->group->obj);
    if (c->remote_group)
        mpcrt_object_release(&c->remote_group->obj);
    if (c->bridge)
        mpcrt_object_release(&c->bridge->obj);
    if (c->topo)
        mpcrt_object_release(c->topo);
    mpcrt_comm_pending_free(atomic_load_explicit(&c->pending, memory_order_acquire));
    free(c->contributions);
    void *coll_state = atomic_load_explicit(&c->coll_state, memory_order_acquire);
    if (coll_state)
        c->coll_state_free(coll_state);
    free(c);
}

/* Whether every member is a rank of this process. */
bool mpcrt_group_is_local(const mpcrt_group_t *group)
{
    int first = mpcrt_job_first_rank(), nlocal = mpcrt_job_local_ranks();
    if (mpcrt_job_num_procs() == 1)
        return true;
    for (int r = 0; r < group->size; r++)
        if (group->world[r] < first || group->world[r] >= first + nlocal)
            return false;
    return true;
}

static int init_comm(mpcrt_comm_t *c, mpcrt_group_t *group, uint32_t context)
{
    c->context = context;
    c->group = group;
    c->local = mpcrt_group_is_local(group);
    atomic_init(&c->handle_holders, group->size);
    c->contributions = calloc((size_t)(group->size > 0 ? group->size : 1), sizeof *c->contributions);
    if (!c->contributions)
        return -ENOMEM;
    size_t member_bytes = (size_t)(group->size > 0 ? group->size : 1) * sizeof *c->members;
    c->members = aligned_alloc(_Alignof(mpcrt_comm_member_t), member_bytes);
    if (!c->members)
        return -ENOMEM;
    memset(c->members, 0, member_bytes);
    for (int r = 0; r < group->size; r++)
        atomic_init(&c->members[r].errhandler, mpcrt_errhandler_fatal());
    return mpcrt_barrier_init(&c->barrier, (unsigned)(group->size > 0 ? group->size : 1));
}

mpcrt_comm_t *mpcrt_comm_create_with_context(mpcrt_group_t *group, uint32_t context)
{
    if (context >= MPCRT_CONTEXT_EXHAUSTED)
        return NULL;
    mpcrt_comm_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    mpcrt_object_init(&c->obj, MPCRT_OBJ_COMM, destroy_comm);
    mpcrt_object_retain(&group->obj);
    if (init_comm(c, group, context) != 0) {
        mpcrt_object_release(&c->obj);
        return NULL;
    }
    return c;
}

mpcrt_comm_t *mpcrt_comm_create_private(mpcrt_group_t *group, uint32_t context)
{
    mpcrt_comm_t *c = mpcrt_comm_create_with_context(group, context);
    if (c) {
        c->local = false; /* its rendezvous would wait for members that have their own objects */
        atomic_store_explicit(&c->handle_holders, 1, memory_order_relaxed);
    }
    return c;
}

mpcrt_comm_t *mpcrt_comm_create_object(mpcrt_group_t *group)
{
    return mpcrt_comm_create_with_context(group, mpcrt_comm_new_context());
}

mpcrt_comm_t *mpcrt_comm_create_process_local(mpcrt_group_t *group)
{
    return mpcrt_comm_create_with_context(group, mpcrt_comm_new_local_context());
}

void mpcrt_comm_release_member(mpcrt_comm_t *comm)
{
    if (comm->obj.flags & MPCRT_OBJECT_PREDEFINED)
        return;
    /* acq_rel: the last member to leave frees the handle after every member's last use of it. */
    if (atomic_fetch_sub_explicit(&comm->handle_holders, 1, memory_order_acq_rel) == 1)
        mpcrt_handle_free(MPCRT_OBJ_COMM, comm->obj.handle);
}

void mpcrt_comm_inherit(mpcrt_comm_t *child, mpcrt_comm_t *parent)
{
    for (int r = 0; r < child->group->size; r++) {
        int pr = mpcrt_group_rank_of(parent->group, child->group->world[r]);
        if (pr == MPI_UNDEFINED)
            continue;
        /* The parent's members are all inside the collective call that creates child: their slots are
         * stable (acquire: the handler's fields were written before it was attached). */
        mpcrt_errhandler_t *eh = atomic_load_explicit(&parent->members[pr].errhandler, memory_order_acquire);
        mpcrt_errhandler_retain(eh);
        mpcrt_errhandler_t *old =
            atomic_exchange_explicit(&child->members[r].errhandler, eh, memory_order_relaxed);
        mpcrt_errhandler_release(old);
    }
}

int mpcrt_comm_arg(const char *function, MPI_Comm handle, mpcrt_comm_t **comm, int *me)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(MPI_COMM_NULL, function, MPI_ERR_OTHER, "called before MPI_Init");
    if (!mpcrt_mpi_rank_active(self)) /* finalized, and no session open (MPI 4.0 section 11.3) */
        return mpcrt_mpi_error(MPI_COMM_NULL, function, MPI_ERR_OTHER, "called after MPI_Finalize");
    if (!(*comm = mpcrt_comm_get(handle)))
        return mpcrt_mpi_error(MPI_COMM_NULL, function, MPI_ERR_COMM,
                               handle == MPI_COMM_NULL ? "MPI_COMM_NULL" : "invalid communicator 0x%x",
                               (unsigned)handle);
    if ((*me = mpcrt_comm_rank(*comm)) == MPI_UNDEFINED)
        return mpcrt_mpi_error(MPI_COMM_NULL, function, MPI_ERR_COMM,
                               "rank %d is not a member of communicator 0x%x", mpcrt_mpi_world_rank(),
                               (unsigned)handle);
    if ((*comm)->members[*me].freed)
        return mpcrt_mpi_error(MPI_COMM_NULL, function, MPI_ERR_COMM,
                               "communicator 0x%x was freed (MPI_Comm_free) by this rank", (unsigned)handle);
    return MPI_SUCCESS;
}

void mpcrt_comm_rendezvous(mpcrt_comm_t *comm, int my_rank, void *contribution)
{
    if (!comm->local) {
        /* Its members live in other processes (or have objects of their own): waiting here would hang. */
        fprintf(stderr,
                "mpcrt: rank %d: this operation is not supported yet on a communicator spanning processes "
                "(run in thread mode, one process); ending the job\n",
                mpcrt_mpi_world_rank());
        fflush(stderr);
        _exit(1);
    }
    comm->contributions[my_rank] = contribution;
    /* The barrier's lock orders every member's store above before every member's reads that follow. */
    mpcrt_barrier_wait(&comm->barrier);
}

void mpcrt_comm_rendezvous_done(mpcrt_comm_t *comm)
{
    mpcrt_barrier_wait(&comm->barrier);
}

mpcrt_comm_t *mpcrt_comm_self(void)
{
    int local = mpcrt_mpi_world_rank() - mpcrt_job_first_rank();
    return self_comms && local >= 0 && local < mpcrt_job_local_ranks() ? &self_comms[local] : NULL;
}

int mpcrt_comm_init_predefined(void)
{
    int size = mpcrt_mpi_world_size();
    int *ranks = malloc(sizeof(int) * (size_t)size);
    if (!ranks)
        return -ENOMEM;
    for (int r = 0; r < size; r++)
        ranks[r] = r;
    world_group.world = ranks;
    world_group.size = size;
    /* The world group has no predefined handle: MPI_Comm_group gives it indirect ones. */
    mpcrt_object_init(&world_group.obj, MPCRT_OBJ_GROUP, NULL);
    world_group.obj.flags |= MPCRT_OBJECT_PREDEFINED;
    mpcrt_object_init(&empty_group.obj, MPCRT_OBJ_GROUP, NULL);
    empty_group.world = ranks; /* never read: size 0 */
    mpcrt_handle_register_predefined(&empty_group.obj, MPCRT_OBJ_GROUP, MPI_GROUP_EMPTY);

    mpcrt_object_init(&world.obj, MPCRT_OBJ_COMM, NULL);
    int rc = init_comm(&world, &world_group, WORLD_CONTEXT);
    if (rc)
        return rc;
    strcpy(world.name, "MPI_COMM_WORLD");
    mpcrt_handle_register_predefined(&world.obj, MPCRT_OBJ_COMM, MPI_COMM_WORLD);

    int local = mpcrt_job_local_ranks(), first = mpcrt_job_first_rank();
    self_comms = calloc((size_t)local, sizeof *self_comms);
    if (!self_comms)
        return -ENOMEM;
    for (int i = 0; i < local; i++) {
        mpcrt_comm_t *self = &self_comms[i];
        int me = first + i;
        mpcrt_group_t *group = mpcrt_group_create(&me, 1);
        if (!group)
            return -ENOMEM;
        group->obj.flags |= MPCRT_OBJECT_PREDEFINED;
        mpcrt_object_init(&self->obj, MPCRT_OBJ_COMM, NULL);
        self->obj.flags |= MPCRT_OBJECT_PREDEFINED;
        self->obj.handle = MPI_COMM_SELF;
        rc = init_comm(self, group, SELF_CONTEXT);
        if (rc)
            return rc;
        strcpy(self->name, "MPI_COMM_SELF");
    }
    return 0;
}

int mpcrt_comm_not_created(MPI_Comm handle, const char *fn, int rc, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    return mpcrt_mpi_error(handle, fn, rc,
                           "cannot create the communicator (out of memory, or out of context ids)");
}
