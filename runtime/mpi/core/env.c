/* MPI environment management: initialization, finalization, queries, abort, clocks, versions. In thread
 * mode every rank is a RANK ULT and has its own initialized/finalized state; a program that was not
 * started through mpcc's entry point (or a plain kernel thread) is a singleton rank 0. */
#include "../mpi_internal.h"
#include "../../threads/sched.h"
#include "../attr/attr.h"
#include "../comm/comm.h"
#include "../pt2pt/pt2pt.h"
#include "../wireup/wireup.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

mpcrt_mpi_process_t mpcrt_mpi_process;
static int world_size; /* ranks of the job */
static _Atomic int ranks_finalized;
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t singleton_main_thread;
static _Atomic int ranks_initialized;

/* The last rank of the process to be done with MPI leaves the job: the launcher then knows the process
 * ended cleanly. */
static void leave_job(void)
{
    if (atomic_fetch_add_explicit(&ranks_finalized, 1, memory_order_acq_rel) ==
        mpcrt_mpi_process.nranks - 1) {
        mpcrt_remote_flush();
        mpcrt_wireup_finalize();
    }
}

/* A rank of the Sessions Model alone (sessions, never MPI_Init) is done with MPI when its main function
 * returns with every session finalized: it leaves the job then (there is no MPI_Finalize to do it). */
static void rank_exit_hook(mpcrt_ult_t *ult)
{
    if (mpcrt_ult_kind(ult) != MPCRT_ULT_RANK)
        return;
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (self && !self->initialized && self->used_sessions &&
        atomic_load_explicit(&self->sessions, memory_order_relaxed) == 0)
        leave_job();
}

int mpcrt_mpi_process_init(void)
{
    if (atomic_load_explicit(&mpcrt_mpi_process.ready, memory_order_acquire))
        return MPI_SUCCESS;
    pthread_mutex_lock(&process_lock);
    int rc = MPI_SUCCESS;
    if (!atomic_load_explicit(&mpcrt_mpi_process.ready, memory_order_relaxed)) {
        if (!mpcrt_sched_is_initialized()) {
            /* Not started by mpcc's entry point: this process is a singleton job. */
            if (mpcrt_sched_init() != 0)
                rc = MPI_ERR_INTERN;
            singleton_main_thread = pthread_self();
        }
        mpcrt_mpi_process.nranks = mpcrt_ult_self() ? mpcrt_job_local_ranks() : 1;
        mpcrt_mpi_process.first_rank = mpcrt_job_first_rank();
        world_size = mpcrt_mpi_process.nranks * mpcrt_job_num_procs();
        size_t bytes = (size_t)mpcrt_mpi_process.nranks * sizeof *mpcrt_mpi_process.ranks;
        mpcrt_mpi_process.ranks = aligned_alloc(_Alignof(mpcrt_mpi_rank_t), bytes); /* a multiple of 64 */
        if (mpcrt_mpi_process.ranks)
            memset(mpcrt_mpi_process.ranks, 0, bytes);
        else
            rc = MPI_ERR_NO_MEM;
        for (int i = 0; rc == MPI_SUCCESS && i < mpcrt_mpi_process.nranks; i++)
            if (!(mpcrt_mpi_process.ranks[i].match = mpcrt_match_create()))
                rc = MPI_ERR_NO_MEM;
        if (rc == MPI_SUCCESS && mpcrt_mpi_process.nranks > 1 && mpcrt_match_install_hooks() != 0)
            rc = MPI_ERR_INTERN;
        if (rc == MPI_SUCCESS && mpcrt_comm_init_predefined() != 0)
            rc = MPI_ERR_NO_MEM;
        /* Other processes: open the rails and meet every process (collective over the job). */
        if (rc == MPI_SUCCESS && mpcrt_wireup_num_procs() > 1 && mpcrt_remote_init() != 0) {
            fprintf(stderr, "mpcrt: process %d cannot connect to the other processes of the job\n",
                    mpcrt_wireup_proc());
            rc = MPI_ERR_INTERN;
        }
        if (rc == MPI_SUCCESS && mpcrt_ult_self())
            mpcrt_sched_add_ult_exit_hook(rank_exit_hook);
        if (rc == MPI_SUCCESS) {
            atomic_store_explicit(&mpcrt_mpi_process.ranks_ready, (unsigned)mpcrt_mpi_process.nranks,
                                  memory_order_release);
            atomic_store_explicit(&mpcrt_mpi_process.ready, true, memory_order_release);
        }
    }
    pthread_mutex_unlock(&process_lock);
    return rc;
}

