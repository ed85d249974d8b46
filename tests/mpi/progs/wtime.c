/* MPI_Wtime and MPI_Wtick (runtime/mpi/core/wtime.c): every rank reads the clock in a loop that spans the
 * TSC calibration (the first 5 ms; ranks of different VPs read at the same time), and each reading must
 * not go back; over the loop, MPI_Wtime must
 * agree with CLOCK_MONOTONIC within 0.1 % (plus 0.1 ms); MPI_Wtick is positive and at most 1 us. With the
 * argument "tsc" the TSC source must be in use by the end (MPI_Wtick is then one tick, under 1 ns at any
 * TSC above 1 GHz); with "clock" it must not (MPI_Wtick is the clock's resolution). */
#include "check.h"

#include <string.h>
#include <time.h>

static double clock_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    const char *expect = argc > 1 ? argv[1] : "any";
    /* Each MPI_Wtime bracketed by clock readings, so that a preemption between them widens the bounds. */
    double c0a = clock_s(), w0 = MPI_Wtime(), c0b = clock_s(), last = w0;
    long reads = 0;
    while (clock_s() - c0a < 0.15) {
        double w = MPI_Wtime();
        CHECK(w >= last);
        last = w;
        reads++;
    }
    CHECK(reads > 1000);
    double c1a = clock_s(), w1 = MPI_Wtime(), c1b = clock_s();
    double dw = w1 - w0;
    CHECK(dw > 0);
    CHECK(dw > (c1a - c0b) * 0.999 - 1e-4 && dw < (c1b - c0a) * 1.001 + 1e-4);
    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick <= 1e-6);
    if (strcmp(expect, "tsc") == 0)
        CHECK(tick < 1e-9);
    if (strcmp(expect, "clock") == 0)
        CHECK(tick >= 1e-9);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
