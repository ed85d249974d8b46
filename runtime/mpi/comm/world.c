/* MPI_COMM_WORLD and MPI_COMM_SELF before general communicators exist: rank, size, and the barrier of the
 * ranks of this process (one process per job so far), which waits through the scheduler. */
#include "../mpi_internal.h"
#include "../../threads/sched.h"

static mpcrt_barrier_t world_barrier;
static mpcrt_once_t world_barrier_once = MPCRT_ONCE_INITIALIZER;

static void init_world_barrier(void)
{
    mpcrt_barrier_init(&world_barrier, (unsigned)mpcrt_mpi_world_size());
}

static int check(MPI_Comm comm, const char *function)
{
    mpcrt_mpi_rank_t *self = mpcrt_mpi_self();
    if (!self || !self->initialized)
        return mpcrt_mpi_error(comm, function, MPI_ERR_OTHER, "called before MPI_Init");
    if (self->finalized)
        return mpcrt_mpi_error(comm, function, MPI_ERR_OTHER, "called after MPI_Finalize");
    if (comm != MPI_COMM_WORLD && comm != MPI_COMM_SELF)
        return mpcrt_mpi_error(MPI_COMM_WORLD, function, MPI_ERR_COMM,
                               comm == MPI_COMM_NULL ? "MPI_COMM_NULL" : "communicator handle 0x%x", comm);
    return MPI_SUCCESS;
}

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    int rc = check(comm, "MPI_Comm_rank");
    if (rc == MPI_SUCCESS)
        *rank = comm == MPI_COMM_SELF ? 0 : mpcrt_mpi_world_rank();
    return rc;
}
MPCRT_PMPI_ALIAS(Comm_rank)

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    int rc = check(comm, "MPI_Comm_size");
    if (rc == MPI_SUCCESS)
        *size = comm == MPI_COMM_SELF ? 1 : mpcrt_mpi_world_size();
    return rc;
}
MPCRT_PMPI_ALIAS(Comm_size)

int mpcrt_mpi_world_barrier(void)
{
    if (mpcrt_mpi_world_size() > 1) {
        mpcrt_once(&world_barrier_once, init_world_barrier);
        mpcrt_barrier_wait(&world_barrier);
    }
    return MPI_SUCCESS;
}

int PMPI_Barrier(MPI_Comm comm)
{
    int rc = check(comm, "MPI_Barrier");
    if (rc != MPI_SUCCESS || comm == MPI_COMM_SELF)
        return rc;
    return mpcrt_mpi_world_barrier();
}
MPCRT_PMPI_ALIAS(Barrier)
