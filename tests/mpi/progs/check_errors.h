/* Checks of MPI calls for the test programs, on top of check.h (a failed check ends the job). */
#ifndef MPCRT_TESTS_MPI_CHECK_ERRORS_H
#define MPCRT_TESTS_MPI_CHECK_ERRORS_H

#include "check.h"

#define CHECK_OK(call) CHECK((call) == MPI_SUCCESS)

/* An MPI call that must return an error of the given class (the handler in force must return). */
#define CHECK_CLASS(call, expected)                                                                        \
    do {                                                                                                   \
        int check_rc_ = (call), check_class_ = -1;                                                         \
        MPI_Error_class(check_rc_, &check_class_);                                                         \
        if (check_rc_ == MPI_SUCCESS || check_class_ != (expected))                                        \
            fprintf(stderr, "%s returned %d (class %d), expected class %s\n", #call, check_rc_,            \
                    check_class_, #expected);                                                              \
        CHECK(check_rc_ != MPI_SUCCESS && check_class_ == (expected));                                     \
    } while (0)

#endif
