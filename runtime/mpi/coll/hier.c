/* Hierarchical collectives on communicators whose members live in several processes (DESIGN.md section 4):
 * the members of this process meet through shared memory (an in-process communicator over them, whose
 * collectives are those of meet.h: no messages), one leader per process (its lowest member) talks to the
 * other leaders by messages, and the members meet again in the process. Barrier, bcast, reduce, allreduce,
 * allgather and gather take this path; the others, and communicators with one member per process, keep
 * the flat message algorithms of procs.c. The state is per process and per communicator (keyed by its
 * context), shared by the members' private objects. */
#include "meet.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* Negative tags below procs.c's: the schedules of non-blocking collectives use tags >= 0. */
enum {
    TAG_BARRIER = -2000,
    TAG_BCAST,
    TAG_REDUCE,
    TAG_RESULT,
    TAG_GATHER,
};

typedef struct coll_node {
    struct coll_node *next;
    /* Communicators whose groups are disjoint may share a context (the colors of a split): the key is
     * the context and the group's first member. */
    uint32_t context;
    int first_world;
    int refs;            /* members' private objects that point here (under nodes_lock) */
    mpcrt_comm_t *local; /* this process's members, in comm rank order, as an in-process communicator */
    int nprocs;          /* processes with members, in the order of their lowest member */
    int my_proc;
    int *proc_of;         /* by comm rank */
    int *first_of;        /* by process: index into members_by_proc of its first member; [nprocs] = n */
    int *members_by_proc; /* comm ranks, process by process, in rank order */
    /* Every process's members are consecutive comm ranks and processes follow rank order: partial results
     * combined in process order are in rank order (non-commutative reductions). */
    bool blocks;
} coll_node_t;

static mpcrt_mutex_t nodes_lock = MPCRT_MUTEX_INITIALIZER;
static coll_node_t *nodes;

static void node_free(coll_node_t *node)
{
    if (node->local)
        mpcrt_object_release(&node->local->obj);
    free(node->proc_of);
    free(node->first_of);
    free(node->members_by_proc);
    free(node);
}

/* coll_state_free of the members' private objects: the last one frees the node. */
static void node_release(void *state)
{
    coll_node_t *node = state;
    mpcrt_mutex_lock(&nodes_lock);
    bool last = --node->refs == 0;
    if (last)
        for (coll_node_t **at = &nodes; *at; at = &(*at)->next)
            if (*at == node) {
                *at = node->next;
                break;
            }
    mpcrt_mutex_unlock(&nodes_lock);
    if (last)
        node_free(node);
}

static coll_node_t *node_create(const mpcrt_comm_t *comm)
{
    int n = mpcrt_comm_size(comm), per_proc = mpcrt_job_local_ranks();
    coll_node_t *node = calloc(1, sizeof *node);
    if (!node)
        return NULL;
    node->context = comm->context;
    node->first_world = comm->group->world[0];
    node->proc_of = malloc(sizeof(int) * (size_t)n);
    node->first_of = calloc((size_t)n + 1, sizeof(int));
    node->members_by_proc = malloc(sizeof(int) * (size_t)n);
    int *job_proc = malloc(sizeof(int) * (size_t)n), *count = calloc((size_t)n, sizeof(int));
    int *local = malloc(sizeof(int) * (size_t)n), nlocal = 0;
    if (!node->proc_of || !node->first_of || !node->members_by_proc || !job_proc || !count || !local)
        goto fail;
    int me_proc = mpcrt_job_proc_index();
    for (int r = 0; r < n; r++) {
        int jp = comm->group->world[r] / per_proc, p = 0;
        while (p < node->nprocs && job_proc[p] != jp)
            p++;
        if (p == node->nprocs)
            job_proc[node->nprocs++] = jp;
        node->proc_of[r] = p;
        count[p]++;
        if (jp == me_proc) {
            node->my_proc = p;
            local[nlocal++] = comm->group->world[r];
        }
    }
    for (int p = 0; p < node->nprocs; p++) {
        node->first_of[p + 1] = node->first_of[p] + count[p];
        count[p] = 0;
    }
    node->blocks = true;
    for (int r = 0; r < n; r++) {
        int p = node->proc_of[r], at = node->first_of[p] + count[p]++;
        node->members_by_proc[at] = r;
        node->blocks &= at == r;
    }
    mpcrt_group_t *group = mpcrt_group_create(local, nlocal);
    if (!group)
        goto fail;
    node->local = mpcrt_comm_create_process_local(group);
    mpcrt_object_release(&group->obj);
    if (!node->local)
        goto fail;
    free(job_proc);
    free(count);
    free(local);
    return node;
fail:
    free(job_proc);
    free(count);
    free(local);
    node_free(node);
    return NULL;
}

