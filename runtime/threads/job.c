/* The thread-mode job: this process's ranks as RANK ULTs placed on the VPs, each running the program's
 * main with its own argv copy; VP 0 is the process's initial thread and runs the scheduler until every
 * rank has returned. */
#include "config.h"
#include "log.h"
#include "sched_internal.h"

#include "mpcrt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int argc;
    char **envp;
    mpcrt_main_fn main_fn;
    int *status;
    char ***argvs;
    _Atomic int running;
} job_t;

typedef struct {
    job_t *job;
    int local_rank;
} rank_start_t;

int mpcrt_job_local_ranks(void)
{
    long n = mpcrt_config_int(MPCRT_CFG_RANKS_PER_PROC);
    return n > 0 ? (int)n : 1;
}

/* Where this process sits in a multi-process job, as the wire-up (the MPI layer's PMIx client) found it.
 * The scheduler only needs two numbers from it, so it takes them through a hook and stays MPI-agnostic. */
static mpcrt_job_wireup_fn wireup_fn;
static mpcrt_once_t wireup_once = MPCRT_ONCE_INITIALIZER;
static int proc_index, num_procs = -1;

void mpcrt_job_set_wireup(mpcrt_job_wireup_fn fn)
{
    wireup_fn = fn;
}

static void run_wireup(void)
{
    int index = 0, procs = -1;
    if (wireup_fn && wireup_fn(&index, &procs) == 0 && procs > 0) {
        proc_index = index;
        num_procs = procs;
    }
}

int mpcrt_job_wireup(void)
{
    mpcrt_once(&wireup_once, run_wireup);
    return 0;
}

int mpcrt_job_num_procs(void)
{
    mpcrt_job_wireup();
    if (num_procs > 0) return num_procs;
    long procs = mpcrt_config_int(MPCRT_CFG_NUM_PROCS);
    return procs > 0 ? (int)procs : 1;
}

int mpcrt_job_proc_index(void)
{
    mpcrt_job_wireup();
    return proc_index;
}

int mpcrt_job_size(void)
{
    return mpcrt_job_local_ranks() * mpcrt_job_num_procs();
}

int mpcrt_job_first_rank(void)
{
    /* Processes host consecutive blocks of MPCRT_RANKS_PER_PROC ranks, in launcher rank order. */
    return mpcrt_job_proc_index() * mpcrt_job_local_ranks();
}

int mpcrt_job_rank_vp(int local_rank)
{
    long cores_per_rank = mpcrt_config_int(MPCRT_CFG_CORES_PER_RANK);
    long nvps = mpcrt_sched.nvps, nranks = mpcrt_job_local_ranks();
    if (cores_per_rank > 0)
        return (int)(((long)local_rank * cores_per_rank) % nvps);
    return (int)((long)local_rank * nvps / nranks);
}

int mpcrt_job_rank_cores(int local_rank, int *first_vp)
{
    long cores_per_rank = mpcrt_config_int(MPCRT_CFG_CORES_PER_RANK);
    long nvps = mpcrt_sched.nvps;
    if (cores_per_rank <= 0 || local_rank < 0 || local_rank >= mpcrt_job_local_ranks()) {
        *first_vp = 0;
        return (int)nvps;
    }
    *first_vp = mpcrt_job_rank_vp(local_rank);
    return (int)(cores_per_rank < nvps ? cores_per_rank : nvps); /* --oversubscribe: at most every VP */
}

/* getopt and friends permute argv in place: each rank gets its own vector and strings. */
static char **copy_argv(int argc, char **argv)
{
    size_t bytes = sizeof(char *) * (size_t)(argc + 1);
    for (int i = 0; i < argc; i++)
        bytes += strlen(argv[i]) + 1;
    char **copy = malloc(bytes);
    if (!copy)
        return NULL;
    char *text = (char *)(copy + argc + 1);
    for (int i = 0; i < argc; i++) {
        size_t len = strlen(argv[i]) + 1;
        copy[i] = memcpy(text, argv[i], len);
        text += len;
    }
    copy[argc] = NULL;
    return copy;
}

