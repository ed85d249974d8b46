# Communicator sources beyond comm.c and api_comm.c (listed in runtime/CMakeLists.txt).
list(APPEND MPI_SOURCES mpi/comm/meeting.c mpi/comm/comm_create.c mpi/comm/intercomm.c mpi/comm/idup.c mpi/comm/from_group.c
  mpi/comm/procs.c mpi/comm/intercomm_procs.c mpi/comm/context.c)
