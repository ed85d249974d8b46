/* Overlap of a non-blocking allreduce with computation: how much of the collective's time is hidden when the
 * rank computes between MPI_Iallreduce and MPI_Wait without calling MPI (a library that only progresses
 * inside MPI calls hides nothing).
 *   t_comm     Iallreduce + Wait alone
 *   t_compute  a busy loop calibrated to last about t_comm
 *   t_both     Iallreduce, the loop, Wait
 *   overlap %  = 100 * (t_comm + t_compute - t_both) / t_comm, clipped to [0, 100]
 * Prints "overlap BYTES PERCENT" and "iallreduce BYTES USEC" from rank 0 (slowest rank's times), or
 * "unsupported" when MPI_Iallreduce reports an error.
 *     overlap [DIVISOR]   (fewer iterations) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

static void compute(long units)
{
    double x = 1.0;
    for (long i = 0; i < units; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* The slowest rank's mean seconds per iteration of one of the three variants. */
static double timed(int variant, double *in, double *out, int count, long units, int iterations)
{
    MPI_Request request;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int i = 0; i < iterations; i++) {
        if (variant != 1)
            MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &request);
        if (variant != 0)
            compute(units);
        if (variant != 1)
            MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    double mine = (MPI_Wtime() - t0) / iterations, slowest;
    MPI_Allreduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int divisor = argc > 1 && atoi(argv[1]) > 0 ? atoi(argv[1]) : 1;
    const int max_count = 1 << 17; /* 1 MiB of doubles */
    double *in = calloc(max_count, sizeof *in), *out = calloc(max_count, sizeof *out);
    MPI_Request probe;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int err = MPI_Iallreduce(in, out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &probe);
    if (err == MPI_SUCCESS)
        err = MPI_Wait(&probe, MPI_STATUS_IGNORE);
    int ok = err == MPI_SUCCESS, all_ok;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank == 0)
            printf("unsupported\n");
        MPI_Finalize();
        return 0;
    }
    /* Units of compute per second, measured once: the loop is then sized to match t_comm. */
    double t0 = MPI_Wtime();
    compute(10000000);
    double units_per_s = 10000000 / (MPI_Wtime() - t0);
    MPI_Bcast(&units_per_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    static const int counts[] = {1, 1024, 1 << 17}; /* 8 B, 8 KiB, 1 MiB */
    for (int c = 0; c < 3; c++) {
        int count = counts[c];
        int bytes = count * (int)sizeof(double);
        int iterations = (bytes <= 65536 ? 200 : 20) / divisor + 2;
        timed(0, in, out, count, 0, 2); /* warm-up */
        double t_comm = timed(0, in, out, count, 0, iterations);
        long units = (long)(t_comm * units_per_s);
        double t_compute = timed(1, in, out, count, units, iterations);
        double t_both = timed(2, in, out, count, units, iterations);
        double overlap = 100.0 * (t_comm + t_compute - t_both) / t_comm;
        overlap = overlap < 0 ? 0 : overlap > 100 ? 100 : overlap;
        if (rank == 0)
            printf("overlap %d %.1f\niallreduce %d %.3f\n", bytes, overlap, bytes, t_comm * 1e6);
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
