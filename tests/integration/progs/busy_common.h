/* Shared by the busy-sender programs (procs_busy_sender.c, procs_busy_rounds.c): their start, a clock for the
 * sender's computing loop, and the byte pattern each round sends, which differs by round (salt) so that a
 * byte left over from an earlier round is caught. */
#ifndef PROCS_BUSY_COMMON_H
#define PROCS_BUSY_COMMON_H

#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>

static inline double busy_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline int busy_value(int round, size_t i, size_t salt)
{
    return (int)((i * 2654435761u + (size_t)round * salt) & 0xff);
}

/* MPI_Init, and this rank's number; aborts unless there are 2 ranks and a directory for the report files. */
static inline int busy_init(int *argc, char ***argv, const char *program)
{
    MPI_Init(argc, argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || *argc < 2) {
        fprintf(stderr, "%s: 2 ranks and a directory\n", program);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return rank;
}

#endif