int mpcrt_mpi_world_rank(void)
{
    int rank = mpcrt_self_rank();
    if (rank >= 0)
        return rank;
    /* A kernel thread that is no rank's (a program without mpcc's entry point) is this process's rank. */
    return atomic_load_explicit(&mpcrt_mpi_process.ready, memory_order_acquire) ? mpcrt_mpi_process.first_rank
                                                                                : mpcrt_job_first_rank();
}

int mpcrt_mpi_world_size(void)
{
    return world_size;
}

bool mpcrt_mpi_any_rank_initialized(void)
{
    return atomic_load_explicit(&ranks_initialized, memory_order_relaxed) > 0;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Init_thread", MPI_ERR_ARG,
                               "required thread level %d is not one of MPI_THREAD_*", required);
    int rc = mpcrt_mpi_process_init();
    if (rc != MPI_SUCCESS)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Init_thread", rc, "cannot start the runtime");
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (self->initialized)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Init_thread", MPI_ERR_OTHER,
                               "MPI is already initialized on rank %d", mpcrt_mpi_world_rank());
    self->initialized = true;
    self->provided = MPI_THREAD_MULTIPLE; /* always granted: the runtime has no global lock to avoid */
    atomic_fetch_add_explicit(&ranks_initialized, 1, memory_order_relaxed);
    if (provided)
        *provided = self->provided;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Init_thread)

int PMPI_Init(int *argc, char ***argv)
{
    int provided;
    return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}
MPCRT_PMPI_ALIAS(Init)

int PMPI_Initialized(int *flag)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    *flag = self && self->initialized;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Initialized)

int PMPI_Finalized(int *flag)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    *flag = self && self->finalized;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Finalized)

static int check_active(const char *function)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self || !self->initialized)
        return mpcrt_mpi_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "called before MPI_Init");
    if (self->finalized)
        return mpcrt_mpi_error(MPI_COMM_WORLD, function, MPI_ERR_OTHER, "called after MPI_Finalize");
    return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
    int rc = check_active("MPI_Finalize");
    if (rc != MPI_SUCCESS)
        return rc;
    /* First, as if MPI_COMM_SELF were freed: its attributes' delete callbacks (MPI 4.0 section 11.2.2). */
    mpcrt_attr_finalize_rank();
    /* MPI_Finalize is collective over the connected processes: every rank leaves together. */
    rc = mpcrt_mpi_world_barrier();
    mpcrt_request_reap_orphans(); /* those not done yet stay allocated: their operation may still end */
    mpcrt_mpi_self()->finalized = true;
    fflush(stdout);
    /* After the barrier no peer sends to this process any more. */
    leave_job();
    return rc;
}
MPCRT_PMPI_ALIAS(Finalize)

int PMPI_Query_thread(int *provided)
{
    int rc = check_active("MPI_Query_thread");
    if (rc == MPI_SUCCESS)
        *provided = mpcrt_mpi_self()->provided;
    return rc;
}
MPCRT_PMPI_ALIAS(Query_thread)

int PMPI_Is_thread_main(int *flag)
{
    int rc = check_active("MPI_Is_thread_main");
    if (rc != MPI_SUCCESS)
        return rc;
    mpcrt_ult_t *self = mpcrt_ult_self();
    if (self)
        *flag = mpcrt_ult_kind(self) == MPCRT_ULT_RANK;
    else
        *flag = pthread_equal(pthread_self(), singleton_main_thread);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fprintf(stderr, "mpcrt: rank %d called MPI_Abort with error code %d: ending the job\n",
            mpcrt_mpi_world_rank(), errorcode);
    fflush(stdout);
    fflush(stderr);
    /* Every rank of this process dies with it; the exit code carries the user's error code. */
    _exit(errorcode & 0xff ? errorcode & 0xff : 1);
}
MPCRT_PMPI_ALIAS(Abort)

double PMPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPCRT_PMPI_ALIAS(Wtime)

double PMPI_Wtick(void)
{
    struct timespec ts;
    clock_getres(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
MPCRT_PMPI_ALIAS(Wtick)

int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Get_version)

int PMPI_Get_library_version(char *version, int *resultlen)
{
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "mpcrt %s (MPI %d.%d, MPICH ABI)",
                     MPCRT_VERSION_TEXT, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Get_library_version)

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Get_processor_name)