/* The node of comm in this process (found or made), held by the member's private object; NULL when out
 * of memory. */
static coll_node_t *node_of(mpcrt_comm_t *comm)
{
    coll_node_t *node = atomic_load_explicit(&comm->coll_state, memory_order_acquire);
    if (node)
        return node;
    mpcrt_mutex_lock(&nodes_lock);
    for (node = nodes; node && (node->context != comm->context || node->first_world != comm->group->world[0]);
         node = node->next)
        ;
    if (!node && (node = node_create(comm))) {
        node->next = nodes;
        nodes = node;
    }
    if (node) {
        node->refs++;
        comm->coll_state_free = node_release;
        atomic_store_explicit(&comm->coll_state, node, memory_order_release);
    }
    mpcrt_mutex_unlock(&nodes_lock);
    return node;
}

/* The hierarchy helps when some process holds several members. */
static coll_node_t *hierarchy(mpcrt_comm_t *comm)
{
    if (comm->local || comm->remote_group)
        return NULL;
    coll_node_t *node = node_of(comm);
    return node && node->nprocs < mpcrt_comm_size(comm) ? node : NULL;
}

static int first_error(int a, int b)
{
    return a != MPI_SUCCESS ? a : b;
}

static mpcrt_datatype_t *bytes_type(void)
{
    return mpcrt_datatype_get(MPI_BYTE);
}

static int leader_of(const coll_node_t *node, int p)
{
    return node->members_by_proc[node->first_of[p]];
}

static bool is_leader(const coll_node_t *node, int me)
{
    return leader_of(node, node->proc_of[me]) == me;
}

/* Local rank (in node->local) of comm rank r of this process. */
static int local_rank(mpcrt_comm_t *comm, const coll_node_t *node, int r)
{
    return mpcrt_group_rank_of(node->local->group, comm->group->world[r]);
}

/* Memory for `count` instances of dt in its own layout; *base receives where instance 0 starts. */
static void *alloc_layout(const mpcrt_datatype_t *dt, MPI_Count count, void **base)
{
    MPI_Aint extent = mpcrt_datatype_extent(dt), reach = (MPI_Aint)(count > 0 ? count - 1 : 0) * extent;
    MPI_Aint lo = dt->true_lb + (extent < 0 ? reach : 0);
    MPI_Aint hi = dt->true_ub + (extent > 0 ? reach : 0);
    void *raw = malloc((size_t)(hi > lo ? hi - lo : 1));
    *base = raw ? coll_at(raw, -lo) : NULL;
    return raw;
}

/* ------------------------------------------------------------------ leaders' phase (messages) */

static int leaders_barrier(mpcrt_comm_t *comm, const coll_node_t *node)
{
    int np = node->nprocs, me = node->my_proc, rc = MPI_SUCCESS;
    for (int step = 1; step < np && rc == MPI_SUCCESS; step <<= 1)
        rc = mpcrt_p2p_sendrecv(comm, TAG_BARRIER, NULL, 0, bytes_type(), leader_of(node, (me + step) % np),
                                NULL, 0, bytes_type(), leader_of(node, (me - step + np) % np));
    return rc;
}

