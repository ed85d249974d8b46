/* Reports a call to an MPI function this version of mpcrt does not implement: the stubs that
 * gen_stubs.cmake generates from functions.def for every function no source defines call these. */
#include "../mpi_internal.h"

int mpcrt_mpi_unsupported(MPI_Comm comm, const char *function)
{
    /* An error tied to no communicator, window or file is raised on MPI_COMM_SELF in the World Model
     * (MPI 4.0 section 2.8). */
    if (comm == MPI_COMM_NULL)
        comm = MPI_COMM_SELF;
    return mpcrt_mpi_error(comm, function, MPI_ERR_UNSUPPORTED_OPERATION,
                           "%s is not implemented in this version of mpcrt", function);
}

int mpcrt_mpi_t_unsupported(const char *function)
{
    /* MPI_T functions return their error code and never invoke an error handler (MPI 4.0 section
     * 15.3.10): tools probe the interface and carry on when a part of it is missing. */
    (void)function;
    return MPI_T_ERR_NOT_SUPPORTED;
}
