/* Interface of runtime/mpi/coll: reduction operations (MPI_Op objects and the predefined kernels, also for
 * RMA accumulates later) and the blocking collectives on intracommunicators. The collectives here meet in
 * the communicator's rendezvous (comm.h): every member publishes a descriptor of its buffers and reads or
 * writes its peers' buffers directly (DESIGN.md section 4, the intra-process phase). */
#ifndef MPCRT_MPI_COLL_H
#define MPCRT_MPI_COLL_H

#include "../comm/comm.h"
#include "../datatype/datatype.h"

#include <stdbool.h>

/* Predefined operations, by the low byte of their handle (MPI_MAX is 0x58000001 ... MPI_NO_OP 0x5800000e). */
enum {
    MPCRT_OP_USER = 0,
    MPCRT_OP_MAX = 1,
    MPCRT_OP_MIN,
    MPCRT_OP_SUM,
    MPCRT_OP_PROD,
    MPCRT_OP_LAND,
    MPCRT_OP_BAND,
    MPCRT_OP_LOR,
    MPCRT_OP_BOR,
    MPCRT_OP_LXOR,
    MPCRT_OP_BXOR,
    MPCRT_OP_MINLOC,
    MPCRT_OP_MAXLOC,
    MPCRT_OP_REPLACE,
    MPCRT_OP_NO_OP,
    MPCRT_OP_NPREDEFINED
};

typedef struct mpcrt_op {
    mpcrt_object_t obj;
    int index;        /* MPCRT_OP_*; MPCRT_OP_USER for MPI_Op_create */
    bool commutative;
    bool large_count; /* made by MPI_Op_create_c: the function takes an MPI_Count length */
    MPI_User_function *fn;
    MPI_User_function_c *fn_c;
} mpcrt_op_t;

/* The operation named by a handle (predefined or live user handle), NULL otherwise (MPI_ERR_OP). */
static inline mpcrt_op_t *mpcrt_op_get(MPI_Op handle)
{
    return (mpcrt_op_t *)mpcrt_handle_lookup(MPCRT_OBJ_OP, handle);
}

/* A predefined operation on one datatype: a loop over the elements of the packed stream. Pair types
 * (MINLOC/MAXLOC) are (value, index) with the index `index_offset` bytes after the value; in the packed
 * stream elements are `elem_size` apart, in a predefined pair type's own layout `native_stride` apart with
 * the index at `native_index_offset` (MPI_DOUBLE_INT: 12 packed bytes in a 16-byte extent). */
typedef struct {
    void (*scalar)(const void *in, void *inout, MPI_Count n);
    void (*pair)(const void *in, void *inout, MPI_Count n, MPI_Aint stride, MPI_Aint index_offset);
    MPI_Count elem_size;
    MPI_Aint index_offset;
    MPI_Aint native_stride, native_index_offset;
} mpcrt_op_kernel_t;

/* The kernel of predefined operation `op` (MPCRT_OP_MAX...) for datatype dt: 0, or MPI_ERR_OP when the
 * operation is not defined on dt's basic type (MPI 4.0 section 6.9.2, with MPICH's extensions: MPI_CHAR is
 * an integer, logical operations accept floating point) or dt mixes several basic types. MPI_REPLACE and
 * MPI_NO_OP apply to any datatype. */
int mpcrt_op_kernel(int op, const mpcrt_datatype_t *dt, mpcrt_op_kernel_t *kernel);
/* Whether predefined operation op (not MPCRT_OP_USER) is defined on dt: mpcrt_op_kernel's verdict,
 * remembered per (operation, basic type), as every reduction call checks it. */
bool mpcrt_op_defined_on(int op, const mpcrt_datatype_t *dt);

/* inout[i] = in[i] op inout[i] for the n elements of two packed streams. */
static inline void mpcrt_op_run_packed(const mpcrt_op_kernel_t *k, const void *in, void *inout, MPI_Count n)
{
    if (k->pair)
        k->pair(in, inout, n, (MPI_Aint)k->elem_size, k->index_offset);
    else if (k->scalar)
        k->scalar(in, inout, n);
}

/* Calls a user function on `count` instances of `type` laid out as the type says (split into pieces of at
 * most INT_MAX instances for an MPI_User_function). Runs in the caller's ULT, so the user code sees the
 * calling rank's privatized globals. */
void mpcrt_op_call_user(const mpcrt_op_t *op, const void *in, void *inout, MPI_Count count, MPI_Datatype type,
                        MPI_Aint extent);

/* inout = in op inout for `count` instances of dt (MPI_Reduce_local): 0 or an MPI error class. */
int mpcrt_op_reduce_local(const mpcrt_op_t *op, const void *in, void *inout, MPI_Count count,
                          MPI_Datatype type, mpcrt_datatype_t *dt);

