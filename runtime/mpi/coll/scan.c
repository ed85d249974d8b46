/* Inclusive and exclusive scans inside one process: member r reduces the inputs of members 0..r (0..r-1
 * for exscan), in rank order, into its receive buffer. In place, the receive buffer is an input the later
 * members read, so the result waits in a packed scratch buffer until everyone has left. */
#include "meet.h"

#include <stdlib.h>

int mpcrt_coll_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                    const mpcrt_coll_reduction_t *red, bool exclusive)
{
    int me = mpcrt_comm_rank(comm);
    bool in_place = sendbuf == MPI_IN_PLACE;
    const void *input = in_place ? recvbuf : sendbuf;
    MPI_Count bytes = count * red->dt->size;
    uint32_t kind = exclusive ? COLL_EXSCAN : COLL_SCAN;
    coll_red_desc_t mine = {{kind, 0, 0, NULL, NULL}, count, bytes, red->op, {(void *)input, red->dt, count}, {recvbuf, red->dt, count}};
    int ninputs = exclusive ? me : me + 1; /* exscan: member 0's receive buffer is left alone */
    char *scratch = in_place && ninputs > 0 ? malloc((size_t)(bytes > 0 ? bytes : 1)) : NULL;
    unsigned parity;
    coll_meet(comm, me, &mine.header, &parity); /* no fused work: pull */
    int rc = coll_red_agree(comm, kind, me, ninputs);
    if (rc == MPI_SUCCESS && in_place && ninputs > 0 && !scratch)
        rc = MPI_ERR_NO_MEM;
    if (rc == MPI_SUCCESS && ninputs > 0) {
        coll_view_list_t inputs = COLL_MEMBERS(comm, ninputs, input);
        coll_view_t out = in_place ? coll_packed_view(scratch, bytes) : mine.output;
        coll_view_list_t outputs = {NULL, 0, &out, 1};
        rc = coll_combine(red, &inputs, 0, count, &outputs, 0);
    }
    coll_meet_done(comm, me, true);
    if (rc == MPI_SUCCESS && scratch) {
        coll_view_t result = coll_packed_view(scratch, bytes);
        coll_copy_range(&result, 0, &mine.output, 0, bytes);
    }
    free(scratch);
    return rc;
}
