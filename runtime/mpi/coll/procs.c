/* Blocking collectives on communicators whose members live in several processes: built over the library's
 * own point-to-point messages (pt2pt/internal.c), so they work over any rail. Simple algorithms first:
 * dissemination barrier, binomial broadcast, direct gathers, scatters and exchanges, reductions gathered
 * to one member and combined in rank order (coll_combine), so non-commutative operations stay right.
 * Communicators within one process keep the rendezvous algorithms of the other files. */
#include "coll_internal.h"
#include "../pt2pt/pt2pt.h"

#include <stdlib.h>
#include <string.h>

/* Negative tags: the non-blocking collectives' schedules use their call numbers (>= 0) on the same
 * context, and may be outstanding while a blocking collective runs. */
enum {
    TAG_BARRIER = -1000,
    TAG_BCAST,
    TAG_GATHER,
    TAG_SCATTER,
    TAG_ALLGATHER,
    TAG_ALLTOALL,
    TAG_REDUCE,
    TAG_REDUCE_SCATTER,
    TAG_SCAN,
    TAG_ALLREDUCE,
};

/* Largest allreduce done by recursive doubling (one exchange of the whole vector per step, log2 n
 * steps) rather than a reduction to rank 0 and a broadcast (two latencies, the root's link carrying
 * n - 1 vectors). */
#define DOUBLING_BYTES (16 * 1024)

/* result = in[0] op ... op in[n - 1] (rank order), instances [0, count), into *output. */
static int combine(const mpcrt_coll_reduction_t *red, const coll_view_t *inputs, int n, MPI_Count count,
                   const coll_view_t *output)
{
    coll_view_list_t in = {.views = inputs, .n = n}, out = {.views = output, .n = 1};
    return coll_combine(red, &in, 0, count, &out, 0);
}

static mpcrt_datatype_t *bytes_type(void)
{
    return mpcrt_datatype_get(MPI_BYTE);
}

static int first_error(int a, int b)
{
    return a != MPI_SUCCESS ? a : b;
}

int mpcrt_coll_procs_barrier(mpcrt_comm_t *comm)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    /* Dissemination (Hensgen, Finkel and Manber 1988): ceil(log2 n) rounds of one zero-byte message. */
    for (int step = 1; step < n && rc == MPI_SUCCESS; step <<= 1)
        rc = mpcrt_p2p_sendrecv(comm, TAG_BARRIER, NULL, 0, bytes_type(), (me + step) % n, NULL, 0,
                                bytes_type(), (me - step + n) % n);
    return rc;
}

int mpcrt_coll_procs_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    int rel = (me - root + n) % n;
    /* Binomial tree over ranks relative to the root: receive from the parent, then send to children. */
    int mask = 1;
    while (mask < n) {
        if (rel & mask) {
            rc = mpcrt_p2p_sendrecv(comm, TAG_BCAST, NULL, 0, dt, MPI_PROC_NULL, buf, count, dt,
                                    (rel - mask + root) % n);
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < n) {
            int wrc = mpcrt_p2p_sendrecv(comm, TAG_BCAST, buf, count, dt, (rel + mask + root) % n, NULL, 0,
                                         dt, MPI_PROC_NULL);
            rc = first_error(rc, wrc);
        }
    return rc;
}

int mpcrt_coll_procs_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                            mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (me != root)
        return mpcrt_p2p_sendrecv(comm, TAG_GATHER, sendbuf, sendcount, sendtype, root, NULL, 0, sendtype,
                                  MPI_PROC_NULL);
    mpcrt_request_t **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        coll_view_t block = coll_block(recv, q);
        if (q != me)
            rc = mpcrt_p2p_irecv(comm, q, TAG_GATHER, block.buf, block.count, block.dt, &reqs[q]);
        else if (sendbuf != MPI_IN_PLACE)
            rc = coll_copy(&(coll_view_t){(void *)sendbuf, sendtype, sendcount}, &block);
    }
    rc = first_error(rc, mpcrt_p2p_waitall(reqs, n));
    free(reqs);
    return rc;
}

int mpcrt_coll_procs_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf,
                             MPI_Count recvcount, mpcrt_datatype_t *recvtype, int root)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    if (me != root)
        return mpcrt_p2p_sendrecv(comm, TAG_SCATTER, NULL, 0, recvtype, MPI_PROC_NULL, recvbuf, recvcount,
                                  recvtype, root);
    mpcrt_request_t **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        coll_view_t block = coll_block(send, q);
        if (q != me)
            rc = mpcrt_p2p_isend(comm, q, TAG_SCATTER, block.buf, block.count, block.dt, &reqs[q]);
        else if (recvbuf != MPI_IN_PLACE)
            rc = coll_copy(&block, &(coll_view_t){recvbuf, recvtype, recvcount});
    }
    rc = first_error(rc, mpcrt_p2p_waitall(reqs, n));
    free(reqs);
    return rc;
}

