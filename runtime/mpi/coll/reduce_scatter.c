/* Reduce_scatter and reduce_scatter_block inside one process: member r reduces block r of every member's
 * input, in rank order, into its own receive buffer. In place, the receive buffer is also an input the
 * other members read, so the result waits in a packed scratch buffer until everyone has left. */
#include "meet.h"

#include <stdlib.h>

int mpcrt_coll_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                              const int *irecvcounts, const MPI_Count *crecvcounts,
                              const mpcrt_coll_reduction_t *red)
{
    int n = mpcrt_comm_size(comm), me = mpcrt_comm_rank(comm);
    mpcrt_coll_blocks_t blocks = {.count = recvcount, .icounts = irecvcounts, .ccounts = crecvcounts};
    MPI_Count total = 0, first = 0;
    for (int q = 0; q < n; q++) {
        if (q == me)
            first = total;
        total += coll_block_count(&blocks, q);
    }
    MPI_Count mycount = coll_block_count(&blocks, me), size = red->dt->size;
    bool in_place = sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? recvbuf : sendbuf;
    coll_red_desc_t mine = {{COLL_REDUCE_SCATTER, 0, 0, NULL, NULL}, total, total * size, red->op, {(void *)input, red->dt, total},
                            {recvbuf, red->dt, mycount}};
    char *scratch = in_place ? malloc((size_t)(mycount * size > 0 ? mycount * size : 1)) : NULL;
    unsigned parity;
    coll_meet(comm, me, &mine.header, &parity); /* no fused work: pull */
    int rc = coll_red_agree(comm, COLL_REDUCE_SCATTER, me, mycount > 0 ? n : 0);
    if (rc == MPI_SUCCESS && in_place && !scratch)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS) {
        coll_view_list_t inputs = COLL_MEMBERS(comm, n, input);
        coll_view_t out = in_place ? coll_packed_view(scratch, mycount * size) : mine.output;
        coll_view_list_t outputs = {NULL, 0, &out, 1};
        rc = coll_combine(red, &inputs, first, mycount, &outputs, 0);
    }
    coll_meet_done(comm, me, true);
    if (rc == MPI_SUCCESS && in_place) {
        coll_view_t result = coll_packed_view(scratch, mycount * size);
        coll_copy_range(&result, 0, &mine.output, 0, mycount * size);
    }
    free(scratch);
    return rc;
}
