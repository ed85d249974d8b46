/* Registration of the hooks through which the MPI and OpenMP layers plug into the scheduler. Hooks are
 * added at start-up and never removed, so readers only need the published count (acquire). */
#include "sched_internal.h"

#include <errno.h>

static _Atomic int registration_lock;

static int add_hook(void **table, _Atomic int *count, void *fn, void *arg, hook_t *pairs)
{
    if (!fn)
        return -EINVAL;
    mpcrt_spin_lock(&registration_lock);
    int n = atomic_load_explicit(count, memory_order_relaxed);
    if (n == MPCRT_MAX_HOOKS) {
        mpcrt_spin_unlock(&registration_lock);
        return -ENOSPC;
    }
    if (pairs) {
        pairs[n].fn = (mpcrt_progress_fn)fn;
        pairs[n].arg = arg;
    } else {
        table[n] = fn;
    }
    /* release: a reader that sees the new count sees the entry. */
    atomic_store_explicit(count, n + 1, memory_order_release);
    mpcrt_spin_unlock(&registration_lock);
    return 0;
}

int mpcrt_sched_add_progress_hook(mpcrt_progress_fn fn, void *arg)
{
    return add_hook(NULL, &mpcrt_sched.nprogress, (void *)fn, arg, mpcrt_sched.progress);
}

int mpcrt_sched_add_idle_hook(mpcrt_progress_fn fn, void *arg)
{
    return add_hook(NULL, &mpcrt_sched.nidle, (void *)fn, arg, mpcrt_sched.idle);
}

int mpcrt_sched_add_ult_start_hook(mpcrt_ult_event_fn fn)
{
    return add_hook((void **)mpcrt_sched.start_hooks, &mpcrt_sched.nstart, (void *)fn, NULL, NULL);
}

int mpcrt_sched_add_ult_exit_hook(mpcrt_ult_event_fn fn)
{
    return add_hook((void **)mpcrt_sched.exit_hooks, &mpcrt_sched.nexit, (void *)fn, NULL, NULL);
}

int mpcrt_sched_add_switch_hook(mpcrt_switch_fn fn)
{
    return add_hook((void **)mpcrt_sched.switch_hooks, &mpcrt_sched.nswitch, (void *)fn, NULL, NULL);
}

int mpcrt_sched_add_park_hook(mpcrt_ult_event_fn fn)
{
    return add_hook((void **)mpcrt_sched.park_hooks, &mpcrt_sched.npark, (void *)fn, NULL, NULL);
}

int mpcrt_sched_add_spin_hook(mpcrt_ult_event_fn fn)
{
    return add_hook((void **)mpcrt_sched.spin_hooks, &mpcrt_sched.nspin, (void *)fn, NULL, NULL);
}

/* Kernel threads outside the VPs need their own recursion guard. */
static __thread bool progress_running_here;

int mpcrt_run_hooks(hook_t *hooks, _Atomic int *count)
{
    int n = atomic_load_explicit(count, memory_order_acquire);
    if (n == 0)
        return 0;
    mpcrt_vp_t *vp = mpcrt_tls_vp;
    bool *guard = vp ? &vp->in_progress : &progress_running_here;
    if (*guard)
        return 0; /* a hook that waits must not re-enter the hooks */
    if (vp && vp->current->quiet)
        return 0; /* mpcrt_wait_until_quiet */
    *guard = true;
    int events = 0;
    for (int i = 0; i < n; i++)
        events += hooks[i].fn(hooks[i].arg);
    *guard = false;
    return events;
}

int mpcrt_sched_progress(void)
{
    return mpcrt_run_hooks(mpcrt_sched.progress, &mpcrt_sched.nprogress);
}
