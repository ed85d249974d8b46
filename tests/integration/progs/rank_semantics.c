/* Checks what every rank of a thread-mode job must see: its own rank, a private argv, the environment
 * queries, versions and error strings. Prints one line per failed check; returns the number of failures. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                                                        \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            printf("rank %d: check failed: %s\n", rank, #cond);                                            \
            failures++;                                                                                    \
        }                                                                                                  \
    } while (0)

int main(int argc, char **argv)
{
    int rank = -1, size = -1, flag = -1, provided = -1;
    MPI_Initialized(&flag);
    CHECK(flag == 0);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Initialized(&flag);
    CHECK(flag == 1);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(rank >= 0 && rank < size);
    int self_rank, self_size;
    MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
    MPI_Comm_size(MPI_COMM_SELF, &self_size);
    CHECK(self_rank == 0 && self_size == 1);

    /* Each rank owns its argv: rank 0 scribbles on its copy, the others must not see it. */
    CHECK(argc == 2 && strcmp(argv[1], "pristine") == 0);
    if (rank == 0 && argc == 2)
        argv[1][0] = 'X';
    MPI_Barrier(MPI_COMM_WORLD);
    CHECK(rank == 0 || (argc == 2 && strcmp(argv[1], "pristine") == 0));

    MPI_Query_thread(&provided);
    CHECK(provided == MPI_THREAD_MULTIPLE);
    MPI_Is_thread_main(&flag);
    CHECK(flag == 1);
    int version, subversion, len;
    MPI_Get_version(&version, &subversion);
    CHECK(version == 4 && subversion == 0);
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(text, &len);
    CHECK(strstr(text, "mpcrt") != NULL && len == (int)strlen(text));
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(name, &len);
    CHECK(len > 0 && len == (int)strlen(name));
    char err[MPI_MAX_ERROR_STRING];
    MPI_Error_string(MPI_ERR_TRUNCATE, err, &len);
    CHECK(strstr(err, "truncated") != NULL);
    int cls;
    MPI_Error_class(MPI_ERR_UNSUPPORTED_OPERATION, &cls);
    CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION);
    double t0 = MPI_Wtime();
    CHECK(MPI_Wtime() >= t0 && MPI_Wtick() > 0 && MPI_Wtick() < 1e-3);

    MPI_Finalized(&flag);
    CHECK(flag == 0);
    MPI_Finalize();
    MPI_Finalized(&flag);
    CHECK(flag == 1);
    if (failures == 0)
        printf("rank %d of %d: ok\n", rank, size);
    return failures;
}
