/* MPI API: addresses for datatype displacements: MPI_Get_address (and the MPI-1 MPI_Address), MPI_Aint_add
 * and MPI_Aint_diff. Addresses are plain virtual addresses, so MPI_BOTTOM (0) plus an address is the
 * address, and the arithmetic is two's complement (done on unsigned values: it may wrap, it must not trap). */
#include "datatype_internal.h"

int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Get_address", MPI_ERR_ARG, "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Get_address)

int PMPI_Address(void *location, MPI_Aint *address)
{
    if (!address)
        return mpcrt_mpi_error(DT_ERR_COMM, "MPI_Address", MPI_ERR_ARG, "address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}
MPCRT_PMPI_ALIAS(Address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((unsigned long)base + (unsigned long)disp);
}
MPCRT_PMPI_ALIAS(Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((unsigned long)addr1 - (unsigned long)addr2);
}
MPCRT_PMPI_ALIAS(Aint_diff)
