/* Group algebra on lists of MPI_COMM_WORLD ranks (MPI 4.0 section 7.3.2): union, intersection, difference,
 * selection, comparison. Membership tests use the group's world-to-rank map (built once per group). */
#include "group.h"

#include <errno.h>
#include <stdlib.h>

mpcrt_group_t *mpcrt_group_lookup(MPI_Group handle)
{
    return mpcrt_group_get(handle);
}

mpcrt_group_t *mpcrt_group_empty(void)
{
    return mpcrt_group_get(MPI_GROUP_EMPTY);
}

static bool is_member(mpcrt_group_t *g, int world_rank)
{
    return g->size > 0 && mpcrt_group_rank_of(g, world_rank) != MPI_UNDEFINED;
}

/* A group from a scratch list; frees the list. */
static int make(int *world, int n, mpcrt_group_t **out)
{
    *out = mpcrt_group_create(world, n);
    free(world);
    return *out ? 0 : -ENOMEM;
}

static int *scratch(int n)
{
    return malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
}

int mpcrt_group_union(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out)
{
    int *world = scratch(a->size + b->size);
    if (!world)
        return -ENOMEM;
    int n = 0;
    for (int r = 0; r < a->size; r++)
        world[n++] = a->world[r];
    for (int r = 0; r < b->size; r++)
        if (!is_member(a, b->world[r]))
            world[n++] = b->world[r];
    return make(world, n, out);
}

int mpcrt_group_intersection(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out)
{
    int *world = scratch(a->size);
    if (!world)
        return -ENOMEM;
    int n = 0;
    for (int r = 0; r < a->size; r++)
        if (is_member(b, a->world[r]))
            world[n++] = a->world[r];
    return make(world, n, out);
}

int mpcrt_group_difference(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out)
{
    int *world = scratch(a->size);
    if (!world)
        return -ENOMEM;
    int n = 0;
    for (int r = 0; r < a->size; r++)
        if (!is_member(b, a->world[r]))
            world[n++] = a->world[r];
    return make(world, n, out);
}

int mpcrt_group_select(mpcrt_group_t *g, const int *ranks, int n, mpcrt_group_t **out)
{
    int *world = scratch(n);
    if (!world)
        return -ENOMEM;
    for (int i = 0; i < n; i++)
        world[i] = g->world[ranks[i]];
    return make(world, n, out);
}

bool mpcrt_group_is_subset(mpcrt_group_t *sub, mpcrt_group_t *g)
{
    for (int r = 0; r < sub->size; r++)
        if (!is_member(g, sub->world[r]))
            return false;
    return true;
}

int mpcrt_group_compare(mpcrt_group_t *a, mpcrt_group_t *b)
{
    if (a == b)
        return MPI_IDENT;
    if (a->size != b->size)
        return MPI_UNEQUAL;
    bool same_order = true;
    for (int r = 0; r < a->size && same_order; r++)
        same_order = a->world[r] == b->world[r];
    if (same_order)
        return MPI_IDENT;
    /* Members are distinct within a group, so equal sizes and inclusion mean equal sets. */
    return mpcrt_group_is_subset(a, b) ? MPI_SIMILAR : MPI_UNEQUAL;
}

int mpcrt_group_publish(mpcrt_group_t *g, MPI_Group *handle)
{
    if (g->size == 0) {
        mpcrt_object_release(&g->obj);
        *handle = MPI_GROUP_EMPTY;
        return MPI_SUCCESS;
    }
    if (mpcrt_handle_register(&g->obj, handle) != 0) {
        mpcrt_object_release(&g->obj);
        return MPI_ERR_NO_MEM;
    }
    return MPI_SUCCESS;
}
