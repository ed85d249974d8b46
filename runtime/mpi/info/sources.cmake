# Info objects, MPI_INFO_ENV and communicator hints (included by runtime/CMakeLists.txt).
list(APPEND MPI_SOURCES mpi/info/info.c mpi/info/api_info.c mpi/info/env.c mpi/info/comm_info.c)
