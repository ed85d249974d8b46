# Sources of the MPI layer beyond the start-up core listed in runtime/CMakeLists.txt (paths relative to
# runtime/). Included by runtime/CMakeLists.txt.
list(APPEND MPI_SOURCES
  mpi/core/handle.c
  mpi/core/memory.c
  mpi/core/session.c
  mpi/core/vpcache.c
  mpi/datatype/address.c
  mpi/datatype/api_create.c
  mpi/datatype/api_pack.c
  mpi/datatype/contents.c
  mpi/datatype/copy.c
  mpi/datatype/darray.c
  mpi/datatype/external32.c
  mpi/datatype/layout.c
  mpi/datatype/lifecycle.c
  mpi/datatype/name.c
  mpi/datatype/predefined.c
  mpi/datatype/query.c
  mpi/datatype/status.c
  mpi/datatype/subarray.c
  mpi/datatype/type.c
  mpi/datatype/walk.c)
