# Error handlers and user-defined error codes (included by runtime/CMakeLists.txt).
list(APPEND MPI_SOURCES mpi/errhan/errhandler.c mpi/errhan/codes.c)
