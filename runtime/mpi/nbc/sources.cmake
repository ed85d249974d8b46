# Collective schedules and their progress (see README.md).
list(APPEND MPI_SOURCES
  mpi/nbc/sched.c
  mpi/nbc/scratch.c
  mpi/nbc/engine.c
  mpi/nbc/defer.c
  mpi/nbc/select.c
  mpi/nbc/intra.c
  mpi/nbc/intra_alg.c
  mpi/nbc/inter.c
  mpi/nbc/neighbor.c)