/* Binomial broadcast among the leaders from process `root_proc`'s. */
static int leaders_bcast(mpcrt_comm_t *comm, const coll_node_t *node, void *buf, MPI_Count count,
                         mpcrt_datatype_t *dt, int root_proc)
{
    int np = node->nprocs, rel = (node->my_proc - root_proc + np) % np, rc = MPI_SUCCESS, mask = 1;
    while (mask < np) {
        if (rel & mask) {
            rc = mpcrt_p2p_sendrecv(comm, TAG_BCAST, NULL, 0, dt, MPI_PROC_NULL, buf, count, dt,
                                    leader_of(node, (rel - mask + root_proc) % np));
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < np)
            rc = first_error(rc, mpcrt_p2p_sendrecv(comm, TAG_BCAST, buf, count, dt,
                                                    leader_of(node, (rel + mask + root_proc) % np), NULL, 0,
                                                    dt, MPI_PROC_NULL));
    return rc;
}

/* Process-order reduction among the leaders of every process's partial result (at `partial`, dt's layout)
 * into `result` at process `to`'s leader (every leader's when to < 0: then broadcast). */
static int leaders_reduce(mpcrt_comm_t *comm, const coll_node_t *node, const void *partial, void *result,
                          MPI_Count count, const mpcrt_coll_reduction_t *red, int to)
{
    int np = node->nprocs, at = to < 0 ? 0 : to, rc = MPI_SUCCESS;
    MPI_Count bytes = count * red->dt->size;
    if (node->my_proc != at) {
        rc = mpcrt_p2p_sendrecv(comm, TAG_REDUCE, partial, count, red->dt, leader_of(node, at), NULL, 0,
                                red->dt, MPI_PROC_NULL);
    } else {
        char *packed = malloc((size_t)(bytes * np) + 1);
        coll_view_t *inputs = calloc((size_t)np, sizeof *inputs);
        mpcrt_request_t **reqs = calloc((size_t)np, sizeof *reqs);
        rc = packed && inputs && reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        for (int p = 0; p < np && rc == MPI_SUCCESS; p++) {
            if (p == node->my_proc) {
                inputs[p] = (coll_view_t){(void *)partial, red->dt, count};
                continue;
            }
            inputs[p] = coll_packed_view(packed + bytes * p, bytes);
            rc = mpcrt_p2p_irecv(comm, leader_of(node, p), TAG_REDUCE, packed + bytes * p, bytes,
                                 bytes_type(), &reqs[p]);
        }
        if (reqs)
            rc = first_error(rc, mpcrt_p2p_waitall(reqs, np));
        if (rc == MPI_SUCCESS && count > 0) {
            coll_view_t out = {result, red->dt, count};
            coll_view_list_t in = {.views = inputs, .n = np}, outs = {.views = &out, .n = 1};
            rc = coll_combine(red, &in, 0, count, &outs, 0);
        }
        free(reqs);
        free(inputs);
        free(packed);
    }
    if (to < 0)
        rc = first_error(rc, leaders_bcast(comm, node, result, count, red->dt, 0));
    return rc;
}

/* ------------------------------------------------------------------ the collectives */

int mpcrt_coll_hier_barrier(mpcrt_comm_t *comm)
{
    coll_node_t *node = hierarchy(comm);
    if (!node)
        return mpcrt_coll_procs_barrier(comm);
    /* Everybody here arrived, the leaders meet, everybody here leaves. */
    mpcrt_coll_barrier(node->local);
    int rc = is_leader(node, mpcrt_comm_rank(comm)) ? leaders_barrier(comm, node) : MPI_SUCCESS;
    mpcrt_coll_barrier(node->local);
    return rc;
}

int mpcrt_coll_hier_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    coll_node_t *node = hierarchy(comm);
    if (!node)
        return mpcrt_coll_procs_bcast(comm, buf, count, dt, root);
    int me = mpcrt_comm_rank(comm), root_proc = node->proc_of[root], rc = MPI_SUCCESS;
    if (node->my_proc == root_proc) { /* from the root to its process, then from its leader out */
        rc = mpcrt_coll_bcast(node->local, buf, count, dt, local_rank(comm, node, root));
        if (is_leader(node, me))
            rc = first_error(rc, leaders_bcast(comm, node, buf, count, dt, root_proc));
        return rc;
    }
    if (is_leader(node, me))
        rc = leaders_bcast(comm, node, buf, count, dt, root_proc);
    return first_error(rc, mpcrt_coll_bcast(node->local, buf, count, dt, 0));
}

