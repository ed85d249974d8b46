/* ULT life cycle: creation on a home VP, the entry trampoline, exit, join and recycling. A ULT's
 * descriptor sits at the top of its own stack; both are recycled together and never unmapped, so a
 * late wake-up of a finished ULT is a harmless spurious wake-up rather than a use after free. */
#include "context.h"
#include "log.h"
#include "sched_internal.h"

#include <errno.h>
#include <string.h>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

#define LOCAL_POOL_MAX 256

void mpcrt_ult_attr_init(mpcrt_ult_attr_t *attr)
{
    memset(attr, 0, sizeof *attr);
    attr->kind = MPCRT_ULT_USER;
    attr->vp = -1;
    attr->rank = -1;
}

static void run_event_hooks(mpcrt_ult_event_fn *hooks, _Atomic int *count, mpcrt_ult_t *u)
{
    int n = atomic_load_explicit(count, memory_order_acquire);
    for (int i = 0; i < n; i++)
        hooks[i](u);
}

static _Noreturn void ult_entry(void *arg)
{
    mpcrt_ult_t *u = arg;
    mpcrt_vp_t *vp = u->home;
    mpcrt_sched_arrived(vp, u);
    run_event_hooks(mpcrt_sched.start_hooks, &mpcrt_sched.nstart, u);
    u->retval = u->fn(u->arg);
    run_event_hooks(mpcrt_sched.exit_hooks, &mpcrt_sched.nexit, u);
    if (!mpcrt_stack_intact(&u->stack))
        mpcrt_fatal(__FILE__, __LINE__,
                    "stack overflow in a ULT (kind %d, rank %d) of %zu bytes: raise MPCRT_RANK_STACK or "
                    "MPCRT_ULT_STACK",
                    (int)u->kind, u->rank, u->stack.size);
    atomic_store_explicit(&u->state, ULT_EXITED, memory_order_relaxed);
    vp->exited = u;
    mpcrt_sched_switch_away(vp);
    MPCRT_ASSERT(0, "an exited ULT is never resumed");
    __builtin_unreachable();
}

static mpcrt_ult_t *take_pooled(mpcrt_vp_t *vp, size_t stack_size)
{
    if (!vp || !vp->local_pool || stack_size != mpcrt_sched.ult_stack_size)
        return NULL;
    mpcrt_ult_t *u = vp->local_pool;
    vp->local_pool = u->pool_next;
    vp->local_pool_count--;
    return u;
}

static mpcrt_ult_t *allocate(size_t stack_size)
{
    mpcrt_stack_t stack;
    if (mpcrt_stack_alloc(&stack, stack_size) != 0)
        return NULL;
    uintptr_t top = (uintptr_t)stack.base + stack.size;
    mpcrt_ult_t *u = (mpcrt_ult_t *)((top - sizeof(mpcrt_ult_t)) & ~(uintptr_t)(MPCRT_CACHE_LINE - 1));
    memset(u, 0, sizeof *u);
    u->stack = stack;
    return u;
}

static void recycle(mpcrt_ult_t *u)
{
#if defined(__SANITIZE_THREAD__)
    __tsan_destroy_fiber(u->tsan_fiber);
    u->tsan_fiber = NULL;
#endif
    atomic_store_explicit(&u->state, ULT_FREE, memory_order_relaxed);
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (vp && u->stack.size == mpcrt_sched.ult_stack_size && vp->local_pool_count < LOCAL_POOL_MAX) {
        u->pool_next = vp->local_pool;
        vp->local_pool = u;
        vp->local_pool_count++;
        return;
    }
    mpcrt_stack_t stack = u->stack;
    mpcrt_stack_free(&stack);
}

