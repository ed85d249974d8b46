/* Rank 1 ends the job abnormally while the others wait in a barrier that cannot complete: "abort"
 * (MPI_Abort 7), "exit" (exit(3) before MPI_Finalize), "kill" (SIGKILL to itself) or "wait" (prints its pid
 * and waits for the test to kill it). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *how = argc > 1 ? argv[1] : "abort";
    /* Every rank has passed start-up (and messages flow) before rank 1 fails. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        if (!strcmp(how, "abort"))
            MPI_Abort(MPI_COMM_WORLD, 7);
        if (!strcmp(how, "exit"))
            exit(3);
        if (!strcmp(how, "kill"))
            raise(SIGKILL);
        printf("pid %d\n", (int)getpid());
        fflush(stdout);
        for (;;)
            pause();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
