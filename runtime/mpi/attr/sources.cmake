# Keyvals and attributes (included by runtime/CMakeLists.txt).
list(APPEND MPI_SOURCES mpi/attr/attr.c mpi/attr/keyval.c mpi/attr/api_attr.c)
