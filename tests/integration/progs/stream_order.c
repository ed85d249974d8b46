/* Small-message streams between ranks of one process (thread mode), which go through the receiver's inbox
 * while no receive is posted (pt2pt/match.c): every rank but 0 sends rank 0 ROUNDS batches of small
 * messages, with a synchronous, a medium (eager but larger than a cell) and a large message in each batch
 * (they take the locked path and must not overtake the small ones before them), and every other message
 * of 1000 bytes: streamed, but eight of them fill a sender's ring (pt2pt/stream_ring.h), so that when
 * rank 0 lags the next ones take the locked path, which must drain the ring first. Rank 0 alternates how it
 * receives: late (the senders ran ahead), by probing first, posted ahead of the messages (a posting
 * ends the inbox mode while senders may still push), and late with a window of non-blocking receives
 * completed by MPI_Testall alone (an MPI_Irecv leaves the rings to the later drains of the progress hook,
 * which must match the records with the receives in order). Every message carries its sender and sequence
 * number; rank 0 checks that each sender's messages arrive complete and in order, with MPI_ANY_TAG per
 * source and with MPI_ANY_SOURCE.
 * Then a parked receiver: rank 1 takes a few messages that came before it posted anything (so its senders
 * use the inbox), posts a non-blocking receive (which leaves them on it) and waits for it until it parks;
 * only then does rank 0 send the message. Rank 1 must wake with it (its ULT hands the inbox back before it
 * parks: pt2pt/match.c, mpcrt_match_park), not sleep for ever.
 * Then a blocking receive that starts the streams (its rank is alone on its core, so it will spin and drain
 * them: pt2pt/match.c, stream_to_spinner) but waits longer than its spin: it parks, and must still wake with
 * the message, which its sender then sends by the locked path; the same with MPI_Irecv + MPI_Wait.
 * Last, the receive is waited for by a kernel thread of rank 1 while its ULT computes without MPI: the
 * thread's waits run the progress hooks, which drain the rank's inbox. That case needs ranks 0 and 1 on
 * two cores (the ULT's busy loop would keep rank 0 off a shared one), so it is skipped otherwise.
 * Prints "rank R: ok" or the first failures. */
#define _GNU_SOURCE /* sched_getcpu */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUNDS = 60, BATCH = 64, MEDIUM = 1 << 12, LARGE = 1 << 16, RING_FILLER = 250, MAX_SENDERS = 16 };

static int failures;

static void check(int ok, const char *what, int source, int got, int want)
{
    if (!ok && failures++ < 10)
        printf("rank 0: %s from %d: got %d, want %d\n", what, source, got, want);
}

static void spin(int units)
{
    volatile double x = 1;
    for (int i = 0; i < units; i++)
        x = x * 1.000001;
}

/* Message i of a batch: small, except one synchronous, one large and one medium (the first int is the
 * sequence). */
static int kind_of(int i)
{
    return i == BATCH / 3 ? 1 : i == 2 * BATCH / 3 ? 2 : i == BATCH / 2 ? 3 : i % 2 ? 4 : 0;
}

/* The ints message i of a batch carries. */
static int count_of(int i)
{
    int kind = kind_of(i);
    return kind == 2   ? (int)(LARGE / sizeof(int))
           : kind == 3 ? (int)(MEDIUM / sizeof(int))
           : kind == 4 ? RING_FILLER
                       : 2;
}

static void wait_seconds(double seconds)
{
    double until = MPI_Wtime() + seconds;
    while (MPI_Wtime() < until)
        ;
}

static atomic_int waited;

static void *wait_for_it(void *arg)
{
    MPI_Wait(arg, MPI_STATUS_IGNORE);
    atomic_store(&waited, 1);
    return NULL;
}

