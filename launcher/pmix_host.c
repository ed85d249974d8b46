/* mpcrun's PMIx server (libpmix 4 server API): registers the job's namespace and its processes, prepares
 * each child's environment (PMIx_server_setup_fork), and serves fences (all processes are on this node,
 * so the library completes them itself; fence_nb only echoes the local data for the multi-node path).
 * Upcalls run on PMIx's own thread: they only record what happened, the main thread acts on it. */
#define _GNU_SOURCE
#include "procs.h"

#include <pmix.h>
#include <pmix_server.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static proc_state_t *states;
static int nstates;
static char nspace[PMIX_MAX_NSLEN + 1];

typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t cond;
    bool done;
    pmix_status_t status;
} op_wait_t;

static void op_done(pmix_status_t status, void *cbdata)
{
    op_wait_t *w = cbdata;
    pthread_mutex_lock(&w->lock);
    w->status = status;
    w->done = true;
    pthread_cond_signal(&w->cond);
    pthread_mutex_unlock(&w->lock);
}

static pmix_status_t op_wait(op_wait_t *w)
{
    pthread_mutex_lock(&w->lock);
    while (!w->done)
        pthread_cond_wait(&w->cond, &w->lock);
    pthread_mutex_unlock(&w->lock);
    return w->status;
}

#define OP_WAIT_INIT                                                                                         \
    {                                                                                                        \
        PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, PMIX_SUCCESS                             \
    }

static proc_state_t *state_of(const pmix_proc_t *proc)
{
    if (!proc || strcmp(proc->nspace, nspace) != 0 || proc->rank >= (pmix_rank_t)nstates)
        return NULL;
    return &states[proc->rank];
}

