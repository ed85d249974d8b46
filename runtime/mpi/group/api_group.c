/* MPI API: group queries, constructors and MPI_Group_free (MPI 4.0 sections 7.3.1-7.3.3). Groups are
 * per-rank objects (each call makes its own); errors have no communicator and are raised on MPI_COMM_SELF.
 * An empty result is MPI_GROUP_EMPTY, which may be freed like any other result. */
#include "group.h"

#include <stdlib.h>
#include <string.h>

static int check_env(const char *fn)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!mpcrt_mpi_started(self))
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_OTHER, "called before MPI_Init");
    if (!mpcrt_mpi_rank_active(self)) /* finalized, and no session open (MPI 4.0 section 11.3) */
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_OTHER, "called after MPI_Finalize");
    return MPI_SUCCESS;
}

static int check_group(const char *fn, MPI_Group handle, mpcrt_group_t **group)
{
    int rc = check_env(fn);
    if (rc)
        return rc;
    if (!(*group = mpcrt_group_lookup(handle)))
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_GROUP,
                               handle == MPI_GROUP_NULL ? "MPI_GROUP_NULL" : "invalid group 0x%x", handle);
    return MPI_SUCCESS;
}

static int check_two(const char *fn, MPI_Group h1, MPI_Group h2, mpcrt_group_t **g1, mpcrt_group_t **g2)
{
    int rc = check_group(fn, h1, g1);
    return rc ? rc : check_group(fn, h2, g2);
}

static int check_out(const char *fn, const void *out)
{
    return out ? MPI_SUCCESS : mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "null output argument");
}

/* Hands a new group to the caller, or raises the error of a failed construction. */
static int finish(const char *fn, int rc, mpcrt_group_t *made, MPI_Group *newgroup)
{
    if (rc == 0)
        rc = mpcrt_group_publish(made, newgroup);
    else
        rc = MPI_ERR_NO_MEM;
    if (rc)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, rc, "cannot create the group");
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group handle, int *size)
{
    mpcrt_group_t *g;
    int rc = check_group("MPI_Group_size", handle, &g);
    if (rc == MPI_SUCCESS && !(rc = check_out("MPI_Group_size", size)))
        *size = g->size;
    return rc;
}
MPCRT_PMPI_ALIAS(Group_size)

int PMPI_Group_rank(MPI_Group handle, int *rank)
{
    mpcrt_group_t *g;
    int rc = check_group("MPI_Group_rank", handle, &g);
    if (rc == MPI_SUCCESS && !(rc = check_out("MPI_Group_rank", rank)))
        *rank = g->size ? mpcrt_group_rank_of(g, mpcrt_mpi_world_rank()) : MPI_UNDEFINED;
    return rc;
}
MPCRT_PMPI_ALIAS(Group_rank)

int PMPI_Group_translate_ranks(MPI_Group h1, int n, const int ranks1[], MPI_Group h2, int ranks2[])
{
    static const char fn[] = "MPI_Group_translate_ranks";
    mpcrt_group_t *g1, *g2;
    int rc = check_two(fn, h1, h2, &g1, &g2);
    if (rc)
        return rc;
    if (n < 0)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "negative count %d", n);
    if (n > 0 && (!ranks1 || !ranks2))
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "null rank array");
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        if (r == MPI_PROC_NULL)
            continue;
        if (r < 0 || r >= g1->size)
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_RANK, "ranks1[%d] = %d is not in [0, %d)", i, r,
                                   g1->size);
    }
    for (int i = 0; i < n; i++) {
        int r = ranks1[i];
        /* MPI 4.0 section 7.3.1: MPI_PROC_NULL translates to MPI_PROC_NULL. */
        ranks2[i] = r == MPI_PROC_NULL ? MPI_PROC_NULL
                    : g2->size == 0    ? MPI_UNDEFINED
                                       : mpcrt_group_rank_of(g2, g1->world[r]);
    }
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Group_translate_ranks)

