/* MPI_THREAD_MULTIPLE stress: every rank runs THREADS pthreads; thread t of every rank talks only on its
 * own duplicate of MPI_COMM_WORLD. Each thread sends MESSAGES messages with pseudo-random tags to
 * pseudo-random ranks, and receives with MPI_ANY_SOURCE/MPI_ANY_TAG exactly the messages aimed at it
 * (every rank can compute who sends what). Payloads carry (source, thread, sequence, tag) and are
 * checked: right thread, tag matching the status, per-source sequence numbers increasing
 * (non-overtaking). No globals: it runs unprivatized. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { THREADS = 3, MESSAGES = 200, PAYLOAD = 6 };

/* The destination and tag of message i of thread t of rank r: a hash every rank can evaluate. */
static unsigned mix(unsigned r, unsigned t, unsigned i, unsigned salt)
{
    unsigned x = r * 2654435761u ^ t * 40503u ^ i * 2246822519u ^ salt;
    x ^= x >> 15;
    x *= 2246822519u;
    x ^= x >> 13;
    return x;
}

typedef struct {
    int rank, size, thread;
    MPI_Comm comm;
    int errors;
} worker_t;

static void *work(void *arg)
{
    worker_t *w = arg;
    int expected = 0;
    for (int r = 0; r < w->size; r++)
        for (int i = 0; i < MESSAGES; i++)
            expected += (int)(mix((unsigned)r, (unsigned)w->thread, (unsigned)i, 1) % (unsigned)w->size) == w->rank;
    int payload[MESSAGES][PAYLOAD];
    MPI_Request requests[MESSAGES];
    for (int i = 0; i < MESSAGES; i++) {
        int dest = (int)(mix((unsigned)w->rank, (unsigned)w->thread, (unsigned)i, 1) % (unsigned)w->size);
        int tag = (int)(mix((unsigned)w->rank, (unsigned)w->thread, (unsigned)i, 2) % 1000);
        int *p = payload[i];
        p[0] = w->rank, p[1] = w->thread, p[2] = i, p[3] = tag, p[4] = dest, p[5] = ~w->rank;
        MPI_Isend(p, PAYLOAD, MPI_INT, dest, tag, w->comm, &requests[i]);
    }
    int *last_seq = malloc(sizeof(int) * (size_t)w->size);
    for (int r = 0; r < w->size; r++)
        last_seq[r] = -1;
    for (int k = 0; k < expected; k++) {
        int in[PAYLOAD];
        MPI_Status st;
        MPI_Recv(in, PAYLOAD, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, w->comm, &st);
        int ok = st.MPI_SOURCE == in[0] && st.MPI_TAG == in[3] && in[1] == w->thread && in[4] == w->rank &&
                 in[5] == ~in[0] && in[2] > last_seq[in[0]];
        if (!ok && w->errors++ < 5)
            printf("rank %d thread %d: bad message from %d (tag %d): %d %d %d %d %d\n", w->rank, w->thread,
                   st.MPI_SOURCE, st.MPI_TAG, in[0], in[1], in[2], in[3], in[4]);
        last_seq[in[0]] = in[2];
    }
    MPI_Waitall(MESSAGES, requests, MPI_STATUSES_IGNORE);
    free(last_seq);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    worker_t workers[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        workers[t] = (worker_t){rank, size, t, MPI_COMM_NULL, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &workers[t].comm);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, work, &workers[t]);
    int errors = provided != MPI_THREAD_MULTIPLE;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        errors += workers[t].errors;
        MPI_Comm_free(&workers[t].comm);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("rank %d: %s\n", rank, errors ? "ERRORS" : "ok");
    MPI_Finalize();
    return errors != 0;
}
