list(APPEND MPI_SOURCES mpi/topo/topo.c mpi/topo/cart.c mpi/topo/dims.c mpi/topo/graph.c mpi/topo/dist_graph.c)
