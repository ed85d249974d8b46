/* Overlap of non-blocking collectives (MPI_Iallreduce, MPI_Ialltoall) with computation: how much of the
 * collective's time is hidden when ranks compute between the call and MPI_Wait without calling MPI (a
 * library that only progresses inside MPI calls hides nothing). Taboada's method (research/seed003 §2.0,
 * the IMB-NBC formula), each time the slowest rank's mean per iteration:
 *   t_comm     Icoll + Wait alone
 *   t_comp     a busy loop calibrated to last about t_comm
 *   t_ovl      Icoll, the loop, Wait
 *   overlap %  = 100 * max(0, min(1, (t_comm + t_comp - t_ovl) / min(t_comm, t_comp)))
 * and OSU's (osu_iallreduce & co., print_stats_nbc), which charges only what the overlapped iteration adds
 * to the computation actually timed inside it (so a computation slowed by progress shows):
 *   overlap_osu % = max(0, 100 - 100 * (t_ovl - t_comp_in_ovl) / t_comm)
 * Two settings: `all` (every rank computes: with one rank per core no core is free for progress) and
 * `one` (only rank 0 computes: the other ranks wait in MPI_Wait, so their cores are free to progress rank
 * 0's part too; the ratio then says whether a computing rank's collective moves without it). With one rank
 * per core, `one` leaves the free core the copies both cores share in t_comm: a collective that is only
 * memory work cannot pass 2 - W1/t_comm (W1: t_comm on one core), whatever the library does.
 * Prints "overlap-COLL-SETTING BYTES PERCENT" (Taboada), "osu-overlap-COLL-SETTING BYTES PERCENT" and
 * "COLL BYTES USEC" (t_comm) from rank 0, or
 * "unsupported" when MPI_Iallreduce reports an error.
 *     overlap [DIVISOR]   (fewer iterations) */
#include <mpi.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

static volatile double sink;

static void compute(long units)
{
    double x = 1.0;
    for (long i = 0; i < units; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

enum coll { IALLREDUCE, IALLTOALL };
static const char *const coll_names[] = {"iallreduce", "ialltoall"};

static void start(enum coll c, double *in, double *out, int count, int size, MPI_Request *request)
{
    if (c == IALLREDUCE)
        MPI_Iallreduce(in, out, count, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, request);
    else
        MPI_Ialltoall(in, count / size, MPI_DOUBLE, out, count / size, MPI_DOUBLE, MPI_COMM_WORLD, request);
}

/* The slowest rank's mean seconds per iteration: variant 0 communicates, 1 computes, 2 both; *comp_s gets
 * the slowest rank's mean seconds inside compute(). */
static double timed(enum coll c, int variant, bool computes, double *in, double *out, int count, int size,
                    long units, int iterations, double *comp_s)
{
    MPI_Request request;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), in_compute = 0;
    for (int i = 0; i < iterations; i++) {
        if (variant != 1)
            start(c, in, out, count, size, &request);
        if (variant != 0 && computes) {
            double c0 = MPI_Wtime();
            compute(units);
            in_compute += MPI_Wtime() - c0;
        }
        if (variant != 1)
            MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    double mine[2] = {(MPI_Wtime() - t0) / iterations, in_compute / iterations}, slowest[2];
    MPI_Allreduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (comp_s)
        *comp_s = slowest[1];
    return slowest[0];
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
    static const int counts[] = {1 << 10, 1 << 17}; /* 8 KiB, 1 MiB */
    for (int c = IALLREDUCE; c <= IALLTOALL; c++) {
        for (int k = 0; k < 2; k++) {
            int count = counts[k] / size * size;
            int bytes = count * (int)sizeof(double);
            int iterations = (bytes <= 65536 ? 200 : 20) / divisor + 2;
            timed(c, 0, true, in, out, count, size, 0, 2, NULL); /* warm-up */
            double t_comm = timed(c, 0, true, in, out, count, size, 0, iterations, NULL);
            long units = (long)(t_comm * units_per_s);
            for (int setting = 0; setting < 2; setting++) {
                bool computes = setting == 0 || rank == 0;
                double t_comp_in_ovl;
                double t_comp = timed(c, 1, computes, in, out, count, size, units, iterations, NULL);
                double t_ovl = timed(c, 2, computes, in, out, count, size, units, iterations, &t_comp_in_ovl);
                double hidden = (t_comm + t_comp - t_ovl) / (t_comm < t_comp ? t_comm : t_comp);
                double overlap = 100.0 * (hidden < 0 ? 0 : hidden > 1 ? 1 : hidden);
                double osu = 100.0 - 100.0 * (t_ovl - t_comp_in_ovl) / t_comm;
                if (rank == 0) {
                    printf("overlap-%s-%s %d %.1f\n", coll_names[c], setting ? "one" : "all", bytes, overlap);
                    printf("osu-overlap-%s-%s %d %.1f\n", coll_names[c], setting ? "one" : "all", bytes,
                           osu < 0 ? 0 : osu);
                }
            }
            if (rank == 0)
                printf("%s %d %.3f\n", coll_names[c], bytes, t_comm * 1e6);
        }
    }
    free(in);
    free(out);
    MPI_Finalize();
    return 0;
}
