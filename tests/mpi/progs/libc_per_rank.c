/* libc's hidden state is per rank in thread mode, as it is per process otherwise. The random-number
 * generators: ranks seeded differently draw interleaved (a barrier between draws) and each still gets
 * exactly glibc's sequence for its own seed; unseeded ranks all start with glibc's default stream
 * (references come from the reentrant forms on local state). strtok: ranks tokenize their own strings
 * interleaved, and each gets its own tokens. */
#define _GNU_SOURCE
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { DRAWS = 20 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    struct random_data ref;
    char ref_state[128];
    memset(&ref, 0, sizeof ref);
    initstate_r(1, ref_state, sizeof ref_state, &ref); /* the default stream: as if srand(1) */
    int32_t expected;
    random_r(&ref, &expected);
    CHECK(rand() == expected);
    MPI_Barrier(MPI_COMM_WORLD);

    srand(1000 + rank);
    srandom_r(1000 + rank, &ref);
    struct drand48_data ref48;
    memset(&ref48, 0, sizeof ref48);
    srand48(77 * rank);
    srand48_r(77 * rank, &ref48);
    for (int i = 0; i < DRAWS; i++) {
        random_r(&ref, &expected);
        CHECK(rand() == expected);
        double d;
        drand48_r(&ref48, &d);
        CHECK(drand48() == d);
        long l;
        lrand48_r(&ref48, &l);
        CHECK(lrand48() == l);
        MPI_Barrier(MPI_COMM_WORLD); /* the other ranks draw from their streams meanwhile */
    }

    /* Rank r's string: "r.0,r.1;;r.2..." with runs of delimiters, parsed one token per barrier. */
    char text[256] = "", want[16];
    for (int i = 0; i < DRAWS; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), "%s%d.%d", i % 3 ? ",;" : ",", rank, i);
    char *token = strtok(text, ",;");
    for (int i = 0; i < DRAWS; i++) {
        snprintf(want, sizeof want, "%d.%d", rank, i);
        CHECK(token && strcmp(token, want) == 0);
        MPI_Barrier(MPI_COMM_WORLD);
        token = strtok(NULL, ",;");
    }
    CHECK(token == NULL);
    MPI_Finalize();
    return 0;
}
