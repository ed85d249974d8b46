/* mpcrt's public extensions: the thread-mode entry point and a few scheduler services for applications.
 * The MPI API is in mpi.h, OpenMP's in omp.h. */
#ifndef MPCRT_H
#define MPCRT_H

#ifdef __cplusplus
extern "C" {
#endif

#define MPCRT_VERSION_STRING "0.1.0"

typedef int (*mpcrt_main_fn)(int argc, char **argv, char **envp);

/* Runs the program as a thread-mode job: starts the scheduler, runs main_fn once per rank of this process
 * (MPCRT_RANKS_PER_PROC, each rank a user-level thread with its own copy of argv) and returns the job's
 * status: the first non-zero status in rank order, else 0. mpcc arranges for this to wrap main. */
int mpcrt_main(int argc, char **argv, char **envp, mpcrt_main_fn main_fn);

/* Let other ranks or threads on this core run (a no-op when none is ready). */
void mpcrt_yield(void);

/* MPICH extensions that the MPICH 4.0.2 ABI exports (MPI 4.1 calls them MPI_Remove_error_*): delete a
 * user-defined error string, code (its string goes too) or class (once it has no codes left). */
int MPIX_Delete_error_string(int errorcode);
int MPIX_Delete_error_code(int errorcode);
int MPIX_Delete_error_class(int errorclass);
int PMPIX_Delete_error_string(int errorcode);
int PMPIX_Delete_error_code(int errorcode);
int PMPIX_Delete_error_class(int errorclass);

#ifdef __cplusplus
}
#endif
#endif