/* ------------------------------------------------------------------ blocking collectives */

/* Counts and displacements of the v and w collectives, as the caller gave them: int arrays (MPI_Gatherv),
 * MPI_Count/MPI_Aint arrays (the _c variants), or none (MPI_Gather: every block holds `count` instances,
 * block i starts i * count extents into the buffer). Alltoallw gives a type per peer and byte
 * displacements. Peers read each other's, so nothing is converted. */
typedef struct {
    void *buf;
    MPI_Count count;           /* uniform count when neither array is given */
    const int *icounts;
    const MPI_Count *ccounts;
    const int *idispls;        /* in extents of the type (bytes for alltoallw) */
    const MPI_Aint *adispls;
    mpcrt_datatype_t *dt;      /* one type for every block, or NULL: */
    const MPI_Datatype *types; /* a type per block (alltoallw), displacements in bytes */
} mpcrt_coll_blocks_t;

/* MPI_Barrier inside one process (two-level meeting, coll/meet.h). */
int mpcrt_coll_barrier(mpcrt_comm_t *comm);

/* Each returns MPI_SUCCESS or the error class this member must raise once the collective is over (every
 * member has left the rendezvous): MPI_ERR_TRUNCATE or MPI_ERR_COUNT when the amounts sent and received
 * differ, MPI_ERR_ROOT, MPI_ERR_OP or MPI_ERR_COUNT when the members disagree on the root, the operation or
 * the count, MPI_ERR_NO_MEM. Buffers equal to MPI_IN_PLACE select the in-place forms of MPI 4.0 chapter 6.
 * Arguments are checked by the API layer (api_coll.c, api_reduce.c). */
int mpcrt_coll_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root);
int mpcrt_coll_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount, mpcrt_datatype_t *sendtype,
                      const mpcrt_coll_blocks_t *recv, int root);
int mpcrt_coll_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf, MPI_Count recvcount,
                       mpcrt_datatype_t *recvtype, int root);
int mpcrt_coll_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                         mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv);
int mpcrt_coll_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv);

/* Reductions: `type` is the caller's handle of dt (user functions receive it). */
typedef struct {
    const mpcrt_op_t *op;
    MPI_Datatype type;
    mpcrt_datatype_t *dt;
} mpcrt_coll_reduction_t;

int mpcrt_coll_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                      const mpcrt_coll_reduction_t *red, int root);
int mpcrt_coll_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red);
/* recvcounts as int or MPI_Count array; both NULL: every member receives `recvcount` (the _block form). */
int mpcrt_coll_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                              const int *irecvcounts, const MPI_Count *crecvcounts,
                              const mpcrt_coll_reduction_t *red);
int mpcrt_coll_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                    const mpcrt_coll_reduction_t *red, bool exclusive);

/* Hierarchical forms for communicators whose members live in several processes (hier.c): through shared
 * memory inside each process, messages between one leader per process; they fall back to the flat
 * procs.c forms below where the hierarchy does not apply (one member per process, v forms, a
 * non-commutative operation over processes whose members are not consecutive ranks). */
int mpcrt_coll_hier_barrier(mpcrt_comm_t *comm);
int mpcrt_coll_hier_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root);
int mpcrt_coll_hier_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                           const mpcrt_coll_reduction_t *red, int root);
int mpcrt_coll_hier_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                              const mpcrt_coll_reduction_t *red);
int mpcrt_coll_hier_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                              mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv);
/* Uniform gather only (MPI_Gather: the non-roots cannot tell a gatherv). */
int mpcrt_coll_hier_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                           mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root);

/* The same collectives (same contracts) for communicators whose members live in several processes
 * (procs.c: over point-to-point messages); the API layer picks by mpcrt_comm_t.local. */
int mpcrt_coll_procs_barrier(mpcrt_comm_t *comm);
int mpcrt_coll_procs_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root);
int mpcrt_coll_procs_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                            mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root);
int mpcrt_coll_procs_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf,
                             MPI_Count recvcount, mpcrt_datatype_t *recvtype, int root);
int mpcrt_coll_procs_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                               mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv);
int mpcrt_coll_procs_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send,
                              const mpcrt_coll_blocks_t *recv);
int mpcrt_coll_procs_reduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                            const mpcrt_coll_reduction_t *red, int root);
int mpcrt_coll_procs_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                               const mpcrt_coll_reduction_t *red);
int mpcrt_coll_procs_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                                    const int *irecvcounts, const MPI_Count *crecvcounts,
                                    const mpcrt_coll_reduction_t *red);
int mpcrt_coll_procs_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                          const mpcrt_coll_reduction_t *red, bool exclusive);

#endif
