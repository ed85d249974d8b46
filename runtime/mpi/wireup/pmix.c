/* The runtime as a PMIx client: rank and size of the job from PMIx_Init, business cards exchanged by
 * put/commit/fence/get. Started by mpcrun (which hosts a PMIx server), by `srun --mpi=pmix` or by any other
 * PMIx launcher; a process started without one is a singleton job. Slurm 22.05 publishes no PMIX_RANK key
 * and no process map, so only the proc returned by PMIx_Init and PMIX_JOB_SIZE are relied on. */
#include "wireup.h"
#include "../../threads/sched.h"

#include <pmix.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool active;
static pmix_proc_t me;
static int num_procs = 1, num_nodes = 1;

/* Registered with the scheduler at load time: it runs before any rank exists (their numbers depend on
 * this process's index), from mpcrt_main or from the first MPI_Init of a program without mpcc's entry. */
static int wireup_job(int *proc_index, int *procs)
{
    /* The launcher's contract, not a tunable: PMIx servers hand their clients PMIX_NAMESPACE. Without it,
     * PMIx_Init would look for a system server (and print when none answers): the process is alone. */
    if (!getenv("PMIX_NAMESPACE"))
        return -1;
    pmix_status_t rc = PMIx_Init(&me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "mpcrt: cannot join the job's PMIx server (%s); running as a singleton\n",
                PMIx_Error_string(rc));
        return -1;
    }
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *val = NULL;
    if (PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &val) != PMIX_SUCCESS || !val) {
        fprintf(stderr, "mpcrt: the PMIx server gives no job size; running as a singleton\n");
        PMIx_Finalize(NULL, 0);
        return -1;
    }
    num_procs = (int)val->data.uint32;
    PMIX_VALUE_RELEASE(val);
    /* Optional: mpcrun and Slurm publish it; a launcher that does not is taken as one node. */
    val = NULL;
    if (PMIx_Get(&wild, PMIX_NUM_NODES, NULL, 0, &val) == PMIX_SUCCESS && val) {
        if (val->type == PMIX_UINT32 && val->data.uint32 > 0)
            num_nodes = (int)val->data.uint32;
        PMIX_VALUE_RELEASE(val);
    }
    active = true;
    *proc_index = (int)me.rank;
    *procs = num_procs;
    return 0;
}

__attribute__((constructor)) static void register_wireup(void)
{
    mpcrt_job_set_wireup(wireup_job);
}

bool mpcrt_wireup_active(void)
{
    mpcrt_job_wireup();
    return active;
}

int mpcrt_wireup_proc(void)
{
    return mpcrt_wireup_active() ? (int)me.rank : 0;
}

int mpcrt_wireup_num_procs(void)
{
    return mpcrt_wireup_active() ? num_procs : 1;
}

const char *mpcrt_wireup_nspace(void)
{
    return mpcrt_wireup_active() ? me.nspace : "";
}

int mpcrt_wireup_put(const char *key, const char *value)
{
    pmix_value_t v;
    PMIX_VALUE_LOAD(&v, value, PMIX_STRING);
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

int mpcrt_wireup_fence(void)
{
    if (PMIx_Commit() != PMIX_SUCCESS)
        return -1;
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, me.nspace, PMIX_RANK_WILDCARD);
    pmix_info_t info;
    bool collect = true;
    PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
    pmix_status_t rc = PMIx_Fence(&wild, 1, &info, 1);
    PMIX_INFO_DESTRUCT(&info);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

char *mpcrt_wireup_get(int proc, const char *key)
{
    pmix_proc_t peer;
    PMIX_LOAD_PROCID(&peer, me.nspace, (pmix_rank_t)proc);
    pmix_value_t *val = NULL;
    if (PMIx_Get(&peer, key, NULL, 0, &val) != PMIX_SUCCESS || !val)
        return NULL;
    char *copy = val->type == PMIX_STRING && val->data.string ? strdup(val->data.string) : NULL;
    PMIX_VALUE_RELEASE(val);
    return copy;
}

void mpcrt_wireup_abort(int code, const char *message)
{
    if (active)
        PMIx_Abort(code, message, NULL, 0);
}

void mpcrt_wireup_finalize(void)
{
    if (active) {
        active = false;
        PMIx_Finalize(NULL, 0);
    }
}

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer: libpmix keeps a few strings of its start-up until the process ends; not ours to free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}
#endif

int mpcrt_wireup_num_nodes(void)
{
    mpcrt_job_wireup();
    return num_nodes;
}
