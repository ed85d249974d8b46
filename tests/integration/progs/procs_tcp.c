/* The tcp rail's connections on demand and large messages (procs.sh procs_tcp; 4 processes, one rank
 * each, MPCRT_RAILS=tcp). Connections are counted as this process's socket descriptors: only deltas
 * matter (PMIx has its own). 1. Pairs 0-1 and 2-3 exchange data: one connection each. 2. Rank 0 sends
 * 8 MiB to rank 2 and gets 3 MiB from rank 3 (rendezvous in fragments over the sockets): rank 0 gained
 * exactly two connections. 3. Ranks 1 and 3, not yet connected, send to each other at the same moment
 * (both connect, started by rank 0): they end with exactly one connection between them each, and the
 * data is right. */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                                                     \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            printf("rank %d: ", rank);                                                                       \
            printf(__VA_ARGS__);                                                                             \
            printf("\n");                                                                                    \
            failures++;                                                                                      \
        }                                                                                                    \
    } while (0)

static int sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], target[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0 && strncmp(target, "socket:", 7) == 0)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void fill(int *buf, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = seed * 1000003 + (int)i;
}

static size_t wrong(const int *buf, size_t n, int seed)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += buf[i] != seed * 1000003 + (int)i;
    return bad;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        printf("rank %d: needs 4 ranks\n", rank);
        MPI_Finalize();
        return 1;
    }
    enum { SMALL = 1000, BIG = 2 << 20, MEDIUM = 3 << 18 }; /* ints: 4 KB, 8 MiB, 3 MiB */
    int *buf = malloc(BIG * sizeof(int));
    int peer = rank ^ 1;

    /* 1. Pairs. */
    int s0 = sockets();
    if (rank % 2 == 0) {
        fill(buf, SMALL, rank);
        MPI_Send(buf, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(buf, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(wrong(buf, SMALL, peer) == 0, "pair reply from %d is wrong", peer);
    } else {
        MPI_Recv(buf, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(wrong(buf, SMALL, peer) == 0, "pair message from %d is wrong", peer);
        fill(buf, SMALL, rank);
        MPI_Send(buf, SMALL, MPI_INT, peer, 1, MPI_COMM_WORLD);
    }
    int s1 = sockets();
    if (rank == 0) /* the others may already be reached by phase 2 */
        CHECK(s1 - s0 == 1, "one connection expected after talking to one peer, got %d", s1 - s0);

    /* 2. Rank 0 reaches 2 and 3 (large messages both ways). */
    if (rank == 0) {
        fill(buf, BIG, 0);
        MPI_Send(buf, BIG, MPI_INT, 2, 2, MPI_COMM_WORLD);
        MPI_Send(buf, 1, MPI_INT, 3, 2, MPI_COMM_WORLD);
        MPI_Recv(buf, MEDIUM, MPI_INT, 3, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(wrong(buf, MEDIUM, 3) == 0, "3 MiB from rank 3 is wrong");
        MPI_Recv(buf, 1, MPI_INT, 2, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int s2 = sockets();
        CHECK(s2 - s1 == 2, "two new connections expected (to 2 and 3), got %d", s2 - s1);
    } else if (rank == 2) {
        MPI_Status st;
        MPI_Recv(buf, BIG, MPI_INT, 0, 2, MPI_COMM_WORLD, &st);
        int count;
        MPI_Get_count(&st, MPI_INT, &count);
        CHECK(count == BIG && wrong(buf, BIG, 0) == 0, "8 MiB from rank 0 is wrong (count %d)", count);
        MPI_Send(buf, 1, MPI_INT, 0, 3, MPI_COMM_WORLD);
    } else if (rank == 3) {
        MPI_Recv(buf, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fill(buf, MEDIUM, 3);
        MPI_Send(buf, MEDIUM, MPI_INT, 0, 3, MPI_COMM_WORLD);
    }

    /* 3. Ranks 1 and 3 connect to each other at once: both count, tell rank 0 (already connected to
     * both), and start when rank 0 says go. */
    if (rank == 0) {
        int token;
        MPI_Recv(&token, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&token, 1, MPI_INT, 3, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(&token, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
        MPI_Send(&token, 1, MPI_INT, 3, 6, MPI_COMM_WORLD);
    }
    if (rank == 1 || rank == 3) {
        int other = 4 - rank, before = sockets(), token = 0;
        MPI_Send(&token, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int *out = malloc(MEDIUM * sizeof(int));
        fill(out, MEDIUM, rank);
        MPI_Request req[2];
        MPI_Irecv(buf, MEDIUM, MPI_INT, other, 4, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, MEDIUM, MPI_INT, other, 4, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
        CHECK(wrong(buf, MEDIUM, other) == 0, "3 MiB from rank %d (crossed connects) is wrong", other);
        /* The losing connection may still wait in our listener's backlog: it goes at the next polls. */
        int now = sockets();
        for (int i = 0; i < 2000 && now - before != 1; i++) {
            int flag;
            MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            usleep(1000);
            now = sockets();
        }
        CHECK(now - before == 1, "one connection expected between ranks 1 and 3, got %d", now - before);
        free(out);
    }
    free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (!failures)
        printf("rank %d of %d: ok\n", rank, size);
    MPI_Finalize();
    return failures != 0;
}
