/* mpcrun inside a Slurm allocation: the job's processes are started by `srun --mpi=pmix` on the allocation's
 * nodes (Slurm's PMIx plugin is their PMIx server), instead of by mpcrun's own server on this node. */
#ifndef MPCRT_LAUNCHER_SLURM_H
#define MPCRT_LAUNCHER_SLURM_H

#include <stdbool.h>

typedef struct {
    long long ranks, procs, nodes; /* nodes: 0 when -N was not given (Slurm spreads the processes) */
    long long cores_per_task;      /* 0: not given */
    bool tag_output;
    bool oversubscribe; /* more processes than the allocation's cores: srun --overcommit */
    char **prog_argv;
} slurm_job_t;

/* True when mpcrun runs inside a Slurm allocation (SLURM_JOB_ID) and not inside a task Slurm or another PMIx
 * launcher started (PMIX_NAMESPACE): there, srun starts the job. */
bool slurm_allocation_here(void);

/* The srun command line for job: a NULL-terminated vector to free with slurm_free_argv. */
char **slurm_srun_argv(const slurm_job_t *job);
void slurm_free_argv(char **argv);

#endif
