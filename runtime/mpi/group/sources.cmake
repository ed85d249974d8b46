list(APPEND MPI_SOURCES mpi/group/group.c mpi/group/api_group.c)
