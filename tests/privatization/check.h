/* Shared by the privatization test programs: checks that count failures and report them per rank. */
#ifndef MPCRT_PRIV_CHECK_H
#define MPCRT_PRIV_CHECK_H

#include <stdio.h>

/* Not privatized on purpose: counts every rank's checks. */
extern int priv_checks __attribute__((mpc_shared)), priv_failures __attribute__((mpc_shared));

#define CHECK(rank, cond)                                                                                 \
    do {                                                                                                  \
        __atomic_fetch_add(&priv_checks, 1, __ATOMIC_RELAXED);                                            \
        if (!(cond)) {                                                                                    \
            __atomic_fetch_add(&priv_failures, 1, __ATOMIC_RELAXED);                                      \
            printf("rank %d: %s:%d: check failed: %s\n", (rank), __FILE__, __LINE__, #cond);             \
        }                                                                                                 \
    } while (0)

#endif
