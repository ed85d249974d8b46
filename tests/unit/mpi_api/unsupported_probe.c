/* Calls functions that are still stubs (chosen at build time from the API table, api_probe.h): an MPI_T
 * stub must return MPI_T_ERR_NOT_SUPPORTED quietly, before MPI_Init; any other stub must end the job under
 * MPI_ERRORS_ARE_FATAL with exit status MPI_ERR_UNSUPPORTED_OPERATION and a message naming the function.
 * `--name` prints the name of that function (expect_unsupported.sh checks the rest). */
#include <stdio.h>
#include <string.h>

#include <mpi.h>

#include "api_probe.h"

int main(int argc, char **argv)
{
#ifndef PROBE_NAME
    (void)argv;
    if (argc > 1) {
        puts("none");
        return 0;
    }
    return 77; /* nothing left to probe */
#else
    if (argc > 1 && strcmp(argv[1], "--name") == 0) {
        puts(PROBE_NAME);
        return 0;
    }
#ifdef PROBE_T_CALL
    int rc = PROBE_T_CALL();
    if (rc != MPI_T_ERR_NOT_SUPPORTED) {
        fprintf(stderr, "%s returned %d, not MPI_T_ERR_NOT_SUPPORTED\n", PROBE_T_NAME, rc);
        return 2;
    }
#endif
    MPI_Init(&argc, &argv);
    PROBE_CALL();
    fprintf(stderr, "%s returned under MPI_ERRORS_ARE_FATAL\n", PROBE_NAME);
    return 3;
#endif
}