int PMPI_Group_compare(MPI_Group h1, MPI_Group h2, int *result)
{
    mpcrt_group_t *g1, *g2;
    int rc = check_two("MPI_Group_compare", h1, h2, &g1, &g2);
    if (rc == MPI_SUCCESS && !(rc = check_out("MPI_Group_compare", result)))
        *result = mpcrt_group_compare(g1, g2);
    return rc;
}
MPCRT_PMPI_ALIAS(Group_compare)

typedef int (*set_op_fn)(mpcrt_group_t *a, mpcrt_group_t *b, mpcrt_group_t **out);

static int set_op(const char *fn, set_op_fn op, MPI_Group h1, MPI_Group h2, MPI_Group *newgroup)
{
    mpcrt_group_t *g1, *g2, *made = NULL;
    int rc = check_two(fn, h1, h2, &g1, &g2);
    if (rc || (rc = check_out(fn, newgroup)))
        return rc;
    rc = op(g1, g2, &made); /* before finish reads `made` (argument order is unspecified) */
    return finish(fn, rc, made, newgroup);
}

int PMPI_Group_union(MPI_Group h1, MPI_Group h2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_union", mpcrt_group_union, h1, h2, newgroup);
}
MPCRT_PMPI_ALIAS(Group_union)

int PMPI_Group_intersection(MPI_Group h1, MPI_Group h2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_intersection", mpcrt_group_intersection, h1, h2, newgroup);
}
MPCRT_PMPI_ALIAS(Group_intersection)

int PMPI_Group_difference(MPI_Group h1, MPI_Group h2, MPI_Group *newgroup)
{
    return set_op("MPI_Group_difference", mpcrt_group_difference, h1, h2, newgroup);
}
MPCRT_PMPI_ALIAS(Group_difference)

/* Checks a list of n ranks of g (valid, distinct) and marks them in `taken` (g->size flags, zeroed). */
static int check_ranks(const char *fn, mpcrt_group_t *g, int n, const int ranks[], bool *taken)
{
    for (int i = 0; i < n; i++) {
        int r = ranks[i];
        if (r < 0 || r >= g->size)
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_RANK, "ranks[%d] = %d is not in [0, %d)", i, r,
                                   g->size);
        if (taken[r])
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_RANK, "rank %d appears twice", r);
        taken[r] = true;
    }
    return MPI_SUCCESS;
}

/* The selection of an incl/excl call: the ranks to keep, in order, in a new array. */
static int build_selection(const char *fn, mpcrt_group_t *g, int n, const int ranks[], bool exclude,
                           int **keep, int *nkeep)
{
    bool *taken = calloc((size_t)(g->size > 0 ? g->size : 1), sizeof *taken);
    *keep = malloc(sizeof(int) * (size_t)(g->size > 0 ? g->size : 1));
    if (!taken || !*keep) {
        free(taken);
        free(*keep);
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_NO_MEM, "cannot create the group");
    }
    int rc = check_ranks(fn, g, n, ranks, taken);
    *nkeep = 0;
    if (rc == MPI_SUCCESS && exclude) {
        for (int r = 0; r < g->size; r++)
            if (!taken[r])
                (*keep)[(*nkeep)++] = r;
    } else if (rc == MPI_SUCCESS) {
        if (n > 0)
            memcpy(*keep, ranks, sizeof(int) * (size_t)n);
        *nkeep = n;
    }
    free(taken);
    if (rc)
        free(*keep);
    return rc;
}

static int incl_excl(const char *fn, MPI_Group handle, int n, const int ranks[], MPI_Group *newgroup,
                     bool exclude)
{
    mpcrt_group_t *g, *made = NULL;
    int rc = check_group(fn, handle, &g);
    if (rc || (rc = check_out(fn, newgroup)))
        return rc;
    if (n < 0 || n > g->size)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "count %d is not in [0, %d]", n, g->size);
    if (n > 0 && !ranks)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "null rank array");
    int *keep, nkeep;
    if ((rc = build_selection(fn, g, n, ranks, exclude, &keep, &nkeep)))
        return rc;
    rc = mpcrt_group_select(g, keep, nkeep, &made);
    free(keep);
    return finish(fn, rc, made, newgroup);
}

