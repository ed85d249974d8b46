# Reduction operations and blocking collectives on intracommunicators (see README.md).
list(APPEND MPI_SOURCES
  mpi/coll/op.c
  mpi/coll/op_kernels.c
  mpi/coll/copy.c
  mpi/coll/meet.c
  mpi/coll/combine.c
  mpi/coll/rooted.c
  mpi/coll/bcast_ring.c
  mpi/coll/allgather.c
  mpi/coll/alltoall.c
  mpi/coll/reduce.c
  mpi/coll/reduce_scatter.c
  mpi/coll/scan.c
  mpi/coll/api_check.c
  mpi/coll/api_coll.c
  mpi/coll/api_reduce.c
  mpi/coll/api_op.c
  mpi/coll/issue.c
  mpi/coll/api_icoll.c
  mpi/coll/api_neighbor.c
  mpi/coll/procs.c
  mpi/coll/hier.c)
# Reductions spend their time in the element loops: at -O2 gcc 12 leaves them scalar (its "very cheap" cost
# model rejects the runtime check that in and inout do not overlap), -O3 vectorizes them.
set_source_files_properties(mpi/coll/op_kernels.c PROPERTIES COMPILE_OPTIONS "$<$<NOT:$<CONFIG:Debug>>:-O3>")
