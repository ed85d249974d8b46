# The MPI tool information interface, MPI_T (see README.md; included by runtime/CMakeLists.txt).
list(APPEND MPI_SOURCES mpi/tools/state.c mpi/tools/cvar.c mpi/tools/category.c mpi/tools/pvar.c
  mpi/tools/event.c mpi/tools/enum.c)
