/* target and teams on the host (there are no offload devices): a target region runs on the encountering
 * thread as the initial thread of a new contention group (level 0, its own ICVs and thread limit), its
 * teams one after the other; the teams construct outside target does the same. Data mapping needs no
 * copies: host and "device" share memory. */
#include "../omp_internal.h"

#include <stdlib.h>
#include <string.h>

#define TARGET_ARG_DEVICE_MASK ((1u << 7) - 1)
#define TARGET_ARG_SUBSEQUENT_PARAM (1u << 7)
#define TARGET_ARG_ID_MASK (((1u << 8) - 1) << 8)
#define TARGET_ARG_NUM_TEAMS (1u << 8)
#define TARGET_ARG_THREAD_LIMIT (2u << 8)
#define TARGET_ARG_VALUE_SHIFT 16

typedef struct {
    omp_team_state_t ts;
    omp_task_t *task;
    _Atomic int *cg_busy;
    bool in_target;
    int team_num, num_teams;
} saved_state_t;

static bool tasks_done(void *arg)
{
    omp_team_t *team = arg;
    return !omp_team_tasks_pending(team) || omp_team_has_tasks(team);
}

/* Become the initial thread of a new contention group; returns what to restore. */
static omp_team_t *enter_initial(omp_thread_t *thr, saved_state_t *saved, _Atomic int *cg, unsigned thread_limit)
{
    saved->ts = thr->ts;
    saved->task = thr->task;
    saved->cg_busy = thr->cg_busy;
    saved->in_target = thr->in_target;
    saved->team_num = thr->team_num;
    saved->num_teams = thr->num_teams;
    omp_team_t *team = omp_team_new_initial(thr);
    memset(&thr->ts, 0, sizeof thr->ts);
    thr->ts.team = team;
    thr->ts.place = -1;
    thr->ts.part_first = 0;
    thr->ts.part_len = omp_global.nplaces;
    omp_icv_t icv = omp_global.initial;
    icv.default_device = saved->task->icv.default_device;
    if (thread_limit)
        icv.thread_limit = thread_limit;
    omp_task_init_implicit(&team->implicit[0], team, &icv);
    thr->task = &team->implicit[0];
    atomic_init(cg, 1);
    thr->cg_busy = cg;
    return team;
}

static void leave_initial(omp_thread_t *thr, omp_team_t *team, saved_state_t *saved)
{
    /* The initial task's implicit barrier: its tasks complete first. */
    while (omp_team_tasks_pending(team)) {
        if (!omp_task_run_one(thr, NULL, 0))
            omp_team_wait(thr, team, tasks_done, team);
    }
    omp_task_end_implicit(&team->implicit[0]);
    thr->ts = saved->ts;
    thr->task = saved->task;
    thr->cg_busy = saved->cg_busy;
    thr->in_target = saved->in_target;
    thr->team_num = saved->team_num;
    thr->num_teams = saved->num_teams;
    omp_team_free(team);
}

#define MAP_FIRSTPRIVATE 0x0c /* GOMP_MAP_FIRSTPRIVATE: the low byte of a kind; the high byte is log2(align) */

void omp_target_run(omp_thread_t *thr, void (*fn)(void *), size_t mapnum, void **hostaddrs, size_t *sizes,
                    unsigned short *kinds, unsigned flags, void **depend, void **args)
{
    (void)flags; /* nowait: running it now is one valid schedule of the target task */
    if (depend)
        omp_taskwait_depend(thr, depend);
    /* firstprivate variables get a private copy, as on a device: the region may modify them. */
    size_t private_bytes = 0, max_align = 1;
    for (size_t i = 0; kinds && i < mapnum; i++)
        if ((kinds[i] & 0xff) == MAP_FIRSTPRIVATE) {
            size_t align = (size_t)1 << (kinds[i] >> 8);
            private_bytes = (private_bytes + align - 1) & ~(align - 1);
            private_bytes += sizes[i];
            if (align > max_align)
                max_align = align;
        }
    char *copies = NULL;
    if (private_bytes) {
        copies = omp_malloc_aligned(max_align, private_bytes);
        size_t offset = 0;
        for (size_t i = 0; i < mapnum; i++)
            if ((kinds[i] & 0xff) == MAP_FIRSTPRIVATE) {
                size_t align = (size_t)1 << (kinds[i] >> 8);
                offset = (offset + align - 1) & ~(align - 1);
                memcpy(copies + offset, hostaddrs[i], sizes[i]);
                hostaddrs[i] = copies + offset;
                offset += sizes[i];
            }
    }
    unsigned thread_limit = 0;
    for (void **a = args; a && *a; a++) {
        uintptr_t id = (uintptr_t)*a;
        intptr_t value;
        if (id & TARGET_ARG_SUBSEQUENT_PARAM)
            value = (intptr_t)*++a;
        else
            value = (intptr_t)id >> TARGET_ARG_VALUE_SHIFT;
        if ((id & TARGET_ARG_DEVICE_MASK) != 0)
            continue; /* for a specific device type, not the host */
        if ((id & TARGET_ARG_ID_MASK) == TARGET_ARG_THREAD_LIMIT && value > 0)
            thread_limit = (unsigned)value;
    }
    saved_state_t saved;
    _Atomic int cg;
    omp_team_t *team = enter_initial(thr, &saved, &cg, thread_limit);
    thr->in_target = true;
    thr->team_num = 0;
    thr->num_teams = 1;
    fn(hostaddrs);
    leave_initial(thr, team, &saved);
    free(copies);
}

bool omp_teams4(omp_thread_t *thr, unsigned lower, unsigned upper, unsigned thread_limit, bool first)
{
    (void)lower;
    if (first) {
        unsigned n = upper ? upper : omp_global.num_teams > 0 ? (unsigned)omp_global.num_teams : 1;
        if (thread_limit)
            thr->task->icv.thread_limit = thread_limit;
        thr->num_teams = (int)n;
        thr->team_num = 0;
        return true;
    }
    if (++thr->team_num < thr->num_teams)
        return true;
    thr->team_num = 0;
    thr->num_teams = 1;
    return false;
}

void omp_teams_reg(omp_thread_t *thr, void (*fn)(void *), void *data, unsigned num_teams,
                   unsigned thread_limit, unsigned flags)
{
    (void)flags;
    unsigned n = num_teams ? num_teams : omp_global.num_teams > 0 ? (unsigned)omp_global.num_teams : 1;
    if (!thread_limit && omp_global.teams_thread_limit > 0)
        thread_limit = (unsigned)omp_global.teams_thread_limit;
    for (unsigned t = 0; t < n; t++) {
        saved_state_t saved;
        _Atomic int cg;
        omp_team_t *team = enter_initial(thr, &saved, &cg, thread_limit);
        thr->task->icv = saved.task->icv;
        if (thread_limit)
            thr->task->icv.thread_limit = thread_limit;
        thr->team_num = (int)t;
        thr->num_teams = (int)n;
        fn(data);
        leave_initial(thr, team, &saved);
    }
}
