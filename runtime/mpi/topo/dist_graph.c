/* Distributed graph topologies (MPI 4.0 sections 8.5.4, 8.5.5): each member gives part of the graph; member
 * 0 of the new communicator gathers every member's edges (they are all in this process) and keeps, for each
 * rank, its sources and destinations in the order the standard fixes: as given for the adjacent form; for the
 * general form (order left to the implementation) by contributing rank, then the order of its arguments. */
#include "topo_internal.h"

#include <stdlib.h>
#include <string.h>

/* The MPICH ABI declares these as extern objects (include/mpi.h): only their addresses matter, distinct
 * from any array a program passes and from NULL. */
static int unweighted_marker, weights_empty_marker;
int *const MPI_UNWEIGHTED = &unweighted_marker;
int *const MPI_WEIGHTS_EMPTY = &weights_empty_marker;

typedef struct {
    bool weighted;
    /* MPI_Dist_graph_create_adjacent */
    int indegree, outdegree;
    const int *sources, *source_weights, *dests, *dest_weights;
    /* MPI_Dist_graph_create */
    int n;
    const int *general_sources, *degrees, *destinations, *weights;
} dist_args_t;

static int check_ranks(const char *fn, MPI_Comm handle, const char *what, const int *ranks, int n, int size)
{
    if (n > 0 && !ranks)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null %s array", what);
    for (int i = 0; i < n; i++)
        if (ranks[i] < 0 || ranks[i] >= size)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_RANK, "%s[%d] = %d is not in [0, %d)", what, i, ranks[i],
                                   size);
    return MPI_SUCCESS;
}

/* Weights of n edges: MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (n = 0 only) or n non-negative values. */
static int check_weights(const char *fn, MPI_Comm handle, const char *what, const int *weights, int n)
{
    if (weights == MPI_UNWEIGHTED)
        return MPI_SUCCESS;
    if (n == 0)
        return MPI_SUCCESS; /* MPI_WEIGHTS_EMPTY, or any pointer: nothing is read */
    if (!weights || weights == MPI_WEIGHTS_EMPTY)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "%s: %d edges need %d weights", what, n, n);
    for (int i = 0; i < n; i++)
        if (weights[i] < 0)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "%s[%d] = %d is negative", what, i, weights[i]);
    return MPI_SUCCESS;
}

/* Allocates a rank's lists for the counts already in a. */
static bool alloc_adj(mpcrt_dist_adj_t *a)
{
    a->sources = malloc(sizeof(int) * (size_t)(a->indegree + 1));
    a->dests = malloc(sizeof(int) * (size_t)(a->outdegree + 1));
    if (a->weighted) {
        a->source_weights = malloc(sizeof(int) * (size_t)(a->indegree + 1));
        a->dest_weights = malloc(sizeof(int) * (size_t)(a->outdegree + 1));
    }
    return a->sources && a->dests && (!a->weighted || (a->source_weights && a->dest_weights));
}

static mpcrt_topo_t *new_dist(int nranks)
{
    mpcrt_topo_t *t = mpcrt_topo_new(MPI_DIST_GRAPH);
    if (!t)
        return NULL;
    t->dist.nranks = nranks;
    t->dist.ranks = calloc((size_t)nranks, sizeof *t->dist.ranks);
    if (!t->dist.ranks) {
        mpcrt_object_release(&t->obj);
        return NULL;
    }
    return t;
}

static void copy_ints(int *dst, const int *src, int n)
{
    if (n > 0)
        memcpy(dst, src, sizeof(int) * (size_t)n);
}

/* ------------------------------------------------------------------ members in several processes */

enum { H_WEIGHTED, H_IN, H_OUT, H_N, H_EDGES, NHEAD };

static void put(int **at, const int *src, int n, bool present)
{
    if (present)
        copy_ints(*at, src, n);
    *at += present ? n : 0;
}

