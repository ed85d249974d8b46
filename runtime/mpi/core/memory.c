/* MPI API: MPI_Alloc_mem and MPI_Free_mem. Memory for communication: in thread mode any memory is as good
 * as any other for the single copy of a transfer, so this is the heap, aligned to a cache line so that
 * buffers do not share lines with unrelated data. The info hints (MPI 4.0 section 9.2) are accepted and
 * not used. */
#include "../mpi_internal.h"

#include <stdlib.h>

enum { ALLOC_ALIGNMENT = 64 };

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    if (size < 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Alloc_mem", MPI_ERR_SIZE, "negative size %lld", (long long)size);
    if (!baseptr)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Alloc_mem", MPI_ERR_ARG, "null baseptr");
    void *memory = NULL;
    /* A zero size still gives a distinct pointer that MPI_Free_mem accepts. */
    if (posix_memalign(&memory, ALLOC_ALIGNMENT, size > 0 ? (size_t)size : 1) != 0)
        return mpcrt_mpi_error(MPI_COMM_WORLD, "MPI_Alloc_mem", MPI_ERR_NO_MEM, "cannot allocate %lld bytes",
                               (long long)size);
    *(void **)baseptr = memory;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Alloc_mem)

int PMPI_Free_mem(void *base)
{
    free(base);
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Free_mem)