int mpcrt_coll_procs_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                               mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    coll_view_t mine =
        sendbuf == MPI_IN_PLACE ? coll_block(recv, me) : (coll_view_t){(void *)sendbuf, sendtype, sendcount};
    mpcrt_request_t **reqs = calloc((size_t)n * 2, sizeof *reqs);
    if (!reqs)
        return MPI_ERR_NO_MEM;
    int rc = MPI_SUCCESS;
    /* Direct exchange: everyone sends its block to everyone (n - 1 messages each). */
    for (int i = 1; i < n && rc == MPI_SUCCESS; i++) {
        int from = (me - i + n) % n, to = (me + i) % n;
        coll_view_t block = coll_block(recv, from);
        rc = mpcrt_p2p_irecv(comm, from, TAG_ALLGATHER, block.buf, block.count, block.dt, &reqs[2 * i]);
        if (rc == MPI_SUCCESS)
            rc = mpcrt_p2p_isend(comm, to, TAG_ALLGATHER, mine.buf, mine.count, mine.dt, &reqs[2 * i + 1]);
    }
    if (rc == MPI_SUCCESS && sendbuf != MPI_IN_PLACE) {
        coll_view_t own = coll_block(recv, me);
        rc = coll_copy(&mine, &own);
    }
    rc = first_error(rc, mpcrt_p2p_waitall(reqs, 2 * n));
    free(reqs);
    return rc;
}

int mpcrt_coll_procs_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send,
                              const mpcrt_coll_blocks_t *recv)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    char *scratch = NULL;
    MPI_Count *offsets = NULL;
    if (send->buf == MPI_IN_PLACE) {
        /* The blocks we send are overwritten by those we receive: send packed copies. */
        offsets = malloc(sizeof *offsets * (size_t)(n + 1));
        if (!offsets)
            return MPI_ERR_NO_MEM;
        offsets[0] = 0;
        for (int q = 0; q < n; q++) {
            coll_view_t b = coll_block(recv, q);
            offsets[q + 1] = offsets[q] + coll_view_bytes(&b);
        }
        scratch = malloc(offsets[n] ? (size_t)offsets[n] : 1);
        if (!scratch) {
            free(offsets);
            return MPI_ERR_NO_MEM;
        }
        for (int q = 0; q < n; q++) {
            coll_view_t b = coll_block(recv, q),
                        dst = coll_packed_view(scratch + offsets[q], coll_view_bytes(&b));
            coll_copy_range(&b, 0, &dst, 0, coll_view_bytes(&b));
        }
    }
    mpcrt_request_t **reqs = calloc((size_t)n * 2, sizeof *reqs);
    if (!reqs)
        rc = MPI_ERR_NO_MEM;
    for (int i = 0; i < n && rc == MPI_SUCCESS; i++) {
        int from = (me - i + n) % n, to = (me + i) % n;
        coll_view_t in = coll_block(recv, from);
        coll_view_t outv = scratch ? coll_packed_view(scratch + offsets[to], offsets[to + 1] - offsets[to])
                                   : coll_block(send, to);
        if (i == 0 && !scratch) {
            rc = coll_copy(&outv, &in);
            continue;
        }
        if (i == 0)
            continue; /* in place: our own block is already where it belongs */
        rc = mpcrt_p2p_irecv(comm, from, TAG_ALLTOALL, in.buf, in.count, in.dt, &reqs[2 * i]);
        if (rc == MPI_SUCCESS)
            rc = mpcrt_p2p_isend(comm, to, TAG_ALLTOALL, outv.buf, outv.count, outv.dt, &reqs[2 * i + 1]);
    }
    if (reqs)
        rc = first_error(rc, mpcrt_p2p_waitall(reqs, 2 * n));
    free(reqs);
    free(scratch);
    free(offsets);
    return rc;
}

/* ------------------------------------------------------------------ reductions */

/* Root side of a reduction of `count` instances: every member's input, packed, in rank order, combined
 * into `output`. `input` is the root's own. */