/* A member's arguments as one array of ints: a header, then the arrays present. */
static int *flatten(const dist_args_t *in, int *len)
{
    long edges = 0;
    for (int i = 0; i < in->n; i++)
        edges += in->degrees[i];
    int w = in->weighted;
    long n = NHEAD + (long)in->indegree * (1 + w) + (long)in->outdegree * (1 + w) + 2L * in->n + edges * (1 + w);
    int *flat = malloc(sizeof(int) * (size_t)n), *at = flat + NHEAD;
    if (!flat)
        return NULL;
    flat[H_WEIGHTED] = w;
    flat[H_IN] = in->indegree;
    flat[H_OUT] = in->outdegree;
    flat[H_N] = in->n;
    flat[H_EDGES] = (int)edges;
    put(&at, in->sources, in->indegree, true);
    put(&at, in->source_weights, in->indegree, w);
    put(&at, in->dests, in->outdegree, true);
    put(&at, in->dest_weights, in->outdegree, w);
    put(&at, in->general_sources, in->n, true);
    put(&at, in->degrees, in->n, true);
    put(&at, in->destinations, (int)edges, true);
    put(&at, in->weights, (int)edges, w);
    *len = (int)n;
    return flat;
}

static const int *take(const int **at, int n, bool present)
{
    const int *p = *at;
    *at += present ? n : 0;
    return present ? p : NULL;
}