static void *run_rank(void *arg)
{
    rank_start_t *start = arg;
    job_t *job = start->job;
    int r = start->local_rank;
    /* The rank makes its own copy of the privatized data, so copies of many ranks are made in parallel. */
    intptr_t task_delta = 0, ult_delta = 0;
    int rc = mpcrt_priv_task_create(&task_delta);
    if (rc == 0)
        rc = mpcrt_priv_thread_delta(task_delta, 0, &ult_delta);
    if (rc) {
        fprintf(stderr, "mpcrt: rank %d: cannot create its copy of the privatized variables (%s)\n",
                mpcrt_self_rank(), strerror(-rc));
        exit(1);
    }
    mpcrt_ult_set_priv_deltas(mpcrt_ult_self(), task_delta, ult_delta);
    mpcrt_priv_run_initializers(task_delta);
    job->status[r] = job->main_fn(job->argc, job->argvs[r], job->envp);
    mpcrt_priv_run_finalizers(task_delta);
    /* release: VP 0 reads the statuses after it sees the count reach zero. */
    if (atomic_fetch_sub_explicit(&job->running, 1, memory_order_release) == 1)
        mpcrt_vp_notify(&mpcrt_sched.vps[0]);
    return NULL;
}

static bool job_finished(void *arg)
{
    job_t *job = arg;
    return atomic_load_explicit(&job->running, memory_order_acquire) == 0;
}

/* What the running job allocated, reachable from globals: a rank that calls exit() ends the process from a
 * ULT stack, where leak checkers no longer see mpcrt_main's frame. */
static void *volatile running_allocations[3]; /* volatile: stores nobody reads must stay */

int mpcrt_main(int argc, char **argv, char **envp, mpcrt_main_fn main_fn)
{
    int rc = mpcrt_sched_init_here();
    if (rc) {
        fprintf(stderr, "mpcrt: cannot start the scheduler (%s)\n", strerror(-rc));
        return 1;
    }
    if (mpcrt_priv_init() != 0)
        return 1; /* the reason was printed */
    mpcrt_job_wireup(); /* before the ranks exist: their numbers depend on this process's place */
    int nranks = mpcrt_job_local_ranks();
    job_t job = {.argc = argc, .envp = envp, .main_fn = main_fn};
    job.status = calloc((size_t)nranks, sizeof *job.status);
    job.argvs = calloc((size_t)nranks, sizeof *job.argvs);
    rank_start_t *starts = calloc((size_t)nranks, sizeof *starts);
    running_allocations[0] = job.status;
    running_allocations[1] = job.argvs;
    running_allocations[2] = starts;
    if (!job.status || !job.argvs || !starts) {
        fprintf(stderr, "mpcrt: out of memory starting %d ranks\n", nranks);
        return 1;
    }
    atomic_init(&job.running, nranks);
    int first = mpcrt_job_first_rank();
    for (int r = 0; r < nranks; r++) {
        job.argvs[r] = copy_argv(argc, argv);
        starts[r] = (rank_start_t){&job, r};
        mpcrt_ult_attr_t attr;
        mpcrt_ult_attr_init(&attr);
        attr.kind = MPCRT_ULT_RANK;
        attr.vp = mpcrt_job_rank_vp(r);
        attr.rank = first + r;
        attr.detached = true;
        rc = job.argvs[r] ? mpcrt_ult_create(NULL, run_rank, &starts[r], &attr) : -12;
        if (rc) {
            fprintf(stderr, "mpcrt: cannot create rank %d of %d (%s); lower -n or MPCRT_RANK_STACK\n",
                    first + r, nranks, strerror(-rc));
            exit(1);
        }
    }
    mpcrt_log(MPCRT_LOG_SCHED, "%d rank(s) started", nranks);
    mpcrt_sched_run_until(job_finished, &job);
    int status = 0;
    for (int r = 0; r < nranks && !status; r++)
        status = job.status[r];
    mpcrt_sched_finalize();
    for (int r = 0; r < nranks; r++)
        free(job.argvs[r]);
    free(job.argvs);
    free(job.status);
    free(starts);
    return status;
}
