/* A rank that computes without calling MPI still sees its non-blocking collectives finish when another core
 * is free (DESIGN.md section 4, research/seed003): rank 0 starts an MPI_Iallreduce or MPI_Ialltoall, then
 * only reads its receive buffer (no MPI call) until the whole result is there; the other ranks wait in
 * MPI_Wait, so their cores must run rank 0's part too: its receives, copies and reductions. No timing: the
 * check is whether the result appeared before rank 0 called MPI again; a generous bail-out (seconds of
 * wall time) keeps a failure from hanging. Run on 2 ranks of 2 cores (one rank per core).
 * Also: repeated 1 MiB MPI_Iallreduce calls do not page-fault their scratch memory in afresh every call
 * (runtime/mpi/nbc/scratch.c; before, ~500 minor faults per call, an 8x slowdown). */
#include "coll_check.h"

#include <stdatomic.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BAIL_OUT_S 20

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The library writes the buffer behind our back: a volatile load, so the compiler reads it every time. */
static double peek(const double *p)
{
    return *(const volatile double *)p;
}

/* Spins without MPI until out[i] == expect(i) for every i, or the bail-out: true when the result appeared. */
static int appears(const double *out, int count, double (*expect)(int, int), int n)
{
    double t0 = now_s();
    int i = 0;
    while (i < count) {
        if (peek(&out[i]) == expect(i, n)) {
            i++;
            continue;
        }
        if (now_s() - t0 > BAIL_OUT_S)
            return 0;
    }
    atomic_thread_fence(memory_order_acquire);
    return 1;
}

static double input(int rank, int i)
{
    return (double)(rank + 1) + (double)(i % 97);
}

static double allreduce_expect(int i, int n)
{
    double s = 0;
    for (int r = 0; r < n; r++)
        s += input(r, i);
    return s;
}

static int block; /* elements per block of the alltoall */

/* Rank 0 receives from rank r the block r sent to 0: input(r, j) with j its index in r's send buffer. */
static double alltoall_expect(int i, int n)
{
    (void)n;
    int r = i / block, j = i % block;
    return input(r, j);
}

int main(int argc, char **argv)
{
    check_init(&argc, &argv);
    int me = check_rank, n = check_size;
    static const int counts[] = {1 << 10, 1 << 17}; /* 8 KiB and 1 MiB of doubles */
    for (int k = 0; k < 2; k++) {
        for (int coll = 0; coll < 2; coll++) {
            int count = counts[k] / n * n;
            block = count / n;
            double *in = malloc(sizeof *in * (size_t)count), *out = malloc(sizeof *out * (size_t)count);
            for (int i = 0; i < count; i++) {
                in[i] = input(me, coll ? i % block : i);
                out[i] = -1.0;
            }
            /* For the alltoall, rank r sends block d = input(r, 0..block-1) to every d. */
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Request req;
            if (coll == 0)
                MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            else
                MPI_Ialltoall(in, block, MPI_DOUBLE, out, block, MPI_DOUBLE, MPI_COMM_WORLD, &req);
            double (*expect)(int, int) = coll == 0 ? allreduce_expect : alltoall_expect;
            if (me == 0)
                CHECK(appears(out, count, expect, n),
                      "%s of %d bytes: rank 0's result did not appear while it "
                      "computed without calling MPI",
                      coll == 0 ? "iallreduce" : "ialltoall", (int)(count * sizeof(double)));
            MPI_Wait(&req, MPI_STATUS_IGNORE);
            int bad = 0;
            for (int i = 0; i < count; i++)
                bad += out[i] != (coll == 0 ? allreduce_expect(i, n) : input(i / block, i % block));
            CHECK(bad == 0, "%s of %d bytes: %d wrong elements", coll == 0 ? "iallreduce" : "ialltoall",
                  (int)(count * sizeof(double)), bad);
            free(in);
            free(out);
        }
    }

    /* Scratch memory is reused: minor page faults of the whole process (both ranks) over 20 calls stay
     * well below one 1 MiB buffer's 256 pages per call. */
    int count = (1 << 17) / n * n;
    double *in = calloc((size_t)count, sizeof *in), *out = calloc((size_t)count, sizeof *out);
    struct rusage before, after;
    for (int it = 0; it < 23; it++) {
        if (it == 3) {
            MPI_Barrier(MPI_COMM_WORLD);
            getrusage(RUSAGE_SELF, &before);
        }
        MPI_Request req;
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    getrusage(RUSAGE_SELF, &after);
    long faults = after.ru_minflt - before.ru_minflt;
    if (me == 0)
        CHECK(faults < 20 * 64, "20 calls of a 1 MiB iallreduce took %ld minor page faults", faults);
    free(in);
    free(out);
    return check_finish();
}