/* Reduce (root >= 0) or allreduce (root < 0): in the process to its leader, among the leaders in process
 * order, then out (to the root, or to every member). */
static int hier_reduction(mpcrt_comm_t *comm, coll_node_t *node, const void *sendbuf, void *recvbuf,
                          MPI_Count count, const mpcrt_coll_reduction_t *red, int root)
{
    int me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    bool leader = is_leader(node, me);
    const void *input = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    void *partial = NULL, *result = NULL, *raw_partial = NULL, *raw_result = NULL;
    if (leader) {
        raw_partial = alloc_layout(red->dt, count, &partial);
        raw_result = alloc_layout(red->dt, count, &result);
        if (!raw_partial || !raw_result)
            rc = MPI_ERR_NO_MEM; /* still takes part: the others wait for this member */
    }
    /* The process's members in rank order: their partial result at the leader. */
    int lrc = mpcrt_coll_reduce(node->local, input, leader && partial ? partial : NULL, count, red, 0);
    rc = first_error(rc, lrc);
    if (root < 0) {
        if (leader && rc == MPI_SUCCESS)
            rc = leaders_reduce(comm, node, partial, result, count, red, -1);
        if (leader && rc == MPI_SUCCESS) {
            coll_view_t from = {result, red->dt, count}, to = {recvbuf, red->dt, count};
            coll_copy_range(&from, 0, &to, 0, count * red->dt->size);
        }
        rc = first_error(rc, mpcrt_coll_bcast(node->local, recvbuf, count, red->dt, 0));
    } else {
        int root_proc = node->proc_of[root];
        if (leader && rc == MPI_SUCCESS)
            rc = leaders_reduce(comm, node, partial, me == root ? recvbuf : result, count, red, root_proc);
        /* The root's leader hands the result over inside the process. */
        if (node->my_proc == root_proc && me != root && leader)
            rc = first_error(rc, mpcrt_p2p_sendrecv(comm, TAG_RESULT, result, count, red->dt, root, NULL, 0,
                                                    red->dt, MPI_PROC_NULL));
        if (me == root && !leader)
            rc = first_error(rc, mpcrt_p2p_sendrecv(comm, TAG_RESULT, NULL, 0, red->dt, MPI_PROC_NULL,
                                                    recvbuf, count, red->dt, leader_of(node, root_proc)));
    }
    free(raw_partial);
    free(raw_result);
    return rc;
}

int mpcrt_coll_hier_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                           const mpcrt_coll_reduction_t *red, int root)
{
    coll_node_t *node = hierarchy(comm);
    if (!node || !(node->blocks || red->op->commutative))
        return mpcrt_coll_procs_reduce(comm, sendbuf, recvbuf, count, red, root);
    return hier_reduction(comm, node, sendbuf, recvbuf, count, red, root);
}

int mpcrt_coll_hier_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                              const mpcrt_coll_reduction_t *red)
{
    coll_node_t *node = hierarchy(comm);
    if (!node || !(node->blocks || red->op->commutative))
        return mpcrt_coll_procs_allreduce(comm, sendbuf, recvbuf, count, red);
    return hier_reduction(comm, node, sendbuf, recvbuf, count, red, -1);
}

/* Gather to the root (root >= 0) or allgather (root < 0), uniform blocks: each process's blocks packed at
 * its leader (in rank order), the leaders' packs to the root's leader (or to every leader), unpacked there
 * in comm rank order, then to the root (or to every member). */