static int reduce_at_root(mpcrt_comm_t *comm, const coll_view_t *input, const coll_view_t *output,
                          MPI_Count count, const mpcrt_coll_reduction_t *red, int tag)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    MPI_Count bytes = count * red->dt->size;
    char *packed = malloc((size_t)(bytes * n) + 1);
    coll_view_t *inputs = calloc((size_t)(n), sizeof(coll_view_t));
    mpcrt_request_t **reqs = calloc((size_t)n, sizeof *reqs);
    int rc = packed && inputs && reqs ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        inputs[q] = q == me ? *input : coll_packed_view(packed + bytes * q, bytes);
        if (q != me)
            rc = mpcrt_p2p_irecv(comm, q, tag, packed + bytes * q, bytes, bytes_type(), &reqs[q]);
    }
    if (reqs)
        rc = first_error(rc, mpcrt_p2p_waitall(reqs, n));
    if (rc == MPI_SUCCESS && count > 0)
        rc = combine(red, inputs, n, count, output);
    free(reqs);
    free(inputs);
    free(packed);
    return rc;
}

static int send_packed(mpcrt_comm_t *comm, int dest, int tag, const coll_view_t *v)
{
    return mpcrt_p2p_sendrecv(comm, tag, v->buf, v->count, v->dt, dest, NULL, 0, v->dt, MPI_PROC_NULL);
}

int mpcrt_coll_procs_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                            const mpcrt_coll_reduction_t *red, int root)
{
    int me = mpcrt_comm_rank(comm);
    coll_view_t input = {(void *)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf), red->dt, count};
    if (me != root)
        return send_packed(comm, root, TAG_REDUCE, &input);
    coll_view_t output = {recvbuf, red->dt, count};
    return reduce_at_root(comm, &input, &output, count, red, TAG_REDUCE);
}

/* Recursive doubling on a power-of-two number of members: at step k a member exchanges its partial result
 * (the reduction of a block of 2^k consecutive ranks) with the member whose block is adjacent, and both
 * combine the two blocks in rank order, so they hold the same bits and non-commutative operations stay
 * right. Partials travel packed. */
static int allreduce_doubling(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                              const mpcrt_coll_reduction_t *red)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    MPI_Count bytes = count * red->dt->size;
    char *scratch = malloc((size_t)(3 * bytes) + 1);
    if (!scratch)
        return MPI_ERR_NO_MEM;
    char *acc = scratch, *peer = scratch + bytes, *next = scratch + 2 * bytes;
    coll_view_t input = {(void *)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf), red->dt, count};
    coll_view_t accv = coll_packed_view(acc, bytes);
    int rc = coll_copy(&input, &accv);
    for (int mask = 1; mask < n && rc == MPI_SUCCESS; mask <<= 1) {
        int partner = me ^ mask;
        rc = mpcrt_p2p_sendrecv(comm, TAG_ALLREDUCE, acc, bytes, bytes_type(), partner, peer, bytes,
                                bytes_type(), partner);
        if (rc != MPI_SUCCESS)
            break;
        coll_view_t mine = coll_packed_view(acc, bytes), theirs = coll_packed_view(peer, bytes);
        coll_view_t in_order[2] = {partner < me ? theirs : mine, partner < me ? mine : theirs};
        coll_view_t out = coll_packed_view(next, bytes);
        rc = combine(red, in_order, 2, count, &out);
        char *old = acc; /* the result becomes the partial; the old partial's space takes the next one */
        acc = next;
        next = old;
    }
    if (rc == MPI_SUCCESS)
        rc = coll_copy(&(coll_view_t){acc, bytes_type(), bytes}, &(coll_view_t){recvbuf, red->dt, count});
    free(scratch);
    return rc;
}

int mpcrt_coll_procs_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                               const mpcrt_coll_reduction_t *red)
{
    int n = mpcrt_comm_size(comm);
    if (count > 0 && (n & (n - 1)) == 0 && count * red->dt->size <= DOUBLING_BYTES)
        return allreduce_doubling(comm, sendbuf, recvbuf, count, red);
    int rc = mpcrt_coll_procs_reduce(comm, sendbuf, recvbuf, count, red, 0);
    int brc = mpcrt_coll_procs_bcast(comm, recvbuf, count, red->dt, 0);
    return first_error(rc, brc);
}

