/* Running out of context ids (runtime/mpi/comm/context.c), run with MPCRT_CONTEXT_IDS set to a small
 * budget: creations fail with MPI_ERR_NO_MEM and MPI_COMM_NULL, on every member at the same creation (in
 * several processes too, where the members agree on one member's proposal), the communicators made before
 * keep working, and duplicates, splits and group creations all stop.
 *     context_ids BUDGET          (errors returned: checks the above)
 *     context_ids BUDGET fatal    (MPI_ERRORS_ARE_FATAL: the job ends with the class as its status) */
#include "check.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_COMMS = 1000 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    CHECK(argc >= 2);
    int budget = atoi(argv[1]);
    bool fatal = argc > 2 && strcmp(argv[2], "fatal") == 0;
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (!fatal)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* Duplicates of MPI_COMM_WORLD until one fails; each takes two ids of some process's budget. */
    MPI_Comm *comms = malloc(sizeof *comms * MAX_COMMS);
    CHECK(comms);
    int made = 0, rc = MPI_SUCCESS;
    while (made < MAX_COMMS) {
        MPI_Comm c = MPI_COMM_WORLD; /* must become MPI_COMM_NULL on failure */
        rc = MPI_Comm_dup(MPI_COMM_WORLD, &c);
        if (rc != MPI_SUCCESS) {
            CHECK(c == MPI_COMM_NULL);
            break;
        }
        comms[made++] = c;
    }
    int eclass = -1;
    MPI_Error_class(rc, &eclass);
    CHECK(eclass == MPI_ERR_NO_MEM);
    CHECK(made >= 1 && made <= budget / 2);

    /* Every member failed at the same creation. */
    int counts[2] = {made, -made}, extremes[2];
    CHECK(MPI_Allreduce(counts, extremes, 2, MPI_INT, MPI_MAX, comms[made - 1]) == MPI_SUCCESS);
    CHECK(extremes[0] == made && -extremes[1] == made);

    /* The others fail too, and the ones made before still carry messages. */
    MPI_Comm c = MPI_COMM_WORLD;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &c) != MPI_SUCCESS && c == MPI_COMM_NULL);
    MPI_Group world_group;
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    c = MPI_COMM_WORLD;
    CHECK(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, 7, &c) != MPI_SUCCESS && c == MPI_COMM_NULL);
    MPI_Group_free(&world_group);
    for (int i = 0; i < made; i++) {
        int token = rank == 0 ? 1000 + i : -1;
        CHECK(MPI_Bcast(&token, 1, MPI_INT, 0, comms[i]) == MPI_SUCCESS);
        CHECK(token == 1000 + i);
        MPI_Comm_free(&comms[i]);
        CHECK(comms[i] == MPI_COMM_NULL);
    }
    free(comms);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
