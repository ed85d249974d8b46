/* Intercommunicators whose members live in several processes: every member builds its own side object and
 * its own bridge (mpcrt_comm_create_private), after the members agreed by messages on two context pairs
 * (the bridge's, then the pair's). Operations over an existing pair (dup, split, create, merge) agree over
 * the pair's bridge; MPI_Intercomm_create goes through the two leaders (intercomm.c). */
#include "comm_internal.h"

#include <stdlib.h>
#include <string.h>

enum { TAG_PAIR = -66 }; /* on the bridge's collective context; negative: never a schedule's call number */

int mpcrt_intercomm_procs_side(mpcrt_group_t *mine, mpcrt_group_t *remote, bool first, uint32_t base,
                               mpcrt_comm_t *parent, MPI_Comm *out)
{
    *out = MPI_COMM_NULL;
    int n = mine->size + remote->size;
    int *both = malloc(sizeof(int) * (size_t)n);
    if (!both)
        return MPI_ERR_NO_MEM;
    mpcrt_group_t *a = first ? mine : remote, *b = first ? remote : mine;
    memcpy(both, a->world, sizeof(int) * (size_t)a->size);
    memcpy(both + a->size, b->world, sizeof(int) * (size_t)b->size);
    mpcrt_group_t *union_group = mpcrt_group_create(both, n);
    free(both);
    mpcrt_comm_t *bridge = union_group ? mpcrt_comm_create_private(union_group, base) : NULL;
    if (union_group)
        mpcrt_object_release(&union_group->obj); /* the bridge holds it */
    mpcrt_comm_t *side = bridge ? mpcrt_comm_create_private(mine, base + 2) : NULL;
    if (!side) {
        if (bridge)
            mpcrt_object_release(&bridge->obj);
        return MPI_ERR_NO_MEM;
    }
    side->bridge = bridge; /* the side takes the bridge's reference */
    mpcrt_object_retain(&remote->obj);
    side->remote_group = remote;
    if (parent)
        mpcrt_comm_inherit(side, parent);
    return mpcrt_comm_publish(side, out);
}

/* What each member of the pair tells the others. */
enum { F_LOCAL_RANK, F_COLOR, F_KEY, F_HIGH, F_IN_RANK, NFIELDS };

typedef struct {
    int key, rank, world;
} member_t;

static int by_key_rank(const void *x, const void *y)
{
    const member_t *a = x, *b = y;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->rank > b->rank) - (a->rank < b->rank);
}

/* The members of bridge ranks [lo, hi) selected by `keep`, ordered by (field `order`, local rank), as a new
 * group (NULL when none or out of memory; *rc says which). */
static mpcrt_group_t *pick(const mpcrt_comm_t *bridge, const int *all, int lo, int hi, int color, int order,
                           int *rc)
{
    member_t *m = malloc(sizeof *m * (size_t)(hi - lo + 1));
    int *world = malloc(sizeof(int) * (size_t)(hi - lo + 1));
    mpcrt_group_t *g = NULL;
    int k = 0;
    if (!m || !world) {
        *rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int r = lo; r < hi; r++) {
        const int *f = all + NFIELDS * r;
        bool in = order == F_IN_RANK ? f[F_IN_RANK] != MPI_UNDEFINED : f[F_COLOR] == color;
        if (in)
            m[k++] = (member_t){f[order], f[F_LOCAL_RANK], bridge->group->world[r]};
    }
    if (k == 0)
        goto out;
    qsort(m, (size_t)k, sizeof *m, by_key_rank);
    for (int i = 0; i < k; i++)
        world[i] = m[i].world;
    if (!(g = mpcrt_group_create(world, k)))
        *rc = MPI_ERR_NO_MEM;
out:
    free(m);
    free(world);
    return g;
}

int mpcrt_intercomm_procs_op(mpcrt_comm_t *comm, mpcrt_pair_op_t op, int color, int key, int high,
                             mpcrt_group_t *group, MPI_Comm *newcomm)
{
    mpcrt_comm_t *bridge = comm->bridge;
    int side = mpcrt_intercomm_side(comm), n = mpcrt_comm_size(bridge), me = mpcrt_comm_rank(bridge);
    int first_size = side == 0 ? comm->group->size : comm->remote_group->size;
    int mine[NFIELDS] = {mpcrt_comm_rank(comm), color, key, high ? 1 : 0,
                         group && group->size ? mpcrt_group_rank_of(group, mpcrt_mpi_world_rank())
                                              : MPI_UNDEFINED};
    int *all = malloc(sizeof(int) * NFIELDS * (size_t)n);
    if (!all)
        return MPI_ERR_NO_MEM;
    uint32_t base;
    int rc = mpcrt_comm_procs_agree_among(bridge, NULL, n, me, TAG_PAIR, mine, NFIELDS, all, 2, &base);
    *newcomm = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    switch (op) {
    case MPCRT_PAIR_DUP:
        rc = mpcrt_intercomm_procs_side(comm->group, comm->remote_group, side == 0, base, comm, newcomm);
        break;
    case MPCRT_PAIR_MERGE: {
        /* The low group first (MPI 4.0 section 7.6.2); equal choices keep the bridge's order. */
        bool swap = all[F_HIGH] && !all[NFIELDS * first_size + F_HIGH];
        int *world = malloc(sizeof(int) * (size_t)n);
        if (!world) {
            rc = MPI_ERR_NO_MEM;
            break;
        }
        for (int i = 0; i < n; i++)
            world[i] = bridge->group->world[swap ? (i + first_size) % n : i];
        mpcrt_group_t *g = mpcrt_group_create(world, n);
        free(world);
        mpcrt_comm_t *made = g ? mpcrt_comm_create_private(g, base) : NULL;
        if (g)
            mpcrt_object_release(&g->obj);
        if (made)
            mpcrt_comm_inherit(made, comm);
        rc = mpcrt_comm_publish(made, newcomm);
        break;
    }
    case MPCRT_PAIR_SPLIT:
    case MPCRT_PAIR_CREATE: {
        int order = op == MPCRT_PAIR_SPLIT ? F_KEY : F_IN_RANK;
        if (op == MPCRT_PAIR_SPLIT && color == MPI_UNDEFINED)
            break;
        if (op == MPCRT_PAIR_CREATE && mine[F_IN_RANK] == MPI_UNDEFINED)
            break;
        mpcrt_group_t *sides[2] = {pick(bridge, all, 0, first_size, color, order, &rc),
                                   pick(bridge, all, first_size, n, color, order, &rc)};
        /* A color (or a group) present on one side only leaves nobody to talk to: MPI_COMM_NULL. */
        if (rc == MPI_SUCCESS && sides[0] && sides[1])
            rc = mpcrt_intercomm_procs_side(sides[side], sides[1 - side], side == 0, base, comm, newcomm);
        for (int s = 0; s < 2; s++)
            if (sides[s])
                mpcrt_object_release(&sides[s]->obj);
        break;
    }
    }
    free(all);
    return rc;
}