/* Rank 0 sends, rank 1 receives; see the header. */
static void parked_receiver(int rank)
{
    enum { EARLY = 4 };
    int value = -1;
    MPI_Request r;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
    if (rank >= 2)
        return;
    MPI_Barrier(pair);
    if (rank == 0) {
        for (int i = 0; i < EARLY; i++)
            MPI_Send(&i, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
        wait_seconds(0.05); /* rank 1 has posted its receive and parked in MPI_Wait */
        int late = 4242;
        MPI_Send(&late, 1, MPI_INT, 1, 8, MPI_COMM_WORLD);
    } else if (rank == 1) {
        wait_seconds(0.02); /* the early messages arrive before any receive is posted */
        for (int i = 0; i < EARLY; i++) {
            MPI_Irecv(&value, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (value != i && failures++ < 10)
                printf("rank 1: early message %d holds %d\n", i, value);
        }
        MPI_Irecv(&value, 1, MPI_INT, 0, 8, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        if (value != 4242 && failures++ < 10)
            printf("rank 1: the message it parked for holds %d, want 4242\n", value);
    }
    /* Receives that start the streams, then park. */
    for (int tag = 12; tag < 14; tag++) {
        MPI_Barrier(pair);
        if (rank == 0) {
            wait_seconds(0.05);
            int late = 100 * tag;
            MPI_Send(&late, 1, MPI_INT, 1, tag, MPI_COMM_WORLD);
        } else if (tag == 12) {
            MPI_Recv(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Irecv(&value, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, &r);
            MPI_Wait(&r, MPI_STATUS_IGNORE);
        }
        if (rank == 1 && value != 100 * tag && failures++ < 10)
            printf("rank 1: the streamed receive it parked in holds %d, want %d\n", value, 100 * tag);
    }
    /* A kernel thread of rank 1 waits; the rank's ULT computes until the thread is done. */
    int cpu = sched_getcpu(), cpus[2] = {-1, -1};
    MPI_Allgather(&cpu, 1, MPI_INT, cpus, 1, MPI_INT, pair);
    if (cpus[0] == cpus[1] || cpus[0] < 0) {
        MPI_Comm_free(&pair);
        return;
    }
    if (rank == 0) {
        for (int i = 0; i < EARLY; i++) /* back on the inbox: nothing is posted yet */
            MPI_Send(&i, 1, MPI_INT, 1, 10, MPI_COMM_WORLD);
        wait_seconds(0.05);
        int late = 4343;
        MPI_Send(&late, 1, MPI_INT, 1, 9, MPI_COMM_WORLD);
    } else if (rank == 1) {
        pthread_t thread;
        wait_seconds(0.02);
        MPI_Irecv(&value, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, &r);
        pthread_create(&thread, NULL, wait_for_it, &r);
        while (!atomic_load(&waited))
            ;
        pthread_join(thread, NULL);
        if (value != 4343 && failures++ < 10)
            printf("rank 1: the message its thread waited for holds %d, want 4343\n", value);
        for (int i = 0; i < EARLY; i++) {
            MPI_Recv(&value, 1, MPI_INT, 0, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (value != i && failures++ < 10)
                printf("rank 1: early message %d (second batch) holds %d\n", i, value);
        }
    }
    MPI_Comm_free(&pair);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2 || size - 1 > MAX_SENDERS) {
        if (rank == 0)
            printf("rank 0: needs 2 to %d ranks\n", MAX_SENDERS + 1);
        MPI_Finalize();
        return 1;
    }
    int *large = calloc(LARGE / sizeof(int), sizeof(int));
    int expected[MAX_SENDERS + 1] = {0};
    for (int round = 0; round < ROUNDS; round++) {
        int mode = round % 4; /* 0: receive late, 1: probe first, 2: post ahead, 3: late, non-blocking */
        if (rank != 0) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (mode == 2)
                spin(20000); /* let rank 0 post first */
            for (int i = 0; i < BATCH; i++) {
                int seq = round * BATCH + i, small[2] = {seq, rank};
                MPI_Request r;
                switch (kind_of(i)) {
                case 1:
                    MPI_Ssend(small, 2, MPI_INT, 0, seq % 5, MPI_COMM_WORLD);
                    break;
                case 2:
                case 3:
                case 4:
                    large[0] = seq;
                    large[count_of(i) - 1] = rank;
                    MPI_Send(large, count_of(i), MPI_INT, 0, seq % 5, MPI_COMM_WORLD);
                    break;
                default:
                    MPI_Isend(small, 2, MPI_INT, 0, seq % 5, MPI_COMM_WORLD, &r);
                    MPI_Wait(&r, MPI_STATUS_IGNORE);
                }
            }
            continue;
        }
        int total = (size - 1) * BATCH;
        if (mode == 2) {
            /* Posted ahead, one per sender at a time (per source, so the order is checkable). */
            MPI_Request *r = malloc(sizeof *r * (size_t)(size - 1));
            int *got = malloc(LARGE * (size_t)(size - 1));
            for (int s = 1; s < size; s++)
                MPI_Irecv(got + (size_t)(s - 1) * (LARGE / sizeof(int)), LARGE / sizeof(int), MPI_INT, s,
                          MPI_ANY_TAG, MPI_COMM_WORLD, &r[s - 1]);
            MPI_Barrier(MPI_COMM_WORLD);
            for (int n = 0; n < total; n++) {
                int index;
                MPI_Status st;
                MPI_Waitany(size - 1, r, &index, &st);
                int s = index + 1, *m = got + (size_t)index * (LARGE / sizeof(int));
                check(st.MPI_SOURCE == s, "source", s, st.MPI_SOURCE, s);
                check(m[0] == expected[s], "sequence (posted ahead)", s, m[0], expected[s]);
                check(st.MPI_TAG == expected[s] % 5, "tag", s, st.MPI_TAG, expected[s] % 5);
                expected[s]++;
                if (expected[s] < (round + 1) * BATCH)
                    MPI_Irecv(m, LARGE / sizeof(int), MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &r[index]);
            }
            free(got);
            free(r);
            continue;
        }
        MPI_Barrier(MPI_COMM_WORLD);
        spin(mode == 0 || mode == 3 ? 200000 : 0);
        if (mode == 3) {
            /* A batch of receives per sender, in its order, then only tests until all completed. */
            int n = size - 1, slot = LARGE / sizeof(int);
            MPI_Request *r = malloc(sizeof *r * (size_t)(n * BATCH));
            int *got = malloc(LARGE * (size_t)(n * BATCH));
            for (int i = 0; i < BATCH; i++)
                for (int s = 1; s < size; s++)
                    MPI_Irecv(got + (size_t)((s - 1) * BATCH + i) * slot, slot, MPI_INT, s, MPI_ANY_TAG,
                              MPI_COMM_WORLD, &r[(s - 1) * BATCH + i]);
            MPI_Status *st = malloc(sizeof *st * (size_t)(n * BATCH));
            for (int done = 0; !done;)
                MPI_Testall(n * BATCH, r, &done, st);
            for (int s = 1; s < size; s++)
                for (int i = 0; i < BATCH; i++) {
                    int *m = got + (size_t)((s - 1) * BATCH + i) * slot, count;
                    MPI_Get_count(&st[(s - 1) * BATCH + i], MPI_INT, &count);
                    check(m[0] == expected[s], "sequence (late, non-blocking)", s, m[0], expected[s]);
                    check(count == count_of(i), "count (late, non-blocking)", s, count, count_of(i));
                    check((count == 2 ? m[1] : m[count - 1]) == s, "payload's sender", s, m[1], s);
                    expected[s]++;
                }
            free(st);
            free(got);
            free(r);
            continue;
        }
        for (int n = 0; n < total; n++) {
            MPI_Status st;
            int source = MPI_ANY_SOURCE;
            if (mode == 1) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                source = st.MPI_SOURCE;
            }
            MPI_Recv(large, LARGE / sizeof(int), MPI_INT, source, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int s = st.MPI_SOURCE, count;
            MPI_Get_count(&st, MPI_INT, &count);
            if (s < 1 || s >= size) {
                check(0, "source out of range", s, s, 1);
                continue;
            }
            check(large[0] == expected[s], "sequence", s, large[0], expected[s]);
            int want = count_of(expected[s] % BATCH);
            check(count == want, "count", s, count, want);
            check((want == 2 ? large[1] : large[want - 1]) == s, "payload's sender", s, large[1], s);
            expected[s]++;
        }
    }
    free(large);
    parked_receiver(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank <= 1 && failures == 0)
        printf("rank %d: ok\n", rank);
    MPI_Finalize();
    return failures != 0;
}
