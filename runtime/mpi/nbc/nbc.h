/* Interface of runtime/mpi/nbc: collective schedules (DESIGN.md section 4, Non-blocking collectives). A
 * schedule is a list of steps (send, receive, copy, reduce) cut into rounds: the steps of a round start
 * together, and a round starts when every step of the previous one has completed. Schedules are built once
 * per call (or once per persistent request) by the algorithms of this folder, then progressed as
 * stackless work items by whoever gets there first: the calling rank, any ULT that waits, an idle VP, or a
 * progress ULT (engine.c). Messages go through the point-to-point engine on the communicator's
 * collective context, so the schedules also run across processes once the rails carry that context. */
#ifndef MPCRT_MPI_NBC_H
#define MPCRT_MPI_NBC_H

#include "../coll/coll.h"
#include "../pt2pt/pt2pt.h"

typedef struct mpcrt_nbc mpcrt_nbc_t;

/* ------------------------------------------------------------------ building (sched.c) */

/* A new schedule for the calling member's next collective call on comm (each member's k-th call on a
 * communicator matches the others' k-th; the call number is in every message's tag). An intercommunicator's
 * schedule sends over the pair's bridge: use mpcrt_nbc_local/remote to name peers. NULL when out of memory.
 */
mpcrt_nbc_t *mpcrt_nbc_new(mpcrt_comm_t *comm);
void mpcrt_nbc_free(mpcrt_nbc_t *s);
/* The peer number of local-group rank i and of remote-group rank j (intracommunicators: both are i). */
int mpcrt_nbc_local(const mpcrt_nbc_t *s, int i);
int mpcrt_nbc_remote(const mpcrt_nbc_t *s, int j);

/* Steps. `sub` (0..255) tells apart messages of one call between the same two members that must not match
 * each other (neighborhood collectives); 0 otherwise. Out-of-memory is recorded and reported at the end. */
void mpcrt_nbc_send(mpcrt_nbc_t *s, const void *buf, MPI_Count count, mpcrt_datatype_t *dt, int peer,
                    int sub);
void mpcrt_nbc_recv(mpcrt_nbc_t *s, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int peer, int sub);
/* dst = src (any layouts with the same type signature; MPI_ERR_TRUNCATE if src holds more). */
void mpcrt_nbc_copy(mpcrt_nbc_t *s, const void *src, MPI_Count scount, mpcrt_datatype_t *sdt, void *dst,
                    MPI_Count dcount, mpcrt_datatype_t *ddt);
/* inout = in op inout, count instances of the schedule's reduction datatype (mpcrt_nbc_set_reduction). */
void mpcrt_nbc_reduce(mpcrt_nbc_t *s, const void *in, void *inout, MPI_Count count);
/* Ends the current round. */
void mpcrt_nbc_round(mpcrt_nbc_t *s);
/* The reduction of the schedule's reduce steps (the operation is retained). */
void mpcrt_nbc_set_reduction(mpcrt_nbc_t *s, const mpcrt_coll_reduction_t *red);
/* A scratch buffer of count instances of dt in dt's layout (so it can be sent and reduced as dt), owned
 * by the schedule. NULL when out of memory (recorded). */
void *mpcrt_nbc_scratch(mpcrt_nbc_t *s, MPI_Count count, mpcrt_datatype_t *dt);
/* MPI_SUCCESS, or the error of building (MPI_ERR_NO_MEM). */
int mpcrt_nbc_build_error(const mpcrt_nbc_t *s);

/* ------------------------------------------------------------------ algorithms (intra.c, inter.c,
 * neighbor.c) */

/* Each builds the calling member's schedule of one collective call into *out and returns MPI_SUCCESS or
 * MPI_ERR_NO_MEM; arguments as in coll.h (already checked). Intercommunicators (intra.c dispatches to
 * inter.c): roots are MPI_ROOT, MPI_PROC_NULL or a rank of the remote group, blocks are by remote rank. */
int mpcrt_nbc_barrier(mpcrt_comm_t *comm, mpcrt_nbc_t **out);
int mpcrt_nbc_bcast(mpcrt_comm_t *comm, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root,
                    mpcrt_nbc_t **out);
int mpcrt_nbc_gather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount, mpcrt_datatype_t *sendtype,
                     const mpcrt_coll_blocks_t *recv, int root, mpcrt_nbc_t **out);
int mpcrt_nbc_scatter(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, void *recvbuf, MPI_Count recvcount,
                      mpcrt_datatype_t *recvtype, int root, mpcrt_nbc_t **out);