static pmix_status_t client_connected(const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
                                      void *cbdata)
{
    (void)server_object, (void)cbfunc, (void)cbdata; /* libpmix 4.2 passes no cbfunc here: never call it */
    proc_state_t *s = state_of(proc);
    if (s)
        atomic_store(&s->connected, true);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t client_finalized(const pmix_proc_t *proc, void *server_object, pmix_op_cbfunc_t cbfunc,
                                      void *cbdata)
{
    (void)server_object, (void)cbfunc, (void)cbdata;
    proc_state_t *s = state_of(proc);
    if (s)
        atomic_store(&s->finalized, true);
    return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t client_abort(const pmix_proc_t *proc, void *server_object, int status, const char msg[],
                                  pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc, void *cbdata)
{
    (void)server_object, (void)msg, (void)procs, (void)nprocs, (void)cbfunc, (void)cbdata;
    proc_state_t *s = state_of(proc);
    if (s) {
        s->abort_code = status;
        atomic_store(&s->aborted, true);
    }
    return PMIX_OPERATION_SUCCEEDED;
}

static void release_data(void *cbdata)
{
    free(cbdata);
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
                              size_t ninfo, char *data, size_t ndata, pmix_modex_cbfunc_t cbfunc,
                              void *cbdata)
{
    (void)procs, (void)nprocs, (void)info, (void)ninfo;
    /* One node: the library already aggregated every local contribution; hand it back (we own `data`). */
    cbfunc(PMIX_SUCCESS, data, ndata, cbdata, release_data, data);
    return PMIX_SUCCESS;
}

static pmix_status_t direct_modex(const pmix_proc_t *proc, const pmix_info_t info[], size_t ninfo,
                                  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
    (void)proc, (void)info, (void)ninfo, (void)cbfunc, (void)cbdata;
    return PMIX_ERR_NOT_SUPPORTED; /* never reached with a single node */
}

static pmix_server_module_t module = {
    .client_connected = client_connected,
    .client_finalized = client_finalized,
    .abort = client_abort,
    .fence_nb = fence_nb,
    .direct_modex = direct_modex,
};

static void load_u32(pmix_info_t *info, const char *key, uint32_t v)
{
    PMIX_INFO_LOAD(info, key, &v, PMIX_UINT32);
}

int pmix_host_start(const char *tmpdir, const char *ns, proc_state_t *procs, int nprocs)
{
    states = procs;
    nstates = nprocs;
    snprintf(nspace, sizeof nspace, "%s", ns);
    pmix_info_t init[3];
    bool no = false;
    PMIX_INFO_LOAD(&init[0], PMIX_SERVER_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&init[1], PMIX_SYSTEM_TMPDIR, tmpdir, PMIX_STRING);
    PMIX_INFO_LOAD(&init[2], PMIX_SERVER_TOOL_SUPPORT, &no, PMIX_BOOL);
    pmix_status_t rc = PMIx_server_init(&module, init, 3);
    for (int i = 0; i < 3; i++)
        PMIX_INFO_DESTRUCT(&init[i]);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "mpcrun: cannot start the PMIx server: %s\n", PMIx_Error_string(rc));
        return -1;
    }

    char host[256] = "localhost";
    gethostname(host, sizeof host - 1);
    char *peers = malloc((size_t)nprocs * 12 + 1);
    if (!peers)
        return -1;
    peers[0] = '\0';
    for (int r = 0, n = 0; r < nprocs; r++)
        n += sprintf(peers + n, r ? ",%d" : "%d", r);
    char *nodemap = NULL, *procmap = NULL;
    PMIx_generate_regex(host, &nodemap);
    PMIx_generate_ppn(peers, &procmap);

    size_t ninfo = 12 + (size_t)nprocs;
    pmix_info_t *info = calloc(ninfo, sizeof *info);
    if (!info)
        return -1;
    size_t k = 0;
    load_u32(&info[k++], PMIX_UNIV_SIZE, (uint32_t)nprocs);
    load_u32(&info[k++], PMIX_JOB_SIZE, (uint32_t)nprocs);
    load_u32(&info[k++], PMIX_MAX_PROCS, (uint32_t)nprocs);
    load_u32(&info[k++], PMIX_LOCAL_SIZE, (uint32_t)nprocs);
    load_u32(&info[k++], PMIX_NODE_SIZE, (uint32_t)nprocs);
    load_u32(&info[k++], PMIX_NUM_NODES, 1);
    load_u32(&info[k++], PMIX_NODEID, 0);
    PMIX_INFO_LOAD(&info[k++], PMIX_LOCAL_PEERS, peers, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_NODE_MAP, nodemap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_PROC_MAP, procmap, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_HOSTNAME, host, PMIX_STRING);
    PMIX_INFO_LOAD(&info[k++], PMIX_JOBID, nspace, PMIX_STRING);
    for (int r = 0; r < nprocs; r++) {
        /* Per-process data: PMIX_RANK must come first in the array. */
        pmix_info_t *pd = calloc(4, sizeof *pd);
        if (!pd)
            return -1;
        pmix_rank_t rank = (pmix_rank_t)r;
        uint16_t local = (uint16_t)r;
        uint32_t node = 0;
        PMIX_INFO_LOAD(&pd[0], PMIX_RANK, &rank, PMIX_PROC_RANK);
        PMIX_INFO_LOAD(&pd[1], PMIX_LOCAL_RANK, &local, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[2], PMIX_NODE_RANK, &local, PMIX_UINT16);
        PMIX_INFO_LOAD(&pd[3], PMIX_NODEID, &node, PMIX_UINT32);
        pmix_data_array_t arr = {.type = PMIX_INFO, .size = 4, .array = pd};
        PMIX_INFO_LOAD(&info[k++], PMIX_PROC_DATA, &arr, PMIX_DATA_ARRAY); /* deep copy */
        for (int i = 0; i < 4; i++)
            PMIX_INFO_DESTRUCT(&pd[i]);
        free(pd);
    }
    op_wait_t w = OP_WAIT_INIT;
    rc = PMIx_server_register_nspace(nspace, nprocs, info, k, op_done, &w);
    if (rc == PMIX_SUCCESS)
        rc = op_wait(&w);
    for (size_t i = 0; i < k; i++)
        PMIX_INFO_DESTRUCT(&info[i]);
    free(info);
    free(peers);
    free(nodemap);
    free(procmap);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fprintf(stderr, "mpcrun: cannot register the job with the PMIx server: %s\n", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

char **pmix_host_client_env(int proc)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, nspace, (pmix_rank_t)proc);
    op_wait_t w = OP_WAIT_INIT;
    pmix_status_t rc = PMIx_server_register_client(&p, geteuid(), getegid(), NULL, op_done, &w);
    if (rc == PMIX_SUCCESS)
        rc = op_wait(&w);
    if (rc != PMIX_SUCCESS && rc != PMIX_OPERATION_SUCCEEDED) {
        fprintf(stderr, "mpcrun: cannot register process %d with the PMIx server: %s\n", proc,
                PMIx_Error_string(rc));
        return NULL;
    }
    /* A malloc'd copy of our environment: PMIx_server_setup_fork reallocs it to add its variables. */
    extern char **environ;
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++)
        env[i] = strdup(environ[i]);
    if (PMIx_server_setup_fork(&p, &env) != PMIX_SUCCESS) {
        fprintf(stderr, "mpcrun: cannot prepare the environment of process %d\n", proc);
        return NULL;
    }
    return env;
}

void pmix_host_stop(void)
{
    op_wait_t w = OP_WAIT_INIT;
    PMIx_server_deregister_nspace(nspace, op_done, &w);
    op_wait(&w);
    PMIx_server_finalize();
}

#if defined(__SANITIZE_ADDRESS__)
/* LeakSanitizer: libpmix keeps a few strings of its start-up until the process ends; not ours to free. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:libpmix.so\n";
}
#endif
