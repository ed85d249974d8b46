/* Building schedules: steps appended in order, rounds, scratch buffers, and the call number of each
 * member's collective calls on a communicator (the tag of the call's messages). */
#include "nbc_internal.h"
#include "../core/vpcache.h"
#include "../../threads/lifo.h"

#include <stdlib.h>
#include <string.h>

/* Per-VP pools of freed schedules, their step, scratch-list and pending arrays and a few small scratch
 * buffers kept: an 8 KiB MPI_Iallreduce that built its schedule from calloc/realloc/malloc spent most of its
 * ~2 us call there, and since the progress side frees on the other core, in glibc's arena lock and
 * malloc_consolidate. Only code running on a VP touches its pool's list (nothing here yields); kernel
 * threads that are no VP's, and sanitizer builds (so that ASan still sees every use after free), use malloc
 * directly. A schedule finished on another VP (a non-blocking start is freed by whoever completes it, most
 * often the free core) goes back to the pool it came from through that pool's lock-free return stack, which
 * the owner empties in one exchange when its list runs dry: a rank whose collectives the free core runs
 * would otherwise calloc every schedule while the other pool overflowed. */
enum { POOL_MAX = 16 };

typedef struct {
    _Alignas(64) mpcrt_nbc_t *head;
    int count;
    _Alignas(64) mpcrt_nbc_t *_Atomic returned; /* pushed by other VPs (its own line) */
} pool_t;

typedef struct {
    int n;
    pool_t vp[];
} pool_set_t;

static void *_Atomic pools; /* a pool_set_t, made on first use (mpcrt_vp_slot); reachable for leak checkers */

static pool_t *my_pool(void)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    (void)pools;
    return NULL;
#else
    return mpcrt_vp_slot(&pools, offsetof(pool_set_t, vp), sizeof(pool_t));
#endif
}

/* VP vp's pool, made by an earlier my_pool() of that VP (the object came from it). */
static pool_t *pool_of(int vp)
{
    pool_set_t *set = atomic_load_explicit(&pools, memory_order_acquire);
    return set && vp >= 0 && vp < set->n ? &set->vp[vp] : NULL;
}

static void destroy(mpcrt_nbc_t *s)
{
    for (int i = 0; i < s->nscratch; i++)
        mpcrt_nbc_scratch_release(s->scratch[i]);
    for (int i = 0; i < s->nspare; i++)
        mpcrt_nbc_scratch_release(s->spare[i]);
    free(s->steps);
    free(s->scratch);
    free(s->pending);
    free(s);
}

/* Moves the schedules other VPs gave back into the list (beyond the bound, they go). */
static void take_back(pool_t *pool)
{
    if (!atomic_load_explicit(&pool->returned, memory_order_relaxed))
        return;
    /* acquire: pairs with the release push of give(); the giver's last writes to the object are visible. */
    mpcrt_nbc_t *back = atomic_exchange_explicit(&pool->returned, NULL, memory_order_acquire);
    while (back) {
        mpcrt_nbc_t *next = back->next;
        if (pool->count < POOL_MAX) {
            back->next = pool->head;
            pool->head = back;
            pool->count++;
        } else {
            destroy(back);
        }
        back = next;
    }
}

static mpcrt_nbc_t *take(void)
{
    pool_t *pool = my_pool();
    if (pool && !pool->head)
        take_back(pool);
    mpcrt_nbc_t *s = pool ? pool->head : NULL;
    if (!s) {
        s = calloc(1, sizeof(mpcrt_nbc_t));
        if (s)
            s->pool_vp = pool ? mpcrt_self_vp() : -1;
        return s;
    }
    pool->head = s->next;
    pool->count--;
    /* Only the call's part: give() left the rest as a fresh object's (counts zero, arrays kept). */
    memset(s, 0, offsetof(mpcrt_nbc_t, pool_vp));
    return s;
}

/* Frees s's arrays and buffers, or keeps them with s in its pool. */
static void give(mpcrt_nbc_t *s)
{
    pool_t *pool = my_pool();
    int here = mpcrt_self_vp();
    pool_t *home = pool ? (s->pool_vp == here ? pool : pool_of(s->pool_vp)) : NULL;
    if (!home || (home == pool && pool->count >= POOL_MAX)) {
        destroy(s);
        return;
    }
    for (int i = 0; i < s->nscratch; i++) {
        if (s->nspare < NBC_SPARE_SCRATCH && mpcrt_nbc_scratch_small(s->scratch[i]))
            s->spare[s->nspare++] = s->scratch[i];
        else
            mpcrt_nbc_scratch_release(s->scratch[i]);
    }
    s->nscratch = 0;
    s->nsteps = 0;
    if (home != pool) {
        /* release: the owner that takes it back (acquire exchange) sees every write made here. */
        MPCRT_LIFO_PUSH(&home->returned, s, next, memory_order_release);
        return;
    }
    s->next = pool->head;
    pool->head = s;
    pool->count++;
}

