/* Deferred starts of MPI_Iallreduce and MPI_Ialltoall: the call only records its arguments in a pooled
 * schedule object and hands it to the engine; whoever progresses it first (a free core's waiting or idle
 * thread, a progress ULT, or the caller's own MPI_Test/MPI_Wait) builds the steps, runs them and frees the
 * schedule. An 8 KiB MPI_Iallreduce spent about a third of its call building its schedule, time the
 * computing rank could not hide (Taboada's free core, research/seed003). The engine builds it in the call
 * after all when the communicator spans processes and no core is free (engine.c, start). What must hold at
 * call time is fixed there: the arguments are checked by the API layer, the call number (the messages'
 * tag, so the order of collectives on the communicator) is taken by mpcrt_nbc_new, and the communicator,
 * datatypes and operation are retained (the user may free them). */
#include "nbc_internal.h"

int mpcrt_nbc_iallreduce(mpcrt_comm_t *comm, const void *sendbuf, void *recvbuf, MPI_Count count,
                         const mpcrt_coll_reduction_t *red, mpcrt_request_t **out)
{
    if (comm->remote_group) {
        mpcrt_nbc_t *s = NULL;
        int rc = mpcrt_nbc_allreduce(comm, sendbuf, recvbuf, count, red, &s);
        return rc != MPI_SUCCESS ? rc : mpcrt_nbc_request(s, false, out);
    }
    nbc_allreduce_args_t call = {sendbuf, recvbuf, count};
    int rc = MPI_SUCCESS;
    nbc_record_t *r = nbc_record_begin(comm, NBC_DEFERRED_ALLREDUCE, out, &rc);
    if (r) {
        r->args.allreduce.call = call;
        r->args.allreduce.red = *red;
        mpcrt_object_retain((mpcrt_object_t *)&red->op->obj);
        mpcrt_datatype_retain(red->dt);
        nbc_record_publish(r);
        return MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    mpcrt_nbc_t *s = mpcrt_nbc_new(comm);
    if (!s)
        return MPI_ERR_NO_MEM;
    mpcrt_nbc_set_reduction(s, red);
    s->deferred = NBC_DEFERRED_ALLREDUCE;
    s->args.allreduce = call;
    return mpcrt_nbc_request(s, false, out);
}

/* No count, displacement or type array of the caller's (MPI_Alltoall; an in-place send side has none). */
static bool uniform(const mpcrt_coll_blocks_t *b)
{
    return b->buf == MPI_IN_PLACE || (!b->icounts && !b->ccounts && !b->idispls && !b->adispls && !b->types);
}

/* The call's arguments, with references to their datatypes (released by nbc_drop_deferred or the build). */
static nbc_alltoall_args_t retain_types(nbc_alltoall_args_t a)
{
    if (a.sendtype)
        mpcrt_datatype_retain(a.sendtype);
    if (a.recvtype)
        mpcrt_datatype_retain(a.recvtype);
    return a;
}

/* A deferred uniform MPI_Ialltoall on an intracommunicator: recorded, or a schedule object to build later. */
static inline __attribute__((always_inline)) int
ialltoall_deferred(mpcrt_comm_t *comm, nbc_alltoall_args_t call, mpcrt_request_t **out)
{
    int rc = MPI_SUCCESS;
    nbc_record_t *r = nbc_record_begin(comm, NBC_DEFERRED_ALLTOALL, out, &rc);
    if (r) {
        r->args.alltoall = retain_types(call);
        nbc_record_publish(r);
        return MPI_SUCCESS;
    }
    if (rc != MPI_SUCCESS)
        return rc;
    mpcrt_nbc_t *s = mpcrt_nbc_new(comm);
    if (!s)
        return MPI_ERR_NO_MEM;
    s->deferred = NBC_DEFERRED_ALLTOALL;
    s->args.alltoall = retain_types(call);
    return mpcrt_nbc_request(s, false, out);
}

int mpcrt_nbc_ialltoall(mpcrt_comm_t *comm, const mpcrt_coll_blocks_t *send, const mpcrt_coll_blocks_t *recv,
                        mpcrt_request_t **out)
{
    if (comm->remote_group || !uniform(send) || !uniform(recv)) {
        /* Count and displacement arrays may go right after the call: read them now. */
        mpcrt_nbc_t *s = NULL;
        int rc = mpcrt_nbc_alltoall(comm, send, recv, &s);
        return rc != MPI_SUCCESS ? rc : mpcrt_nbc_request(s, false, out);
    }
    nbc_alltoall_args_t call = {
        send->buf, recv->buf, send->count, recv->count, send->buf == MPI_IN_PLACE ? NULL : send->dt,
        recv->dt};
    return ialltoall_deferred(comm, call, out);
}

int mpcrt_nbc_ialltoall_uniform(mpcrt_comm_t *comm, const void *sendbuf, MPI_Count sendcount,
                                mpcrt_datatype_t *sendtype, void *recvbuf, MPI_Count recvcount,
                                mpcrt_datatype_t *recvtype, mpcrt_request_t **out)
{
    nbc_alltoall_args_t call = {sendbuf, recvbuf, sendcount, recvcount, sendtype, recvtype};
    return ialltoall_deferred(comm, call, out);
}

void nbc_drop_deferred(mpcrt_nbc_t *s)
{
    if (s->deferred == NBC_DEFERRED_ALLTOALL) {
        if (s->args.alltoall.sendtype)
            mpcrt_datatype_release(s->args.alltoall.sendtype);
        if (s->args.alltoall.recvtype)
            mpcrt_datatype_release(s->args.alltoall.recvtype);
    }
    s->deferred = NBC_BUILT;
}

void nbc_build_deferred(mpcrt_nbc_t *s)
{
    switch (s->deferred) {
    case NBC_DEFERRED_ALLREDUCE:
        nbc_allreduce_steps(s, s->args.allreduce.sendbuf, s->args.allreduce.recvbuf, s->args.allreduce.count);
        break;
    case NBC_DEFERRED_ALLTOALL: {
        mpcrt_coll_blocks_t send = {.buf = (void *)s->args.alltoall.sendbuf,
                                    .count = s->args.alltoall.sendcount,
                                    .dt = s->args.alltoall.sendtype},
                            recv = {.buf = s->args.alltoall.recvbuf,
                                    .count = s->args.alltoall.recvcount,
                                    .dt = s->args.alltoall.recvtype};
        nbc_alltoall_steps(s, &send, &recv);
        break;
    }
    case NBC_BUILT:
        return;
    }
    nbc_drop_deferred(s); /* the steps hold their own references now */
}
