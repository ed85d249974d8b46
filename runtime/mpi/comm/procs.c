/* Communicator creation when the members live in several processes: members exchange what each would have
 * published in the rendezvous (color, key) by messages on the parent's collective context, agree on a
 * context free in all their processes, and each builds its own object (mpcrt_comm_create_private). */
#include "comm_internal.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_AGREE = -64 }; /* negative: never a schedule call number (nbc/) nor MPI_ANY_TAG */

int mpcrt_comm_procs_agree_among(mpcrt_comm_t *comm, const int *ranks, int n, int me, int tag,
                                 const int *mine, int nints, int *all, int npairs, uint32_t *context)
{
    int per = nints + 1, rc = MPI_SUCCESS;
    int *table = malloc(sizeof(int) * (size_t)(per * n));
    mpcrt_request_t **reqs = calloc((size_t)(2 * n), sizeof *reqs);
    mpcrt_datatype_t *ints = mpcrt_datatype_get(MPI_INT);
    if (!table || !reqs) {
        free(table);
        free(reqs);
        return MPI_ERR_NO_MEM;
    }
    if (nints)
        memcpy(table + per * me, mine, sizeof(int) * (size_t)nints);
    /* The first member's contexts, unique in the job (context.c): the others propose 0, and the largest
     * proposal wins. */
    table[per * me + nints] = me == 0 ? (int)mpcrt_comm_context_propose(npairs) : 0;
    for (int i = 1; i < n && rc == MPI_SUCCESS; i++) {
        int from = (me - i + n) % n, to = (me + i) % n;
        rc = mpcrt_p2p_irecv(comm, ranks ? ranks[from] : from, tag, table + per * from, per, ints,
                             &reqs[2 * i]);
        if (rc == MPI_SUCCESS)
            rc = mpcrt_p2p_isend(comm, ranks ? ranks[to] : to, tag, table + per * me, per, ints,
                                 &reqs[2 * i + 1]);
    }
    int wrc = mpcrt_p2p_waitall(reqs, 2 * n);
    free(reqs);
    if (rc == MPI_SUCCESS)
        rc = wrc;
    uint32_t agreed = 0;
    for (int r = 0; r < n; r++) {
        if ((uint32_t)table[per * r + nints] > agreed)
            agreed = (uint32_t)table[per * r + nints];
        if (all && nints)
            memcpy(all + nints * r, table + per * r, sizeof(int) * (size_t)nints);
    }
    free(table);
    *context = agreed;
    return rc;
}

int mpcrt_comm_procs_agree(mpcrt_comm_t *comm, const int *mine, int nints, int *all, uint32_t *context)
{
    return mpcrt_comm_procs_agree_among(comm, NULL, mpcrt_comm_size(comm), mpcrt_comm_rank(comm), TAG_AGREE,
                                        mine, nints, all, 1, context);
}

typedef struct {
    int color, key, rank;
} entry_t;

static int by_key_rank(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int mpcrt_comm_procs_split(mpcrt_comm_t *comm, int color, int key, bool keep_topology, MPI_Comm *newcomm)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    int mine[2] = {color, key};
    int *all = malloc(sizeof(int) * 2 * (size_t)n);
    if (!all)
        return MPI_ERR_NO_MEM;
    uint32_t context;
    int rc = mpcrt_comm_procs_agree(comm, mine, 2, all, &context);
    *newcomm = MPI_COMM_NULL;
    if (rc != MPI_SUCCESS || color == MPI_UNDEFINED) {
        free(all);
        return rc;
    }
    entry_t *members = malloc(sizeof *members * (size_t)n);
    int *world = malloc(sizeof *world * (size_t)n);
    int size = 0;
    for (int r = 0; members && r < n; r++)
        if (all[2 * r] == color)
            members[size++] = (entry_t){color, all[2 * r + 1], r};
    free(all);
    if (!members || !world) {
        free(members);
        free(world);
        return MPI_ERR_NO_MEM;
    }
    qsort(members, (size_t)size, sizeof *members, by_key_rank);
    for (int i = 0; i < size; i++)
        world[i] = comm->group->world[members[i].rank];
    free(members);
    mpcrt_group_t *group = mpcrt_group_create(world, size);
    free(world);
    mpcrt_comm_t *made = group ? mpcrt_comm_create_private(group, context) : NULL;
    if (group)
        mpcrt_object_release(&group->obj); /* the communicator holds it */
    if (made) {
        mpcrt_comm_inherit(made, comm);
        if (keep_topology && comm->topo) {
            mpcrt_object_retain(comm->topo);
            made->topo = comm->topo;
        }
    }
    (void)me;
    return mpcrt_comm_publish(made, newcomm);
}

int mpcrt_node_color(void)
{
    /* The same non-negative number on every process of a node (its host name, hashed: FNV-1a). */
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    uint32_t h = 2166136261u;
    for (const char *c = host; *c; c++)
        h = (h ^ (uint8_t)*c) * 16777619u;
    return (int)(h & 0x7fffffff);
}
