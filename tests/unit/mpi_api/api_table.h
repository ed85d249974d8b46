/* The MPI API table as the generated api_calls.c describes it (one row per function of functions.def). */
#ifndef MPI_API_TABLE_H
#define MPI_API_TABLE_H

#include <mpi.h>

typedef void (*api_fn)(void);

struct api_entry {
    const char *name; /* "MPI_x" */
    api_fn mpi, pmpi; /* &MPI_x, &PMPI_x */
    int stub;         /* 1 when no source under runtime/mpi defines PMPI_x */
};

extern const struct api_entry api_table[];
extern const int api_table_size;

/* Calls every MPI_x and PMPI_x with zero arguments: compiled and linked, never run. */
void api_call_all(void);

#endif
