/* The srun command line mpcrun runs inside a Slurm allocation (see slurm.h). Each task is one process of
 * the job; MPCRT_RANKS_PER_PROC (exported by mpcrun, passed on by srun's default --export=ALL) tells each
 * how many ranks it hosts as threads. */
#include "slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool slurm_allocation_here(void)
{
    const char *job = getenv("SLURM_JOB_ID");
    return job && *job && !getenv("PMIX_NAMESPACE");
}

static char *format_option(const char *name, long long value)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s=%lld", name, value);
    return strdup(buf);
}

char **slurm_srun_argv(const slurm_job_t *job)
{
    size_t nprog = 0;
    while (job->prog_argv[nprog])
        nprog++;
    char **argv = calloc(nprog + 12, sizeof *argv);
    if (!argv)
        return NULL;
    size_t n = 0;
    argv[n++] = strdup("srun");
    argv[n++] = strdup("--mpi=pmix");
    /* One failed process ends the step, as mpcrun ends a local job (exit code: the failed task's). */
    argv[n++] = strdup("--kill-on-bad-exit=1");
    argv[n++] = format_option("--ntasks", job->procs);
    if (job->nodes > 0)
        argv[n++] = format_option("--nodes", job->nodes);
    if (job->cores_per_task > 0)
        argv[n++] = format_option("--cpus-per-task", job->cores_per_task);
    if (job->oversubscribe)
        argv[n++] = strdup("--overcommit");
    if (job->tag_output)
        argv[n++] = strdup("--label"); /* srun prefixes the task (process) number */
    argv[n++] = strdup("--");
    for (size_t i = 0; i < nprog; i++)
        argv[n++] = strdup(job->prog_argv[i]);
    bool complete = true;
    for (size_t i = 0; i < n; i++)
        complete = complete && argv[i];
    if (!complete) {
        for (size_t i = 0; i < n; i++)
            free(argv[i]);
        free(argv);
        return NULL;
    }
    return argv;
}

void slurm_free_argv(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}
