/* Communicators created concurrently by several kernel threads of every rank when the members live in
 * several processes (MPI_THREAD_MULTIPLE, mpcrun -p 2), as MPICH's threads/comm/comm_create_threads and
 * comm_create_group_threads do: thread t of each rank creates, over and over, a communicator from its own
 * duplicate of MPI_COMM_WORLD (MPI_Comm_dup, MPI_Comm_create, MPI_Comm_create_group with tag t), checks on it
 * that a ring exchange carries thread t's own values, and calls a barrier (hierarchical: the members of one
 * process meet in shared memory, keyed by the context). Two of these creations agreeing on one context would
 * mix their messages (a wrong value) or their barriers (a hang, ended by mpcrun's timeout): that happened
 * when a context was the largest of the members' proposals and concurrent agreements drew their proposals
 * from each process's counter in different orders. No globals (not privatized). Prints "rank R: ok". */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

enum { THREADS = 4, ITER = 40 };

typedef struct {
    int t, rank, size;
    MPI_Comm parent;
    int errors;
} work_t;

/* A ring on comm: send (t, i, kind, rank) to the next rank, check what the previous one sent. */
static void ring(work_t *w, MPI_Comm comm, int i, int kind)
{
    int me, n;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &n);
    int out[4] = {w->t, i, kind, me}, in[4] = {-1, -1, -1, -1};
    MPI_Sendrecv(out, 4, MPI_INT, (me + 1) % n, 7, in, 4, MPI_INT, (me + n - 1) % n, 7, comm,
                 MPI_STATUS_IGNORE);
    if (in[0] != w->t || in[1] != i || in[2] != kind || in[3] != (me + n - 1) % n) {
        if (w->errors++ < 5)
            printf("rank %d thread %d iteration %d kind %d: received (%d, %d, %d, %d)\n", w->rank, w->t, i,
                   kind, in[0], in[1], in[2], in[3]);
    }
    MPI_Barrier(comm);
}

static void *work(void *arg)
{
    work_t *w = arg;
    MPI_Group group;
    MPI_Comm_group(w->parent, &group);
    for (int i = 0; i < ITER; i++) {
        MPI_Comm comm;
        MPI_Comm_dup(w->parent, &comm);
        ring(w, comm, i, 0);
        MPI_Comm_free(&comm);
        MPI_Comm_create(w->parent, group, &comm);
        ring(w, comm, i, 1);
        MPI_Comm_free(&comm);
        MPI_Comm_create_group(w->parent, group, w->t, &comm);
        ring(w, comm, i, 2);
        MPI_Comm_free(&comm);
    }
    MPI_Group_free(&group);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    work_t w[THREADS];
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) {
        w[t] = (work_t){t, rank, size, MPI_COMM_NULL, 0};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].parent);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, work, &w[t]);
    int errors = provided == MPI_THREAD_MULTIPLE ? 0 : 1;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        errors += w[t].errors;
        MPI_Comm_free(&w[t].parent);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (!errors)
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return errors != 0;
}
