/* Latency of blocking collectives (barrier, bcast, allreduce, alltoall, allgather) with 8 bytes per rank
 * (one double), over all ranks of MPI_COMM_WORLD. Prints "OP RANKS USEC" from rank 0: the slowest rank's
 * mean time per call.
 * With many busy-polling processes on few cores one call can take milliseconds, so the iteration count is
 * not fixed: batches of 1, 2, 4, ... calls run until a batch lasts BUDGET_S (rank 0's clock, announced by a
 * broadcast outside the timed part) or reaches MAX_ITERATIONS; the last batch is the measurement.
 *     coll_latency [BUDGET_MS]     (default 200) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_ITERATIONS 4096

enum op { BARRIER, BCAST, ALLREDUCE, ALLTOALL, ALLGATHER, OPS };
static const char *const op_names[OPS] = {"barrier", "bcast", "allreduce", "alltoall", "allgather"};

static void call(enum op op, double *in, double *out, int iterations)
{
    for (int i = 0; i < iterations; i++) {
        switch (op) {
        case BARRIER:
            MPI_Barrier(MPI_COMM_WORLD);
            break;
        case BCAST:
            MPI_Bcast(in, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            break;
        case ALLREDUCE:
            MPI_Allreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            break;
        case ALLTOALL:
            MPI_Alltoall(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
            break;
        case ALLGATHER:
            MPI_Allgather(in, 1, MPI_DOUBLE, out, 1, MPI_DOUBLE, MPI_COMM_WORLD);
            break;
        default:
            break;
        }
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double budget_s = (argc > 1 ? atof(argv[1]) : 200.0) / 1e3;
    double *in = calloc((size_t)size, sizeof *in), *out = calloc((size_t)size, sizeof *out);
    for (int op = 0; op < OPS; op++) {
        call(op, in, out, 2); /* warm-up: connections, schedules, pages */
        double per_call = 0;
        for (int iterations = 1;; iterations *= 2) {
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            call(op, in, out, iterations);
            double mine = (MPI_Wtime() - t0) / iterations, slowest;
            MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            per_call = slowest;
            if (slowest * iterations >= budget_s || iterations >= MAX_ITERATIONS)
                break;
        }
        if (rank == 0)
            printf("%s %d %.3f\n", op_names[op], size, per_call * 1e6);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