mpcrt_nbc_t *mpcrt_nbc_new(mpcrt_comm_t *comm)
{
    mpcrt_nbc_t *s = take();
    if (!s)
        return NULL;
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
    s->me = me;
    s->as_rank = mpcrt_comm_rank(s->net);
    s->as_match = mpcrt_mpi_self()->match;
    mpcrt_priv_view_self(&s->view);
    s->owner_vp = mpcrt_self_vp();
    /* Tags: the call number above 8 bits of sub-message number, kept non-negative. Only members' own
     * counters are touched (each by its rank), so no lock. */
    uint32_t seq = comm->members[me].coll_seq++;
    s->tag_base = (int)((seq & 0x7fffffu) << 8);
    return s;
}

void nbc_record_init(nbc_record_t *r, mpcrt_comm_t *comm)
{
    int me = mpcrt_comm_rank(comm);
    r->comm = comm;
    mpcrt_object_retain(&comm->obj);
    r->me = me;
    r->as_rank = me; /* an intracommunicator: messages go on comm itself */
    r->as_match = mpcrt_mpi_self()->match;
    mpcrt_priv_view_self(&r->view);
    r->owner_vp = mpcrt_self_vp();
    uint32_t seq = comm->members[me].coll_seq++;
    r->tag_base = (int)((seq & 0x7fffffu) << 8);
}

mpcrt_nbc_t *nbc_from_record(const nbc_record_t *r)
{
    mpcrt_nbc_t *s = take();
    if (!s)
        return NULL;
    s->comm = s->net = r->comm;
    mpcrt_object_retain(&r->comm->obj); /* net's reference (the call's is comm's) */
    s->me = r->me;
    s->as_rank = r->as_rank;
    s->as_match = r->as_match;
    s->view = r->view;
    s->owner_vp = r->owner_vp;
    s->tag_base = r->tag_base;
    s->deferred = r->deferred;
    if (r->deferred == NBC_DEFERRED_ALLREDUCE) {
        s->red = r->args.allreduce.red;
        s->has_red = true;
        s->args.allreduce = r->args.allreduce.call;
    } else {
        s->args.alltoall = r->args.alltoall;
    }
    s->req = r->req;
    s->freed_on_completion = true; /* the request does not own it (engine.c, retire) */
    return s;
}

void mpcrt_nbc_free(mpcrt_nbc_t *s)
{
    if (!s)
        return;
    nbc_drop_deferred(s);
    for (int i = 0; i < s->nsteps; i++) {
        if (s->steps[i].sdt)
            mpcrt_datatype_release(s->steps[i].sdt);
        if (s->steps[i].ddt)
            mpcrt_datatype_release(s->steps[i].ddt);
    }
    if (s->has_red)
        mpcrt_object_release((mpcrt_object_t *)&s->red.op->obj);
    if (s->has_red && s->red.dt)
        mpcrt_datatype_release(s->red.dt);
    mpcrt_object_release(&s->net->obj);
    mpcrt_object_release(&s->comm->obj);
    give(s);
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
    if (s->build_error)
        return NULL;
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
    if (!st)
        return;
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
    if (!st)
        return;
    *st = (step_t){STEP_COPY, 0, 0, src, dst, scount, dcount, sdt, ddt};
    mpcrt_datatype_retain(sdt);
    mpcrt_datatype_retain(ddt);
}

void mpcrt_nbc_reduce(mpcrt_nbc_t *s, const void *in, void *inout, MPI_Count count)
{
    step_t *st = add(s, STEP_REDUCE);
    if (st)
        *st = (step_t){.kind = STEP_REDUCE, .src = in, .dst = inout, .scount = count, .dcount = count};
}

void mpcrt_nbc_round(mpcrt_nbc_t *s)
{
    if (s->nsteps > 0 && s->steps[s->nsteps - 1].kind != STEP_ROUND)
        add(s, STEP_ROUND);
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
    if (s->build_error)
        return NULL;
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
    size_t want = (size_t)(bytes > 0 ? bytes : 1);
    char *raw = NULL;
    for (int i = 0; i < s->nspare && !raw; i++) { /* a kept buffer that fits, not much larger */
        size_t have = mpcrt_nbc_scratch_size(s->spare[i]);
        if (have >= want && have <= 4 * want) {
            raw = s->spare[i];
            s->spare[i] = s->spare[--s->nspare];
        }
    }
    if (!raw)
        raw = mpcrt_nbc_scratch_alloc(want);
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