int mpcrt_coll_procs_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf,
                                    MPI_Count recvcount, const int *irecvcounts, const MPI_Count *crecvcounts,
                                    const mpcrt_coll_reduction_t *red)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    MPI_Count *first = malloc(sizeof *first * (size_t)(n + 1));
    if (!first)
        return MPI_ERR_NO_MEM;
    first[0] = 0;
    for (int q = 0; q < n; q++)
        first[q + 1] = first[q] + (irecvcounts ? irecvcounts[q] : crecvcounts ? crecvcounts[q] : recvcount);
    const char *in = sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf;
    MPI_Aint extent = mpcrt_datatype_extent(red->dt);
    MPI_Count mine = first[me + 1] - first[me], bytes = mine * red->dt->size;
    /* Member q reduces block q: everyone sends it that block of its input; it combines them in rank order.
     * Every send completes before the result is written (in place, recvbuf holds the blocks we send). */
    char *packed = malloc((size_t)(bytes * n) + 1);
    coll_view_t *inputs = calloc((size_t)(n), sizeof(coll_view_t));
    mpcrt_request_t **reqs = calloc((size_t)n * 2, sizeof *reqs);
    if (!packed || !inputs || !reqs)
        rc = MPI_ERR_NO_MEM;
    for (int q = 0; q < n && rc == MPI_SUCCESS; q++) {
        coll_view_t block = {coll_at(in, first[q] * extent), red->dt, first[q + 1] - first[q]};
        if (q == me) {
            /* Our own block, packed: in place, the result may overwrite it before it is read. */
            inputs[q] = coll_packed_view(packed + bytes * q, bytes);
            coll_copy_range(&block, 0, &inputs[q], 0, bytes);
            continue;
        }
        inputs[q] = coll_packed_view(packed + bytes * q, bytes);
        if (mine > 0)
            rc = mpcrt_p2p_irecv(comm, q, TAG_REDUCE_SCATTER, packed + bytes * q, bytes, bytes_type(),
                                 &reqs[q]);
        if (rc == MPI_SUCCESS && block.count > 0)
            rc = mpcrt_p2p_isend(comm, q, TAG_REDUCE_SCATTER, block.buf, block.count, block.dt, &reqs[n + q]);
    }
    if (reqs)
        rc = first_error(rc, mpcrt_p2p_waitall(reqs, 2 * n));
    coll_view_t output = {recvbuf, red->dt, mine};
    if (rc == MPI_SUCCESS && mine > 0)
        rc = combine(red, inputs, n, mine, &output);
    free(reqs);
    free(inputs);
    free(packed);
    free(first);
    return rc;
}

int mpcrt_coll_procs_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                          const mpcrt_coll_reduction_t *red, bool exclusive)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm), rc = MPI_SUCCESS;
    MPI_Count bytes = count * red->dt->size;
    coll_view_t input = {(void *)(sendbuf == MPI_IN_PLACE ? recvbuf : sendbuf), red->dt, count};
    /* Every member sends its input to the members above it, and combines the inputs of 0..me (exclusive:
     * 0..me-1) in rank order. O(n^2) messages, but the order of operands is exactly MPI's. */
    char *packed = malloc((size_t)(bytes * (me + 1)) + 1);
    coll_view_t *inputs = calloc((size_t)(me + 1), sizeof(coll_view_t));
    mpcrt_request_t **reqs = calloc((size_t)(n + me + 1), sizeof *reqs);
    if (!packed || !inputs || !reqs)
        rc = MPI_ERR_NO_MEM;
    void *own = NULL;
    if (rc == MPI_SUCCESS && sendbuf == MPI_IN_PLACE && count > 0) {
        /* recvbuf is both our input and our output: send and combine from a packed copy. */
        own = malloc((size_t)bytes);
        if (!own)
            rc = MPI_ERR_NO_MEM;
        else {
            coll_view_t copy = coll_packed_view(own, bytes);
            coll_copy_range(&input, 0, &copy, 0, bytes);
            input = copy;
        }
    }
    for (int q = me + 1; q < n && rc == MPI_SUCCESS; q++)
        rc = mpcrt_p2p_isend(comm, q, TAG_SCAN, input.buf, input.count, input.dt, &reqs[q]);
    for (int q = 0; q < me && rc == MPI_SUCCESS; q++) {
        inputs[q] = coll_packed_view(packed + bytes * q, bytes);
        rc = mpcrt_p2p_irecv(comm, q, TAG_SCAN, packed + bytes * q, bytes, bytes_type(), &reqs[n + q]);
    }
    if (reqs)
        rc = first_error(rc, mpcrt_p2p_waitall(reqs, n + me + 1));
    if (inputs)
        inputs[me] = input;
    int nin = exclusive ? me : me + 1;
    coll_view_t output = {recvbuf, red->dt, count};
    if (rc == MPI_SUCCESS && nin > 0 && count > 0)
        rc = combine(red, inputs, nin, count, &output);
    free(own);
    free(reqs);
    free(inputs);
    free(packed);
    return rc;
}
