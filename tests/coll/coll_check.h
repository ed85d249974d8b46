/* Checks for the collective tests: each rank counts its checks and failures (privatized globals: the
 * programs are built with mpcc -fmpc-privatize), prints the first failures with their line, and ends with
 * one line "rank R of N: C checks ok" that run.sh counts. */
#ifndef COLL_CHECK_H
#define COLL_CHECK_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int check_rank, check_size;
static long checks_done, checks_failed;

#define CHECK(cond, ...)                                                                                 \
    do {                                                                                                 \
        checks_done++;                                                                                   \
        if (!(cond)) {                                                                                   \
            if (checks_failed++ < 10) {                                                                  \
                printf("rank %d: %s:%d: check failed: %s: ", check_rank, __FILE__, __LINE__, #cond);     \
                printf(__VA_ARGS__);                                                                     \
                printf("\n");                                                                            \
            }                                                                                            \
        }                                                                                                \
    } while (0)

static inline void check_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &check_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &check_size);
}

static inline int check_finish(void)
{
    if (checks_failed)
        printf("rank %d of %d: %ld of %ld checks failed\n", check_rank, check_size, checks_failed, checks_done);
    else
        printf("rank %d of %d: %ld checks ok\n", check_rank, check_size, checks_done);
    MPI_Finalize();
    return checks_failed ? 1 : 0;
}

#endif
