/* mpcrun's multi-process jobs (-p P > 1, --mode=process): the PMIx server it hosts (pmix_host.c) and the
 * supervision of the processes (procs.c). */
#ifndef MPCRUN_PROCS_H
#define MPCRUN_PROCS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

/* What mpcrun knows of one process of the job; the PMIx upcalls write the atomics from PMIx's thread. */
typedef struct {
    pid_t pid;
    bool exited;
    int status; /* waitpid status once exited */
    _Atomic bool connected, finalized, aborted;
    int abort_code;
    int out_fd, err_fd; /* --tag-output: read ends of its stdout and stderr; -1 otherwise */
} proc_state_t;

/* Starts the PMIx server (tmpdir for its files) and registers namespace ns with nprocs processes. */
int pmix_host_start(const char *tmpdir, const char *ns, proc_state_t *procs, int nprocs);
/* Registers process `proc` and returns the environment to exec it with (malloc'd), or NULL. */
char **pmix_host_client_env(int proc);
void pmix_host_stop(void);

typedef struct {
    long long ranks, procs, cores_per_rank, timeout;
    bool tag_output;
    bool keep_going; /* a failed process does not end the others (--on-failure=continue) */
    char **prog_argv;
    const char *path;
} procs_job_t;

/* Runs the job and returns mpcrun's exit code. */
int procs_run(const procs_job_t *job);

#endif
