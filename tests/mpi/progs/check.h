/* Checks for the MPI test programs: a failed check prints the rank, the line and the condition, then ends
 * the job (exit status 1), so a test passes when mpcrun exits 0. No globals: usable without privatization. */
#ifndef MPCRT_TESTS_MPI_CHECK_H
#define MPCRT_TESTS_MPI_CHECK_H

#include <mpi.h>
#include <stdbool.h>
#include <stdio.h>

#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            int check_rank_ = -1;                                                                          \
            MPI_Comm_rank(MPI_COMM_WORLD, &check_rank_);                                                   \
            fprintf(stderr, "rank %d: %s:%d: check failed: %s\n", check_rank_, __FILE__, __LINE__, #cond); \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                  \
        }                                                                                                  \
    } while (0)

/* Compares n ints with the expected ones. */
#define CHECK_INTS(got, expected, n)                                                                       \
    do {                                                                                                   \
        for (int check_i_ = 0; check_i_ < (n); check_i_++)                                                 \
            CHECK((got)[check_i_] == (expected)[check_i_]);                                                \
    } while (0)

#endif
