/* A peer process that dies makes the operations pending with it fail, not hang. Run with 2 processes under
 * mpcrun --on-failure=continue: the first rank of the second process (the victim) waits for a "go" and then
 * dies as argv[1] says ("kill": SIGKILL to itself, "exit": exit(3) before MPI_Finalize); the other ranks of
 * its process wait for a message that never comes. Every rank of the first process has, by then, posted a
 * receive from the victim, an MPI_ANY_SOURCE receive on MPI_COMM_WORLD that nobody sends to, and a
 * rendezvous send to the victim that it never takes; with MPI_ERRORS_RETURN all three must complete with
 * MPI_ERR_PROC_ABORTED, and so must a receive, a send, MPI_Probe, MPI_Iprobe, MPI_Barrier and MPI_Allreduce
 * on MPI_COMM_WORLD started after the death. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { BIG = 1 << 20 };

static int failures;

static void expect_aborted(int rank, const char *what, int rc)
{
    int cls = -1;
    char text[MPI_MAX_ERROR_STRING] = "";
    int len;
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
    }
    if (cls != MPI_ERR_PROC_ABORTED) {
        printf("rank %d: %s returned %d (class %d), expected MPI_ERR_PROC_ABORTED\n", rank, what, rc, cls);
        failures++;
    } else {
        printf("rank %d: %s: %s: ok\n", rank, what, text);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *how = argc > 1 ? argv[1] : "kill";
    int victim = size / 2; /* the first rank of the second process */
    MPI_Comm side;
    MPI_Comm_split(MPI_COMM_WORLD, rank < victim, rank, &side);
    if (rank >= victim) {
        int go;
        if (rank == victim) {
            MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (!strcmp(how, "exit"))
                exit(3);
            raise(SIGKILL);
        }
        MPI_Recv(&go, 1, MPI_INT, 0, 98, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* never sent */
        return 1;
    }
    char *big = calloc(BIG, 1);
    int value = 0, go = 1;
    MPI_Request recv, send, any;
    MPI_Irecv(&value, 1, MPI_INT, victim, 1, MPI_COMM_WORLD, &recv);
    int anything = -1;
    MPI_Irecv(&anything, 1, MPI_INT, MPI_ANY_SOURCE, 5, MPI_COMM_WORLD, &any);
    MPI_Isend(big, BIG, MPI_CHAR, victim, 2, MPI_COMM_WORLD, &send);
    MPI_Barrier(side); /* every survivor has posted both */
    if (rank == 0)
        MPI_Send(&go, 1, MPI_INT, victim, 99, MPI_COMM_WORLD);
    expect_aborted(rank, "MPI_Wait(receive pending from the victim)", MPI_Wait(&recv, MPI_STATUS_IGNORE));
    expect_aborted(rank, "MPI_Wait(rendezvous send pending to the victim)",
                   MPI_Wait(&send, MPI_STATUS_IGNORE));
    expect_aborted(rank, "MPI_Wait(MPI_ANY_SOURCE receive pending on MPI_COMM_WORLD)",
                   MPI_Wait(&any, MPI_STATUS_IGNORE));
    MPI_Status st;
    expect_aborted(rank, "MPI_Probe(the victim, after its death)", MPI_Probe(victim, 6, MPI_COMM_WORLD, &st));
    int flag = 1;
    expect_aborted(rank, "MPI_Iprobe(the victim, after its death)",
                   MPI_Iprobe(victim, 6, MPI_COMM_WORLD, &flag, &st));
    if (flag) {
        printf("rank %d: MPI_Iprobe on the dead victim set flag\n", rank);
        failures++;
    }
    expect_aborted(rank, "MPI_Recv(from the victim, after its death)",
                   MPI_Recv(&value, 1, MPI_INT, victim, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_aborted(rank, "MPI_Send(to the victim, after its death)",
                   MPI_Send(&go, 1, MPI_INT, victim, 4, MPI_COMM_WORLD));
    /* Collectives on a communicator that spans the dead process fail on every member (not only on the
     * leader whose exchange with the dead process failed), and do not hang. */
    expect_aborted(rank, "MPI_Barrier(MPI_COMM_WORLD, after the death)", MPI_Barrier(MPI_COMM_WORLD));
    int in = 1, out = 0;
    expect_aborted(rank, "MPI_Allreduce(MPI_COMM_WORLD, after the death)",
                   MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    /* The survivors still talk to each other. */
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, side);
    if (sum != victim) {
        printf("rank %d: the survivors' allreduce gave %d, expected %d\n", rank, sum, victim);
        failures++;
    }
    free(big);
    printf("rank %d: done, %d failures\n", rank, failures);
    fflush(stdout);
    MPI_Comm_free(&side);
    MPI_Finalize();
    return failures ? 1 : 0;
}
