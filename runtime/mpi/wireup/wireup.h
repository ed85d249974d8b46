/* Interface of runtime/mpi/wireup: this process's place in a multi-process job and the exchange of business
 * cards between processes, through PMIx (DESIGN.md section 4, Wire-up). Without a PMIx server (a program
 * started by hand, or mpcrun running one process) the process is alone: one process, index 0. */
#ifndef MPCRT_MPI_WIREUP_H
#define MPCRT_MPI_WIREUP_H

#include <stdbool.h>
#include <stddef.h>

/* True when a PMIx server hosts this job and PMIx_Init succeeded. */
bool mpcrt_wireup_active(void);
int mpcrt_wireup_proc(void);      /* this process's PMIx rank (0 when alone) */
int mpcrt_wireup_num_procs(void); /* processes in the job (1 when alone) */
int mpcrt_wireup_num_nodes(void); /* nodes the job spans (PMIX_NUM_NODES; 1 when alone or not published) */
/* The job's namespace, or "" when alone; unique per job, so it names the job's shared-memory objects. */
const char *mpcrt_wireup_nspace(void);

/* Publishes a string under key for every other process (visible after mpcrt_wireup_fence). */
int mpcrt_wireup_put(const char *key, const char *value);
/* Commits what was put and waits for every process of the job to do the same (collecting the data). */
int mpcrt_wireup_fence(void);
/* The value process `proc` put under key, malloc'd (free it), or NULL. */
char *mpcrt_wireup_get(int proc, const char *key);
/* Tells the launcher that this process ends the job with `code` (MPI_Abort); returns if it cannot. */
void mpcrt_wireup_abort(int code, const char *message);
/* Leaves the job cleanly (the launcher then knows the process called MPI_Finalize). */
void mpcrt_wireup_finalize(void);

#endif