int mpcrt_ult_create(mpcrt_ult_t **out, void *(*fn)(void *), void *arg, const mpcrt_ult_attr_t *attr)
{
    mpcrt_ult_attr_t defaults;
    if (!attr) {
        mpcrt_ult_attr_init(&defaults);
        attr = &defaults;
    }
    if (!mpcrt_sched_is_initialized())
        return -EAGAIN;
    if (!fn || attr->kind < 0 || attr->kind >= MPCRT_ULT_IDLE || attr->vp >= mpcrt_sched.nvps ||
        attr->base_priority < MPCRT_PRIO_MIN || attr->base_priority > MPCRT_PRIO_MAX)
        return -EINVAL;
    if (attr->detached && out)
        *out = NULL;
    mpcrt_vp_t *self_vp = mpcrt_tls_vp;
    mpcrt_vp_t *home = &mpcrt_sched.vps[attr->vp >= 0 ? attr->vp : self_vp ? self_vp->id : 0];
    size_t stack_size = attr->stack_size;
    if (!stack_size)
        stack_size = attr->kind == MPCRT_ULT_RANK ? mpcrt_sched.rank_stack_size : mpcrt_sched.ult_stack_size;

    mpcrt_ult_t *u = take_pooled(self_vp, stack_size);
    if (!u)
        u = allocate(stack_size);
    if (!u)
        return -ENOMEM;
    u->kind = attr->kind;
    u->base_prio = u->cur_prio = attr->base_priority;
    u->rank = attr->rank;
    memset(u->pub.slots, 0, sizeof u->pub.slots);
    /* A ULT starts with its creator's rank-level privatization view (a rank's helper threads see the
     * rank's globals); the layer creating it may change both deltas before it runs. */
    mpcrt_ult_t *creator = self_vp ? self_vp->current : NULL;
    u->priv_task_delta = creator ? creator->priv_task_delta : 0;
    u->priv_ult_delta = 0;
    u->fn = fn;
    u->arg = arg;
    u->retval = NULL;
    u->detached = attr->detached;
    u->joiner = NULL;
    u->park_pred = NULL;
    u->sp = mpcrt_ctx_make((char *)u, ult_entry, u);
#if defined(__SANITIZE_ADDRESS__)
    u->asan_fake_stack = NULL;
    u->asan_stack_bottom = u->stack.base;
    u->asan_stack_size = (size_t)((char *)u - (char *)u->stack.base);
#endif
#if defined(__SANITIZE_THREAD__)
    u->tsan_fiber = __tsan_create_fiber(0);
#endif
    atomic_store_explicit(&u->home, home, memory_order_relaxed);
    if (!attr->detached && out)
        *out = u;
    if (home == self_vp) {
        atomic_store_explicit(&u->state, ULT_READY, memory_order_relaxed);
        mpcrt_rq_push(&home->rq, u);
    } else {
        atomic_store(&u->state, ULT_NEW); /* seq_cst: see mpcrt_sched_drain_inbox */
        mpcrt_ult_wake(u);
    }
    return 0;
}

/* Runs on the VP right after an exited ULT switched away for the last time, so its stack is free. */
void mpcrt_ult_finish_exited(mpcrt_vp_t *vp, mpcrt_ult_t *u)
{
    (void)vp;
    if (u->detached) {
        recycle(u);
        return;
    }
    mpcrt_spin_lock(&u->join_guard);
    atomic_store_explicit(&u->state, ULT_DONE, memory_order_relaxed);
    mpcrt_waiter_t *joiner = u->joiner;
    mpcrt_spin_unlock(&u->join_guard);
    if (joiner)
        mpcrt_waiter_wake(joiner);
}

int mpcrt_ult_join(mpcrt_ult_t *u, void **retval)
{
    if (!u || u->detached)
        return -EINVAL;
    if (u == mpcrt_ult_self())
        return -EDEADLK;
    mpcrt_waiter_t w;
    mpcrt_spin_lock(&u->join_guard);
    bool done = atomic_load_explicit(&u->state, memory_order_relaxed) == ULT_DONE;
    if (!done) {
        mpcrt_waiter_init(&w);
        u->joiner = &w;
    }
    mpcrt_spin_unlock(&u->join_guard);
    if (!done)
        mpcrt_waiter_sleep(&w);
    /* The join guard's release/acquire ordered the ULT's writes (retval) before this read. */
    mpcrt_spin_lock(&u->join_guard);
    mpcrt_spin_unlock(&u->join_guard);
    if (retval)
        *retval = u->retval;
    recycle(u);
    return 0;
}


mpcrt_ult_kind_t mpcrt_ult_kind(const mpcrt_ult_t *u) { return u->kind; }
int mpcrt_ult_rank(const mpcrt_ult_t *u) { return u->rank; }
void mpcrt_ult_set_rank(mpcrt_ult_t *u, int rank)
{
    u->rank = rank;
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    if (vp && vp->current == u)
        mpcrt_tls_rank = rank;
}
int mpcrt_ult_vp(const mpcrt_ult_t *u) { return atomic_load_explicit(&u->home, memory_order_relaxed)->id; }

void mpcrt_ult_set_priv_deltas(mpcrt_ult_t *u, intptr_t task_delta, intptr_t ult_delta)
{
    u->priv_task_delta = task_delta;
    u->priv_ult_delta = ult_delta;
    if (u == mpcrt_ult_self()) {
        extern __thread intptr_t __mpc_priv_delta, __mpc_ult_delta;
        __mpc_priv_delta = task_delta;
        __mpc_ult_delta = ult_delta;
    }
}

void mpcrt_ult_get_priv_deltas(const mpcrt_ult_t *u, intptr_t *task_delta, intptr_t *ult_delta)
{
    *task_delta = u->priv_task_delta;
    *ult_delta = u->priv_ult_delta;
}