int PMPI_Group_incl(MPI_Group handle, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_incl", handle, n, ranks, newgroup, false);
}
MPCRT_PMPI_ALIAS(Group_incl)

int PMPI_Group_excl(MPI_Group handle, int n, const int ranks[], MPI_Group *newgroup)
{
    return incl_excl("MPI_Group_excl", handle, n, ranks, newgroup, true);
}
MPCRT_PMPI_ALIAS(Group_excl)

/* Expands n (first, last, stride) triplets into the list of ranks they name (MPI 4.0 section 7.3.2: first,
 * first + stride, ... up to first + floor((last - first) / stride) * stride). Every computed rank must be
 * valid; a triplet going the wrong way (first > last with a positive stride, or the reverse) is erroneous. */
static int expand_ranges(const char *fn, mpcrt_group_t *g, int n, int ranges[][3], int **ranks, int *count)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0)
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "ranges[%d] has stride 0", i);
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG,
                                   "ranges[%d] = (%d, %d, %d): the stride goes away from last", i, first,
                                   last, stride);
        long steps = ((long)last - first) / stride, end = first + steps * stride;
        /* The computed ranks lie between first and end: checking those two checks them all. */
        if (first < 0 || first >= g->size || end < 0 || end >= g->size)
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_RANK,
                                   "ranges[%d] = (%d, %d, %d) leaves the group's ranks [0, %d)", i, first,
                                   last, stride, g->size);
        total += steps + 1;
        if (total > g->size)
            return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_RANK,
                                   "the ranges name more ranks than the group's %d", g->size);
    }
    *ranks = malloc(sizeof(int) * (size_t)(total > 0 ? total : 1));
    if (!*ranks)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_NO_MEM, "cannot create the group");
    int k = 0;
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        long steps = ((long)last - first) / stride;
        for (long s = 0; s <= steps; s++)
            (*ranks)[k++] = (int)(first + s * stride);
    }
    *count = k;
    return MPI_SUCCESS;
}

static int range_incl_excl(const char *fn, MPI_Group handle, int n, int ranges[][3], MPI_Group *newgroup,
                           bool exclude)
{
    mpcrt_group_t *g, *made = NULL;
    int rc = check_group(fn, handle, &g);
    if (rc || (rc = check_out(fn, newgroup)))
        return rc;
    if (n < 0)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "negative count %d", n);
    if (n > 0 && !ranges)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_ARG, "null ranges array");
    int *ranks = NULL, count = 0;
    if ((rc = expand_ranges(fn, g, n, ranges, &ranks, &count)))
        return rc;
    int *keep, nkeep;
    rc = build_selection(fn, g, count, ranks, exclude, &keep, &nkeep);
    free(ranks);
    if (rc)
        return rc;
    rc = mpcrt_group_select(g, keep, nkeep, &made);
    free(keep);
    return finish(fn, rc, made, newgroup);
}

int PMPI_Group_range_incl(MPI_Group handle, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_incl", handle, n, ranges, newgroup, false);
}
MPCRT_PMPI_ALIAS(Group_range_incl)

int PMPI_Group_range_excl(MPI_Group handle, int n, int ranges[][3], MPI_Group *newgroup)
{
    return range_incl_excl("MPI_Group_range_excl", handle, n, ranges, newgroup, true);
}
MPCRT_PMPI_ALIAS(Group_range_excl)

int PMPI_Group_free(MPI_Group *handle)
{
    static const char fn[] = "MPI_Group_free";
    mpcrt_group_t *g;
    int rc = check_out(fn, handle);
    if (rc || (rc = check_group(fn, *handle, &g)))
        return rc;
    /* MPI_GROUP_EMPTY is what empty constructions return, so freeing it must work (and does nothing). */
    if (*handle != MPI_GROUP_EMPTY && mpcrt_handle_free(MPCRT_OBJ_GROUP, *handle) != 0)
        return mpcrt_mpi_error(MPI_COMM_SELF, fn, MPI_ERR_GROUP, "group 0x%x cannot be freed", *handle);
    *handle = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Group_free)
