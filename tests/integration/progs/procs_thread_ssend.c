/* Synchronous sends from several kernel threads per process (MPI_THREAD_MULTIPLE, one rank per process):
 * THREADS pthreads of rank 0 each send ITER one-int MPI_Ssend to rank 1 with the same tag, and THREADS
 * pthreads of rank 1 each receive ITER of them, as MPICH's threads/pt2pt/mt_ssendrecv does. Every send is a
 * rendezvous whose CTS and FIN any polling thread may handle, in either order (pt2pt/remote.c,
 * rndv_send_t): this hung in about half the runs when a FIN was handled before its CTS. Rank 1 checks the
 * count and the sum of what it received. Prints "rank R: ok". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITER = 1024 };

static int rank;
static long sums[THREADS];

static void *work(void *arg)
{
    int t = (int)(long)arg;
    for (int i = 0; i < ITER; i++) {
        int value = t * ITER + i;
        if (rank == 0) {
            MPI_Ssend(&value, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&value, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sums[t] += value;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            printf("rank 0: needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, work, (void *)(long)t);
    long total = 0, want = (long)THREADS * ITER * (THREADS * ITER - 1) / 2;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        total += sums[t];
    }
    int ok = rank == 0 || total == want;
    if (!ok)
        printf("rank 1: received values summing to %ld, want %ld\n", total, want);
    MPI_Barrier(MPI_COMM_WORLD);
    if (ok)
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return !ok;
}
