/* A burst that fills a TCP connection: rank 0 sends rank 1 forty messages of three sizes (rendezvous,
 * large eager, small) while rank 1 is still asleep, then waits for rank 1's reply, so nothing else goes
 * to rank 1 meanwhile. With small socket buffers (netns.sh sets them) a send is cut short now and then;
 * the rest of that packet must still go out although no later packet pushes it. Rank 1 checks every
 * message's size and bytes. Prints "rank 1: ok" or "rank 1: N bad messages". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { N = 40 };

static int size_of(int i)
{
    if (i == N - 1)
        return 60000; /* the last one eager and large: the likeliest to be cut short */
    return i % 4 == 0 ? (1 << 20) + 7 * i : i % 4 == 1 ? 40000 + i : 1000 + i;
}

int main(int argc, char **argv)
{
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 10, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char *out[N], *in = malloc((1 << 20) + 7 * N);
    for (int i = 0; i < N; i++)
        out[i] = malloc((size_t)size_of(i));
    for (int r = 0; r < rounds; r++) {
        int ack = r;
        if (rank == 0) {
            MPI_Request req[N];
            for (int i = 0; i < N; i++) {
                memset(out[i], (r + i) & 0xff, (size_t)size_of(i));
                MPI_Isend(out[i], size_of(i), MPI_CHAR, 1, i, MPI_COMM_WORLD, &req[i]);
            }
            MPI_Waitall(N, req, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_INT, 1, N, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            usleep(20000);
            for (int i = 0; i < N; i++) {
                MPI_Status st;
                int n;
                MPI_Recv(in, size_of(i), MPI_CHAR, 0, i, MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_CHAR, &n);
                char want = (char)((r + i) & 0xff);
                bad += n != size_of(i) || in[0] != want || in[n - 1] != want || in[n / 2] != want;
            }
            MPI_Send(&ack, 1, MPI_INT, 0, N, MPI_COMM_WORLD);
        }
    }
    if (rank == 1) {
        if (bad)
            printf("rank 1: %d bad messages\n", bad);
        else
            printf("rank 1: ok\n");
    }
    for (int i = 0; i < N; i++)
        free(out[i]);
    free(in);
    MPI_Finalize();
    return bad != 0;
}
