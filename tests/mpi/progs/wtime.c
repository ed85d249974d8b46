/* MPI_Wtime and MPI_Wtick (runtime/mpi/core/env.c): every rank reads the clock in a loop (ranks of
 * different VPs at the same time); no reading may go back, and over the loop MPI_Wtime must agree with
 * CLOCK_MONOTONIC within 0.1 % (plus 0.1 ms), each reading bracketed by clock reads so that a preemption
 * widens the bounds instead of failing the test. MPI_Wtick is positive and at most 1 us. */
#include "check.h"

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
    double c0a = clock_s(), w0 = MPI_Wtime(), c0b = clock_s(), last = w0;
    long reads = 0;
    while (clock_s() - c0a < 0.05) {
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
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
