/* Communicators created and freed in a loop, each used for point-to-point, collectives and a receive still
 * pending when it is freed: the memory in use must not grow with the number of them (each used to leave a
 * matching bin per peer and a context queue per member behind), and every message must arrive. Each
 * process measures its own heap. Then a message to a member whose queues of the context went with another
 * member's communicator (served_in_turn).
 *     comm_churn [ITERATIONS] */
#include "check.h"

#include <dlfcn.h>
#include <malloc.h>
#include <stdlib.h>

/* Bytes the allocator has handed out and not taken back: AddressSanitizer's allocator when it is the one
 * in use (its mallinfo says nothing), else glibc's. */
static size_t heap_in_use(void)
{
    size_t (*sanitizer_bytes)(void) =
        (size_t(*)(void))dlsym(RTLD_DEFAULT, "__sanitizer_get_current_allocated_bytes");
    if (sanitizer_bytes)
        return sanitizer_bytes();
    return mallinfo2().uordblks;
}

static void churn(int rank, int size, int iteration)
{
    MPI_Comm comm, half;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &comm) == MPI_SUCCESS);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int got = -1, sent = rank * 1000 + iteration % 1000;
    CHECK(MPI_Sendrecv(&sent, 1, MPI_INT, next, 7, &got, 1, MPI_INT, prev, 7, comm, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
    CHECK(got == prev * 1000 + iteration % 1000);

    /* A receive from MPI_ANY_SOURCE and a send posted, then the communicator freed with both pending:
     * they complete normally (MPI 4.0 section 7.4.3), whenever the message comes. */
    int late = -1;
    MPI_Request requests[2];
    CHECK(MPI_Irecv(&late, 1, MPI_INT, MPI_ANY_SOURCE, 9, comm, &requests[0]) == MPI_SUCCESS);
    CHECK(MPI_Isend(&sent, 1, MPI_INT, next, 9, comm, &requests[1]) == MPI_SUCCESS);
    CHECK(MPI_Comm_split(comm, rank % 2, -rank, &half) == MPI_SUCCESS);
    CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS && comm == MPI_COMM_NULL);
    MPI_Status status;
    CHECK(MPI_Wait(&requests[0], &status) == MPI_SUCCESS);
    CHECK(late == sent - rank * 1000 + prev * 1000 && status.MPI_SOURCE == prev && status.MPI_TAG == 9);
    CHECK(MPI_Wait(&requests[1], MPI_STATUS_IGNORE) == MPI_SUCCESS);

    /* Collectives on a split (keys reversed: rank order flips), freed after them. */
    int hsize, hrank, one = 1, sum = 0;
    MPI_Comm_size(half, &hsize);
    MPI_Comm_rank(half, &hrank);
    CHECK(hsize == (size + 1 - rank % 2) / 2);
    CHECK(MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half) == MPI_SUCCESS && sum == hsize);
    int token = rank;
    CHECK(MPI_Bcast(&token, 1, MPI_INT, hsize - 1, half) == MPI_SUCCESS && token == rank % 2);
    CHECK(MPI_Comm_free(&half) == MPI_SUCCESS);
}

/* With members in several processes each member has an object of its own, with the communicator's context:
 * when one member's goes, the empty queues of that context go for every member of its process, also for
 * members still using theirs. Here comm rank 0 serves the others in turn (a probe, then a receive, as
 * MPICH's pt2pt/probe_unexp does), and each leaves and frees its communicator once served, while a member
 * of its process still waits for its turn; (context, 0) was that member's last bin, which went: the next
 * lookup of it found a bin without a context queue and crashed. */
static void served_in_turn(int rank, int size)
{
    MPI_Comm comm;
    CHECK(MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &comm) == MPI_SUCCESS); /* reversed */
    int me;
    MPI_Comm_rank(comm, &me);
    for (int round = 0; round < 20; round++) {
        int x = -1;
        MPI_Status status;
        if (me == 0) {
            for (int p = 1; p < size; p++) {
                CHECK(MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, round, comm, &status) == MPI_SUCCESS);
                CHECK(x == status.MPI_SOURCE);
                CHECK(MPI_Send(&round, 1, MPI_INT, status.MPI_SOURCE, round, comm) == MPI_SUCCESS);
            }
        } else {
            CHECK(MPI_Send(&me, 1, MPI_INT, 0, round, comm) == MPI_SUCCESS);
            CHECK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &status) == MPI_SUCCESS);
            CHECK(status.MPI_SOURCE == 0 && status.MPI_TAG == round);
            CHECK(MPI_Recv(&x, 1, MPI_INT, 0, round, comm, MPI_STATUS_IGNORE) == MPI_SUCCESS && x == round);
        }
    }
    CHECK(MPI_Comm_free(&comm) == MPI_SUCCESS);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int iterations = argc > 1 ? atoi(argv[1]) : 5000;
    for (int i = 0; i < 200; i++)
        churn(rank, size, i);
    MPI_Barrier(MPI_COMM_WORLD);
    size_t before = heap_in_use();
    for (int i = 0; i < iterations; i++)
        churn(rank, size, i);
    MPI_Barrier(MPI_COMM_WORLD);
    size_t after = heap_in_use();
    for (int i = 0; i < 200; i++)
        served_in_turn(rank, size);
    /* Before the fix each iteration left about 100 bytes per member and context behind: megabytes here. */
    long grown = (long)after - (long)before;
    if (rank == 0)
        printf("heap in use: %zu bytes before %d iterations, %+ld after\n", before, iterations, grown);
    CHECK(grown < 64 * 1024);
    MPI_Finalize();
    return 0;
}
