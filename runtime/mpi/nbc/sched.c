/* Building schedules: steps appended in order, rounds, scratch buffers, and the call number of each
 * member's collective calls on a communicator (the tag of the call's messages). */
#include "nbc_internal.h"

#include <stdlib.h>

mpcrt_nbc_t *mpcrt_nbc_new(mpcrt_comm_t *comm)
{
    mpcrt_nbc_t *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    int me = mpcrt_comm_rank(comm);
    s->comm = comm;
    s->net = comm->remote_group ? comm->bridge : comm;
    mpcrt_object_retain(&s->comm->obj);
    mpcrt_object_retain(&s->net->obj);
    if (comm->remote_group) {
        /* The bridge lists the first side's members, then the other side's. */
        bool first_side = comm->group->world[0] == s->net->group->world[0];
        s->local_base = first_side ? 0 : comm->remote_group->size;
        s->remote_base = first_side ? comm->group->size : 0;
    }
    s->as_rank = mpcrt_comm_rank(s->net);
    s->as_match = mpcrt_mpi_self()->match;
    s->owner = mpcrt_ult_self();
    s->owner_vp = mpcrt_self_vp();
    /* Tags: the call number above 8 bits of sub-message number, kept non-negative. Only members' own
     * counters are touched (each by its rank), so no lock. */
    uint32_t seq = comm->members[me].coll_seq++;
    s->tag_base = (int)((seq & 0x7fffffu) << 8);
    return s;
}

void mpcrt_nbc_free(mpcrt_nbc_t *s)
{
    if (!s) return;
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].sdt) mpcrt_datatype_release(s->steps[i].sdt);
        if (s->steps[i].ddt) mpcrt_datatype_release(s->steps[i].ddt);
    }
    for (int i = 0; i < s->nscratch; i++)
        mpcrt_nbc_scratch_release(s->scratch[i]);
    if (s->has_red) mpcrt_object_release((mpcrt_object_t *)&s->red.op->obj);
    if (s->has_red && s->red.dt) mpcrt_datatype_release(s->red.dt);
    mpcrt_object_release(&s->net->obj);
    mpcrt_object_release(&s->comm->obj);
    free(s->steps);
    free(s->scratch);
    free(s->pending);
    free(s);
}

int mpcrt_nbc_local(const mpcrt_nbc_t *s, int i)
{
    return s->local_base + i;
}

int mpcrt_nbc_remote(const mpcrt_nbc_t *s, int j)
{
    return s->remote_base + j;
}

static step_t *add(mpcrt_nbc_t *s, step_kind_t kind)
{
    if (s->build_error) return NULL;
    if (s->nsteps == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        step_t *steps = realloc(s->steps, sizeof *steps * (size_t)cap);
        if (!steps) {
            s->build_error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->steps = steps;
        s->cap = cap;
    }
    step_t *st = &s->steps[s->nsteps++];
    *st = (step_t){.kind = kind};
    return st;
}

static void message(mpcrt_nbc_t *s, step_kind_t kind, const void *buf, MPI_Count count, mpcrt_datatype_t *dt,
                    int peer, int sub)
{
    step_t *st = add(s, kind);
    if (!st) return;
    st->peer = peer;
    st->tag = s->tag_base | (sub & 0xff);
    if (kind == STEP_SEND) {
        st->src = buf;
        st->scount = count;
        st->sdt = dt;
    } else {
        st->dst = (void *)buf;
        st->dcount = count;
        st->ddt = dt;
    }
    mpcrt_datatype_retain(dt);
}

void mpcrt_nbc_send(mpcrt_nbc_t *s, const void *buf, MPI_Count count, mpcrt_datatype_t *dt, int peer, int sub)
{
    message(s, STEP_SEND, buf, count, dt, peer, sub);
}

void mpcrt_nbc_recv(mpcrt_nbc_t *s, void *buf, MPI_Count count, mpcrt_datatype_t *dt, int peer, int sub)
{
    message(s, STEP_RECV, buf, count, dt, peer, sub);
}

void mpcrt_nbc_copy(mpcrt_nbc_t *s, const void *src, MPI_Count scount, mpcrt_datatype_t *sdt, void *dst,
                    MPI_Count dcount, mpcrt_datatype_t *ddt)
{
    step_t *st = add(s, STEP_COPY);
    if (!st) return;
    *st = (step_t){STEP_COPY, 0, 0, src, dst, scount, dcount, sdt, ddt};
    mpcrt_datatype_retain(sdt);
    mpcrt_datatype_retain(ddt);
}

void mpcrt_nbc_reduce(mpcrt_nbc_t *s, const void *in, void *inout, MPI_Count count)
{
    step_t *st = add(s, STEP_REDUCE);
    if (st) *st = (step_t){.kind = STEP_REDUCE, .src = in, .dst = inout, .scount = count, .dcount = count};
}

void mpcrt_nbc_round(mpcrt_nbc_t *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != STEP_ROUND) add(s, STEP_ROUND);
}

void mpcrt_nbc_set_reduction(mpcrt_nbc_t *s, const mpcrt_coll_reduction_t *red)
{
    s->red = *red;
    s->has_red = true;
    mpcrt_object_retain((mpcrt_object_t *)&red->op->obj);
    mpcrt_datatype_retain(red->dt);
}

void *mpcrt_nbc_scratch(mpcrt_nbc_t *s, MPI_Count count, mpcrt_datatype_t *dt)
{
    if (s->build_error) return NULL;
    if (s->nscratch == s->scratch_cap) {
        int cap = s->scratch_cap ? 2 * s->scratch_cap : 4;
        void **list = realloc(s->scratch, sizeof *list * (size_t)cap);
        if (!list) {
            s->build_error = MPI_ERR_NO_MEM;
            return NULL;
        }
        s->scratch = list;
        s->scratch_cap = cap;
    }
    MPI_Aint extent = mpcrt_datatype_extent(dt), true_extent = mpcrt_datatype_true_extent(dt);
    MPI_Count bytes = count > 0 ? (count - 1) * (extent > 0 ? extent : 0) + true_extent : 0;
    char *raw = mpcrt_nbc_scratch_alloc((size_t)(bytes > 0 ? bytes : 1));
    if (!raw) {
        s->build_error = MPI_ERR_NO_MEM;
        return NULL;
    }
    s->scratch[s->nscratch++] = raw;
    /* Instance 0's data starts true_lb bytes after the buffer's address. */
    return raw - mpcrt_datatype_true_lb(dt);
}

int mpcrt_nbc_build_error(const mpcrt_nbc_t *s)
{
    return s->build_error;
}