static int hier_gather(mpcrt_comm_t *comm, coll_node_t *node, const void *sendbuf, MPI_Count sendcount,
                       mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root, MPI_Count bytes)
{
    int me = mpcrt_comm_rank(comm), n = mpcrt_comm_size(comm), np = node->nprocs, rc = MPI_SUCCESS;
    bool leader = is_leader(node, me), receives = root < 0 || node->my_proc == node->proc_of[root];
    coll_view_t mine =
        sendbuf == MPI_IN_PLACE ? coll_block(recv, me) : (coll_view_t){(void *)sendbuf, sendtype, sendcount};
    char *packed = leader || me == root ? malloc((size_t)(bytes * n) + 1) : NULL;
    if ((leader || me == root) && !packed)
        rc = MPI_ERR_NO_MEM;
    /* packed holds every block in process order: process p's at first_of[p] * bytes. */
    char *own = packed ? packed + node->first_of[node->my_proc] * bytes : NULL;
    int nlocal = mpcrt_comm_size(node->local);
    mpcrt_coll_blocks_t local_blocks = {.buf = own, .count = bytes, .dt = bytes_type()};
    rc = first_error(rc, mpcrt_coll_gather(node->local, mine.buf, mine.count, mine.dt, &local_blocks, 0));
    if (leader && packed && rc == MPI_SUCCESS) {
        mpcrt_request_t **reqs = calloc((size_t)np * 2, sizeof *reqs);
        rc = reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
        for (int p = 0; p < np && rc == MPI_SUCCESS; p++) {
            if (p == node->my_proc)
                continue;
            MPI_Count chunk = (node->first_of[p + 1] - node->first_of[p]) * bytes;
            if (receives)
                rc = mpcrt_p2p_irecv(comm, leader_of(node, p), TAG_GATHER, packed + node->first_of[p] * bytes,
                                     chunk, bytes_type(), &reqs[2 * p]);
            if (rc == MPI_SUCCESS && (root < 0 || p == node->proc_of[root]))
                rc = mpcrt_p2p_isend(comm, leader_of(node, p), TAG_GATHER, own, nlocal * bytes, bytes_type(),
                                     &reqs[2 * p + 1]);
        }
        if (reqs)
            rc = first_error(rc, mpcrt_p2p_waitall(reqs, 2 * np));
        free(reqs);
    }
    if (root >= 0 && receives && me == root && !leader && packed) /* the root's leader hands it over */
        rc =
            first_error(rc, mpcrt_p2p_sendrecv(comm, TAG_RESULT, NULL, 0, bytes_type(), MPI_PROC_NULL, packed,
                                               bytes * n, bytes_type(), leader_of(node, node->my_proc)));
    if (root >= 0 && receives && leader && me != root && packed)
        rc = first_error(rc, mpcrt_p2p_sendrecv(comm, TAG_RESULT, packed, bytes * n, bytes_type(), root, NULL,
                                                0, bytes_type(), MPI_PROC_NULL));
    bool unpacks = root < 0 ? leader : me == root;
    if (unpacks && packed && rc == MPI_SUCCESS)
        for (int i = 0; i < n; i++) {
            int q = node->members_by_proc[i];
            if (q == me && sendbuf == MPI_IN_PLACE)
                continue;
            coll_view_t from = coll_packed_view(packed + i * bytes, bytes), to = coll_block(recv, q);
            coll_copy_range(&from, 0, &to, 0, bytes);
        }
    free(packed);
    if (root < 0) /* every block, from the leader to its process */
        rc = first_error(rc, mpcrt_coll_bcast(node->local, recv->buf, recv->count * n, recv->dt, 0));
    return rc;
}

static bool uniform(const mpcrt_coll_blocks_t *b)
{
    return !b->icounts && !b->ccounts && !b->types;
}

int mpcrt_coll_hier_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                              mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    coll_node_t *node = hierarchy(comm);
    if (!node || !uniform(recv))
        return mpcrt_coll_procs_allgather(comm, sendbuf, sendcount, sendtype, recv);
    return hier_gather(comm, node, sendbuf, sendcount, sendtype, recv, -1, recv->count * recv->dt->size);
}

int mpcrt_coll_hier_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                           mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root)
{
    coll_node_t *node = hierarchy(comm);
    /* Every member must know the block size: the non-roots' send amount, the root's receive amount. */
    int me = mpcrt_comm_rank(comm);
    if (!node || (me == root && !uniform(recv)))
        return mpcrt_coll_procs_gather(comm, sendbuf, sendcount, sendtype, recv, root);
    MPI_Count bytes = sendbuf == MPI_IN_PLACE ? recv->count * recv->dt->size : sendcount * sendtype->size;
    return hier_gather(comm, node, sendbuf, sendcount, sendtype, recv, root, bytes);
}