int mpcrt_nbc_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                        mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, mpcrt_nbc_t **out);
int mpcrt_nbc_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv,
                       mpcrt_nbc_t **out);
int mpcrt_nbc_reduce_to(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                        const mpcrt_coll_reduction_t *red, int root, mpcrt_nbc_t **out);
int mpcrt_nbc_allreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                        const mpcrt_coll_reduction_t *red, mpcrt_nbc_t **out);
int mpcrt_nbc_reduce_scatter(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count recvcount,
                             const int *irecvcounts, const MPI_Count *crecvcounts,
                             const mpcrt_coll_reduction_t *red, mpcrt_nbc_t **out);
int mpcrt_nbc_scan(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                   const mpcrt_coll_reduction_t *red, bool exclusive, mpcrt_nbc_t **out);
/* Neighborhood collectives on comm's topology: blocks are by neighbor index. */
int mpcrt_nbc_neighbor_allgather(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                                 mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv,
                                 mpcrt_nbc_t **out);
int mpcrt_nbc_neighbor_alltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send,
                                const mpcrt_coll_blocks_t *recv, mpcrt_nbc_t **out);

/* Intercommunicator forms, called by the above. */
int mpcrt_nbc_inter_barrier(mpcrt_nbc_t *s);
int mpcrt_nbc_inter_bcast(mpcrt_nbc_t *s, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int root);
int mpcrt_nbc_inter_gather(mpcrt_nbc_t *s, const void *sendbuf, MPI_Count sendcount,
                           mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv, int root);
int mpcrt_nbc_inter_scatter(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send, void *recvbuf,
                            MPI_Count recvcount, mpcrt_datatype_t *recvtype, int root);
int mpcrt_nbc_inter_allgather(mpcrt_nbc_t *s, const void *sendbuf, MPI_Count sendcount,
                              mpcrt_datatype_t *sendtype, const mpcrt_coll_blocks_t *recv);
int mpcrt_nbc_inter_alltoall(mpcrt_nbc_t *s, const mpcrt_coll_blocks_t *send,
                             const mpcrt_coll_blocks_t *recv);
/* Reductions of the remote group's inputs: into recvbuf at MPI_ROOT (root given), or at every member
 * (root == MPCRT_NBC_EVERY), or scattered by the local counts (counts given). */
enum { MPCRT_NBC_EVERY = -1000 }; /* not a root: MPI_PROC_NULL is -1 and MPI_ROOT -3 */
int mpcrt_nbc_inter_reduce(mpcrt_nbc_t *s, const void *sendbuf, void *recvbuf, MPI_Count count, int root,
                           const MPI_Count *counts);

/* ------------------------------------------------------------------ running (engine.c) */

/* Blocking: runs s to completion (the caller progresses it, helped by idle VPs) and frees it. Returns the
 * error class of the first failed step, or MPI_SUCCESS. */
int mpcrt_nbc_run(mpcrt_nbc_t *s);
/* A request for s: started now (non-blocking), or inactive until MPI_Start (persistent, the schedule is
 * reused by every start). A persistent request owns s; a started one does not (s is freed by whoever
 * completes it, so s may be gone when this returns). Returns MPI_SUCCESS or MPI_ERR_NO_MEM (s is then
 * freed). */
int mpcrt_nbc_request(mpcrt_nbc_t *s, bool persistent, mpcrt_request_t **out);

/* MPI_Iallreduce and MPI_Ialltoall (arguments checked): a started request in *out. The call only records
 * its arguments and whoever progresses the schedule first builds it (defer.c), unless the communicator spans
 * processes and no core is free; v/w blocks and intercommunicators are built in the call. MPI_SUCCESS or
 * MPI_ERR_NO_MEM. */
int mpcrt_nbc_iallreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red, mpcrt_request_t **out);
int mpcrt_nbc_ialltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv,
                        mpcrt_request_t **out);
/* The same for uniform blocks on an intracommunicator (no MPI_IN_PLACE), without the block descriptions:
 * the inline path of the API's MPI_Ialltoall. */
int mpcrt_nbc_ialltoall_uniform(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                                mpcrt_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                                mpcrt_datatype_t *recvtype, mpcrt_request_t **out);

/* Starts s non-blocking as the child of a composite or generalized request, which completes when s does
 * (its reference is the parent's). Returns MPI_SUCCESS or MPI_ERR_NO_MEM (s is then freed). */
int mpcrt_nbc_start_child(mpcrt_nbc_t *s, mpcrt_request_t *parent);

/* Events handled by one pass over the active schedules (the progress hook). */
int mpcrt_nbc_progress(void);

#endif