int mpcrt_topo_dist_gather(MPI_Comm made, const void *contribution, void ***all, void **storage)
{
    int n, len = 0, rc;
    PMPI_Comm_size(made, &n);
    int *flat = flatten(contribution, &len);
    int *lens = malloc(sizeof(int) * (size_t)n), *displs = malloc(sizeof(int) * (size_t)n);
    dist_args_t *args = calloc((size_t)n, sizeof *args);
    *all = calloc((size_t)n, sizeof(void *));
    *storage = NULL;
    if (!flat || !lens || !displs || !args || !*all) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if ((rc = PMPI_Allgather(&len, 1, MPI_INT, lens, 1, MPI_INT, made)))
        goto out;
    long total = 0;
    for (int r = 0; r < n; r++) {
        displs[r] = (int)total;
        total += lens[r];
    }
    int *buf = malloc(sizeof(int) * (size_t)(total + 1));
    if (!buf) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    if ((rc = PMPI_Allgatherv(flat, len, MPI_INT, buf, lens, displs, MPI_INT, made))) {
        free(buf);
        goto out;
    }
    for (int r = 0; r < n; r++) {
        const int *h = buf + displs[r], *at = h + NHEAD;
        dist_args_t *a = &args[r];
        int w = h[H_WEIGHTED];
        a->weighted = w;
        a->indegree = h[H_IN];
        a->outdegree = h[H_OUT];
        a->n = h[H_N];
        a->sources = take(&at, a->indegree, true);
        a->source_weights = take(&at, a->indegree, w);
        a->dests = take(&at, a->outdegree, true);
        a->dest_weights = take(&at, a->outdegree, w);
        a->general_sources = take(&at, a->n, true);
        a->degrees = take(&at, a->n, true);
        a->destinations = take(&at, h[H_EDGES], true);
        a->weights = take(&at, h[H_EDGES], w);
        (*all)[r] = a;
    }
    /* One allocation for the caller to free: the argument records, then the ints they point to. */
    dist_args_t *keep = realloc(args, sizeof *args * (size_t)n + sizeof(int) * (size_t)(total + 1));
    if (!keep) {
        free(buf);
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    args = keep;
    int *ints = (int *)(args + n);
    memcpy(ints, buf, sizeof(int) * (size_t)(total + 1));
    for (int r = 0; r < n; r++) { /* rebase the pointers from buf into the kept copy */
        dist_args_t *a = &args[r];
        const int **fields[] = {&a->sources, &a->source_weights, &a->dests, &a->dest_weights,
                                &a->general_sources, &a->degrees, &a->destinations, &a->weights};
        for (size_t f = 0; f < sizeof fields / sizeof *fields; f++)
            if (*fields[f])
                *fields[f] = ints + (*fields[f] - buf);
        (*all)[r] = a;
    }
    free(buf);
    *storage = args;
    args = NULL;
out:
    free(flat);
    free(lens);
    free(displs);
    free(args);
    return rc;
}

static mpcrt_topo_t *build_adjacent(mpcrt_comm_t *made, void **contributions, const void *arg)
{
    (void)arg;
    int n = mpcrt_comm_size(made);
    mpcrt_topo_t *t = new_dist(n);
    for (int r = 0; t && r < n; r++) {
        const dist_args_t *in = contributions[r];
        mpcrt_dist_adj_t *a = &t->dist.ranks[r];
        a->indegree = in->indegree;
        a->outdegree = in->outdegree;
        a->weighted = in->weighted;
        if (!alloc_adj(a)) {
            mpcrt_object_release(&t->obj);
            return NULL;
        }
        copy_ints(a->sources, in->sources, a->indegree);
        copy_ints(a->dests, in->dests, a->outdegree);
        if (a->weighted) {
            copy_ints(a->source_weights, in->source_weights, a->indegree);
            copy_ints(a->dest_weights, in->dest_weights, a->outdegree);
        }
    }
    return t;
}

static mpcrt_topo_t *build_general(mpcrt_comm_t *made, void **contributions, const void *arg)
{
    (void)arg;
    int n = mpcrt_comm_size(made);
    mpcrt_topo_t *t = new_dist(n);
    if (!t)
        return NULL;
    /* Pass 0 counts each rank's edges, pass 1 fills them in the same order. */
    for (int pass = 0; pass < 2; pass++) {
        for (int r = 0; r < n; r++)
            t->dist.ranks[r].indegree = t->dist.ranks[r].outdegree = 0;
        for (int r = 0; r < n; r++) {
            const dist_args_t *in = contributions[r];
            for (int i = 0, e = 0; i < in->n; i++) {
                int source = in->general_sources[i];
                for (int k = 0; k < in->degrees[i]; k++, e++) {
                    int dest = in->destinations[e], w = in->weighted ? in->weights[e] : 1;
                    mpcrt_dist_adj_t *s = &t->dist.ranks[source], *d = &t->dist.ranks[dest];
                    if (pass) {
                        s->dests[s->outdegree] = dest;
                        d->sources[d->indegree] = source;
                        if (s->weighted)
                            s->dest_weights[s->outdegree] = w;
                        if (d->weighted)
                            d->source_weights[d->indegree] = w;
                    }
                    s->outdegree++;
                    d->indegree++;
                }
            }
        }
        for (int r = 0; pass == 0 && r < n; r++) {
            mpcrt_dist_adj_t *a = &t->dist.ranks[r];
            /* A rank's lists are weighted when it gave weights itself (MPI_Dist_graph_neighbors_count). */
            a->weighted = ((const dist_args_t *)contributions[r])->weighted;
            if (!alloc_adj(a)) {
                mpcrt_object_release(&t->obj);
                return NULL;
            }
        }
    }
    return t;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm handle, int indegree, const int sources[], const int sourceweights[],
                                    int outdegree, const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create_adjacent";
    (void)info;
    (void)reorder;
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    if (rc)
        return rc;
    int size = mpcrt_comm_size(comm);
    if (indegree < 0 || outdegree < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative degree (%d in, %d out)", indegree, outdegree);
    if ((rc = check_ranks(fn, handle, "sources", sources, indegree, size)) ||
        (rc = check_ranks(fn, handle, "destinations", destinations, outdegree, size)) ||
        (rc = check_weights(fn, handle, "sourceweights", sourceweights, indegree)) ||
        (rc = check_weights(fn, handle, "destweights", destweights, outdegree)))
        return rc;
    if ((sourceweights == MPI_UNWEIGHTED) != (destweights == MPI_UNWEIGHTED))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "MPI_UNWEIGHTED must be given for both or neither");
    if (!comm_dist_graph)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    dist_args_t mine = {.weighted = sourceweights != MPI_UNWEIGHTED,
                        .indegree = indegree,
                        .outdegree = outdegree,
                        .sources = sources,
                        .source_weights = sourceweights,
                        .dests = destinations,
                        .dest_weights = destweights};
    int me = mpcrt_comm_rank(comm);
    return mpcrt_topo_create(fn, handle, 0, me, &mine, build_adjacent, NULL, comm_dist_graph);
}
MPCRT_PMPI_ALIAS(Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm handle, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int reorder,
                           MPI_Comm *comm_dist_graph)
{
    static const char fn[] = "MPI_Dist_graph_create";
    (void)info;
    (void)reorder;
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, 0);
    if (rc)
        return rc;
    int size = mpcrt_comm_size(comm);
    if (n < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative n %d", n);
    if ((rc = check_ranks(fn, handle, "sources", sources, n, size)))
        return rc;
    if (n > 0 && !degrees)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null degrees array");
    long nedges = 0;
    for (int i = 0; i < n; i++) {
        if (degrees[i] < 0)
            return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "degrees[%d] = %d is negative", i, degrees[i]);
        nedges += degrees[i];
    }
    if (nedges > MPCRT_TAG_UB)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "too many edges");
    if ((rc = check_ranks(fn, handle, "destinations", destinations, (int)nedges, size)) ||
        (rc = check_weights(fn, handle, "weights", weights, (int)nedges)))
        return rc;
    if (!comm_dist_graph)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    dist_args_t mine = {.weighted = weights != MPI_UNWEIGHTED,
                        .n = n,
                        .general_sources = sources,
                        .degrees = degrees,
                        .destinations = destinations,
                        .weights = weights};
    int me = mpcrt_comm_rank(comm);
    return mpcrt_topo_create(fn, handle, 0, me, &mine, build_general, NULL, comm_dist_graph);
}
MPCRT_PMPI_ALIAS(Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm handle, int *indegree, int *outdegree, int *weighted)
{
    static const char fn[] = "MPI_Dist_graph_neighbors_count";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_DIST_GRAPH);
    if (rc)
        return rc;
    if (!indegree || !outdegree || !weighted)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output argument");
    const mpcrt_dist_adj_t *a = &mpcrt_topo_of(comm)->dist.ranks[mpcrt_comm_rank(comm)];
    *indegree = a->indegree;
    *outdegree = a->outdegree;
    *weighted = a->weighted;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm handle, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[])
{
    static const char fn[] = "MPI_Dist_graph_neighbors";
    mpcrt_comm_t *comm;
    int rc = mpcrt_topo_comm_arg(fn, handle, &comm, MPI_DIST_GRAPH);
    if (rc)
        return rc;
    const mpcrt_dist_adj_t *a = &mpcrt_topo_of(comm)->dist.ranks[mpcrt_comm_rank(comm)];
    if (maxindegree < 0 || maxoutdegree < 0)
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "negative maxindegree or maxoutdegree");
    /* Arrays shorter than the degrees get the first neighbors (as MPI_Graph_neighbors does). */
    int nin = a->indegree < maxindegree ? a->indegree : maxindegree;
    int nout = a->outdegree < maxoutdegree ? a->outdegree : maxoutdegree;
    if ((nin && !sources) || (nout && !destinations))
        return mpcrt_mpi_error(handle, fn, MPI_ERR_ARG, "null output array");
    copy_ints(sources, a->sources, nin);
    copy_ints(destinations, a->dests, nout);
    /* Weights only for a weighted graph, and only where the caller gave an array. */
    if (a->weighted && sourceweights && sourceweights != MPI_UNWEIGHTED && sourceweights != MPI_WEIGHTS_EMPTY)
        copy_ints(sourceweights, a->source_weights, nin);
    if (a->weighted && destweights && destweights != MPI_UNWEIGHTED && destweights != MPI_WEIGHTS_EMPTY)
        copy_ints(destweights, a->dest_weights, nout);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Dist_graph_neighbors)
